import Foundation

/// How a relative map was tied to metres.
public struct CalibrationReport: Sendable, Equatable, CustomStringConvertible {
    public struct Anchor: Sendable, Equatable {
        public var label: String
        /// Distance the fitted map gives at the anchor.
        public var fittedMetres: Float
        public var metres: Float
    }

    /// diopters = scale · (stabilized relative value) + shift.
    public var scale: Float
    public var shift: Float
    public var anchors: [Anchor]
    /// Root mean square of (fitted − wanted) disparity over the anchors, in diopters; 0 when the
    /// fit is exact (one anchor, or two).
    public var rmsResidual: Float

    public var description: String {
        let fitted = anchors.map { "\($0.label) → \(Self.format($0.fittedMetres)) m" }.joined(separator: ", ")
        let kind = anchors.count == 1 ? "scale only" : "scale and shift, least squares"
        return
            "calibration (\(kind)): diopters = \(Self.format(scale)) × relative + \(Self.format(shift)); \(fitted); rms residual \(Self.format(rmsResidual)) D"
    }

    static func format(_ v: Float) -> String { String(format: "%.4g", Double(v)) }
}
