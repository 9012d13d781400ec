import CinepackContainer
import CinepackTime

/// What `cinepack inspect` adds for a cinematic movie: roles, disparity range, lens and aperture,
/// a per-subject detection summary, captured decisions and scene-status spans. Speaks only to
/// the same `Inspector` as the box-level summary.
public enum CinematicInspection {
    public struct SubjectSummary: Sendable, Equatable {
        public var id: UInt32
        public var type: DetectionType
        public var groupID: UInt32
        public var firstFrame: Int
        public var lastFrame: Int
        public var framesSeen: Int
    }

    public struct Summary: Sendable {
        public var subjects: [SubjectSummary] = []
        public var decisions: [(frame: Int, decision: CapturedDecision)] = []
        public var fNumbers: (min: Float, max: Float)?
        public var sceneSpans: [(status: String, first: Int, last: Int)] = []
    }

    /// Reads every metadata sample once (they are small) and summarises them.
    public static func summarize(_ movie: CinematicMovie) throws(FormatError) -> Summary {
        var summary = Summary()
        var subjects: [UInt32: SubjectSummary] = [:]
        var open: [String: Int] = [:]
        for frame in 0..<movie.frameCount {
            let meta = try movie.metadata(frame)
            for d in meta.detections {
                if var s = subjects[d.id] {
                    s.lastFrame = frame
                    s.framesSeen += 1
                    subjects[d.id] = s
                } else {
                    subjects[d.id] = SubjectSummary(
                        id: d.id, type: d.type, groupID: d.groupID, firstFrame: frame, lastFrame: frame, framesSeen: 1)
                }
            }
            if let decision = meta.decision { summary.decisions.append((frame, decision)) }
            if let f = meta.fNumber, f.isFinite {
                summary.fNumbers = (min(summary.fNumbers?.min ?? f, f), max(summary.fNumbers?.max ?? f, f))
            }
            for (name, flag) in SceneStatus.named {
                if meta.scene.contains(flag) {
                    if open[name] == nil { open[name] = frame }
                } else if let start = open.removeValue(forKey: name) {
                    summary.sceneSpans.append((name, start, frame - 1))
                }
            }
        }
        for (name, start) in open { summary.sceneSpans.append((name, start, movie.frameCount - 1)) }
        summary.sceneSpans.sort { $0.first < $1.first }
        summary.subjects = subjects.values.sorted { $0.id < $1.id }
        return summary
    }

