import CinepackEDL
import CinepackTime

/// A user decision that no kept range shows (spec/retime.md §2): it stays in the EDL, is reported,
/// and is inactive for output (the focus of the program ignores it) until a trim shows its frame again.
public struct InactiveDecision: Sendable, Equatable {
    /// Index in `EditDecisionList.decisions` (0-based).
    public var index: Int
    public var decision: UserDecision
    public init(index: Int, decision: UserDecision) {
        self.index = index
        self.decision = decision
    }
}

/// What a retiming edit did, fact by fact, so an editing UI or the CLI can tell the user.
public struct RetimeReport: Sendable, Equatable {
    /// One decision that changed frame.
    public struct Move: Sendable, Equatable {
        /// Index in the EDL before the edit (0-based).
        public var fromIndex: Int
        /// Index in the EDL after the edit (decisions stay in time order, so it can differ).
        public var toIndex: Int
        public var fromFrame: Int64
        public var toFrame: Int64
        public var fromTime: MediaTime
        public var toTime: MediaTime
        public init(fromIndex: Int, toIndex: Int, fromFrame: Int64, toFrame: Int64, fromTime: MediaTime, toTime: MediaTime) {
            self.fromIndex = fromIndex
            self.toIndex = toIndex
            self.fromFrame = fromFrame
            self.toFrame = toFrame
            self.fromTime = fromTime
            self.toTime = toTime
        }
    }

    /// Every decision that moved, in the order of their old indices.
    public var moves: [Move] = []
    /// Decisions removed because a moved decision landed on their frame (only when replacing was asked).
    public var replaced: [UserDecision] = []
    /// A requested time or offset and the frame (or whole number of frames) it was snapped to.
    public var snapped: SnappedTime?
    /// Speed segments removed or cut because a new one replaced that part of the clip.
    public var replacedSpeedSegments: [SpeedSegment] = []
    /// After the edit: decisions outside the kept ranges (never dropped, see `InactiveDecision`).
    public var inactive: [InactiveDecision] = []
    /// The program's duration before and after the edit.
    public var outputDurationBefore: MediaTime
    public var outputDurationAfter: MediaTime
    /// One human-readable line per fact, in the order they happened.
    public var messages: [String] = []

    public init(outputDurationBefore: MediaTime, outputDurationAfter: MediaTime) {
        self.outputDurationBefore = outputDurationBefore
        self.outputDurationAfter = outputDurationAfter
    }
}

/// The EDL after a retiming edit, and what changed.
public struct RetimeResult: Sendable, Equatable {
    public var edl: EditDecisionList
    public var report: RetimeReport
    public init(edl: EditDecisionList, report: RetimeReport) {
        self.edl = edl
        self.report = report
    }
}
