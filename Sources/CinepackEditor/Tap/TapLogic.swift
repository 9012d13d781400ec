import CinepackEDL
import CinepackFormat
import CinepackTime

/// A detection (captured, or a user track's sample) under a tapped point.
public struct TapHit: Sendable, Equatable {
    /// The detection id, or the user track's id (≥ 1 000 000).
    public var id: UInt32
    /// The detection's group (0 = none; always 0 for user tracks).
    public var groupID: UInt32
    public var rect: NormalizedRect
    public var isUserTrack: Bool
    public init(id: UInt32, groupID: UInt32, rect: NormalizedRect, isUserTrack: Bool) {
        self.id = id
        self.groupID = groupID
        self.rect = rect
        self.isUserTrack = isUserTrack
    }
}

/// What a tap or long press does: the decision to add to the EDL (at the frame's grid time) and, for
/// point focus on empty space, the custom track to add with it (spec/retime.md §4).
public struct TapResult: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Tap on a detection focus is not on: weak decision on it.
        case focusDetection
        /// Tap on the weakly focused detection: strong decision on the same target.
        case lockFocus
        /// Tap on the strongly focused detection: nothing to add.
        case alreadyLocked
        /// Tap on empty space: a custom track follows the salient region there; weak decision on it.
        case focusRegion
        /// Tap on empty space without usable depth there: weak decision on the point itself.
        case focusPoint
        /// Long press: strong decision on a fixed plane at the robust disparity of the point.
        case fixedFocus
        /// Long press without valid depth around the point: nothing to add.
        case noDepth
    }

    public var action: Action
    /// The decision to add (nil for `alreadyLocked` and `noDepth`); replaces any decision on its frame.
    public var decision: UserDecision?
    /// The custom track to add to the EDL's tracks (only for `focusRegion`).
    public var track: UserDetectionTrack?
    /// The detection the hit-test found (nil on empty space and for long presses).
    public var hit: TapHit?
    /// How following the region went (only for `focusRegion`).
    public var tracking: RegionTrack?
    /// One line for the user, e.g. `focus on detection 4 (weak) at frame 369`.
    public var message: String

    public init(
        action: Action, decision: UserDecision?, track: UserDetectionTrack? = nil, hit: TapHit? = nil, tracking: RegionTrack? = nil,
        message: String
    ) {
        self.action = action
        self.decision = decision
        self.track = track
        self.hit = hit
        self.tracking = tracking
        self.message = message
    }
}

/// A tap the editor cannot act on: a frame outside the clip or a point outside the picture.
public struct TapError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The tap logic editing UIs use (spec/retime.md §4). Pure: the caller passes the capture,
/// the current focus at the frame (from the focus script) and, for point focus, a way to read a frame's
/// disparity map; the result says what to add to the EDL.
public enum TapLogic {
    /// User track ids start here (spec/edl.md §6).
    public static let firstUserTrackID: UInt32 = 1_000_000

    /// The id for a new user track: one more than the largest in `tracks`, at least 1 000 000; nil when
    /// the ids are exhausted.
    public static func nextTrackID(after tracks: [UserDetectionTrack]) -> UInt32? {
        guard let top = tracks.map(\.id).max(), top >= firstUserTrackID else { return firstUserTrackID }
        return top == UInt32.max ? nil : top + 1
    }

    /// The detection under `point` in `frame`: among the captured detections and the user tracks' samples
    /// of that frame whose rect contains the point (edges included), the smallest by area; ties go to
    /// the one whose centre is nearest the point, then to the smaller id.
    public static func hitTest(
        at point: (x: Float, y: Float), frame: Int, capture: CaptureTimeline, userTracks: [UserDetectionTrack] = []
    ) -> TapHit? {
        guard capture.frames.indices.contains(frame) else { return nil }
        var candidates = capture.frames[frame].detections.map {
            TapHit(id: $0.id, groupID: $0.groupID, rect: $0.rect, isUserTrack: false)
        }
        for track in userTracks {
            if let sample = track.samples.first(where: { $0.frame == Int64(frame) }) {
                candidates.append(TapHit(id: track.id, groupID: 0, rect: sample.rect, isUserTrack: true))
            }
        }
        var best: (hit: TapHit, key: (Float, Float, UInt32))?
        for c in candidates where c.rect.contains(x: point.x, y: point.y) {
            let dx = c.rect.centerX - point.x
            let dy = c.rect.centerY - point.y
            let key = (c.rect.area, dx * dx + dy * dy, c.id)
            if let b = best, key >= b.key { continue }
            best = (c, key)
        }
        return best?.hit
    }

