import CinepackEDL
import CinepackFormat
import CinepackTime

/// One decision of a focus script (spec/focus.md §5): a captured (base) decision, a user decision of
/// the EDL, or an implicit revert after a user-chosen subject was lost. Suppressed and replaced
/// decisions are listed too, with the reason, so tools can show why a decision has no effect.
public struct ScriptDecision: Sendable, Equatable {
    public enum Source: String, Sendable, Equatable, CaseIterable {
        /// A base decision: a captured decision item, or one derived from the captured focus states.
        case captured
        /// A user decision of the EDL.
        case user
        /// The implicit decision that returns focus to the base decisions when a user-chosen subject's
        /// track ends (spec/focus.md §4.5).
        case revert
    }

    public var source: Source
    /// `.user`: index into `EditDecisionList.decisions`. `.captured`: ordinal among the base decisions,
    /// in frame order, from 0. `.revert`: index into `EditDecisionList.decisions` of the user decision
    /// whose subject was lost.
    public var index: Int
    /// The frame the decision is on (focus arrives at its target at this frame's start).
    public var frame: Int
    /// The exact start time of `frame`.
    public var time: MediaTime
    /// The target as decided (a point stays a point here).
    public var target: FocusTarget
    /// What focus follows: a point resolved to a detection or user track, a base point without a hit
    /// resolved to a fixed plane; otherwise `target`. Nil when the decision was refused before its
    /// target could be resolved.
    public var resolvedTarget: FocusTarget?
    public var strength: DecisionStrength
    /// Per-decision bounds on the rack transition, seconds (user decisions only; nil = the movie's).
    public var minTransition: Double?
    public var maxTransition: Double?
    /// `.captured` only: derived from the captured focus states because the movie has no decision items.
    public var isDerived: Bool
    /// `.revert` only: the frame where the lost subject was last observed.
    public var lastSeenFrame: Int?
    /// `.revert` only: ordinal of the base decision focus returns to; nil when there is none and focus
    /// stays as a fixed plane at the subject's last disparity.
    public var revertsTo: Int?
    /// The rack transition that arrives at this decision; nil for the first effective decision and for
    /// decisions without effect.
    public var transition: ScriptTransition?
    /// Why this decision has no effect; nil when it is effective.
    public var suppressed: SuppressionReason?

    public var isEffective: Bool { suppressed == nil }

    public init(
        source: Source, index: Int, frame: Int, time: MediaTime, target: FocusTarget, resolvedTarget: FocusTarget?,
        strength: DecisionStrength, minTransition: Double? = nil, maxTransition: Double? = nil, isDerived: Bool = false,
        lastSeenFrame: Int? = nil, revertsTo: Int? = nil, transition: ScriptTransition? = nil,
        suppressed: SuppressionReason? = nil
    ) {
        self.source = source
        self.index = index
        self.frame = frame
        self.time = time
        self.target = target
        self.resolvedTarget = resolvedTarget
        self.strength = strength
        self.minTransition = minTransition
        self.maxTransition = maxTransition
        self.isDerived = isDerived
        self.lastSeenFrame = lastSeenFrame
        self.revertsTo = revertsTo
        self.transition = transition
        self.suppressed = suppressed
    }
}

/// The rack focus that ends at a decision (spec/focus.md §3).
public struct ScriptTransition: Sendable, Equatable {
    /// Seconds from the grid's origin; frames at or after it (up to the decision) are in transition.
    public var start: Double
    /// Seconds from `start` to the decision (after clipping).
    public var duration: Double
    /// |change| / max-disparity-rate clamped to [min, max] transition, before clipping.
    public var nominalDuration: Double
    /// Target disparity at the decision minus the disparity focus would have there without it, diopters.
    public var disparityChange: Float
    /// Whether the start was moved to the previous effective decision (the transition was shortened).
    public var isClipped: Bool

    public init(start: Double, duration: Double, nominalDuration: Double, disparityChange: Float, isClipped: Bool) {
        self.start = start
        self.duration = duration
        self.nominalDuration = nominalDuration
        self.disparityChange = disparityChange
        self.isClipped = isClipped
    }
}

/// Why a decision has no effect (spec/focus.md §4). User decisions are named by their index into
/// `EditDecisionList.decisions`; descriptions count them from 1, as spec/edl.md §11 does.
public enum SuppressionReason: Sendable, Equatable, CustomStringConvertible {
    /// A base decision on the same frame as this user decision (ties go to the user).
    case replacedByUser(Int)
    /// A user decision on the same frame as this later user decision of the EDL.
    case replacedByLaterUser(Int)
    /// A base decision while this strong user decision holds focus.
    case strongUserDecision(Int)
    /// A base decision within the weak-suppression time after this weak user decision.
    case weakUserDecision(Int)
    /// A user decision whose detection or group is not tracked at its time.
    case targetNotTracked
    /// A point that hits no detection and no user track at its frame.
    case unresolvedPoint
    /// A decision without a target (`FocusTarget.none`).
    case noTarget
    /// A target with no usable disparity (never measured, or not finite).
    case noDisparity
    /// A user decision whose time cannot be placed on the frame grid.
    case timeOutOfRange

    public var description: String {
        switch self {
        case .replacedByUser(let i): return "replaced by user decision \(i + 1) on the same frame"
        case .replacedByLaterUser(let i): return "replaced by the later user decision \(i + 1) on the same frame"
        case .strongUserDecision(let i): return "suppressed: strong user decision \(i + 1) holds focus"
        case .weakUserDecision(let i): return "suppressed: within the weak-suppression time after user decision \(i + 1)"
        case .targetNotTracked: return "the target is not tracked at this time"
        case .unresolvedPoint: return "the point hits no detection or user track at this frame"
        case .noTarget: return "no target"
        case .noDisparity: return "the target has no usable disparity"
        case .timeOutOfRange: return "the time is not representable on the frame grid"
        }
    }
}
