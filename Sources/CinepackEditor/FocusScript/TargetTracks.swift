import CinepackEDL
import CinepackFormat

/// A run of observations of one track in which no gap is longer than the bridge (spec/focus.md §2.1).
struct TrackSegment: Sendable, Equatable {
    var first: Int
    var last: Int
    /// Whether the track ends after `last`: a later observation follows a gap longer than the bridge,
    /// or more than the bridge of the clip follows `last` without one.
    var ended: Bool
}

/// Where and at what disparity a target was observed: a captured detection id, a detection group,
/// or a user detection track (spec/focus.md §2).
struct TargetTrack: Sendable {
    /// Frames with an observation, increasing.
    private(set) var observed: [Int] = []
    /// Frames whose observation has a finite disparity, increasing, and those disparities.
    private(set) var knownFrames: [Int] = []
    private(set) var knownValues: [Float] = []
    private(set) var segments: [TrackSegment] = []
    /// A fixed user track: a plane, never lost.
    var isEndless = false

    /// Adds an observation; frames must come in increasing order.
    mutating func observe(frame: Int, disparity: Float) {
        observed.append(frame)
        if disparity.isFinite {
            knownFrames.append(frame)
            knownValues.append(disparity)
        }
    }

    /// Splits the observations into segments once all are in.
    mutating func finish(bridgeFrames: Int, lastFrame: Int) {
        segments = []
        for f in observed {
            if var current = segments.last, Self.missing(from: current.last, to: f) <= bridgeFrames {
                current.last = f
                segments[segments.count - 1] = current
            } else {
                if !segments.isEmpty { segments[segments.count - 1].ended = true }
                segments.append(TrackSegment(first: f, last: f, ended: false))
            }
        }
        if let last = segments.last, Self.missing(from: last.last, to: lastFrame + 1) > bridgeFrames {
            segments[segments.count - 1].ended = true
        }
    }

    var hasDisparity: Bool { !knownFrames.isEmpty }

    /// The disparity at frame `n`: the latest finite observation at or before `n`, else the first one
    /// (inside gaps and after the end the last disparity holds; before the start, the first).
    func disparity(atFrame n: Int) -> Float? {
        guard !knownFrames.isEmpty else { return nil }
        let i = Self.upperBound(knownFrames, n) - 1
        return knownValues[max(i, 0)]
    }

    /// The segment a user decision at frame `f` follows (spec/focus.md §2.1): the one covering `f`;
    /// else the next one if it starts within B frames; else the previous one if `f` is before its
    /// revert frame. Nil when the target is not tracked at `f`.
    func segment(forDecisionAt f: Int, bridgeFrames: Int, revertFrames: Int) -> TrackSegment? {
        if isEndless { return TrackSegment(first: Int.min, last: Int.max, ended: false) }
        var low = 0, high = segments.count
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].first <= f { low = mid + 1 } else { high = mid }
        }
        let i = low - 1
        if i >= 0, f <= segments[i].last { return segments[i] }
        if i + 1 < segments.count, Self.missing(from: f, to: segments[i + 1].first) < bridgeFrames { return segments[i + 1] }
        if i >= 0, Self.missing(from: segments[i].last, to: f) < revertFrames - 1 { return segments[i] }
        return nil
    }

    /// Frames strictly between `a` and `b` (b − a − 1), saturating instead of overflowing: frames of
    /// user tracks and decisions come from untrusted input and may be anywhere in `Int`.
    static func missing(from a: Int, to b: Int) -> Int {
        let (difference, overflow) = b.subtractingReportingOverflow(a)
        guard !overflow else { return b > a ? Int.max : Int.min }
        return difference == Int.min ? Int.min : difference - 1
    }

    /// Index of the first element greater than `value`.
    static func upperBound(_ values: [Int], _ value: Int) -> Int {
        var low = 0, high = values.count
        while low < high {
            let mid = (low + high) / 2
            if values[mid] <= value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// Every track a focus target can name, built once from the capture and the EDL.
struct TargetTracks: Sendable {
    var detections: [UInt32: TargetTrack] = [:]
    var groups: [UInt32: TargetTrack] = [:]
    var user: [UInt32: TargetTrack] = [:]

    init(frames: [FrameMetadata], userTracks: [UserDetectionTrack], timing: FocusTiming) {
        for (n, metadata) in frames.enumerated() {
            var best: [UInt32: Detection] = [:]
            for d in metadata.detections {
                detections[d.id, default: TargetTrack()].observe(frame: n, disparity: d.disparity)
                guard d.groupID != 0 else { continue }
                if let current = best[d.groupID], !Self.isBetter(d, than: current) { continue }
                best[d.groupID] = d
            }
            for (group, d) in best {
                groups[group, default: TargetTrack()].observe(frame: n, disparity: d.disparity)
            }
        }
        for track in userTracks {
            // Samples are in increasing frame order in a valid EDL; sort and keep the last of a frame anyway.
            var byFrame: [Int: Float] = [:]
            for sample in track.samples { byFrame[Int(clamping: sample.frame)] = sample.disparity }
            var target = TargetTrack()
            for frame in byFrame.keys.sorted() { target.observe(frame: frame, disparity: byFrame[frame]!) }
            target.isEndless = track.kind == .fixed
            user[track.id] = target
        }
        let lastFrame = frames.count - 1
        for key in detections.keys { detections[key]!.finish(bridgeFrames: timing.bridgeFrames, lastFrame: lastFrame) }
        for key in groups.keys { groups[key]!.finish(bridgeFrames: timing.bridgeFrames, lastFrame: lastFrame) }
        for key in user.keys { user[key]!.finish(bridgeFrames: timing.bridgeFrames, lastFrame: lastFrame) }
    }

    /// A group's representative: the member with a finite disparity and the highest confidence, ties to
    /// the lowest id; a member without a disparity only while no member has one.
    static func isBetter(_ a: Detection, than b: Detection) -> Bool {
        if a.disparity.isFinite != b.disparity.isFinite { return a.disparity.isFinite }
        if a.confidence != b.confidence { return a.confidence > b.confidence }
        return a.id < b.id
    }

    /// The track a `.detection(id)` target names: a user track of that id, else the captured one.
    func detection(_ id: UInt32) -> TargetTrack? { user[id] ?? detections[id] }

    func group(_ id: UInt32) -> TargetTrack? { id == 0 ? nil : groups[id] }
}
