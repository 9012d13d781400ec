/// The ranges lens settings lie in, one rule for every command and the library (spec/format.md §7):
/// `pack` stores them, `aperture` and `render` choose an f-number, `render` a focal length.
package enum LensRules {
    /// 35 mm-equivalent focal lengths, millimetres: from wider than any fisheye to a long telephoto.
    /// The lens model's blur grows with the square of it.
    package static let focalLengths: ClosedRange<Float> = 1...2000

    /// `mm` when it is a focal length of `focalLengths`; else an error naming the range exactly.
    package static func focalLength(_ mm: Double) throws(FormatError) -> Float {
        guard mm.isFinite, Double(focalLengths.lowerBound) <= mm, mm <= Double(focalLengths.upperBound) else {
            throw FormatError(
                "focal length must be \(number(focalLengths.lowerBound))…\(number(focalLengths.upperBound)) mm (got \(number(mm)))")
        }
        return Float(mm)
    }

    /// An f-number as given: finite and > 0 (what the movie's range makes of it is `clampedFNumber`).
    package static func fNumber(_ n: Double) throws(FormatError) -> Float {
        guard n.isFinite, n > 0 else { throw FormatError("f-number must be a number > 0 (got \(number(n)))") }
        // Below binary32's smallest value (1e-46) is still "very wide": it clamps like 1e-45 does.
        return Float(n) > 0 ? Float(n) : .leastNonzeroMagnitude
    }

    /// The f-number a movie renders with for a requested one: clamped into the movie's
    /// `minFNumber…maxFNumber` (a lens cannot open or close further). `clamped` says when it was.
    package static func clampedFNumber(_ requested: Float, for parameters: CinematicParameters) -> (applied: Float, clamped: Bool) {
        let applied = min(max(requested, parameters.minFNumber), parameters.maxFNumber)
        return (applied, applied != requested)
    }

    /// `2000`, `1.4`, `1e+39`: whole values without a fraction, others as Swift prints them.
    static func number<T: BinaryFloatingPoint & LosslessStringConvertible>(_ v: T) -> String {
        v.isFinite && v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
