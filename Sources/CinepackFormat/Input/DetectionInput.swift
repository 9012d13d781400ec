import Foundation

// What `cinepack pack --detections FILE` reads (spec/detections.md), before the packer has the
// disparity maps: disparities may be missing and are then measured from the map.

/// A problem in a detections input file: which file, where (line, or frame and detection) and what.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based line, for line-oriented inputs (CSV).
    public var line: Int?
    /// The video frame (0-based) the problem is in, when known.
    public var frame: Int?
    /// Where inside the file, e.g. `frame 12, detection 2` or `frame entry 3`.
    public var location: String?
    public var message: String

    public init(file: String, line: Int? = nil, frame: Int? = nil, location: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.frame = frame
        self.location = location
        self.message = message
    }

    /// `file:line: message` or `file: location: message`.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let location { text += ": \(location)" }
        return text + ": " + message
    }
}

/// One detection as given by the user.
public struct DetectionInput: Sendable, Equatable {
    public var id: UInt32
    public var groupID: UInt32
    public var type: DetectionType
    public var rect: NormalizedRect
    /// Diopters; nil: measured from the disparity map by the packer.
    public var disparity: Float?
    public var confidence: Float

    public init(
        id: UInt32, groupID: UInt32 = 0, type: DetectionType, rect: NormalizedRect, disparity: Float? = nil,
        confidence: Float = 1
    ) {
        self.id = id
        self.groupID = groupID
        self.type = type
        self.rect = rect
        self.disparity = disparity
        self.confidence = confidence
    }
}

/// The captured focus state of one frame as given by the user.
public struct FocusInput: Sendable, Equatable {
    public var target: FocusTarget
    /// Diopters in focus; nil: taken from the target (see `FrameInput.resolved`).
    public var disparity: Float?
    public var isStrong: Bool
    /// Present while a rack focus is under way: its progress 0…1.
    public var transitionProgress: Float?

    public init(target: FocusTarget, disparity: Float? = nil, isStrong: Bool = false, transitionProgress: Float? = nil) {
        self.target = target
        self.disparity = disparity
        self.isStrong = isStrong
        self.transitionProgress = transitionProgress
    }
}

/// Everything the input says about one video frame. Frames the input does not list are empty.
public struct FrameInput: Sendable, Equatable {
    public var detections: [DetectionInput]
    public var focus: FocusInput?
    public var decision: CapturedDecision?
    public var fNumber: Float?
    public var scene: SceneStatus

    public init(
        detections: [DetectionInput] = [], focus: FocusInput? = nil, decision: CapturedDecision? = nil, fNumber: Float? = nil,
        scene: SceneStatus = []
    ) {
        self.detections = detections
        self.focus = focus
        self.decision = decision
        self.fNumber = fNumber
        self.scene = scene
    }

    /// The frame's metadata with every missing disparity filled in:
    /// - a detection's from `measureRect` (e.g. the median of the map inside the rect);
    /// - the focus disparity from its target: the targeted detection's (for a group, the most
    ///   confident detection of the group) in this frame, the fixed disparity, or `measurePoint`
    ///   at the point. What cannot be measured (nil, or a target absent from this frame) is NaN,
    ///   the format's "unknown".
    public func resolved(measureRect: (NormalizedRect) -> Float?, measurePoint: (_ x: Float, _ y: Float) -> Float?) -> FrameMetadata {
        let detections = self.detections.map { d in
            Detection(
                id: d.id, groupID: d.groupID, type: d.type, rect: d.rect, disparity: d.disparity ?? measureRect(d.rect) ?? .nan,
                confidence: d.confidence)
        }
        let focus = self.focus.map { f -> FocusState in
            let disparity: Float
            if let given = f.disparity {
                disparity = given
            } else {
                switch f.target {
                case .none: disparity = .nan
                case .detection(let id): disparity = detections.first { $0.id == id }?.disparity ?? .nan
                case .group(let id):
                    disparity =
                        detections.filter { $0.groupID == id && !$0.disparity.isNaN }.max { $0.confidence < $1.confidence }?.disparity
                        ?? .nan
                case .fixedDisparity(let d): disparity = d
                case .point(let x, let y): disparity = measurePoint(x, y) ?? .nan
                }
            }
            return FocusState(
                target: f.target, focusDisparity: disparity, isStrong: f.isStrong, inTransition: f.transitionProgress != nil,
                transitionProgress: f.transitionProgress ?? 0)
        }
        return FrameMetadata(detections: detections, focus: focus, decision: decision, fNumber: fNumber, scene: scene)
    }

    /// The metadata with NaN wherever a disparity is missing (the packer then measures detections
    /// whose disparity is NaN).
    public var frameMetadata: FrameMetadata { resolved(measureRect: { _ in nil }, measurePoint: { _, _ in nil }) }
}

/// Reads a detections file by its extension: `.json` (spec/detections.md §2), `.csv` or `.txt`
/// (MOT challenge layout, §3).
public enum DetectionsInput {
    /// Input files above this size are refused before being read (a guard against a wrong path
    /// pointing at a video).
    public static let maxFileSize = 256 << 20

    /// Per-frame input for `frameCount` frames. `width` and `height` (the video's, in pixels) are
    /// needed to normalize MOT boxes; `csvType` is the detection type MOT rows get.
    public static func load(
        path: String, frameCount: Int, width: Int, height: Int, csvType: DetectionType = MOTCSV.defaultType
    )
        throws(InputError) -> [FrameInput]
    {
        switch (path as NSString).pathExtension.lowercased() {
        case "json":
            return try DetectionsJSON.load(path: path, frameCount: frameCount)
        case "csv", "txt":
            return try MOTCSV.load(path: path, frameCount: frameCount, width: width, height: height, type: csvType)
        default:
            throw InputError(
                file: path, message: "unknown detections format; use a .json file (spec/detections.md) or a MOT .csv/.txt file")
        }
    }

    static func readFile(_ path: String) throws(InputError) -> Data {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw InputError(file: path, message: "cannot read the file: it does not exist or is not accessible")
        }
        if attributes[.type] as? FileAttributeType == .typeDirectory {
            throw InputError(file: path, message: "is a directory, not a detections file")
        }
        if let size = (attributes[.size] as? NSNumber)?.int64Value, size > Int64(maxFileSize) {
            throw InputError(file: path, message: "is \(size) bytes, above the \(maxFileSize)-byte limit for a detections file")
        }
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw InputError(file: path, message: "cannot read the file: \(error.localizedDescription)")
        }
    }
}
