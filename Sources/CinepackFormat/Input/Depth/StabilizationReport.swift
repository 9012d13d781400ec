/// The per-frame deflicker correction actually applied.
public struct StabilizationReport: Sendable, Equatable, CustomStringConvertible {
    /// Each frame's scale relative to the clip's median scale.
    public var scaleRatio: ClosedRange<Float>
    /// Each frame's shift, relative to the median frame's, in diopters.
    public var shift: ClosedRange<Float>

    public var description: String {
        "stabilized: per-frame scale ×\(CalibrationReport.format(scaleRatio.lowerBound))…×\(CalibrationReport.format(scaleRatio.upperBound)), shift \(CalibrationReport.format(shift.lowerBound))…\(CalibrationReport.format(shift.upperBound)) D"
    }
}
