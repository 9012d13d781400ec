/// A detected subject in one frame (spec/format.md §6.2).
public struct Detection: Sendable, Equatable, Codable {
    /// Detection track id: the same subject keeps its id across frames. Never 0.
    public var id: UInt32
    /// Group id: detections of one subject (face, head, torso) share it; 0 = no group.
    public var groupID: UInt32
    public var type: DetectionType
    /// Normalized rectangle, origin top-left, x right, y down; (0,0,1,1) is the whole frame.
    public var rect: NormalizedRect
    /// Disparity of the subject in diopters (1/m); larger is nearer.
    public var disparity: Float
    /// 0…1.
    public var confidence: Float

    public init(id: UInt32, groupID: UInt32 = 0, type: DetectionType, rect: NormalizedRect, disparity: Float, confidence: Float = 1) {
        self.id = id
        self.groupID = groupID
        self.type = type
        self.rect = rect
        self.disparity = disparity
        self.confidence = confidence
    }
}

/// Detection type numbers, as established by phone cinematic capture (spec/format.md §6.2).
public struct DetectionType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let face = DetectionType(rawValue: 1)
    public static let head = DetectionType(rawValue: 2)
    public static let torso = DetectionType(rawValue: 3)
    public static let catBody = DetectionType(rawValue: 4)
    public static let dogBody = DetectionType(rawValue: 5)
    public static let catHead = DetectionType(rawValue: 9)
    public static let dogHead = DetectionType(rawValue: 10)
    public static let sportsBall = DetectionType(rawValue: 11)
    public static let autoFocus = DetectionType(rawValue: 100)
    public static let fixedFocus = DetectionType(rawValue: 101)
    public static let custom = DetectionType(rawValue: 102)

    public static let named: [(String, DetectionType)] = [
        ("face", .face), ("head", .head), ("torso", .torso), ("cat-body", .catBody), ("dog-body", .dogBody),
        ("cat-head", .catHead), ("dog-head", .dogHead), ("sports-ball", .sportsBall), ("auto-focus", .autoFocus),
        ("fixed-focus", .fixedFocus), ("custom", .custom),
    ]

    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.0 == name }) else { return nil }
        self = match.1
    }

    public var name: String? { Self.named.first { $0.1 == self }?.0 }
    /// The name of the table of spec/format.md §6.2, or the number for other types (kept and shown
    /// as numbers, §6.2); either form reads back through `--detection-type` and detections JSON.
    public var description: String { name ?? String(rawValue) }
}

/// A rectangle in normalized frame coordinates (origin top-left).
public struct NormalizedRect: Sendable, Equatable, Codable {
    public var x: Float
    public var y: Float
    public var width: Float
    public var height: Float

    public init(x: Float, y: Float, width: Float, height: Float) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var area: Float { width * height }
    public var centerX: Float { x + width / 2 }
    public var centerY: Float { y + height / 2 }

    public func contains(x px: Float, y py: Float) -> Bool {
        px >= x && px <= x + width && py >= y && py <= y + height
    }
}
