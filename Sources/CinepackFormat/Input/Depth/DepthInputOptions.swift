/// How `pack` reads a depth input: what the numbers mean and how to turn them into diopters
/// (spec/depth-input.md).
public struct DepthInputOptions: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Disparity in diopters (1/m, larger = nearer); integer images are codes on the range.
        case disparity
        /// Metric depth: metres = value / depth scale; 0 = no depth.
        case depth
        /// Model output: larger = nearer, unknown scale and shift; needs calibration.
        case relativeDisparity
    }

    /// How a map whose aspect ratio differs from the picture's is treated.
    public enum Fit: String, Sendable, CaseIterable {
        /// Refused with a message.
        case exact
        /// Accepted: the map is stretched over the whole picture (spec/format.md §5).
        case stretch
    }

    public var kind: Kind
    /// The range stored in the file; nil chooses it from the data (with a margin).
    public var range: DisparityQuantization?
    /// Metres = value / depthScale (1000 for millimetres, 5000 for TUM RGB-D). Required for
    /// integer depth images; 1 for float ones when nil.
    public var depthScale: Float?
    /// The map is stored white = far: values are negated before anything else (relative only).
    public var invert = false
    /// EXR channel; nil tries Z, depth.Z, Y, R in that order.
    public var exrChannel: String?
    /// `.npz` array; nil takes the first.
    public var npzKey: String?
    /// Deflicker relative maps (spec/depth-input.md §4).
    public var stabilize = true
    public var fit: Fit = .exact
    /// Calibration anchors for relative maps.
    public var anchors: [CalibrationAnchor] = []

    public init(kind: Kind, range: DisparityQuantization? = nil) {
        self.kind = kind
        self.range = range
    }
}
