import Cinepack
import Foundation
import TestSupport
import Testing

/// A library client's export is `cinepack render`'s: the same frames, the same codec choice and
/// refusals, progress after each frame, and cancellation part way leaves no file.
@Suite struct DocumentExportTests {
    @Test func theDocumentsExportIsTheCommandsRender() async throws {
        let clip = try CinematicDocumentTests.clip()
        var doc = try CinematicDocument(path: clip.path)
        try doc.addDecision(target: .object(7), at: try CinematicDocumentTests.t("0.2s"), strength: .strong)
        try doc.setAperture(2)
        try doc.save()
        let mine = clip.dir.file("library.mov"), theirs = clip.dir.file("cli.mov")
        var seen: [Int] = []
        let result = try await doc.export(
            to: OutputTarget(path: mine, overwrite: false), plan: .init(range: try TimeRangeExpression(parsing: "0s..0.2s")),
            export: .init(quality: .preview)
        ) { done, _ in seen.append(done) }
        #expect(result.frames == 6 && seen == Array(1...6) && result.codec == .png && result.part == nil)
        let cli = try CLI.run(["render", clip.path, "-o", theirs, "--range", "0s..0.2s", "--quality", "preview"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let a = try CinematicMovie.open(path: mine), b = try CinematicMovie.open(path: theirs)
        #expect(a.frameCount == 6 && b.frameCount == 6)
        for n in 0..<6 { #expect(try a.picture(n) == b.picture(n), "frame \(n)") }
        // The same refusal as the command line's, typed: the output exists.
        do {
            _ = try await doc.export(to: OutputTarget(path: mine, overwrite: false))
            Issue.record("an existing file was replaced")
        } catch {
            guard case .writeFailed(_, let cause) = error, let output = cause as? OutputError, case .exists = output else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func cancellingPartWayLeavesNoFile() async throws {
        let clip = try CinematicDocumentTests.clip()
        let doc = try CinematicDocument(path: clip.path)
        let out = clip.dir.file("cancelled.mov")
        var last = 0
        do {
            _ = try await doc.export(to: OutputTarget(path: out, overwrite: false), export: .init(quality: .preview)) { done, _ in
                last = done
                // Cancels the task running the export, from its own progress report.
                if done == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            Issue.record("not cancelled")
        } catch {
            guard case .cancelled = error else { Issue.record("\(error)"); return }
        }
        #expect(last >= 2 && last < 120, "\(last)")
        let left = try FileManager.default.contentsOfDirectory(atPath: clip.dir.path).filter { $0.contains("cancelled") }
        #expect(left.isEmpty, "\(left)")
    }
}
