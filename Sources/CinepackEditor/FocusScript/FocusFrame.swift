import CinepackEDL
import CinepackFormat
import CinepackTime

/// The focus in one frame of a focus script (spec/focus.md §5).
public struct FocusFrame: Sendable, Equatable {
    public var frame: Int
    /// The exact start time of `frame`.
    public var time: MediaTime
    /// What focus is on, or moving to during a transition (points appear resolved).
    public var primary: FocusTarget
    /// During a transition: what focus is leaving; nil otherwise.
    public var secondary: FocusTarget?
    /// The disparity in focus, diopters; always finite.
    public var focusDisparity: Float
    /// Nil outside transitions; 0…1 inside (0 at the transition's start, reaching 1 at the decision).
    public var transitionProgress: Float?
    /// Index into `FocusScript.decisions` of the governing decision: the one focus is on, or moving to.
    /// Nil only when the script has no effective decision and shows the captured focus (spec/focus.md §3.4).
    public var decisionIndex: Int?
    /// Strength of the governing decision (captured focus state's when `decisionIndex` is nil).
    public var strength: DecisionStrength

    public var isInTransition: Bool { transitionProgress != nil }

    public init(
        frame: Int, time: MediaTime, primary: FocusTarget, secondary: FocusTarget? = nil, focusDisparity: Float,
        transitionProgress: Float? = nil, decisionIndex: Int?, strength: DecisionStrength
    ) {
        self.frame = frame
        self.time = time
        self.primary = primary
        self.secondary = secondary
        self.focusDisparity = focusDisparity
        self.transitionProgress = transitionProgress
        self.decisionIndex = decisionIndex
        self.strength = strength
    }
}
