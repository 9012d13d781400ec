import CinepackEDL
import CinepackFormat
import CinepackRender
import Foundation
import TestSupport
import Testing

/// The aperture a frame is rendered at (spec/format.md §7, spec/edl.md §4): the render's own
/// option, then the EDL's `<aperture>`, then the frame's captured f-number, then the movie default.
/// corpus/cinematic/captured-f2.mov captures f/2.0 on frames 1…14 and nothing on frame 0; its
/// movie default is f/4.5 (values patched in by hand, corpus/manifest.tsv).
@Suite struct RenderPlanFNumberTests {
    static func copy() throws -> (TemporaryDirectory, String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/captured-f2.mov"), toPath: path)
        return (dir, path)
    }

    @Test func capturedFNumberBeatsTheMovieDefault() throws {
        let (dir, path) = try Self.copy()
        _ = dir
        let plan = try RenderPlan(edits: try MovieEdits.open(path: path))
        #expect(plan.fixedFNumber == nil)
        #expect(plan.fNumber(sourceFrame: 0) == 4.5)
        for n in 1..<15 {
            #expect(plan.fNumber(sourceFrame: n) == 2.0, "frame \(n)")
            #expect(plan.lens(sourceFrame: n).fNumber == 2.0)
        }
        #expect(plan.lens.fNumber == 4.5, "the first program frame is frame 0")
    }

    @Test func edlApertureBeatsTheCapturedFNumber() throws {
        let (dir, path) = try Self.copy()
        _ = dir
        var edits = try MovieEdits.open(path: path)
        try edits.edit("aperture f/2.8") { $0.fNumber = 2.8 }
        let plan = try RenderPlan(edits: try MovieEdits.open(path: path))
        #expect(plan.fixedFNumber == 2.8)
        for n in 0..<15 { #expect(plan.fNumber(sourceFrame: n) == 2.8, "frame \(n)") }
        // The render's own option beats both.
        let forced = try RenderPlan(edits: try MovieEdits.open(path: path), options: .init(fNumber: 8))
        for n in 0..<15 { #expect(forced.lens(sourceFrame: n).fNumber == 8, "frame \(n)") }
    }
}
