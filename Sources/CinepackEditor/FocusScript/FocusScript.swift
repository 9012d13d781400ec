import CinepackEDL
import CinepackFormat
import CinepackTime

/// The focus script: base (captured) decisions plus the user decisions of an EDL, turned into the focus
/// at every frame (normative text in spec/focus.md). A pure function of its inputs: the same
/// capture and EDL always give the same script.
public struct FocusScript: Sendable {
    /// Every decision in time order, effective or not (spec/focus.md §5): sorted by frame; on one frame
    /// the effective decision first, then user, revert and captured ones, each by index.
    public let decisions: [ScriptDecision]
    /// The focus at every frame of the capture, `frames[n].frame == n`.
    public let frames: [FocusFrame]

    public init(capture: CaptureTimeline, edl: EditDecisionList) {
        var planner = FocusPlanner(capture: capture, edl: edl)
        (decisions, frames) = planner.run()
    }

    /// The decisions that take effect, in time order.
    public var effectiveDecisions: [ScriptDecision] { decisions.filter(\.isEffective) }

    /// The focus at frame `n`.
    /// - Precondition: `0 <= n < frames.count`.
    public func frame(_ n: Int) -> FocusFrame {
        precondition(frames.indices.contains(n), "FocusScript: frame \(n) outside 0..<\(frames.count)")
        return frames[n]
    }
}

/// A target made concrete: what to report, and where its disparity comes from.
struct ResolvedTarget: Sendable {
    enum Source: Sendable {
        case track(TargetTrack)
        case constant(Float)
    }

    var reported: FocusTarget
    var source: Source

    func disparity(atFrame n: Int) -> Float {
        switch source {
        case .constant(let d): return d
        case .track(let track): return track.disparity(atFrame: n) ?? 0
        }
    }
}

/// A target resolved, or the reason it cannot be.
enum TargetResolution<Value> {
    case resolved(Value)
    case refused(SuppressionReason)
}

/// Builds the decision list and the per-frame table (spec/focus.md §3–§5).
struct FocusPlanner {
    struct Base {
        var ordinal: Int
        var frame: Int
        var target: FocusTarget
        var strength: DecisionStrength
        var derived: Bool
        var resolved: ResolvedTarget?
        var refusal: SuppressionReason?
    }

    struct User {
        var index: Int
        var frame: Int
        var time: MediaTime
        var decision: UserDecision
        var resolved: ResolvedTarget?
        /// The segment's last observation and the revert frame, when the subject's track ends.
        var loss: (lastSeen: Int, revert: Int)?
        var refusal: SuppressionReason?
    }

    /// An effective decision, for the per-frame table.
    struct Effective {
        var entry: Int
        var frame: Int
        var seconds: Double
        var target: ResolvedTarget
        var strength: DecisionStrength
        var minTransition: Double?
        var maxTransition: Double?
        var transition: ScriptTransition?
    }

    let capture: CaptureTimeline
    let edl: EditDecisionList
    let timing: FocusTiming
    let tracks: TargetTracks
    var entries: [ScriptDecision] = []
    var effective: [Effective] = []

    init(capture: CaptureTimeline, edl: EditDecisionList) {
        self.capture = capture
        self.edl = edl
        self.timing = FocusTiming(parameters: capture.parameters, grid: capture.grid)
        self.tracks = TargetTracks(frames: capture.frames, userTracks: edl.detectionTracks, timing: timing)
    }

    var frameCount: Int { capture.frames.count }

    func time(ofFrame n: Int) -> MediaTime {
        capture.grid.checkedTime(ofFrame: Int64(n)) ?? MediaTime(seconds: timing.seconds(ofFrame: n), timescale: 1_000_000) ?? .zero
    }

