import Cinepack
import Foundation
import TestSupport
import Testing

/// `cinepack demo` through the real binary: a small demo clip is a complete cinematic movie that
/// inspect and ffprobe read, and bad options leave nothing behind.
@Suite struct DemoCommandTests {
    static let small = ["--seconds", "1", "--size", "320x180"]

    @Test func demoIsACinematicMovie() throws {
        let dir = try Paths.temporaryDirectory()
        let made = try CLI.run(["demo", "-o", "demo.mov"] + Self.small, in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.hasPrefix("wrote demo.mov: 30 frames, 1.000s, "), "\(made.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["demo.mov"])

        let inspect = try CLI.run(["inspect", "demo.mov", "--json"], in: dir.path)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        let cinematic = try #require(root["cinematic"] as? [String: Any], "inspect does not report a cinematic movie")
        #expect(cinematic["format_version"] as? String == "1")
        #expect(cinematic["frame_count"] as? Int == 30)
        let roles = try #require(cinematic["roles"] as? [String: Any])
        #expect(roles["video"] as? Int == 1 && roles["disparity"] as? Int == 2 && roles["metadata"] as? Int == 3)
        #expect(roles["audio"] is NSNull)
        let subjects = try #require(cinematic["subjects"] as? [[String: Any]])
        #expect(subjects.compactMap { $0["id"] as? Int } == Array(1...9))
        #expect(subjects.first?["type"] as? String == "face")
        let decisions = try #require(cinematic["decisions"] as? [[String: Any]])
        #expect(decisions.first?["frame"] as? Int == 0)
        #expect(decisions.first?["target"] as? String == "detection 1")
        let disparity = try #require(cinematic["disparity"] as? [String: Any])
        #expect(disparity["width"] as? Int == 80 && disparity["height"] as? Int == 45)

        // The text form says the same.
        let text = try CLI.run(["inspect", "demo.mov"], in: dir.path)
        #expect(text.stdout.contains("cinematic\n  format version: 1\n  frames: 30\n"), "\(text.stdout)")
        #expect(text.stdout.contains("    focus metadata: track 3\n"))
        #expect(text.stdout.contains("0.000s (frame 0) target=\"detection 1\" strength=weak"))
    }

    @Test func ffprobeOpensTheDemo() throws {
        guard try Peers.available("ffprobe") else { return }
        let dir = try Paths.temporaryDirectory()
        let made = try CLI.run(["demo", "-o", "demo.mov"] + Self.small, in: dir.path)
        try #require(made.status == 0, "\(made.stderr)")
        let probe = try FF.probe(dir.file("demo.mov"))
        #expect(probe.stderr.isEmpty, "\(probe.stderr)")
        try #require(probe.streams.count == 3)
        #expect(probe.streams[0]["codec_name"] as? String == "png")
        #expect(probe.streams[0]["width"] as? Int == 320 && probe.streams[0]["height"] as? Int == 180)
        #expect(probe.streams[1]["pix_fmt"] as? String == "gray16be")
        #expect(probe.streams[1]["width"] as? Int == 80 && probe.streams[1]["height"] as? Int == 45)
        #expect(probe.streams[2]["codec_tag_string"] as? String == "mebx")
        #expect(probe.streams.allSatisfy { $0["nb_frames"] as? String == "30" })
    }

    @Test func jsonSummaryParses() throws {
        let dir = try Paths.temporaryDirectory()
        let made = try CLI.run(["demo", "-o", "demo.mov", "--json"] + Self.small, in: dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        #expect(summary["output"] as? String == "demo.mov")
        #expect(summary["frames"] as? Int == 30)
        #expect(summary["duration"] as? String == "1s")
        #expect(summary["duration_seconds"] as? Double == 1)
        let size = try FileManager.default.attributesOfItem(atPath: dir.file("demo.mov"))[.size] as? Int
        #expect(summary["bytes"] as? Int == size)
    }

    @Test(arguments: ["320", "abcx10", "320x180x2", "321x180", "10x10", "0x0", "x"])
    func badSizeIsAClearErrorAndWritesNothing(_ size: String) throws {
        let dir = try Paths.temporaryDirectory()
        let fresh = try CLI.run(["demo", "-o", "demo.mov", "--seconds", "1", "--size", size], in: dir.path)
        #expect(fresh.status == 64, "\(fresh.stderr)")
        #expect(fresh.stdout.isEmpty)
        let line = fresh.stderr.split(separator: "\n").first ?? ""
        #expect(line.hasPrefix("Error: ") && line.contains("size") && line.contains(size), "\(fresh.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        let existing = Array("an older movie".utf8)
        try Data(existing).write(to: dir.url.appendingPathComponent("demo.mov"))
        let again = try CLI.run(["demo", "-o", "demo.mov", "--seconds", "1", "--size", size], in: dir.path)
        #expect(again.status == 64)
        #expect(Array(try Data(contentsOf: dir.url.appendingPathComponent("demo.mov"))) == existing)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["demo.mov"])
    }

    /// A failure after every frame was written (the finished file cannot be moved onto a
    /// directory) leaves no partial file and the directory as it was.
    @Test func lateFailureLeavesNoPartialFile() throws {
        let dir = try Paths.temporaryDirectory()
        let target = dir.url.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: target.appendingPathComponent("file"))
        let result = try CLI.run(["demo", "-o", "taken"] + Self.small, in: dir.path)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("taken"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["taken"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["file"])
    }

    @Test func badLengthIsRefused() throws {
        let dir = try Paths.temporaryDirectory()
        let result = try CLI.run(["demo", "-o", "demo.mov", "--seconds", "0", "--size", "320x180"], in: dir.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("0.5…600"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
