/// What focus is on (spec/format.md §6.3).
public enum FocusTarget: Sendable, Equatable, Codable {
    case none
    case detection(UInt32)
    case group(UInt32)
    /// A fixed focus plane at this disparity (diopters).
    case fixedDisparity(Float)
    /// A point in normalized coordinates; resolved to a custom detection or a fixed plane by the editor.
    case point(x: Float, y: Float)
}

/// The one wording of a focus target for people: `detection 4`, `group 2`, `fixed plane 0.8 D`,
/// `point (0.5, 0.4)`, `none` (values as the shortest decimal that reads back to the same Float).
extension FocusTarget: CustomStringConvertible {
    /// The shortest decimal that reads back to `v`, without a trailing `.0`.
    package static func text(_ v: Float) -> String {
        let s = "\(v)"
        return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
    }

    public var description: String {
        switch self {
        case .none: "none"
        case .detection(let id): "detection \(id)"
        case .group(let id): "group \(id)"
        case .fixedDisparity(let d): "fixed plane \(Self.text(d)) D"
        case .point(let x, let y): "point (\(Self.text(x)), \(Self.text(y)))"
        }
    }
}

/// The captured focus state in one frame.
public struct FocusState: Sendable, Equatable, Codable {
    public var target: FocusTarget
    /// Focus disparity actually used in this frame, diopters.
    public var focusDisparity: Float
    public var isStrong: Bool
    /// Whether a rack focus transition is under way in this frame, and how far (0…1).
    public var inTransition: Bool
    public var transitionProgress: Float

    public init(
        target: FocusTarget, focusDisparity: Float, isStrong: Bool = false, inTransition: Bool = false,
        transitionProgress: Float = 0
    ) {
        self.target = target
        self.focusDisparity = focusDisparity
        self.isStrong = isStrong
        self.inTransition = inTransition
        self.transitionProgress = transitionProgress
    }
}

/// A focus decision recorded at capture (a base decision): at this frame, focus goes to `target`.
public struct CapturedDecision: Sendable, Equatable, Codable {
    public var target: FocusTarget
    public var isStrong: Bool
    public init(target: FocusTarget, isStrong: Bool) {
        self.target = target
        self.isStrong = isStrong
    }
}

/// Scene conditions flagged at capture.
public struct SceneStatus: OptionSet, Sendable, Hashable, Codable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let notEnoughLight = SceneStatus(rawValue: 1 << 0)
    public static let subjectTooClose = SceneStatus(rawValue: 1 << 1)

    public static let named: [(String, SceneStatus)] = [("not-enough-light", .notEnoughLight), ("subject-too-close", .subjectTooClose)]
}

/// Everything the focus-metadata track holds for one video frame.
public struct FrameMetadata: Sendable, Equatable, Codable {
    public var detections: [Detection]
    public var focus: FocusState?
    /// Present only on frames where capture made a decision.
    public var decision: CapturedDecision?
    public var fNumber: Float?
    public var scene: SceneStatus

    public init(
        detections: [Detection] = [], focus: FocusState? = nil, decision: CapturedDecision? = nil, fNumber: Float? = nil,
        scene: SceneStatus = []
    ) {
        self.detections = detections
        self.focus = focus
        self.decision = decision
        self.fNumber = fNumber
        self.scene = scene
    }
}
