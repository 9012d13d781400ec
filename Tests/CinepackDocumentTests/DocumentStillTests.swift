import Cinepack
import Foundation
import TestSupport
import Testing

/// A still through the document is the command line's `render --at`: the same decoding (ffmpeg
/// for pictures the library does not decode) and every render option.
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct DocumentStillTests {
    @Test func aStillOfAnH264MovieWithLensOptionsIsTheCommandLinesStill() async throws {
        let dir = try Paths.temporaryDirectory("document-still")
        let plain = dir.file("plain.mov")
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=128x72:rate=24", "-frames:v", "3", "-c:v", "libx264", "-qp", "0",
                "-pix_fmt", "yuv420p", plain,
            ])
        try FileManager.default.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: true)
        // Disparity that changes across the picture, so the picture has blur to shape.
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "gradients=size=32x18:rate=24:c0=0x000000:c1=0xffffff:x0=0:y0=0:x1=31:y1=0",
                "-frames:v", "3", "-pix_fmt", "gray16be", dir.file("d/%04d.png"),
            ])
        let cinematic = dir.file("cinematic.mov")
        let packed = try CLI.run([
            "pack", "-o", cinematic, "--video", plain, "--disparity", dir.file("d/%04d.png"), "--disparity-range", "0:4", "--fps", "24",
            "--disparity-fit", "stretch",
        ])
        try #require(packed.status == 0, "\(packed.stderr)")

        let doc = try CinematicDocument(path: cinematic)
        let at = try CinematicDocumentTests.t("1f")
        let options = RenderPlan.Options(fNumber: 1.4, overlay: .peaking, look: ApertureLook(blades: 6))
        let frame = try await doc.renderFrame(at: at, plan: options)
        let still = dir.file("still.png")
        let cli = try CLI.run([
            "render", cinematic, "--at", "1f", "-o", still, "--f-number", "1.4", "--overlay", "peaking", "--blades", "6",
        ])
        try #require(cli.status == 0, "\(cli.stderr)")
        #expect(try frame.pngData() == [UInt8](Data(contentsOf: URL(fileURLWithPath: still))))
        #expect(frame.fNumber == 1.4 && frame.snapped.frame == 1)
        // The options are applied, not ignored.
        let bare = try await doc.renderFrame(at: at, fNumber: 1.4)
        #expect(bare.image != frame.image)
    }
}