    mutating func run() -> ([ScriptDecision], [FocusFrame]) {
        var bases = baseDecisions()
        var users = userDecisions()
        replaceTies(&bases, &users)
        walk(bases, users)
        computeTransitions()
        let order = entries.indices.sorted { a, b in Self.sortKey(entries[a]) < Self.sortKey(entries[b]) }
        var position = [Int](repeating: 0, count: entries.count)
        for (i, e) in order.enumerated() { position[e] = i }
        let sorted = order.map { entries[$0] }
        for k in effective.indices { effective[k].entry = position[effective[k].entry] }
        return (sorted, focusFrames())
    }

    static func sortKey(_ d: ScriptDecision) -> SortKey {
        let rank: Int
        switch d.source {
        case .user: rank = 0
        case .revert: rank = 1
        case .captured: rank = 2
        }
        return SortKey(frame: d.frame, suppressed: d.isEffective ? 0 : 1, source: rank, index: d.index)
    }

    struct SortKey: Comparable {
        var frame: Int, suppressed: Int, source: Int, index: Int
        static func < (a: SortKey, b: SortKey) -> Bool {
            (a.frame, a.suppressed, a.source, a.index) < (b.frame, b.suppressed, b.source, b.index)
        }
    }

    // MARK: Base decisions (§2.3)

    func baseDecisions() -> [Base] {
        var result: [Base] = []
        for (n, metadata) in capture.frames.enumerated() {
            guard let d = metadata.decision else { continue }
            result.append(Base(ordinal: result.count, frame: n, target: d.target, strength: d.isStrong ? .strong : .weak, derived: false))
        }
        if result.isEmpty {
            var current: FocusTarget?
            for (n, metadata) in capture.frames.enumerated() {
                guard let s = metadata.focus, s.focusDisparity.isFinite, !s.inTransition, s.target != .none else { continue }
                guard s.target != current else { continue }
                current = s.target
                result.append(
                    Base(ordinal: result.count, frame: n, target: s.target, strength: s.isStrong ? .strong : .weak, derived: true))
            }
        }
        for i in result.indices {
            switch resolveBase(result[i]) {
            case .resolved(let r): result[i].resolved = r
            case .refused(let reason): result[i].refusal = reason
            }
        }
        return result
    }

    /// The captured focus disparity of frame `n`, when there is a finite one.
    func capturedFocusDisparity(_ n: Int) -> Float? {
        guard capture.frames.indices.contains(n), let d = capture.frames[n].focus?.focusDisparity, d.isFinite else { return nil }
        return d
    }

    func resolveBase(_ b: Base) -> TargetResolution<ResolvedTarget> {
        func fallback(_ reported: FocusTarget) -> TargetResolution<ResolvedTarget> {
            guard let d = capturedFocusDisparity(b.frame) else { return .refused(.noDisparity) }
            return .resolved(ResolvedTarget(reported: reported, source: .constant(d)))
        }
        switch b.target {
        case .none:
            return .refused(.noTarget)
        case .fixedDisparity(let v):
            return v.isFinite ? .resolved(ResolvedTarget(reported: b.target, source: .constant(v))) : .refused(.noDisparity)
        case .detection(let id):
            guard let track = tracks.detection(id), track.hasDisparity else { return fallback(b.target) }
            return .resolved(ResolvedTarget(reported: b.target, source: .track(track)))
        case .group(let id):
            guard let track = tracks.group(id), track.hasDisparity else { return fallback(b.target) }
            return .resolved(ResolvedTarget(reported: b.target, source: .track(track)))
        case .point(let x, let y):
            if let id = hitTest(x: x, y: y, frame: b.frame), let track = tracks.detection(id), track.hasDisparity {
                return .resolved(ResolvedTarget(reported: .detection(id), source: .track(track)))
            }
            guard let d = capturedFocusDisparity(b.frame) else { return .refused(.unresolvedPoint) }
            return .resolved(ResolvedTarget(reported: .fixedDisparity(d), source: .constant(d)))
        }
    }