    static func check(_ point: (x: Float, y: Float), _ frame: Int, _ capture: CaptureTimeline) throws(TapError) -> MediaTime {
        guard capture.frames.indices.contains(frame) else {
            throw TapError("frame \(frame) is outside the clip's frames 0…\(capture.frameCount - 1) (spec/retime.md §4)")
        }
        guard point.x >= 0, point.x <= 1, point.y >= 0, point.y <= 1 else {
            throw TapError("point (\(point.x), \(point.y)) is outside the frame; x and y are in 0…1 (spec/retime.md §4)")
        }
        guard let time = capture.grid.checkedTime(ofFrame: Int64(frame)) else {
            throw TapError("frame \(frame) has no representable time on the clip's grid (spec/retime.md §4)")
        }
        return time
    }

    /// A tap at `point` (normalized, origin top-left) in `frame`, with focus currently on `current` at
    /// `currentStrength` (nil when unknown: treated as weak):
    /// - on a detection focus is not on → weak decision on it;
    /// - on the focused detection (its id, or its group when focus is on a group) → strong decision on the
    ///   current target when it is weak, nothing when it is already strong;
    /// - on empty space → the salient region there, followed as a custom track (id from
    ///   `nextTrackID(after: userTracks)`), weak decision on it; without `disparityMaps`, or without valid
    ///   depth at the point, a weak decision on the point itself.
    /// User tracks take part in the hit-test, so a second tap on a tracked region locks it.
    /// - Throws: `TapError` for a frame outside the clip or a point outside the frame; whatever
    ///   `disparityMaps` throws.
    public static func tap(
        at point: (x: Float, y: Float), frame: Int, capture: CaptureTimeline, current: FocusTarget?,
        currentStrength: DecisionStrength?, userTracks: [UserDetectionTrack] = [],
        disparityMaps: ((Int) throws -> DisparityMap)? = nil, options: PointFocusOptions = PointFocusOptions()
    ) throws -> TapResult {
        let time = try check(point, frame, capture)
        let n = Int64(frame)
        if let hit = hitTest(at: point, frame: frame, capture: capture, userTracks: userTracks) {
            let focused: Bool =
                switch current {
                case .detection(let id)?: id == hit.id
                case .group(let g)?: hit.groupID != 0 && g == hit.groupID
                default: false
                }
            guard focused, let current else {
                let target = FocusTarget.detection(hit.id)
                return TapResult(
                    action: .focusDetection, decision: UserDecision(time: time, frame: n, target: target, strength: .weak), hit: hit,
                    message: "focus on \(target) (weak) at frame \(frame)")
            }
            if currentStrength == .strong {
                return TapResult(
                    action: .alreadyLocked, decision: nil, hit: hit, message: "focus is already locked on \(current)")
            }
            return TapResult(
                action: .lockFocus, decision: UserDecision(time: time, frame: n, target: current, strength: .strong), hit: hit,
                message: "lock focus on \(current) (strong) at frame \(frame)")
        }
        if let disparityMaps {
            guard let id = nextTrackID(after: userTracks) else { throw TapError("no user track id is left (spec/edl.md §6)") }
            if let found = try PointFocus.customTrack(
                id: id, at: point, frame: frame, grid: capture.grid, frameCount: capture.frameCount, maps: disparityMaps, options: options)
            {
                let target = FocusTarget.detection(id)
                let last = found.track.samples.last?.frame ?? n
                return TapResult(
                    action: .focusRegion, decision: UserDecision(time: time, frame: n, target: target, strength: .weak), track: found.track,
                    tracking: found.tracking,
                    message:
                        "focus on the region at (\(point.x), \(point.y)) (weak) at frame \(frame), tracked as \(id) through frame \(last)")
            }
        }
        let target = FocusTarget.point(x: point.x, y: point.y)
        return TapResult(
            action: .focusPoint, decision: UserDecision(time: time, frame: n, target: target, strength: .weak),
            message: "focus on \(target) (weak) at frame \(frame); no depth there to track a region")
    }

    /// A long press at `point` in `frame`: a strong decision on a fixed focus plane at the robust
    /// disparity of the point (whatever detection is there). Without `disparityMaps` or valid depth
    /// around the point, nothing (`noDepth`).
    /// - Throws: `TapError` for a frame outside the clip or a point outside the frame; whatever
    ///   `disparityMaps` throws.
    public static func longPress(
        at point: (x: Float, y: Float), frame: Int, capture: CaptureTimeline,
        disparityMaps: ((Int) throws -> DisparityMap)? = nil, options: PointFocusOptions = PointFocusOptions()
    ) throws -> TapResult {
        let time = try check(point, frame, capture)
        guard let disparityMaps, let d = PointFocus.robustDisparity(at: point, in: try disparityMaps(frame), options: options) else {
            return TapResult(
                action: .noDepth, decision: nil, message: "no depth at (\(point.x), \(point.y)) in frame \(frame): focus unchanged")
        }
        let target = FocusTarget.fixedDisparity(max(0, d))
        return TapResult(
            action: .fixedFocus, decision: UserDecision(time: time, frame: Int64(frame), target: target, strength: .strong),
            message: "fix focus on \(target) (strong) at frame \(frame)")
    }
}
