import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackTime

/// What adding a decision did.
public struct DecisionOutcome: Sendable {
    /// How the target was resolved.
    public enum Resolution: Sendable, Equatable {
        case object(UInt32, type: DetectionType)
        case group(UInt32, ofObject: UInt32)
        case plane(disparity: Float)
        case planeAtPoint(disparity: Float, x: Float, y: Float)
        /// The smallest detection containing the point.
        case hit(UInt32, x: Float, y: Float)
        /// The salient region at the point, followed as a new custom track from `frame` to `lastFrame`.
        case trackedRegion(UInt32, x: Float, y: Float, lastFrame: Int, stop: RegionTrack.Stop)
    }

    public var snapped: SnappedTime
    public var decision: UserDecision
    /// Its position among the user decisions (from 0).
    public var index: Int
    /// The user decision at the same frame it replaced.
    public var replaced: UserDecision?
    public var resolution: Resolution
    /// The custom track added with it (point focus on empty space).
    public var track: UserDetectionTrack?
    /// What the focus script makes of it: its transition, or why it has no effect.
    public var effect: ScriptDecision?
}

extension CinematicDocument {
    /// Adds a focus decision at the frame `time` falls on, as one undoable step. The rules:
    /// - an object must be visible at that frame (`.notVisible` with where it is seen, or
    ///   `.noSuchObject` with the subjects that are there); a group needs an object with a group;
    /// - a point goes to the smallest detection containing it, else to the salient region there,
    ///   tracked as a new custom track (`.noSalientRegion` without depth); a plane at a point takes the
    ///   point's robust disparity (`.noDepth`);
    /// - `strength` defaults to weak for subjects and points, strong for fixed planes;
    /// - a user decision already at that frame is replaced; decisions stay in time order.
    @discardableResult
    public mutating func addDecision(
        target: DecisionTarget, at time: TimeExpression, strength: DecisionStrength? = nil
    )
        throws(DocumentError) -> DecisionOutcome
    {
        let snapped = try frame(at: time)
        let n = Int(snapped.frame)
        let (focus, resolution, track) = try resolve(target, frame: n, snapped: snapped)
        let decision = UserDecision(time: snapped.time, frame: Int64(n), target: focus, strength: strength ?? target.defaultStrength)
        var replaced: UserDecision?
        try apply("refocus at \(snapped.time.formattedSeconds())") { edl in
            replaced = Self.place(decision, track: track, in: &edl)
        }
        let index = edl.decisions.firstIndex { $0.frame == Int64(n) } ?? 0
        let effect = script.decisions.first { $0.source == .user && $0.index == index }
        return DecisionOutcome(
            snapped: snapped, decision: decision, index: index, replaced: replaced, resolution: resolution, track: track, effect: effect)
    }

    public mutating func addDecision(
        target: DecisionTarget, at time: MediaTime, strength: DecisionStrength? = nil
    )
        throws(DocumentError) -> DecisionOutcome
    {
        try addDecision(target: target, at: .seconds(time), strength: strength)
    }

    private func resolve(
        _ target: DecisionTarget, frame n: Int, snapped: SnappedTime
    ) throws(DocumentError) -> (
        FocusTarget, DecisionOutcome.Resolution, UserDetectionTrack?
    ) {
        switch target {
        case .object(let id), .group(ofObject: let id):
            guard let present = subjects(frame: n).first(where: { $0.id == id }) else { throw absent(id, at: snapped) }
            guard case .group = target else { return (.detection(id), .object(id, type: present.type), nil) }
            guard present.groupID != 0 else { throw .noGroup(id) }
            return (.group(present.groupID), .group(present.groupID, ofObject: id), nil)
        case .plane(let d):
            guard d.isFinite, d >= 0 else { throw .badDisparity(d) }
            return (.fixedDisparity(d), .plane(disparity: d), nil)
        case .planeAtPoint(let point):
            let p = try point.normalized(width: width, height: height)
            guard let d = PointFocus.robustDisparity(at: p, in: try disparityMap(n)) else {
                throw .noDepth(x: point.x, y: point.y, at: snapped)
            }
            return (.fixedDisparity(d), .planeAtPoint(disparity: d, x: point.x, y: point.y), nil)
        case .point(let point):
            let p = try point.normalized(width: width, height: height)
            if let hit = TapLogic.hitTest(at: p, frame: n, capture: capture, userTracks: edl.detectionTracks) {
                return (.detection(hit.id), .hit(hit.id, x: point.x, y: point.y), nil)
            }
            guard let id = TapLogic.nextTrackID(after: edl.detectionTracks) else { throw .noTrackIDLeft }
            let made: (track: UserDetectionTrack, tracking: RegionTrack)?
            do {
                made = try PointFocus.customTrack(
                    id: id, at: p, frame: n, grid: grid, frameCount: frameCount, maps: { try edits.movie.disparityMap($0) })
            } catch { throw .frameUnreadable(frame: n, cause: FormatError.from(error)) }
            guard let made else { throw .noSalientRegion(x: point.x, y: point.y, at: snapped) }
            let last = made.track.samples.last.map { Int($0.frame) } ?? n
            return (.detection(id), .trackedRegion(id, x: point.x, y: point.y, lastFrame: last, stop: made.tracking.stop), made.track)
        }
    }

