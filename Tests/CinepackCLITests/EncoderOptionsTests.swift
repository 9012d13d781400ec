import Cinepack
import Foundation
import TestSupport
import Testing

/// The ffmpeg codecs' options reach the encoder, and the ones that cannot apply are refused with
/// nothing written: DNxHR HQX and its smallest size, `--crf`/`--bitrate` as written into the
/// H.264 stream by x264 itself, `--pix-fmt`, and rate control refused for farm parts.
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct EncoderOptionsTests {
    static func probe(_ path: String) throws -> String {
        try Peers.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,profile,pix_fmt", "-of", "csv=p=0", path]
        ).text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// x264's settings, as it writes them into an SEI message of the first frame.
    static func x264Options(_ path: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = String(decoding: bytes.map { $0 >= 32 && $0 < 127 ? $0 : 10 }, as: UTF8.self)
        return text.split(separator: "\n").first { $0.contains("x264 - core") }.map(String.init) ?? ""
    }

    @Test func dnxhrBitrateCrfAndPixelFormatReachTheEncoder() throws {
        let dir = try Paths.temporaryDirectory("encoder-options")
        var source = ProVideoTests.Source.hlg
        source.picture = "testsrc2=size=256x128:rate=24"
        let (_, cinematic) = try ProVideoTests.make(source, in: dir, frames: 3)
        func render(_ name: String, _ options: [String]) throws -> String {
            let out = dir.file(name)
            let result = try CLI.run(["render", cinematic, "-o", out, "--quality", "preview"] + options)
            #expect(result.status == 0, "\(options): \(result.stderr)")
            return out
        }
        #expect(try Self.probe(try render("dnxhr.mov", ["--codec", "dnxhr"])) == "dnxhd,DNXHR HQX,yuv422p10le")
        #expect(try Self.probe(try render("4444.mov", ["--codec", "prores4444"])).hasPrefix("prores,4444"))

        let crf = try render("crf.mov", ["--codec", "h264", "--crf", "23", "--preset", "ultrafast"])
        let crfOptions = try Self.x264Options(crf)
        #expect(crfOptions.contains("rc=crf") && crfOptions.contains("crf=23.0"), "\(crfOptions)")
        let abr = try render("abr.mov", ["--codec", "h264", "--bitrate", "300k", "--preset", "ultrafast"])
        let abrOptions = try Self.x264Options(abr)
        #expect(abrOptions.contains("rc=abr") && abrOptions.contains("bitrate=300"), "\(abrOptions)")
        // The default: a constant quantizer in closed one-second groups (farm parts join exactly).
        let cqp = try Self.x264Options(try render("cqp.mov", ["--codec", "h264", "--preset", "ultrafast"]))
        #expect(cqp.contains("rc=cqp") && cqp.contains("keyint=24") && cqp.contains("bframes=0"), "\(cqp)")
        #expect(
            try Self.probe(try render("444.mov", ["--codec", "h264", "--pix-fmt", "yuv444p10le", "--preset", "ultrafast"]))
                == "h264,High 4:4:4 Predictive,yuv444p10le")
    }

    @Test func optionsThatCannotApplyAreRefusedAndNothingIsWritten() throws {
        let dir = try Paths.temporaryDirectory("encoder-refusals")
        let (_, cinematic) = try ProVideoTests.make(.h264, in: dir, frames: 2)  // 128×72
        let out = dir.file("out.mov")
        for (options, message) in [
            (["--codec", "dnxhr"], "needs pictures of at least 256×120; this movie is 128×72"),
            (["--codec", "prores", "--crf", "20"], "--crf does not apply to --codec prores"),
            (["--codec", "png", "--pix-fmt", "rgb24"], "--pix-fmt does not apply to --codec png"),
            (["--codec", "h264", "--bitrate", "fast"], "--bitrate fast: expected a number"),
            (["--codec", "h264", "--crf", "20", "--shard", "1/1"], "rate control (--crf, --bitrate) looks across groups of pictures"),
        ] {
            let result = try CLI.run(["render", cinematic, "-o", out] + options)
            #expect(result.status != 0 && result.stderr.contains(message), "\(options): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(options)")
        }
    }
}
