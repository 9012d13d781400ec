import CinepackContainer
import CinepackFormat
import CinepackRender
import CinepackTime
import Foundation
import TestSupport
import Testing

/// The ffmpeg encoder as a library client uses it (what `cinepack render --codec …` runs): frames
/// in, a verified movie out, typed refusals, nothing left behind. ffprobe, a peer, says what was
/// written.
@Suite struct FFmpegEncoderTests {
    static func frame(_ shade: UInt8) throws -> PixelImage {
        try PixelImage(width: 64, height: 32, layout: .rgb, samples: [UInt8](repeating: shade, count: 64 * 32 * 3))
    }

    @Test(.enabled(if: Peers.shouldRun("ffmpeg") && Peers.shouldRun("ffprobe"), Peers.skipNote("ffmpeg")))
    func framesBecomeAVerifiedMovie() throws {
        let dir = try Paths.temporaryDirectory()
        let out = dir.file("out.mov")
        let settings = try ExportSettings(codec: .h264, colour: .unspecified, inputBitDepth: 8)
        let rate = try #require(FrameRate(frames: 24, per: 1))
        let encoder = try FFmpegEncoder(
            target: OutputTarget(path: out, overwrite: false), settings: settings, syncInterval: 24, width: 64, height: 32, rate: rate,
            audio: nil)
        for shade: UInt8 in [0, 64, 128, 192, 255] { try encoder.write(try Self.frame(shade)) }
        try encoder.finish()
        let probe = try Peers.run(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=codec_name,nb_read_frames,width,height",
                "-of", "csv=p=0", out,
            ])
        #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,64,32,5")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.mov"])  // no partial file left
    }

    @Test(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
    func refusalsAreTypedAndLeaveNothing() throws {
        let dir = try Paths.temporaryDirectory()
        let settings = try ExportSettings(codec: .h264, colour: .unspecified, inputBitDepth: 8)
        let rate = try #require(FrameRate(frames: 24, per: 1))
        let missing = dir.file("no-such-folder/out.mov")
        do {
            _ = try FFmpegEncoder(
                target: OutputTarget(path: missing, overwrite: false), settings: settings, syncInterval: 24, width: 64, height: 32,
                rate: rate, audio: nil)
            Issue.record("an encoder into a missing folder started")
        } catch {
            guard case .output(.noDirectory(let path, _)) = error else { Issue.record("\(error)"); return }
            #expect(path == missing)
        }
        // Abandoned half way: ffmpeg stopped, no file under either name.
        let out = dir.file("abandoned.mov")
        let encoder = try FFmpegEncoder(
            target: OutputTarget(path: out, overwrite: false), settings: settings, syncInterval: 24, width: 64, height: 32, rate: rate,
            audio: nil)
        try encoder.write(try Self.frame(10))
        encoder.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        // Frames of the wrong size: ffmpeg's frame count is off, so the result is refused as incomplete.
        let short = dir.file("short.mov")
        let wrong = try FFmpegEncoder(
            target: OutputTarget(path: short, overwrite: false), settings: settings, syncInterval: 24, width: 64, height: 64, rate: rate,
            audio: nil)
        for shade: UInt8 in [0, 50, 100] { try wrong.write(try Self.frame(shade)) }
        do {
            try wrong.finish()
            Issue.record("a movie with half the frames was placed")
        } catch {
            guard case .incomplete(let path, _, _) = error else { Issue.record("\(error)"); return }
            #expect(path == short)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