    /// Why object `id` cannot be focused at `at`: where it is seen, or which subjects are there.
    func absent(_ id: UInt32, at: SnappedTime) -> DocumentError {
        if let spans = subjects.first(where: { $0.id == id }), !spans.seen.isEmpty {
            return .notVisible(id, at: at, seen: spans.seen)
        }
        let visible = subjects(frame: Int(at.frame)).map { DocumentError.Subject(id: $0.id, type: $0.type) }
        return .noSuchObject(id, at: at, visible: visible)
    }

    func disparityMap(_ n: Int) throws(DocumentError) -> DisparityMap {
        do { return try edits.movie.disparityMap(n) } catch { throw .frameUnreadable(frame: n, cause: error) }
    }

    /// Removes user decision `number` (from 1, as `decisions` lists them). Returns it.
    @discardableResult
    public mutating func removeDecision(number: Int) throws(DocumentError) -> UserDecision {
        let count = edl.decisions.count
        guard number >= 1, number <= count else { throw .noSuchDecision(number, count: count) }
        let removed = edl.decisions[number - 1]
        try apply("unfocus decision \(number)") { $0.decisions.remove(at: number - 1) }
        return removed
    }

    /// Removes every user decision (captured decisions take over again). Returns how many there were.
    @discardableResult
    public mutating func removeAllDecisions() throws(DocumentError) -> Int {
        let count = edl.decisions.count
        try apply("unfocus all user decisions") { $0.decisions.removeAll() }
        return count
    }

    // MARK: - Taps

    /// A gesture on the picture at a time.
    public enum Gesture: Sendable, Equatable {
        /// Tap: focus a subject, lock the focused one, or follow the region at the point.
        case tap(PicturePoint, at: TimeExpression)
        /// Long press: a strong fixed plane at the point's depth.
        case longPress(PicturePoint, at: TimeExpression)
    }

    /// Applies the tap logic of editing interfaces (spec/retime.md §4) and adds what it decides (a
    /// decision, and for a tap on empty space the custom track following the region) as one undoable
    /// step; nothing is added when focus is already locked there or there is no depth.
    @discardableResult
    public mutating func apply(tap gesture: Gesture) throws(DocumentError) -> TapResult {
        let result: TapResult
        let maps: (Int) throws -> DisparityMap = { [movie = edits.movie] in try movie.disparityMap($0) }
        do {
            switch gesture {
            case .tap(let point, let time):
                let n = Int(try frame(at: time).frame)
                let p = try point.normalized(width: width, height: height)
                let now = script.frame(n)
                result = try TapLogic.tap(
                    at: p, frame: n, capture: capture, current: now.primary, currentStrength: now.strength,
                    userTracks: edl.detectionTracks, disparityMaps: maps)
            case .longPress(let point, let time):
                let n = Int(try frame(at: time).frame)
                let p = try point.normalized(width: width, height: height)
                result = try TapLogic.longPress(at: p, frame: n, capture: capture, disparityMaps: maps)
            }
        } catch let error as DocumentError {
            throw error
        } catch {
            throw .frameUnreadable(frame: -1, cause: FormatError.from(error))
        }
        guard let decision = result.decision else { return result }
        try apply(result.message) { edl in Self.place(decision, track: result.track, in: &edl) }
        return result
    }

    /// Puts `decision` in time order, replacing the user decision at its frame (returned), with the
    /// custom track it follows.
    @discardableResult
    static func place(_ decision: UserDecision, track: UserDetectionTrack?, in edl: inout EditDecisionList) -> UserDecision? {
        var replaced: UserDecision?
        if let i = edl.decisions.firstIndex(where: { $0.frame == decision.frame }) { replaced = edl.decisions.remove(at: i) }
        let insertAt = edl.decisions.firstIndex { $0.time > decision.time } ?? edl.decisions.count
        edl.decisions.insert(decision, at: insertAt)
        if let track { edl.detectionTracks.append(track) }
        return replaced
    }
}
