import CinepackContainer
import CinepackFormat
import CinepackTime

/// OpenTimelineIO JSON (spec/interchange.md §2). Objects carry every field, in the order
/// opentimelineio 0.18 writes them, so a read-and-write through the library changes nothing but
/// number formatting. Only standard schemas appear: a custom schema in a typed slot (e.g.
/// `Clip.effects`) is a hard read error, so our data rides in `metadata["cinepack"]`.
enum OTIOWriter {
    /// Schema versions opentimelineio 0.18 reads without upgrading (and writes).
    static let timeline = "Timeline.1", stack = "Stack.1", track = "Track.1", clip = "Clip.2",
        externalReference = "ExternalReference.1", marker = "Marker.2", effect = "Effect.1",
        linearTimeWarp = "LinearTimeWarp.1", timeRange = "TimeRange.1", rationalTime = "RationalTime.1"

    /// Version of the `metadata["cinepack"]` layout below; bumped when its meaning changes.
    static let metadataVersion = 1

    static func write(_ plan: TimelinePlan) -> [UInt8] {
        var out: [UInt8] = []
        do {
            try write(plan) { (piece: [UInt8]) throws(FormatError) in out += piece }
        } catch {
            preconditionFailure("collecting bytes cannot fail")
        }
        return out
    }

