import Cinepack
import Foundation
import TestSupport
import Testing

/// A 4-channel ambisonic source keeps its channel layout through a trimmed and retimed render:
/// the source's `chan` box is written here byte by byte (CoreAudio's HOA ACN/SN3D tag for 4
/// channels), and the rendered movie's audio sample entry must carry the same bytes, whether
/// cinepack writes the movie (PNG) or ffmpeg muxes it (H.264).
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct AmbisonicLayoutRenderTests {
    /// QTFF `chan`: size 24, version/flags 0, mChannelLayoutTag kAudioChannelLayoutTag_HOA_ACN_SN3D
    /// (190 << 16) | 4 channels, mChannelBitmap 0, no channel descriptions.
    static let hoaChan: [UInt8] =
        [0, 0, 0, 24] + Array("chan".utf8) + [0, 0, 0, 0] + [0x00, 0xBE, 0x00, 0x04] + [0, 0, 0, 0] + [0, 0, 0, 0]

    static func channelLayout(_ path: String) throws -> [UInt8]? {
        let source = try FileByteSource(path: path)
        let movie = try Movie.read(source: source)
        let audio = try #require(movie.tracks.first { $0.kind == .audio }, "\(path) has no audio")
        return try ChannelLayoutWriter.channelLayoutBox(of: audio, in: source)
    }

    static func ffprobeLayout(_ path: String) throws -> String {
        try Peers.run(
            "ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channel_layout", "-of", "csv=p=0", path]
        )
        .text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func trimmedAndRetimedRenderKeepsTheAmbisonicLabel() throws {
        let dir = try Paths.temporaryDirectory("ambisonic")
        let audio = dir.file("audio.mov")
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "anoisesrc=d=1:c=white:seed=7:r=48000:a=0.5",
                "-af", "pan=4.0|c0=c0|c1=0.5*c0|c2=-0.5*c0|c3=0.25*c0", "-c:a", "pcm_s16le", audio,
            ])
        // ffmpeg labels 4 channels with a speaker layout ("4.0"); the phone's label replaces it.
        #expect(try Self.channelLayout(audio) != Self.hoaChan)
        try ChannelLayoutWriter.set(Self.hoaChan, inFileAt: audio)
        #expect(try Self.channelLayout(audio) == Self.hoaChan)
        // ffprobe reads the label too: a layout it has no name for is no longer "4.0".
        let sourceLayout = try Self.ffprobeLayout(audio)
        #expect(sourceLayout != "4.0")
        var source = ProVideoTests.Source.h264
        source.picture = "testsrc2=size=64x36:rate=24"
        let (_, cinematic) = try ProVideoTests.make(source, in: dir, frames: 24, audio: audio)
        #expect(try Self.channelLayout(cinematic) == Self.hoaChan)
        for edit in [
            ["trim", cinematic, "--keep", "0s..0.5s", "--keep", "0.75s..1s"],
            ["speed", cinematic, "--range", "0.25s..0.5s", "--rate", "2"],
        ] {
            let result = try CLI.run(edit)
            #expect(result.status == 0, "\(result.stderr)")
        }
        // Program: 0.25 s at 1×, 0.25 s at 2× (0.125 s), 0.25 s at 1×: 0.625 s = 30 000 samples.
        for codec in ["png", "h264"] {
            let out = dir.file("out-\(codec).mov")
            let result = try CLI.run(["render", cinematic, "-o", out, "--quality", "preview", "--codec", codec])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.channelLayout(out) == Self.hoaChan, "\(codec)")
            // Our inspector names it; ffprobe still finds 4 channels and the program's length.
            let inspected = try CLI.run(["inspect", out, "--json"])
            #expect(inspected.stdout.contains("ambisonic ACN/SN3D"), "\(codec): \(inspected.stdout.prefix(400))")
            let probe = try Peers.run(
                "ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels,duration_ts", "-of", "csv=p=0", out]
            ).text.trimmingCharacters(in: .whitespacesAndNewlines)
            let fields = probe.split(separator: ",").compactMap { Int($0) }
            #expect(fields.first == 4, "\(codec): \(probe)")
            #expect(try Self.ffprobeLayout(out) == sourceLayout, "\(codec)")
            #expect(abs((fields.last ?? 0) - 30_000) <= 1, "\(codec): \(probe)")
        }
        // Farm parts joined with the program's audio: the same label.
        let parts = try (1...2).map { k in
            let part = dir.file("part-\(k).mov")
            let result = try CLI.run(["render", cinematic, "--shard", "\(k)/2", "-o", part, "--quality", "preview"])
            #expect(result.status == 0, "\(result.stderr)")
            return part
        }
        let joined = dir.file("joined.mov")
        let concat = try CLI.run(["concat", "-o", joined, "--audio-from", cinematic] + parts)
        #expect(concat.status == 0, "\(concat.stderr)")
        #expect(try Self.channelLayout(joined) == Self.hoaChan)
    }
}