    /// The detection under a point at frame `n` (§2.5): captured detections first, then user tracks with a
    /// sample on that frame; the smallest rect wins, ties to the lowest id.
    func hitTest(x: Float, y: Float, frame n: Int) -> UInt32? {
        func pick(_ candidates: [(id: UInt32, rect: NormalizedRect)]) -> UInt32? {
            candidates.filter { $0.rect.contains(x: x, y: y) }
                .min { ($0.rect.area, $0.id) < ($1.rect.area, $1.id) }?.id
        }
        if capture.frames.indices.contains(n),
            let id = pick(capture.frames[n].detections.map { ($0.id, $0.rect) })
        {
            return id
        }
        let samples = edl.detectionTracks.compactMap { track in
            track.samples.last { $0.frame == Int64(n) }.map { (track.id, $0.rect) }
        }
        return pick(samples)
    }

    // MARK: User decisions (§2.4)

    func userDecisions() -> [User] {
        var result: [User] = []
        for (i, d) in edl.decisions.enumerated() {
            guard let snapped = capture.grid.checkedSnap(d.time), let frame = Int(exactly: snapped.frame) else {
                result.append(User(index: i, frame: Int(clamping: d.frame), time: d.time, decision: d, refusal: .timeOutOfRange))
                continue
            }
            var user = User(index: i, frame: frame, time: snapped.time, decision: d)
            switch resolveUser(d.target, frame: frame) {
            case .resolved(let (resolved, loss)):
                user.resolved = resolved
                user.loss = loss
            case .refused(let reason):
                user.refusal = reason
            }
            result.append(user)
        }
        return result
    }

    func resolveUser(_ target: FocusTarget, frame f: Int) -> TargetResolution<(ResolvedTarget, (lastSeen: Int, revert: Int)?)> {
        func follow(_ reported: FocusTarget, _ track: TargetTrack?) -> TargetResolution<(ResolvedTarget, (lastSeen: Int, revert: Int)?)> {
            guard let track,
                let segment = track.segment(forDecisionAt: f, bridgeFrames: timing.bridgeFrames, revertFrames: timing.revertFrames)
            else { return .refused(.targetNotTracked) }
            guard track.hasDisparity else { return .refused(.noDisparity) }
            let revert = segment.last.addingReportingOverflow(timing.revertFrames)
            let loss = segment.ended && !revert.overflow ? (lastSeen: segment.last, revert: revert.partialValue) : nil
            return .resolved((ResolvedTarget(reported: reported, source: .track(track)), loss))
        }
        switch target {
        case .none:
            return .refused(.noTarget)
        case .fixedDisparity(let v):
            return v.isFinite ? .resolved((ResolvedTarget(reported: target, source: .constant(v)), nil)) : .refused(.noDisparity)
        case .detection(let id):
            return follow(target, tracks.detection(id))
        case .group(let id):
            return follow(target, tracks.group(id))
        case .point(let x, let y):
            guard let id = hitTest(x: x, y: y, frame: f) else { return .refused(.unresolvedPoint) }
            return follow(.detection(id), tracks.detection(id))
        }
    }

    /// §4.1: of valid user decisions on one frame the last in the EDL wins; a base decision on the frame of
    /// a valid user decision is replaced by it.
    func replaceTies(_ bases: inout [Base], _ users: inout [User]) {
        var winner: [Int: Int] = [:]
        for (i, u) in users.enumerated() where u.refusal == nil {
            if let earlier = winner[u.frame] { users[earlier].refusal = .replacedByLaterUser(u.index) }
            winner[u.frame] = i
        }
        for i in bases.indices where bases[i].refusal == nil {
            if let w = winner[bases[i].frame] { bases[i].refusal = .replacedByUser(users[w].index) }
        }
    }

    // MARK: The walk (§4.2–§4.5)

    enum Event {
        case user(Int)
        case base(Int)
    }

    struct Holding {
        var user: Int
        var strength: DecisionStrength
        var frame: Int
        var seconds: Double
        var loss: (lastSeen: Int, revert: Int)?
        var target: ResolvedTarget
    }

