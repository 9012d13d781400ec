import Foundation
import TestSupport
import Testing

/// Small or large hostile inputs under the documented caps (README, "Limits"): each is refused with a
/// clear, short message, or handled, in bounded time and memory, leaving the input byte-identical and
/// no output behind. Inputs are generated here, streamed to disk.
@Suite struct HostileInputTests {
    static let memoryBound = 1 << 30

    /// Two 16×16 frames and disparity maps for `pack`.
    static func packInputs(_ dir: TemporaryDirectory) throws -> [String] {
        try ExtremeValueTests.writeFrames(dir, count: 2)
        return [
            "pack", "-o", dir.file("out.mov"), "--frames", dir.file("f/%04d.png"), "--disparity", dir.file("d/%04d.png"),
            "--disparity-range", "0:4",
        ]
    }

    /// Writes `head`, then `body` `count` times, then `tail`, in 1 MiB pieces.
    static func stream(_ path: String, head: String, body: (Int) -> String, count: Int, tail: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var buffer = Data(head.utf8)
        for i in 0..<count {
            buffer.append(contentsOf: body(i).utf8)
            if buffer.count >= 1 << 20 {
                handle.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        buffer.append(contentsOf: tail.utf8)
        handle.write(buffer)
    }

    static func refused(_ arguments: [String], input: String, mentions: String, seconds: Double = 15) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: input), options: .mappedIfSafe).hashValue
        let r = try MeasuredRun.cinepack(arguments, timeLimit: 60)
        #expect(!r.signalled && r.status == 1, "\(r.status): \(r.stderr.prefix(500))")
        #expect(r.stderr.contains(mentions), "\(r.stderr.prefix(500))")
        #expect(r.stderr.utf8.count < 2000, "the message quotes at most a little of the input: \(r.stderr.utf8.count) bytes")
        #expect(r.seconds < seconds, "took \(r.seconds) s")
        #expect(r.peakMemory <= memoryBound, "peaked at \(r.peakMemory) bytes")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input), options: .mappedIfSafe).hashValue == before)
    }

    /// 35 MB of `{"frame":N}` entries used to take 6 GB (JSONSerialization held every entry; here 13 MB
    /// of them); entries are now checked as they are read, so the first one past the clip ends it.
    @Test func detectionsWithMillionsOfFrameEntries() throws {
        let dir = try Paths.temporaryDirectory()
        let pack = try Self.packInputs(dir)
        let json = dir.file("det.json")
        try Self.stream(json, head: #"{"version": 1, "frames": ["#, body: { #"{"frame":\#($0)},"# }, count: 1_000_000, tail: "{}]}")
        try Self.refused(
            pack + ["--detections", json], input: json, mentions: #"frame entry 3: "frame" 2 is beyond the clip, which has 2 frames"#)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mov")))
    }

    /// A 100 MB `"type"` string took 59 s and was echoed whole into the error; strings are capped at
    /// 4 KiB (no field of the format is longer) and messages quote at most 40 characters.
    @Test func detectionsWithAHugeTypeString() throws {
        let dir = try Paths.temporaryDirectory()
        let pack = try Self.packInputs(dir)
        let json = dir.file("det.json")
        try Self.stream(
            json, head: #"{"version": 1, "frames": [{"frame": 0, "detections": [{"id": 1, "type": ""#,
            body: { _ in String(repeating: "a", count: 1 << 20) }, count: 100,
            tail: #"", "rect": [0.1, 0.1, 0.2, 0.2]}]}]}"#)
        try Self.refused(pack + ["--detections", json], input: json, mentions: "a string longer than 4096 bytes")
    }

    /// A short type string that is not a type name is quoted, cut at 40 characters.
    @Test func unknownTypeNameIsQuotedShort() throws {
        let dir = try Paths.temporaryDirectory()
        let pack = try Self.packInputs(dir)
        let json = dir.file("det.json")
        let name = String(repeating: "b", count: 4000)
        try Self.stream(
            json, head: #"{"version": 1, "frames": [{"frame": 0, "detections": [{"id": 1, "type": ""# + name, body: { _ in "" },
            count: 0, tail: #"", "rect": [0.1, 0.1, 0.2, 0.2]}]}]}"#)
        try Self.refused(pack + ["--detections", json], input: json, mentions: "\"type\" \"\(name.prefix(40))\" is not a detection type")
    }
}
