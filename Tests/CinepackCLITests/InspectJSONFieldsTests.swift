import Foundation
import TestSupport
import Testing

/// The JSON of `inspect` (its `cinematic` section), `decisions` and `focus` has exactly the fields
/// spec/inspect-json.md documents, with the documented types; user decisions are numbered from 1.
@Suite struct InspectJSONFieldsTests {
    /// A 6 s demo (racks, a low-light span) with one strong user decision at 1 s.
    static func movie() throws -> (TemporaryDirectory, String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        let made = try CLI.run(["demo", "-o", path, "--seconds", "6", "--size", "128x72"])
        try #require(made.status == 0, "\(made.stderr)")
        let decided = try CLI.run(["refocus", path, "--at", "1s", "--object", "4", "--strong"])
        try #require(decided.status == 0, "\(decided.stderr)")
        return (dir, path)
    }

    static func json(_ arguments: [String]) throws -> [String: Any] {
        let result = try CLI.run(arguments)
        try #require(result.status == 0, "\(arguments): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    func keys(_ object: Any?) -> Set<String> { Set((object as? [String: Any])?.keys.map { $0 } ?? []) }

    @Test func cinematicSectionHasTheDocumentedFields() throws {
        let (dir, path) = try Self.movie()
        _ = dir
        let root = try Self.json(["inspect", path, "--json"])
        #expect(keys(root) == ["file", "movie", "tracks", "warnings", "cinematic"])
        let c = try #require(root["cinematic"] as? [String: Any])
        #expect(
            keys(c) == [
                "format_version", "frame_count", "roles", "disparity", "lens", "captured_f_number", "subjects", "decisions",
                "scene_status",
            ])
        #expect(c["format_version"] is String && c["frame_count"] as? Int == 180)
        #expect(keys(c["roles"]) == ["video", "disparity", "metadata", "audio"])
        #expect(keys(c["disparity"]) == ["width", "height", "minimum", "maximum", "step"])
        #expect(
            keys(c["lens"]) == [
                "focal_length_35mm", "f_number_default", "f_number_minimum", "f_number_maximum", "max_disparity_rate",
                "min_transition", "max_transition", "gap_bridge", "weak_suppression",
            ])
        let subjects = try #require(c["subjects"] as? [[String: Any]])
        #expect(!subjects.isEmpty)
        let subjectFields: Set = ["id", "type", "type_number", "first_seconds", "last_seconds", "first_frame", "last_frame", "frames_seen"]
        for s in subjects {
            let group = (s["group"] as? Int).map { $0 != 0 } ?? false
            #expect(keys(s) == subjectFields.union(group ? ["group"] : []), "\(s)")
            #expect(s["type"] is String && s["type_number"] is Int)
        }
        #expect(subjects.map { $0["id"] as? Int ?? 0 } == subjects.map { $0["id"] as? Int ?? 0 }.sorted())
        let decisions = try #require(c["decisions"] as? [[String: Any]])
        #expect(!decisions.isEmpty)
        for d in decisions { #expect(keys(d) == ["frame", "seconds", "target", "strong"] && d["strong"] is Bool) }
        let spans = try #require(c["scene_status"] as? [[String: Any]])
        #expect(spans.contains { $0["status"] as? String == "not-enough-light" })
        for s in spans { #expect(keys(s) == ["status", "first_seconds", "last_seconds", "first_frame", "last_frame"]) }
    }

    @Test func decisionsHaveTheDocumentedFieldsAndOneBasedUserIndices() throws {
        let (dir, path) = try Self.movie()
        _ = dir
        let root = try Self.json(["decisions", path, "--json"])
        #expect(keys(root) == ["file", "decisions"])
        let rows = try #require(root["decisions"] as? [[String: Any]])
        let required: Set = ["source", "index", "time", "time_seconds", "frame", "target", "strength", "effective"]
        var effectiveSeen = 0
        for row in rows {
            let effective = try #require(row["effective"] as? Bool)
            var expected = required
            if !effective { expected.insert("reason") }
            if effective && effectiveSeen > 0 { expected.formUnion(["transition_start_seconds", "transition_seconds"]) }
            if effective { effectiveSeen += 1 }
            #expect(keys(row) == expected, "\(row)")
            #expect(["captured", "user", "revert"].contains(row["source"] as? String ?? ""))
            if row["source"] as? String == "user" {
                #expect(row["index"] as? Int == 1, "the one user decision is number 1")
            } else {
                #expect(row["index"] is NSNull)
            }
            try checkTarget(row["target"])
        }
        #expect(rows.contains { $0["source"] as? String == "user" && $0["frame"] as? Int == 30 })
        #expect(rows.contains { $0["reason"] != nil }, "the strong decision suppresses later captured ones")
    }

    @Test func focusFramesHaveTheDocumentedFields() throws {
        let (dir, path) = try Self.movie()
        _ = dir
        let all = try Self.json(["focus", path, "--json"])
        #expect(keys(all) == ["file", "frames"])
        let frames = try #require(all["frames"] as? [[String: Any]])
        #expect(frames.count == 180)
        let fields: Set = [
            "frame", "time", "time_seconds", "primary", "secondary", "focus_disparity", "transition_progress", "strength",
        ]
        var racks = 0
        for (n, f) in frames.enumerated() {
            #expect(keys(f) == fields && f["frame"] as? Int == n)
            try checkTarget(f["primary"])
            let inRack = !(f["transition_progress"] is NSNull)
            if inRack {
                racks += 1
                try checkTarget(f["secondary"])
            } else {
                #expect(f["secondary"] is NSNull)
            }
        }
        #expect(racks > 0)
        let one = try Self.json(["focus", path, "--json", "--at", "1s"])
        #expect(keys(one) == ["file", "requested", "snapped_time", "frames"])
        #expect(one["snapped_time"] as? String == "1s" && (one["frames"] as? [[String: Any]])?.first?["frame"] as? Int == 30)
    }

    private func checkTarget(_ value: Any?) throws {
        let target = try #require(value as? [String: Any], "a target is an object: \(String(describing: value))")
        switch target["kind"] as? String {
        case "none": #expect(keys(target) == ["kind"])
        case "detection", "group": #expect(keys(target) == ["kind", "id"] && target["id"] is Int)
        case "disparity": #expect(keys(target) == ["kind", "value"])
        case "point": #expect(keys(target) == ["kind", "x", "y"])
        default: Issue.record("unknown target kind in \(target)")
        }
    }
}
