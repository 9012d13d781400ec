import CinepackEDL
import CinepackFormat
import CinepackTime
import Foundation
import TestSupport
import Testing

/// OpenTimelineIO export, checked by reading it back with the reference implementation (Python
/// `opentimelineio`): the data must survive a real reader, not just our idea of the format.
@Suite struct OTIOExportTests {
    /// Loads an .otio file with opentimelineio (warnings are errors: an upgrade or unknown schema
    /// would warn) and prints what a tool would see, plus whether writing it back changes anything.
    static let summaryScript = #"""
        import json, sys, warnings
        warnings.simplefilter("error")
        import opentimelineio as otio

        def plain(v):
            if isinstance(v, (str, bool, int, float)) or v is None:
                return v
            if hasattr(v, "keys"):
                return {k: plain(v[k]) for k in v.keys()}
            return [plain(x) for x in v]

        def rt(t):
            return {"value": t.value, "rate": t.rate}

        def tr(r):
            return None if r is None else {"start": rt(r.start_time), "duration": rt(r.duration)}

        path = sys.argv[1]
        t = otio.adapters.read_from_file(path)
        clips = []
        for c in t.find_clips():
            clips.append({
                "schema": "%s.%d" % (c.schema_name(), c.schema_version()),
                "name": c.name,
                "source_range": tr(c.source_range),
                "range_in_parent": tr(c.range_in_parent()),
                "metadata": plain(c.metadata),
                "target_url": c.media_reference.target_url,
                "available_range": tr(c.media_reference.available_range),
                "effects": [{"schema": "%s.%d" % (e.schema_name(), e.schema_version()), "name": e.name,
                             "effect_name": e.effect_name, "metadata": plain(e.metadata),
                             "time_scalar": getattr(e, "time_scalar", None)} for e in c.effects],
                "markers": [{"schema": "%s.%d" % (m.schema_name(), m.schema_version()), "name": m.name, "color": m.color,
                             "marked_range": tr(m.marked_range), "frame": m.marked_range.start_time.to_frames(),
                             "metadata": plain(m.metadata)} for m in c.markers],
            })
        with open(path) as f:
            ours = json.load(f)
        print(json.dumps({
            "schema": "%s.%d" % (t.schema_name(), t.schema_version()),
            "name": t.name,
            "metadata": plain(t.metadata),
            "tracks": [{"schema": "%s.%d" % (k.schema_name(), k.schema_version()), "kind": k.kind, "children": len(k)} for k in t.tracks],
            "duration": rt(t.duration()),
            "clips": clips,
            # The library's own serialisation of what it read equals ours (up to number formatting): every
            # field present, nothing renamed, no schema upgraded.
            "rewrite_identical": json.loads(otio.adapters.write_to_string(t)) == ours,
        }))
        """#

    /// python3 with the `opentimelineio` module; like `Peers.available`, missing is a failure in CI and a skip elsewhere.
    static func available() throws -> Bool {
        guard try Peers.available("python3") else { return false }
        if try Peers.run("python3", ["-c", "import opentimelineio"], allowFailure: true).status == 0 { return true }
        if Peers.isCI { throw MissingPeer(description: "python3 has no opentimelineio module in CI; .ci/run must install it") }
        print("note: skipping interop test: python3 has no opentimelineio module")
        return false
    }

    struct MissingPeer: Error, CustomStringConvertible { var description: String }

    static func summary(_ path: String) throws -> [String: Any] {
        let result = try Peers.run("python3", ["-c", summaryScript, path])
        #expect(result.stderr.isEmpty, "opentimelineio printed: \(result.stderr)")
        return try InterchangeFixtures.json(result.text)
    }

    static func dict(_ v: Any?) -> [String: Any] { v as? [String: Any] ?? [:] }
    static func list(_ v: Any?) -> [[String: Any]] { v as? [[String: Any]] ?? [] }
    static func number(_ v: Any?) -> Double? { (v as? NSNumber)?.doubleValue }

    @Test func demoMovieRoundTripsThroughOpenTimelineIO() throws {
        guard try Self.available() else { return }
        let dir = try Paths.temporaryDirectory()
        let moviePath = try InterchangeFixtures.demoMovie(in: dir)
        let movie = try CinematicMovie.open(path: moviePath)
        let edl = InterchangeFixtures.demoEDL()
        let url = TimelineExport.fileURL(forPath: moviePath)
        let out = dir.file("demo.otio")
        try InterchangeFixtures.write(try TimelineExport.otio(movie: movie, edl: edl, mediaURL: url), to: out)

        let s = try Self.summary(out)
        #expect(s["schema"] as? String == "Timeline.1")
        #expect(s["rewrite_identical"] as? Bool == true)
        #expect(Self.list(s["tracks"]).map { $0["kind"] as? String } == ["Video"])
        let clips = Self.list(s["clips"])
        try #require(clips.count == 1)
        let clip = clips[0]
        #expect(clip["schema"] as? String == "Clip.2")
        #expect(clip["target_url"] as? String == url)
        // The trim [2, 70) at 30 fps, exactly.
        let range = Self.dict(clip["source_range"])
        #expect(Self.number(Self.dict(range["start"])["value"]) == 2)
        #expect(Self.number(Self.dict(range["duration"])["value"]) == 68)
        #expect(Self.number(Self.dict(range["start"])["rate"]) == 30)
        #expect(Self.number(Self.dict(Self.dict(clip["available_range"])["duration"])["value"]) == Double(movie.frameCount))

        let effects = Self.list(clip["effects"])
        #expect(effects.map { $0["schema"] as? String } == ["Effect.1"])
        #expect(effects.first?["effect_name"] as? String == "cinepack.Cinematic")
        #expect(Self.number(Self.dict(effects.first?["metadata"])["f_number"]) == 2.8)
        #expect(Self.number(Self.dict(effects.first?["metadata"])["focal_length_35mm"]) == Double(movie.parameters.focalLength35mm))

        // Every user decision is a marker at its frame with its data; captured ones inside the trim too.
        let markers = Self.list(clip["markers"])
        #expect(markers.allSatisfy { $0["schema"] as? String == "Marker.2" })
        let user = markers.filter { Self.dict(Self.dict($0["metadata"])["cinepack"])["source"] as? String == "user" }
        #expect(
            user.map { $0["name"] as? String } == [
                "focus → detection 4 (weak)", "focus → group 2 (strong)", "focus → fixed plane 0.5 D (weak)",
                "focus → point (0.25, 0.75) (strong)", "focus → none (weak)",
            ])
        #expect(user.map { ($0["frame"] as? Int) ?? -1 } == [3, 10, 15, 20, 25])
        #expect(user.map { $0["color"] as? String } == ["YELLOW", "RED", "YELLOW", "RED", "YELLOW"])
        for marker in user {
            let r = Self.dict(marker["marked_range"])
            #expect(Self.number(Self.dict(r["duration"])["value"]) == 0)
            #expect(Self.number(Self.dict(r["start"])["rate"]) == 30)
        }
        let group = Self.dict(Self.dict(user[1]["metadata"])["cinepack"])
        #expect(Self.dict(group["target"])["kind"] as? String == "group")
        #expect(Self.dict(group["target"])["id"] as? Int == 2)
        #expect(group["strength"] as? String == "strong")
        #expect(group["frame"] as? Int == 10)
        #expect(Self.dict(group["time"])["value"] as? Int == 10 && Self.dict(group["time"])["timescale"] as? Int == 30)
        let point = Self.dict(Self.dict(Self.dict(user[3]["metadata"])["cinepack"])["target"])
        #expect(point["kind"] as? String == "point" && Self.number(point["x"]) == 0.25 && Self.number(point["y"]) == 0.75)

        var expectedCaptured: [Int] = []
        for n in 2..<70 where try movie.metadata(n).decision != nil { expectedCaptured.append(n) }
        #expect(expectedCaptured == [66])
        let captured = markers.filter { Self.dict(Self.dict($0["metadata"])["cinepack"])["source"] as? String == "captured" }
        #expect(captured.map { ($0["frame"] as? Int) ?? -1 } == expectedCaptured)
        #expect(captured.allSatisfy { ($0["name"] as? String)?.hasPrefix("captured focus → ") == true })

        let meta = Self.dict(Self.dict(s["metadata"])["cinepack"])
        #expect(meta["format_version"] as? String == movie.formatVersion)
        #expect(Self.number(Self.dict(meta["lens"])["focal_length_35mm"]) == Double(movie.parameters.focalLength35mm))
        let edlSummary = Self.dict(meta["edl"])
        #expect(Self.number(edlSummary["f_number"]) == 2.8)
        #expect(edlSummary["user_decisions"] as? Int == 5)
        #expect(Self.dict(meta["media"])["frame_count"] as? Int == movie.frameCount)
    }

    /// 30000/1001 fps, two trims and a 2× segment: one clip per run of constant speed, markers on the
    /// clip that shows their frame, frame numbers exact at the NTSC rate.
    @Test func trimsAndSpeedBecomeClipsAndTimeWarps() throws {
        guard try Self.available() else { return }
        let dir = try Paths.temporaryDirectory()
        let moviePath = dir.file("tiny.mov")
        try InterchangeFixtures.writeTinyMovie(at: moviePath)
        let movie = try CinematicMovie.open(path: moviePath)
        let out = dir.file("tiny.otio")
        try InterchangeFixtures.write(
            try TimelineExport.otio(
                movie: movie, edl: InterchangeFixtures.tinyEDL(),
                mediaURL: TimelineExport.fileURL(forPath: moviePath)), to: out)
        let s = try Self.summary(out)
        #expect(s["rewrite_identical"] as? Bool == true)
        let clips = Self.list(s["clips"])
        let ranges = clips.map { c -> [Double] in
            let r = Self.dict(c["source_range"])
            return [Self.number(Self.dict(r["start"])["value"]) ?? -1, Self.number(Self.dict(r["duration"])["value"]) ?? -1]
        }
        // [1,6) and [7,12) with [9,12) at 2×: three clips; the 2× one lasts 3 / 2 frames on the track.
        #expect(ranges == [[1, 5], [7, 2], [9, 1.5]])
        #expect(clips.allSatisfy { Self.number(Self.dict(Self.dict($0["source_range"])["start"])["rate"]) == 30000.0 / 1001.0 })
        let warps = clips.map { Self.list($0["effects"]).filter { $0["schema"] as? String == "LinearTimeWarp.1" } }
        #expect(warps.map(\.count) == [0, 0, 1])
        #expect(Self.number(warps[2].first?["time_scalar"]) == 2)
        // Timeline length: 5 + 2 + 1.5 frames.
        #expect(Self.number(Self.dict(s["duration"])["value"]) == 8.5)

        let frames = clips.map { Self.list($0["markers"]).map { ($0["frame"] as? Int) ?? -1 } }
        #expect(frames == [[2, 5], [7], [9, 11]])
        let sources = clips.flatMap { Self.list($0["markers"]) }
            .map { Self.dict(Self.dict($0["metadata"])["cinepack"])["source"] as? String }
        #expect(sources == ["user", "user", "captured", "user", "user"])
        // Times are the exact rationals of the EDL.
        let first = Self.dict(Self.dict(Self.dict(Self.list(clips[0]["markers"])[0]["metadata"])["cinepack"])["time"])
        #expect(first["value"] as? Int == 2002 && first["timescale"] as? Int == 30000)
        let edlSummary = Self.dict(Self.dict(Self.dict(s["metadata"])["cinepack"])["edl"])
        #expect(edlSummary["decisions_trimmed_away"] as? Int == 2)
        #expect(edlSummary["captured_decisions"] as? Int == 2)
    }

    @Test func anEDLForOtherMediaIsRefused() throws {
        let dir = try Paths.temporaryDirectory()
        let moviePath = dir.file("tiny.mov")
        try InterchangeFixtures.writeTinyMovie(at: moviePath)
        let movie = try CinematicMovie.open(path: moviePath)
        var edl = InterchangeFixtures.tinyEDL()
        edl.media = MediaBinding(frameCount: 99, frameRate: InterchangeFixtures.ntsc, fingerprint: "00")
        #expect(throws: FormatError.self) { try TimelineExport.otio(movie: movie, edl: edl, mediaURL: "file:///x.mov") }
    }

    @Test func fileURLsArePercentEncodedAndAbsolute() {
        #expect(TimelineExport.fileURL(forPath: "/media/golden clip.mov") == "file:///media/golden%20clip.mov")
        #expect(TimelineExport.fileURL(forPath: "clips/../a#1%.mov", relativeTo: "/home/me/./x") == "file:///home/me/x/a%231%25.mov")
        #expect(TimelineExport.fileURL(forPath: "/Prises/été.mov") == "file:///Prises/%C3%A9t%C3%A9.mov")
    }
}
