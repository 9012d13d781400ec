import Cinepack
import Foundation
import TestSupport
import Testing

/// The editor's commands on the demo clip through the real binary (issue: refocus, decisions,
/// focus, unfocus, retime, trim, speed, plot, undo). Media bytes never change; bad requests leave
/// the file byte-identical.
@Suite struct EditorCommandTests {
    struct Clip {
        let dir: TemporaryDirectory
        let path: String
    }

    static func clip() throws -> Clip {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        let made = try CLI.run(["demo", "-o", path, "--seconds", "4", "--size", "160x90"])
        #expect(made.status == 0, "\(made.stderr)")
        return Clip(dir: dir, path: path)
    }

    /// Bytes of every video, disparity and metadata sample, in order.
    static func mediaBytes(_ path: String) throws -> [Data] {
        let movie = try Movie.read(path: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var out: [Data] = []
        for track in movie.tracks {
            track.samples.forEach { s in out.append(data[Int(s.offset)..<Int(s.offset) + Int(s.size)]) }
        }
        return out
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func frameRow(_ result: CLI.Output) throws -> [String: Any] {
        let frames = try #require(try json(result.stdout)["frames"] as? [[String: Any]])
        return try #require(frames.first)
    }

    @Test func refocusOnAnObjectArrivesAtItsDisparity() throws {
        let clip = try Self.clip()
        let before = try Self.mediaBytes(clip.path)
        // The dog (detection 7, body, 0.8 D in the demo) at 2.0 s; focus was on person A (0.5 D).
        let result = try CLI.run(["refocus", clip.path, "--at", "2.0s", "--object", "7", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.json(result.stdout)
        #expect(report["frame"] as? Int == 60)
        let start = try #require(report["transition_start_seconds"] as? Double)
        #expect(start < 2.0 && start >= 2.0 - 1.0)

        let at = try Self.frameRow(try CLI.run(["focus", clip.path, "--at", "2.0s", "--json"]))
        let primary = try #require(at["primary"] as? [String: Any])
        #expect(primary["kind"] as? String == "detection" && primary["id"] as? Int == 7)
        let movie = try CinematicMovie.open(path: clip.path)
        let dog = try #require(try movie.metadata(60).detections.first { $0.id == 7 })
        #expect(abs((at["focus_disparity"] as? Double ?? .nan) - Double(dog.disparity)) < 1e-6)
        #expect(at["transition_progress"] is NSNull)

        // The frame before the rack starts is still on the old subject.
        let before60 = Int((start * 30).rounded(.down)) - 1
        let earlier = try Self.frameRow(try CLI.run(["focus", clip.path, "--at", "\(before60)f", "--json"]))
        let earlierPrimary = try #require(earlier["primary"] as? [String: Any])
        #expect(earlierPrimary["id"] as? Int != 7)
        #expect(abs((earlier["focus_disparity"] as? Double ?? .nan) - Double(dog.disparity)) > 0.05)

        let listed = try Self.json(try CLI.run(["decisions", clip.path, "--json"]).stdout)
        let decisions = try #require(listed["decisions"] as? [[String: Any]])
        #expect(decisions.contains { $0["source"] as? String == "user" && $0["frame"] as? Int == 60 && $0["effective"] as? Bool == true })
        #expect(try Self.mediaBytes(clip.path) == before)
    }

    @Test func badRequestsExplainAndLeaveTheFileUnchanged() throws {
        let clip = try Self.clip()
        let original = try Data(contentsOf: URL(fileURLWithPath: clip.path))
        let cases: [([String], String)] = [
            (["refocus", clip.path, "--at", "1.0s", "--object", "99"], "objects at 1.000s (frame 30): 1 (face)"),
            (["refocus", clip.path, "--at", "1.5s", "--object", "9"], "object 9 is not visible at 1.500s"),
            (["refocus", clip.path, "--at", "9s", "--object", "1"], "outside the clip"),
            (["refocus", clip.path, "--at", "1s", "--point", "200,20"], "outside the frame"),
            (["unfocus", clip.path, "--decision", "3"], "no user decision 3"),
            (["undo", clip.path], "nothing to undo"),
            (["retime", clip.path, "--decision", "1", "--to", "2s"], "decision"),
        ]
        for (arguments, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: clip.path)) == original, "\(arguments) changed the file")
        }
        let usage = try CLI.run(["refocus", clip.path, "--at", "1s"])
        #expect(usage.status == 64)
        let negative = try CLI.run(["aperture", clip.path, "--f-number", "-1"])
        #expect(negative.status == 64)
        #expect(try Data(contentsOf: URL(fileURLWithPath: clip.path)) == original)
    }

    @Test func pointOnEmptySpaceBecomesATrackedCustomDetection() throws {
        let clip = try Self.clip()
        // Upper right: the brick wall, where no detection is.
        let result = try CLI.run(["refocus", clip.path, "--at", "1.0s", "--point", "0.9,0.12", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.json(result.stdout)
        let trackID = try #require(report["custom_track"] as? Int)
        #expect(trackID >= 1_000_000)
        let edl = try EditDecisionList.parse(Array(try CLI.run(["edl", "export", clip.path]).stdout.utf8), source: "export")
        let track = try #require(edl.detectionTracks.first { $0.id == UInt32(trackID) })
        #expect(track.kind == .custom)
        #expect(track.samples.first?.frame == 30)
        #expect(track.samples.count > 1)
    }

    @Test func retimeTrimSpeedAndUndo() throws {
        let clip = try Self.clip()
        #expect(try CLI.run(["refocus", clip.path, "--at", "1.0s", "--object", "4"]).status == 0)
        #expect(try CLI.run(["refocus", clip.path, "--at", "2.0s", "--object", "1"]).status == 0)
        let moved = try CLI.run(["retime", clip.path, "--decision", "1", "--to", "1.5s", "--json"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let moves = try #require(try Self.json(moved.stdout)["moves"] as? [[String: Any]])
        #expect(moves.first?["to_frame"] as? Int == 45)
        let shifted = try CLI.run(["retime", clip.path, "--shift", "+0.5s", "--range", "1s..3s", "--json"])
        #expect(shifted.status == 0, "\(shifted.stderr)")
        #expect((try Self.json(shifted.stdout)["moves"] as? [[String: Any]])?.count == 2)
        let trimmed = try CLI.run(["trim", clip.path, "--keep", "0s..2s", "--json"])
        #expect(trimmed.status == 0)
        let inactive = try #require(try Self.json(trimmed.stdout)["inactive_decisions"] as? [[String: Any]])
        #expect(inactive.count == 2)  // decisions now at 2.0 s and 2.5 s lie outside [0 s, 2 s): reported, kept
        let sped = try CLI.run(["speed", clip.path, "--range", "0s..1s", "--rate", "2", "--json"])
        #expect(sped.status == 0, "\(sped.stderr)")
        #expect(try Self.json(sped.stdout)["output_duration"] as? String != nil)
        let edl = try EditDecisionList.parse(Array(try CLI.run(["edl", "export", clip.path]).stdout.utf8), source: "export")
        #expect(edl.decisions.count == 2 && edl.sourceRanges.count == 1 && edl.speedSegments.count == 1)
        #expect(try CLI.run(["undo", clip.path]).status == 0)
        let undone = try EditDecisionList.parse(Array(try CLI.run(["edl", "export", clip.path]).stdout.utf8), source: "export")
        #expect(undone.speedSegments.isEmpty && undone.sourceRanges.count == 1)
    }

    @Test func focusTableAndPlot() throws {
        let clip = try Self.clip()
        let csv = try CLI.run(["focus", clip.path, "--csv"])
        #expect(csv.status == 0)
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.first == "frame,time_seconds,primary,secondary,focus_disparity,transition_progress,strength")
        #expect(lines.count == 121)
        let svgPath = clip.dir.file("focus.svg")
        #expect(try CLI.run(["plot", clip.path, "-o", svgPath]).status == 0)
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("polyline") && svg.hasSuffix("</svg>\n"))
        if try Peers.available("xmllint") {
            #expect(try Peers.run("xmllint", ["--noout", svgPath], allowFailure: true).status == 0)
        }
    }
}
