import Cinepack
import Foundation
import TestSupport
import Testing

/// `render --shard/--frames` and `concat` through the real binary: the joined parts are the
/// one-process render frame for frame (ffmpeg's framemd5 of both), whatever the number of shards;
/// parts that do not belong together are refused and nothing is written.
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct FarmCommandTests {
    /// A small demo clip and its one-process render, shared by the tests of this suite.
    final class Clip: @unchecked Sendable {
        let dir: TemporaryDirectory
        let source: String
        init(seconds: String = "0.5") throws {
            dir = try Paths.temporaryDirectory("farm")
            source = dir.file("clip.mov")
            try Self.run(["demo", "-o", source, "--seconds", seconds, "--size", "128x72"])
        }

        @discardableResult
        static func run(_ arguments: [String]) throws -> CLI.Output {
            let result = try CLI.run(arguments)
            guard result.status == 0 else { throw Failure("cinepack \(arguments.joined(separator: " ")): \(result.stderr)") }
            return result
        }

        /// Renders shards 1…n of `source` (options appended) and returns the part paths.
        func shards(
            _ n: Int, only: [Int]? = nil, codec: String = "png", prefix: String, source: String? = nil, extra: [String] = []
        ) throws -> [String] {
            try (only ?? Array(1...n)).map { k in
                let part = dir.file("\(prefix)-\(k).mov")
                try Self.run(
                    ["render", source ?? self.source, "--shard", "\(k)/\(n)", "-o", part, "--quality", "preview", "--codec", codec] + extra)
                return part
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ text: String) { description = text }
    }

    static let clip = Result { try Clip() }

    /// Every decoded video frame: its timestamp, duration and MD5 (ffmpeg's framemd5 lines).
    static func frames(_ path: String) throws -> [String] {
        let out = try Peers.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"])
        return out.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    static func probe(_ path: String, _ entries: String) throws -> String {
        try Peers.run("ffprobe", ["-v", "error", "-show_entries", entries, "-of", "csv=p=0", path]).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: ["png", "h264"])
    func shardsJoinedAreTheOneProcessRenderForAnyShardCount(codec: String) throws {
        let clip = try Self.clip.get()
        let whole = clip.dir.file("whole-\(codec).mov")
        try Clip.run(["render", clip.source, "-o", whole, "--quality", "preview", "--codec", codec])
        let expected = try Self.frames(whole)
        #expect(expected.count == 15)
        // h264: a sync frame every 30 frames, so the 15-frame program is one segment and every
        // shard count above 1 is refused; a longer clip below covers real h264 shards.
        for n in codec == "png" ? [2, 3] : [1] {
            let parts = try clip.shards(n, codec: codec, prefix: "\(codec)-\(n)")
            let joined = clip.dir.file("joined-\(codec)-\(n).mov")
            try Clip.run(["concat", "-o", joined] + parts.reversed())
            #expect(try Self.frames(joined) == expected, "\(codec), \(n) shards")
            #expect(try Self.probe(joined, "format=duration") == Self.probe(whole, "format=duration"))
        }
    }

    @Test(arguments: ["h264", "hevc"])
    func shardsWithGroupsOfPicturesStartOnSyncFramesAndJoinToTheOneProcessRender(codec: String) throws {
        let clip = try Clip(seconds: "1.2")
        let whole = clip.dir.file("whole.mov")
        try Clip.run(["render", clip.source, "-o", whole, "--quality", "preview", "--codec", codec])
        let parts = try clip.shards(2, codec: codec, prefix: codec)
        for part in parts {
            // The first frame of every part is a key frame (ffprobe's packet flags).
            let flags = try Self.probe(part, "packet=flags").split(separator: "\n")
            #expect(flags.first?.hasPrefix("K") == true, "\(part): \(flags.prefix(2))")
        }
        let joined = clip.dir.file("joined.mov")
        try Clip.run(["concat", "-o", joined, parts[1], parts[0]])
        #expect(try Self.frames(joined) == Self.frames(whole))
        // A part boundary must be a sync-frame boundary.
        let bad = try CLI.run(["render", clip.source, "--frames", "15..36", "--codec", codec, "-o", clip.dir.file("bad.mov")])
        #expect(bad.status != 0 && bad.stderr.contains("frame 15 is not a sync-frame boundary for \(codec)"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: clip.dir.file("bad.mov")))
    }

    @Test func trimsAndSpeedChangesAreFollowedByEveryPart() throws {
        let clip = try Clip(seconds: "1")
        try Clip.run(["trim", clip.source, "--keep", "0.1s..0.9s"])
        try Clip.run(["speed", clip.source, "--range", "0.2s..0.5s", "--rate", "2"])
        let whole = clip.dir.file("whole.mov")
        try Clip.run(["render", clip.source, "-o", whole, "--quality", "preview"])
        let expected = try Self.frames(whole)
        let parts = try clip.shards(3, prefix: "t")
        let joined = clip.dir.file("joined.mov")
        try Clip.run(["concat", "-o", joined] + parts)
        #expect(try Self.frames(joined) == expected)
        #expect(expected.count < 30, "the trim and speed change shorten the program")
        // --frames parts join the same way.
        let a = clip.dir.file("a.mov"), b = clip.dir.file("b.mov")
        try Clip.run(["render", clip.source, "--frames", "0..5", "-o", a, "--quality", "preview"])
        try Clip.run(["render", clip.source, "--frames", "5..\(expected.count)", "-o", b, "--quality", "preview"])
        let joinedFrames = clip.dir.file("joined-frames.mov")
        try Clip.run(["concat", "-o", joinedFrames, a, b])
        #expect(try Self.frames(joinedFrames) == expected)
    }

    @Test func audioIsAddedOnceAndInSync() throws {
        let dir = try Paths.temporaryDirectory()
        let source = try Self.sourceWithAudio(in: dir, frames: 20)
        let whole = dir.file("whole.mov")
        try Clip.run(["render", source, "-o", whole, "--quality", "preview"])
        var parts: [String] = []
        for k in 1...2 {
            parts.append(dir.file("p\(k).mov"))
            try Clip.run(["render", source, "--shard", "\(k)/2", "-o", parts[k - 1], "--quality", "preview"])
            #expect(try Self.probe(parts[k - 1], "stream=codec_type") == "video", "parts carry no audio")
        }
        let silent = try CLI.run(["concat", "-o", dir.file("silent.mov")] + parts)
        #expect(silent.status == 0 && silent.stderr.contains("pass --audio-from"), "\(silent.stderr)")
        let joined = dir.file("joined.mov")
        try Clip.run(["concat", "-o", joined, "--audio-from", source] + parts)
        #expect(try Self.frames(joined) == Self.frames(whole))
        #expect(try Self.probe(joined, "stream=codec_type") == "video\naudio", "one audio track")
        func audio(_ path: String) throws -> String {
            try Peers.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "md5", "-"]).text
        }
        // The same decoded sound as the source and the one-process render, starting at 0.
        #expect(try audio(joined) == audio(source))
        #expect(try audio(joined) == audio(whole))
        let start = try Self.probe(joined, "stream=start_time").split(separator: "\n")
        #expect(start.allSatisfy { Double($0) == 0 }, "\(start)")
        // An audio source other than the parts' source is refused.
        let other = try CLI.run(["concat", "-o", dir.file("other.mov"), "--audio-from", whole] + parts)
        #expect(other.status != 0 && other.stderr.contains("--audio-from"), "\(other.stderr)")

        // A trimmed program: the joined parts carry the program's cut audio, the same sound as the
        // one-process render's, and as long as the program (12 frames at 30 fps).
        try Clip.run(["trim", source, "--keep", "0s..0.4s"])
        let trimmedWhole = dir.file("trimmed-whole.mov")
        try Clip.run(["render", source, "-o", trimmedWhole, "--quality", "preview"])
        var trimmedParts: [String] = []
        for k in 1...2 {
            trimmedParts.append(dir.file("t\(k).mov"))
            try Clip.run(["render", source, "--shard", "\(k)/2", "-o", trimmedParts[k - 1], "--quality", "preview"])
        }
        let trimmedJoined = dir.file("trimmed-joined.mov")
        try Clip.run(["concat", "-o", trimmedJoined, "--audio-from", source] + trimmedParts)
        #expect(try Self.frames(trimmedJoined) == Self.frames(trimmedWhole))
        #expect(try Self.probe(trimmedJoined, "stream=codec_type") == "video\naudio", "one audio track")
        #expect(try audio(trimmedJoined) == audio(trimmedWhole))
        let seconds = try Double(Self.probe(trimmedJoined, "stream=duration").split(separator: "\n").last ?? "") ?? 0
        #expect(abs(seconds - 0.4) < 0.03, "audio lasts \(seconds) s")
    }

    /// A cinematic source with AAC audio (a sine), packed from ffmpeg's test pictures (their
    /// grey levels as depth): `frames` frames at 30 fps.
    static func sourceWithAudio(in dir: TemporaryDirectory, frames: Int, size: String = "128x72") throws -> String {
        try Peers.run(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-frames:v", "\(frames)", dir.file("f%03d.png")])
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=32x18:rate=30", "-frames:v", "\(frames)", "-pix_fmt", "gray16be",
                dir.file("d%03d.png"),
            ])
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(Double(frames) / 30)", "-c:a", "aac", "-f", "mov",
                dir.file("sine.mov"),
            ])
        let source = dir.file("src.mov")
        try Clip.run([
            "pack", "-o", source, "--frames", dir.file("f%03d.png"), "--disparity", dir.file("d%03d.png"), "--disparity-range", "0:2",
            "--fps", "30", "--audio", dir.file("sine.mov"),
        ])
        return source
    }

    /// ProRes (every frame a sync frame) and H.264 (closed one-second groups) parts of a program
    /// with audio, unedited and then trimmed and speed-changed: joined, they are the one-process
    /// render frame for frame and in timestamps, with the program's audio once, the same sound.
    @Test(arguments: ["prores", "h264"])
    func encodedPartsWithTrimsSpeedChangesAndAudioJoinToTheOneProcessRender(codec: String) throws {
        let dir = try Paths.temporaryDirectory("farm-\(codec)")
        // 2.4 s: two H.264 groups of 30 frames and a bit.
        let source = try Self.sourceWithAudio(in: dir, frames: 72, size: "64x36")
        func audio(_ path: String) throws -> String {
            try Peers.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "md5", "-"]).text
        }
        func streams(_ path: String) throws -> [String] {
            try Self.probe(path, "stream=codec_type,start_time,duration").split(separator: "\n").map(String.init)
        }
        for edited in [false, true] {
            if edited {
                // Program: 0…0.5 s, 0.5…1 s at 2× (0.25 s), 1…2.2 s: 1.95 s, 59 frames.
                try Clip.run(["trim", source, "--keep", "0s..2.2s"])
                try Clip.run(["speed", source, "--range", "0.5s..1s", "--rate", "2"])
            }
            let label = "\(codec)\(edited ? ", trimmed and retimed" : "")"
            let whole = dir.file("whole-\(edited).mov")
            try Clip.run(["render", source, "-o", whole, "--quality", "preview", "--codec", codec])
            let expected = try Self.frames(whole)
            #expect(expected.count == (edited ? 59 : 72), "\(label): \(expected.count) frames")
            let n = codec == "prores" ? 3 : 2
            var parts: [String] = []
            for k in 1...n {
                parts.append(dir.file("part-\(edited)-\(k).mov"))
                try Clip.run(["render", source, "--shard", "\(k)/\(n)", "-o", parts[k - 1], "--quality", "preview", "--codec", codec])
                #expect(try Self.probe(parts[k - 1], "stream=codec_type") == "video", "\(label): parts carry no audio")
            }
            let joined = dir.file("joined-\(edited).mov")
            try Clip.run(["concat", "-o", joined, "--audio-from", source] + parts.reversed())
            #expect(try Self.frames(joined) == expected, "\(label): frames, timestamps and durations")
            #expect(try Self.probe(joined, "stream=codec_type") == "video\naudio", "\(label): one audio track")
            #expect(try audio(joined) == audio(whole), "\(label): the one-process render's sound")
            // Both tracks start at 0 and last as long as in the one-process render.
            #expect(try streams(joined) == streams(whole), "\(label)")
            let starts = try Self.probe(joined, "stream=start_time").split(separator: "\n")
            #expect(starts.allSatisfy { Double($0) == 0 }, "\(label): \(starts)")
            let durations = try Self.probe(joined, "stream=duration").split(separator: "\n").compactMap { Double($0) }
            #expect(durations.count == 2 && abs(durations[0] - durations[1]) <= 1.0 / 30, "\(label): \(durations)")
        }
    }

    /// Missing, duplicated, foreign and truncated parts: a clear message, nothing written.
    @Test func partsThatDoNotBelongTogetherAreRefused() throws {
        let clip = try Self.clip.get()
        let parts = try clip.shards(4, prefix: "r")
        let output = clip.dir.file("refused.mov")
        func refused(_ inputs: [String], _ message: String, sourceLine: SourceLocation = #_sourceLocation) throws {
            let result = try CLI.run(["concat", "-o", output] + inputs)
            #expect(result.status == 1, sourceLocation: sourceLine)
            #expect(result.stderr.contains(message), "\(result.stderr)", sourceLocation: sourceLine)
            #expect(!FileManager.default.fileExists(atPath: output), sourceLocation: sourceLine)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: clip.dir.path).filter { $0.contains("refused") }
            #expect(leftovers.isEmpty, "\(leftovers)", sourceLocation: sourceLine)
        }
        let ranges = try (1...4).map { k in try ShardPlan(program: 0..<15, syncInterval: 1).shard(k, of: 4) }
        try refused([parts[0], parts[1], parts[3]], "program frames \(ranges[2].lowerBound)..\(ranges[2].upperBound) are missing")
        try refused([parts[0], parts[1], parts[3]], "shard 3/4")
        try refused([parts[0], parts[1], parts[2]], "at the end of the program")
        let copy = clip.dir.file("r-2-again.mov")
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: parts[1], toPath: copy)
        try refused(parts + [copy], "both hold program frames \(ranges[1].lowerBound)..\(ranges[1].upperBound)")

        // Another source.
        let otherSource = clip.dir.file("other.mov")
        try Clip.run(["demo", "-o", otherSource, "--seconds", "0.5", "--size", "128x72", "--fps", "24"])
        let foreign = try clip.shards(4, only: [2], prefix: "foreign", source: otherSource)
        try refused([parts[0], foreign[0], parts[2], parts[3]], "rendered from another source")
        // The same source after an edit: another EDL.
        let edited = clip.dir.file("edited.mov")
        try? FileManager.default.removeItem(atPath: edited)
        try FileManager.default.copyItem(atPath: clip.source, toPath: edited)
        try Clip.run(["aperture", edited, "--f-number", "2.8"])
        let afterEdit = try clip.shards(4, only: [2], prefix: "edited", source: edited)
        try refused([parts[0], afterEdit[0], parts[2], parts[3]], "another EDL")
        // Other settings.
        let sharper = try clip.shards(4, only: [2], prefix: "f2", extra: ["--f-number", "2"])
        try refused([parts[0], sharper[0], parts[2], parts[3]], "other render settings (f-number=2.0)")
        let wider = try clip.shards(4, only: [2], prefix: "wide", extra: ["--colour-space", "bt2020"])
        try refused([parts[0], wider[0], parts[2], parts[3]], "other render settings (colour-space=bt2020)")

        // Truncated: the last bytes (the moov) cut off.
        let cut = clip.dir.file("r-2-cut.mov")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: parts[1]))
        bytes.removeLast(200)
        try bytes.write(to: URL(fileURLWithPath: cut))
        try refused([parts[0], cut, parts[2], parts[3]], "r-2-cut.mov: not a readable render part")
        // A movie that is not a part (the source itself).
        try refused([parts[0], clip.source], "not a cinepack render part")
        // The inputs are untouched by all this.
        let again = clip.dir.file("ok.mov")
        try Clip.run(["concat", "-o", again] + parts)
        let exists = try CLI.run(["concat", "-o", again] + parts)
        #expect(exists.status == 1 && exists.stderr.contains("already exists; nothing written (use --force"), "\(exists.stderr)")
        let intoInput = try CLI.run(["concat", "-o", parts[0], "--force"] + parts)
        #expect(intoInput.status == 1 && intoInput.stderr.contains("refusing to write"), "\(intoInput.stderr)")
    }

    @Test func badShardRequestsAreExplained() throws {
        let clip = try Self.clip.get()
        let out = clip.dir.file("bad.mov")
        for (arguments, message) in [
            (["--shard", "5/4"], "--shard 5/4: expected K/N with 1 ≤ K ≤ N"),
            (["--shard", "1/16"], "shard 1/16 holds no frames: the program has 15 segments"),
            (["--frames", "10..99"], "--frames 10..99 is outside the program's frames 0..15"),
            (["--frames", "3..3"], "--frames 3..3: expected A..B"),
            (["--shard", "1/2", "--frames", "0..3"], "choose one"),
        ] {
            let result = try CLI.run(["render", clip.source, "-o", out] + arguments)
            #expect(result.status != 0 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
