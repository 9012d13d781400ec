import CinepackFormat
import CinepackTime

/// Every change a user makes to a cinematic movie, and nothing else (spec/edl.md): the captured
/// metadata is never rewritten. Stored in the movie (spec/format.md §8) or as a sidecar file.
public struct EditDecisionList: Sendable, Equatable {
    public static let namespace = "urn:cinepack:edl:1"
    public static let currentVersion = 1

    public var version: Int = EditDecisionList.currentVersion
    /// The media this EDL was made for; a sidecar bound to other media is refused on import.
    public var media: MediaBinding?
    /// The f-number chosen by the user; nil keeps the movie's default.
    public var fNumber: Float?
    /// The lens look chosen by the user (blades, anamorphic squeeze, highlight rebuild).
    public var look = ApertureLook()
    /// User focus decisions, in time order.
    public var decisions: [UserDecision] = []
    /// Detection tracks the user created (point focus on empty space, fixed planes).
    public var detectionTracks: [UserDetectionTrack] = []
    /// Editorial source ranges (trims), in playback order; empty = the whole clip.
    public var sourceRanges: [SourceRange] = []
    /// Speed changes over source time.
    public var speedSegments: [SpeedSegment] = []
    /// Earlier states for undo: each entry is a complete previous EDL body, most recent last.
    public var history: [HistoryEntry] = []
    /// Undone steps for redo (§8): each entry holds the EDL body as it was after its step, the most
    /// recently undone last. A new edit drops them.
    public var redo: [HistoryEntry] = []
    /// Elements in other namespaces, kept verbatim (canonical XML) so other tools' data survives.
    public var foreignElements: [String] = []

    public init() {}
}

/// Identifies the media an EDL belongs to.
public struct MediaBinding: Sendable, Equatable, CustomStringConvertible {
    public var frameCount: Int
    /// Frame rate as an exact rational, e.g. 30000/1001.
    public var frameRate: FrameRate
    /// Hex digest of the video track's sample table and sizes (spec/edl.md §3).
    public var fingerprint: String

    public init(frameCount: Int, frameRate: FrameRate, fingerprint: String) {
        self.frameCount = frameCount
        self.frameRate = frameRate
        self.fingerprint = fingerprint
    }

    /// `90 frames at 30/1, fingerprint 3fa…`: how messages name the media an EDL is bound to.
    public var description: String { "\(frameCount) frames at \(frameRate), fingerprint \(fingerprint)" }
}

public enum DecisionStrength: String, Sendable, Equatable, CaseIterable {
    case weak, strong
}

/// A user focus decision: focus arrives at `target` at `time` (spec/focus.md §2.4).
public struct UserDecision: Sendable, Equatable {
    /// Exact time on the source frame grid.
    public var time: MediaTime
    /// The frame `time` falls on (redundant, for readers and humans; must agree with `time`).
    public var frame: Int64
    public var target: FocusTarget
    public var strength: DecisionStrength
    /// Optional bounds on the rack transition, seconds (defaults: the movie's parameters).
    public var minTransition: Double?
    public var maxTransition: Double?

    public init(
        time: MediaTime, frame: Int64, target: FocusTarget, strength: DecisionStrength,
        minTransition: Double? = nil, maxTransition: Double? = nil
    ) {
        self.time = time
        self.frame = frame
        self.target = target
        self.strength = strength
        self.minTransition = minTransition
        self.maxTransition = maxTransition
    }
}

/// A detection track created by the user.
public struct UserDetectionTrack: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// Follows a region through frames (point focus on empty space).
        case custom
        /// A fixed focus plane.
        case fixed
    }

    public struct Sample: Sendable, Equatable {
        public var frame: Int64
        public var rect: NormalizedRect
        public var disparity: Float
        public init(frame: Int64, rect: NormalizedRect, disparity: Float) {
            self.frame = frame
            self.rect = rect
            self.disparity = disparity
        }
    }

    /// Ids of user tracks start at 1 000 000 so they never collide with captured ids.
    public var id: UInt32
    public var kind: Kind
    public var samples: [Sample]

    public init(id: UInt32, kind: Kind, samples: [Sample]) {
        self.id = id
        self.kind = kind
        self.samples = samples
    }
}

/// A span of source time kept by a trim: [start, end).
public struct SourceRange: Sendable, Equatable {
    public var start: MediaTime
    public var end: MediaTime
    public init(start: MediaTime, end: MediaTime) {
        self.start = start
        self.end = end
    }
}

/// Source time [start, end) plays at `rate` (2/1 = twice as fast, 1/2 = half speed).
public struct SpeedSegment: Sendable, Equatable {
    public var start: MediaTime
    public var end: MediaTime
    public var rateNumerator: Int64
    public var rateDenominator: Int64
    public init(start: MediaTime, end: MediaTime, rateNumerator: Int64, rateDenominator: Int64) {
        self.start = start
        self.end = end
        self.rateNumerator = rateNumerator
        self.rateDenominator = rateDenominator
    }
}

/// One undo step: a short description and the EDL as it was before that edit (without history);
/// as a redo step, the EDL as it was after that edit.
public struct HistoryEntry: Sendable, Equatable {
    public var description: String
    /// Canonical XML of the previous EDL body.
    public var previous: String
    public init(description: String, previous: String) {
        self.description = description
        self.previous = previous
    }
}
