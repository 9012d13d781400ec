import Cinepack
import Foundation
import TestSupport
import Testing

/// The audio of a trimmed and speed-changed program, rendered and compared with the source's by
/// ffmpeg: its length and where its samples come from.
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct ProgramAudioRenderTests {
    /// Channel 0 of the first audio stream as 32-bit samples, and the channel count.
    static func samples(_ path: String) throws -> (channel0: [Int32], channels: Int) {
        let probe = try Peers.run(
            "ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels", "-of", "csv=p=0", path])
        let channels = Int(probe.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let raw = try Peers.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "s32le", "-c:a", "pcm_s32le", "-"]).stdout
        let all = raw.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        return (stride(from: 0, to: all.count, by: max(channels, 1)).map { all[$0] }, channels)
    }

    /// The lag in `-range…range` at which `output[at + lag …]` best matches `source[from …]`.
    static func bestLag(_ output: [Int32], at: Int, _ source: [Int32], from: Int, length: Int = 2400, range: Int = 40) -> Int {
        var best = (lag: Int.min, score: -Double.infinity)
        for lag in -range...range {
            var score = 0.0
            for i in 0..<length { score += Double(output[at + lag + i]) * Double(source[from + i]) }
            if score > best.score { best = (lag, score) }
        }
        return best.lag
    }

    @Test func trimmedAndSpeedChangedProgramKeepsItsAudioInStep() throws {
        let dir = try Paths.temporaryDirectory()
        // 3 s of noise (no period to lock onto), 4 channels at 48 kHz.
        let audio = dir.file("audio.mov")
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "anoisesrc=d=3:c=white:seed=7:r=48000:a=0.5",
                "-af", "pan=4.0|c0=c0|c1=0.5*c0|c2=-0.5*c0|c3=0.25*c0", "-c:a", "pcm_s16le",
                audio,
            ])
        var source = ProVideoTests.Source.h264
        source.picture = "testsrc2=size=64x36:rate=24"
        let (_, cinematic) = try ProVideoTests.make(source, in: dir, frames: 72, audio: audio)
        // Program: 0.5 s at 1×, 0.5…1 s at 2× (0.25 s), 2…3 s at 1×: 1.75 s, 42 frames.
        for edit in [
            ["trim", cinematic, "--keep", "0s..1s", "--keep", "2s..3s"], ["speed", cinematic, "--range", "0.5s..1s", "--rate", "2"],
        ] {
            let result = try CLI.run(edit)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", cinematic, "-o", out, "--quality", "preview"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("audio not carried"))

        let rendered = try Self.samples(out)
        let original = try Self.samples(audio)
        #expect(rendered.channels == 4)
        #expect(abs(rendered.channel0.count - 84_000) <= 1, "\(rendered.channel0.count) samples for a 1.75 s program")
        // Before the speed change: program 0.2 s is source 0.2 s.
        #expect(abs(Self.bestLag(rendered.channel0, at: 9_600, original.channel0, from: 9_600)) <= 1)
        // At the cut: program 0.75 s is source 2 s, to the sample.
        #expect(abs(Self.bestLag(rendered.channel0, at: 36_000, original.channel0, from: 96_000)) <= 1)
        // The same with an ffmpeg codec: the audio goes into ffmpeg's own mux.
        let encoded = dir.file("encoded.mov")
        let viaFFmpeg = try CLI.run([
            "render", cinematic, "-o", encoded, "--quality", "preview", "--codec", "h264", "--preset", "ultrafast",
        ])
        #expect(viaFFmpeg.status == 0, "\(viaFFmpeg.stderr)")
        let muxed = try Self.samples(encoded)
        #expect(abs(muxed.channel0.count - 84_000) <= 1)
        #expect(abs(Self.bestLag(muxed.channel0, at: 36_000, original.channel0, from: 96_000)) <= 1)
    }
}