    public static func inspect(_ movie: CinematicMovie, into out: inout some Inspector) throws(FormatError) {
        let summary = try summarize(movie)
        func seconds(_ frame: Int) -> (InspectValue, String) {
            let t = movie.time(ofFrame: frame)
            return (.double(t.seconds), "\(t.formattedSeconds()) (frame \(frame))")
        }
        out.object(key: "cinematic", label: "cinematic") { out in
            out.field(
                "format_version", movie.formatVersion.map { .string($0) } ?? .null, label: "format version",
                text: movie.formatVersion ?? "none (not written by cinepack)")
            out.field("frame_count", .int(movie.frameCount), label: "frames")
            out.object(key: "roles", label: "roles") { out in
                out.field("video", .int(movie.video.id), label: "video", text: "track \(movie.video.id)")
                out.field(
                    "disparity", movie.disparity.map { .int($0.id) } ?? .null, label: "disparity",
                    text: movie.disparity.map { "track \($0.id)" } ?? "none")
                out.field(
                    "metadata", movie.metadata.map { .int($0.id) } ?? .null, label: "focus metadata",
                    text: movie.metadata.map { "track \($0.id)" } ?? "none")
                out.field(
                    "audio", movie.audio.map { .int($0.id) } ?? .null, label: "audio",
                    text: movie.audio.map { "track \($0.id)" } ?? "none")
            }
            if let q = movie.quantization, let d = movie.disparity {
                out.object(key: "disparity", label: "disparity") { out in
                    out.field("width", .int(d.visual?.width ?? 0), label: "width")
                    out.field("height", .int(d.visual?.height ?? 0), label: "height")
                    out.field("minimum", .double(Double(q.minimum)), label: "minimum", text: "\(q.minimum) D")
                    out.field("maximum", .double(Double(q.maximum)), label: "maximum", text: "\(q.maximum) D")
                    out.field("step", .double(Double(q.step)), label: "quantization step", text: "\(q.step) D")
                }
            }
            let p = movie.parameters
            out.object(key: "lens", label: "lens and focus parameters") { out in
                out.field(
                    "focal_length_35mm", .double(Double(p.focalLength35mm)), label: "focal length",
                    text: "\(p.focalLength35mm) mm (35 mm equivalent)")
                out.field("f_number_default", .double(Double(p.defaultFNumber)), label: "default f-number", text: "f/\(p.defaultFNumber)")
                out.field(
                    "f_number_minimum", .double(Double(p.minFNumber)), label: "f-number range", text: "f/\(p.minFNumber)…f/\(p.maxFNumber)")
                out.field("f_number_maximum", .double(Double(p.maxFNumber)), label: "", text: nil)
                out.field(
                    "max_disparity_rate", .double(Double(p.maxDisparityRate)), label: "rack speed limit", text: "\(p.maxDisparityRate) D/s")
                out.field(
                    "min_transition", .double(Double(p.minTransition)), label: "transition", text: "\(p.minTransition)…\(p.maxTransition) s"
                )
                out.field("max_transition", .double(Double(p.maxTransition)), label: "", text: nil)
                out.field("gap_bridge", .double(Double(p.gapBridge)), label: "gap bridged", text: "\(p.gapBridge) s")
                out.field("weak_suppression", .double(Double(p.weakSuppression)), label: "weak suppression", text: "\(p.weakSuppression) s")
            }
            if let f = summary.fNumbers {
                out.field(
                    "captured_f_number", .double(Double(f.min)), label: "captured f-number",
                    text: f.min == f.max ? "f/\(f.min)" : "f/\(f.min)…f/\(f.max)")
            }
            out.array(key: "subjects", label: "subjects") { out in
                for s in summary.subjects {
                    out.object(key: nil, label: "id \(s.id)", oneLine: true) { out in
                        out.field("id", .int(s.id), label: "", text: nil)
                        out.field("type", .string(s.type.description), label: "type")
                        out.field("type_number", .int(s.type.rawValue), label: "", text: nil)
                        if s.groupID != 0 { out.field("group", .int(s.groupID), label: "group") }
                        let (first, firstText) = seconds(s.firstFrame)
                        let (last, lastText) = seconds(s.lastFrame)
                        out.field("first_seconds", first, label: "first", text: firstText)
                        out.field("last_seconds", last, label: "last", text: lastText)
                        out.field("first_frame", .int(s.firstFrame), label: "", text: nil)
                        out.field("last_frame", .int(s.lastFrame), label: "", text: nil)
                        out.field("frames_seen", .int(s.framesSeen), label: "frames")
                    }
                }
            }
            out.array(key: "decisions", label: "captured decisions") { out in
                for (frame, d) in summary.decisions {
                    let (t, text) = seconds(frame)
                    out.object(key: nil, label: text, oneLine: true) { out in
                        out.field("frame", .int(frame), label: "", text: nil)
                        out.field("seconds", t, label: "", text: nil)
                        out.field("target", .string(d.target.description), label: "target")
                        out.field("strong", .bool(d.isStrong), label: "strength", text: d.isStrong ? "strong" : "weak")
                    }
                }
            }
            out.array(key: "scene_status", label: "scene status") { out in
                for span in summary.sceneSpans {
                    let (a, aText) = seconds(span.first)
                    let (b, bText) = seconds(span.last)
                    out.object(key: nil, label: span.status, oneLine: true) { out in
                        out.field("status", .string(span.status), label: "", text: nil)
                        out.field("first_seconds", a, label: "from", text: aText)
                        out.field("last_seconds", b, label: "to", text: bText)
                        out.field("first_frame", .int(span.first), label: "", text: nil)
                        out.field("last_frame", .int(span.last), label: "", text: nil)
                    }
                }
            }
        }
    }

}