    mutating func walk(_ bases: [Base], _ users: [User]) {
        var events: [(frame: Int, event: Event)] = []
        for (i, b) in bases.enumerated() {
            if b.refusal == nil {
                events.append((b.frame, .base(i)))
            } else {
                entries.append(entry(b, suppressed: b.refusal))
            }
        }
        for (i, u) in users.enumerated() {
            if u.refusal == nil {
                events.append((u.frame, .user(i)))
            } else {
                entries.append(entry(u, suppressed: u.refusal))
            }
        }
        // Frames are unique among the remaining events (§4.1), so this order is total.
        events.sort { $0.frame < $1.frame }
        // Revert candidates: every base decision with a target, effective or not.
        let candidates = bases.filter { $0.resolved != nil }

        var holding: Holding?
        for (frame, event) in events {
            if let h = holding, let loss = h.loss, loss.revert <= frame {
                if loss.revert < frame { revert(h, loss, candidates) }
                holding = nil
            }
            switch event {
            case .user(let i):
                let u = users[i]
                let index = entries.count
                entries.append(entry(u, suppressed: nil))
                append(
                    entry: index, frame: u.frame, target: u.resolved!, strength: u.decision.strength, u.decision.minTransition,
                    u.decision.maxTransition)
                holding = Holding(
                    user: u.index, strength: u.decision.strength, frame: u.frame, seconds: timing.seconds(ofFrame: u.frame), loss: u.loss,
                    target: u.resolved!)
            case .base(let i):
                let b = bases[i]
                if let h = holding, h.strength == .strong {
                    entries.append(entry(b, suppressed: .strongUserDecision(h.user)))
                } else if let h = holding, b.frame > h.frame,
                    timing.seconds(ofFrame: b.frame) - h.seconds <= timing.weakSuppression + FocusTiming.tolerance
                {
                    entries.append(entry(b, suppressed: .weakUserDecision(h.user)))
                } else {
                    let index = entries.count
                    entries.append(entry(b, suppressed: nil))
                    append(entry: index, frame: b.frame, target: b.resolved!, strength: b.strength, nil, nil)
                    holding = nil
                }
            }
        }
        if let h = holding, let loss = h.loss { revert(h, loss, candidates) }
    }

    mutating func revert(_ h: Holding, _ loss: (lastSeen: Int, revert: Int), _ candidates: [Base]) {
        let base = candidates.last { $0.frame <= loss.revert }
        let target: ResolvedTarget
        let reported: FocusTarget
        if let base {
            target = base.resolved!
            reported = base.target
        } else {
            let d = h.target.disparity(atFrame: loss.revert)
            target = ResolvedTarget(reported: .fixedDisparity(d), source: .constant(d))
            reported = target.reported
        }
        let strength = base?.strength ?? .weak
        let index = entries.count
        entries.append(
            ScriptDecision(
                source: .revert, index: h.user, frame: loss.revert, time: time(ofFrame: loss.revert), target: reported,
                resolvedTarget: target.reported, strength: strength, lastSeenFrame: loss.lastSeen, revertsTo: base?.ordinal))
        append(entry: index, frame: loss.revert, target: target, strength: strength, nil, nil)
    }

    mutating func append(
        entry: Int, frame: Int, target: ResolvedTarget, strength: DecisionStrength, _ minimum: Double?, _ maximum: Double?
    ) {
        effective.append(
            Effective(
                entry: entry, frame: frame, seconds: timing.seconds(ofFrame: frame), target: target, strength: strength,
                minTransition: minimum, maxTransition: maximum))
    }

    func entry(_ b: Base, suppressed: SuppressionReason?) -> ScriptDecision {
        ScriptDecision(
            source: .captured, index: b.ordinal, frame: b.frame, time: time(ofFrame: b.frame), target: b.target,
            resolvedTarget: b.resolved?.reported, strength: b.strength, isDerived: b.derived, suppressed: suppressed)
    }

    func entry(_ u: User, suppressed: SuppressionReason?) -> ScriptDecision {
        ScriptDecision(
            source: .user, index: u.index, frame: u.frame, time: u.time, target: u.decision.target, resolvedTarget: u.resolved?.reported,
            strength: u.decision.strength, minTransition: u.decision.minTransition, maxTransition: u.decision.maxTransition,
            suppressed: suppressed)
    }