    /// The document as text, handed to `emit` in pieces of about 1 MiB, each clip encoded on its own:
    /// a timeline of 300 000 clips (767 MB of JSON) never exists as one value tree (which took 5 GB),
    /// nor, written to a file, as one string.
    static func write(_ plan: TimelinePlan, emit: ([UInt8]) throws(FormatError) -> Void) throws(FormatError) {
        guard !plan.pieces.isEmpty else {
            try emit(Array((JSONText.encode(document(plan, clips: []), pretty: true) + "\n").utf8))
            return
        }
        // Everything but the clips, with one marker object where they go.
        let marker = InspectValue.object([("cinepack-clips", .null)])
        let text = JSONText.encode(document(plan, clips: [marker]), pretty: true) + "\n"
        guard let field = text.range(of: #""cinepack-clips": null"#) else { preconditionFailure("the marker is in the document") }
        // The marker's field is indented one level deeper than the marker, which sits at level `level`.
        let fieldLine = text[..<field.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        let level = text.distance(from: fieldLine, to: field.lowerBound) / 2 - 1
        let markerText = JSONText.encode(marker, pretty: true, indent: level)
        // The marker opens with "{" and a newline just before its field's line.
        let markerStart = text.index(fieldLine, offsetBy: -2)
        let at = markerStart..<text.index(markerStart, offsetBy: markerText.count)
        precondition(text[at] == markerText, "the marker is in the document")
        var buffer = Array(text[..<at.lowerBound].utf8)
        let separator = Array(("," + "\n" + String(repeating: "  ", count: level)).utf8)
        for (index, piece) in plan.pieces.enumerated() {
            if index > 0 { buffer += separator }
            buffer += JSONText.encode(clipObject(plan, piece, index: index), pretty: true, indent: level).utf8
            if buffer.count >= 1 << 20 {
                try emit(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        buffer += text[at.upperBound...].utf8
        try emit(buffer)
    }

    static func document(_ plan: TimelinePlan) -> InspectValue {
        document(plan, clips: plan.pieces.enumerated().map { clipObject(plan, $0.element, index: $0.offset) })
    }

    static func document(_ plan: TimelinePlan, clips: [InspectValue]) -> InspectValue {
        let videoTrack = item(
            track, name: "V1", sourceRange: .null, effects: [], markers: [],
            extra: [
                ("children", .list(clips)), ("kind", .string("Video")),
            ])
        let stackObject = item(
            stack, name: "tracks", sourceRange: .null, effects: [], markers: [],
            extra: [
                ("children", .list([videoTrack]))
            ])
        return .object([
            ("OTIO_SCHEMA", .string(timeline)),
            ("metadata", .object([("cinepack", summary(plan))])),
            ("name", .string(plan.name)),
            ("global_start_time", .null),
            ("tracks", stackObject),
        ])
    }

    /// The fields every `Item` has, in the library's order, then the subclass's own.
    static func item(
        _ schema: String, name: String, metadata: InspectValue = .object([]), sourceRange: InspectValue,
        effects: [InspectValue], markers: [InspectValue], extra: [(String, InspectValue)]
    ) -> InspectValue {
        .object(
            [
                ("OTIO_SCHEMA", .string(schema)),
                ("metadata", metadata),
                ("name", .string(name)),
                ("source_range", sourceRange),
                ("effects", .list(effects)),
                ("markers", .list(markers)),
                ("enabled", .bool(true)),
                ("color", .null),
            ] + extra)
    }

    // MARK: Time

    /// A frame count at the movie's rate. OTIO stores `value` and `rate` as doubles; whole frame
    /// counts stay integers so they are exact, and `rate` is the double nearest frames/seconds
    /// (29.97002997002997 for 30000/1001), which is also what the library computes.
    static func time(_ frames: FrameValue, _ plan: TimelinePlan) -> InspectValue {
        .object([
            ("OTIO_SCHEMA", .string(rationalTime)),
            ("rate", .double(Double(plan.rate.frames) / Double(plan.rate.seconds))),
            ("value", frames.json),
        ])
    }

    static func range(start: FrameValue, duration: FrameValue, _ plan: TimelinePlan) -> InspectValue {
        .object([
            ("OTIO_SCHEMA", .string(timeRange)),
            ("duration", time(duration, plan)),
            ("start_time", time(start, plan)),
        ])
    }

    /// A number of frames: exact when whole, otherwise the nearest double (only a speed change's
    /// track duration can be fractional).
    enum FrameValue {
        case whole(Int64)
        case fraction(numerator: Int64, denominator: Int64)
        /// Beyond `Int64` (extreme slow motion): OTIO's double is all there is anyway.
        case approximate(Double)

        var json: InspectValue {
            switch self {
            case .whole(let n): .integer(n)
            case .fraction(let p, let q): p % q == 0 ? .integer(p / q) : .double(Double(p) / Double(q))
            case .approximate(let x): .double(x)
            }
        }
    }

    // MARK: Clip

    static func clipObject(_ plan: TimelinePlan, _ piece: TimelinePiece, index: Int) -> InspectValue {
        // OTIO convention (cmx_3600 adapter, Item.duration()): source_range starts at the first source
        // frame and lasts as long as the clip occupies the track; a LinearTimeWarp says how fast media
        // is consumed, so the media used is duration × time_scalar = the piece's source frames.
        let (scaled, overflow) = piece.frames.multipliedReportingOverflow(by: piece.speed.denominator)
        let duration: FrameValue =
            piece.isUnitSpeed
            ? .whole(piece.frames)
            : overflow
                ? .approximate(Double(piece.frames) * Double(piece.speed.denominator) / Double(piece.speed.numerator))
                : .fraction(numerator: scaled, denominator: piece.speed.numerator)
        var effects = [cinematicEffect(plan)]
        if !piece.isUnitSpeed {
            effects.append(
                .object([
                    ("OTIO_SCHEMA", .string(linearTimeWarp)),
                    ("metadata", .object([])),
                    ("name", .string("speed \(piece.speed.numerator)/\(piece.speed.denominator)")),
                    ("effect_name", .string("LinearTimeWarp")),
                    ("enabled", .bool(true)),
                    ("time_scalar", .double(Double(piece.speed.numerator) / Double(piece.speed.denominator))),
                ]))
        }
        let markers = plan.decisions[plan.decisionIndices(in: piece.start..<piece.end)].map { markerObject($0, plan) }
        let metadata: InspectValue = .object([
            (
                "cinepack",
                .object([
                    ("source_range_index", .integer(piece.rangeIndex)),
                    ("source_start", InterchangeText.rational(plan.time(ofFrame: piece.start))),
                    ("source_end", InterchangeText.rational(plan.time(ofFrame: piece.end))),
                    ("first_frame", .integer(piece.start)),
                    ("end_frame", .integer(piece.end)),
                    (
                        "speed",
                        .object([("numerator", .integer(piece.speed.numerator)), ("denominator", .integer(piece.speed.denominator))])
                    ),
                ])
            )
        ])
        let reference: InspectValue = .object([
            ("OTIO_SCHEMA", .string(externalReference)),
            ("metadata", .object([])),
            ("name", .string(plan.name)),
            ("available_range", range(start: .whole(0), duration: .whole(plan.frameCount), plan)),
            ("available_image_bounds", .null),
            ("target_url", .string(plan.mediaURL)),
        ])
        let name = plan.pieces.count == 1 ? plan.name : "\(plan.name) #\(index + 1)"
        return item(
            clip, name: name, metadata: metadata, sourceRange: range(start: .whole(piece.start), duration: duration, plan),
            effects: effects, markers: markers,
            extra: [
                ("media_references", .object([("DEFAULT_MEDIA", reference)])),
                ("active_media_reference_key", .string("DEFAULT_MEDIA")),
            ])
    }

    /// The aperture as a plain `Effect` other tools can show by name and ignore safely.
    static func cinematicEffect(_ plan: TimelinePlan) -> InspectValue {
        .object([
            ("OTIO_SCHEMA", .string(effect)),
            (
                "metadata",
                .object([
                    ("f_number", InterchangeText.number(plan.fNumber)),
                    ("focal_length_35mm", InterchangeText.number(plan.parameters.focalLength35mm)),
                ])
            ),
            ("name", .string("cinepack.Cinematic")),
            ("effect_name", .string("cinepack.Cinematic")),
            ("enabled", .bool(true)),
        ])
    }

    /// Strong decisions red, weak yellow: the strength is what an editor scanning markers needs first.
    static func colour(_ d: TimelineDecision) -> String { d.isStrong ? "RED" : "YELLOW" }

    /// A zero-duration marker at the decision's source frame (markers on a clip are in its media space).
    static func markerObject(_ d: TimelineDecision, _ plan: TimelinePlan) -> InspectValue {
        var fields: [(String, InspectValue)] = [
            ("source", .string(d.origin.rawValue)),
            ("target", InterchangeText.target(d.target)),
            ("strength", .string(d.strength)),
            ("frame", .integer(d.frame)),
            ("time", InterchangeText.rational(d.time)),
        ]
        if let t = d.minTransition { fields.append(("min_transition", .double(t))) }
        if let t = d.maxTransition { fields.append(("max_transition", .double(t))) }
        return .object([
            ("OTIO_SCHEMA", .string(marker)),
            ("metadata", .object([("cinepack", .object(fields))])),
            ("name", .string(d.label)),
            ("color", .string(colour(d))),
            ("marked_range", range(start: .whole(d.frame), duration: .whole(0), plan)),
            ("comment", .string("")),
        ])
    }

    // MARK: Movie-level summary

    static func summary(_ plan: TimelinePlan) -> InspectValue {
        let p = plan.parameters
        var media: [(String, InspectValue)] = [
            ("url", .string(plan.mediaURL)),
            ("frame_count", .integer(plan.frameCount)),
            ("frame_rate", .object([("frames", .integer(plan.rate.frames)), ("seconds", .integer(plan.rate.seconds))])),
            ("width", .integer(plan.width)),
            ("height", .integer(plan.height)),
            ("has_disparity", .bool(plan.hasDisparity)),
            ("has_audio", .bool(plan.hasAudio)),
        ]
        if let fingerprint = plan.edl.media?.fingerprint { media.append(("fingerprint", .string(fingerprint))) }
        let lens: InspectValue = .object([
            ("focal_length_35mm", InterchangeText.number(p.focalLength35mm)),
            ("f_number_default", InterchangeText.number(p.defaultFNumber)),
            ("f_number_min", InterchangeText.number(p.minFNumber)),
            ("f_number_max", InterchangeText.number(p.maxFNumber)),
        ])
        let timing: InspectValue = .object([
            ("max_disparity_rate", InterchangeText.number(p.maxDisparityRate)),
            ("min_transition", InterchangeText.number(p.minTransition)),
            ("max_transition", InterchangeText.number(p.maxTransition)),
            ("gap_bridge", InterchangeText.number(p.gapBridge)),
            ("weak_suppression", InterchangeText.number(p.weakSuppression)),
        ])
        return .object([
            ("metadata_version", .integer(metadataVersion)),
            ("format_version", plan.formatVersion.map { .string($0) } ?? .null),
            ("media", .object(media)),
            ("lens", lens),
            ("focus_timing", timing),
            ("edl", edlSummary(plan)),
        ])
    }

    /// What the EDL holds, so a reader can tell what the timeline could not show.
    static func edlSummary(_ plan: TimelinePlan) -> InspectValue {
        let edl = plan.edl
        let captured = plan.decisions.filter { $0.origin == .captured }.count
        let tracks: [InspectValue] = edl.detectionTracks.map { t in
            let frames = t.samples.map(\.frame)
            let first: InspectValue = frames.min().map { .integer($0) } ?? .null
            let last: InspectValue = frames.max().map { .integer($0) } ?? .null
            return .object([
                ("id", .integer(t.id)), ("kind", .string(t.kind.rawValue)), ("samples", .integer(t.samples.count)),
                ("first_frame", first), ("last_frame", last),
            ])
        }
        let ranges: [InspectValue] = edl.sourceRanges.map { r in
            .object([("start", InterchangeText.rational(r.start)), ("end", InterchangeText.rational(r.end))])
        }
        let speeds: [InspectValue] = edl.speedSegments.map { s in
            let rate: InspectValue = .object([("numerator", .integer(s.rateNumerator)), ("denominator", .integer(s.rateDenominator))])
            return .object([("start", InterchangeText.rational(s.start)), ("end", InterchangeText.rational(s.end)), ("rate", rate)])
        }
        let fNumber: InspectValue = edl.fNumber.map { InterchangeText.number($0) } ?? .null
        return .object([
            ("version", .integer(edl.version)),
            ("f_number", fNumber),
            ("user_decisions", .integer(edl.decisions.count)),
            ("captured_decisions", .integer(captured)),
            ("decisions_trimmed_away", .integer(plan.omittedDecisions)),
            ("detection_tracks", .list(tracks)),
            ("source_ranges", .list(ranges)),
            ("speed_segments", .list(speeds)),
        ])
    }
}