    // MARK: Transitions (§3)

    mutating func computeTransitions() {
        for k in effective.indices.dropFirst() {
            let previous = effective[k - 1], next = effective[k]
            let change = next.target.disparity(atFrame: next.frame) - previous.target.disparity(atFrame: next.frame)
            let nominal = timing.transitionDuration(change: change, minimum: next.minTransition, maximum: next.maxTransition)
            let start = max(next.seconds - nominal, previous.seconds)
            let transition = ScriptTransition(
                start: start, duration: next.seconds - start, nominalDuration: nominal, disparityChange: change,
                isClipped: next.seconds - nominal < previous.seconds - FocusTiming.tolerance)
            effective[k].transition = transition
            entries[next.entry].transition = transition
        }
    }

    // MARK: The table (§3.3, §5)

    func focusFrames() -> [FocusFrame] {
        guard !effective.isEmpty else { return capturedFrames() }
        var result: [FocusFrame] = []
        result.reserveCapacity(frameCount)
        var k = -1
        for n in 0..<frameCount {
            while k + 1 < effective.count, effective[k + 1].frame <= n { k += 1 }
            let time = self.time(ofFrame: n)
            guard k >= 0 else {
                let first = effective[0]
                result.append(
                    FocusFrame(
                        frame: n, time: time, primary: first.target.reported, focusDisparity: first.target.disparity(atFrame: n),
                        decisionIndex: first.entry, strength: first.strength))
                continue
            }
            let current = effective[k]
            let tau = timing.seconds(ofFrame: n)
            if k + 1 < effective.count, let transition = effective[k + 1].transition, transition.duration > 0,
                tau >= transition.start - FocusTiming.tolerance
            {
                let next = effective[k + 1]
                let p = min(max((tau - transition.start) / transition.duration, 0), 1)
                let from = Double(current.target.disparity(atFrame: n)), to = Double(next.target.disparity(atFrame: n))
                result.append(
                    FocusFrame(
                        frame: n, time: time, primary: next.target.reported, secondary: current.target.reported,
                        focusDisparity: Float((1 - p) * from + p * to), transitionProgress: Float(p), decisionIndex: next.entry,
                        strength: next.strength))
            } else {
                result.append(
                    FocusFrame(
                        frame: n, time: time, primary: current.target.reported, focusDisparity: current.target.disparity(atFrame: n),
                        decisionIndex: current.entry, strength: current.strength))
            }
        }
        return result
    }

    /// No effective decision (§3.4): the captured focus, frame by frame; frames without a usable focus state
    /// hold the previous usable one (the first for leading frames); without any, a fixed plane at 0 D.
    func capturedFrames() -> [FocusFrame] {
        let usable = capture.frames.map { m -> FocusState? in
            guard let s = m.focus, s.focusDisparity.isFinite else { return nil }
            return s
        }
        var held = usable.first { $0 != nil } ?? nil
        var result: [FocusFrame] = []
        result.reserveCapacity(frameCount)
        for n in 0..<frameCount {
            let time = self.time(ofFrame: n)
            if let s = usable[n] {
                held = s
                result.append(
                    FocusFrame(
                        frame: n, time: time, primary: s.target, focusDisparity: s.focusDisparity,
                        transitionProgress: s.inTransition ? min(max(s.transitionProgress, 0), 1) : nil, decisionIndex: nil,
                        strength: s.isStrong ? .strong : .weak))
            } else if let s = held {
                result.append(
                    FocusFrame(
                        frame: n, time: time, primary: s.target, focusDisparity: s.focusDisparity, decisionIndex: nil,
                        strength: s.isStrong ? .strong : .weak))
            } else {
                result.append(
                    FocusFrame(frame: n, time: time, primary: .fixedDisparity(0), focusDisparity: 0, decisionIndex: nil, strength: .weak))
            }
        }
        return result
    }
}
