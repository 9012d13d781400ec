import CinepackTime

/// An exact rational number `num / den` in lowest terms with `den > 0`, used for retiming arithmetic.
///
/// `MediaTime` keeps a 32-bit timescale; a speed change of `N/D` multiplies denominators, so the
/// intermediate values of retiming are kept here with 64-bit parts and converted back to `MediaTime`
/// only at the end. Every operation is checked: nil when a part would leave `Int64`, never rounded.
package struct ExactRatio: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let num: Int64
    package let den: Int64

    package static let zero = ExactRatio(reducedNum: 0, den: 1)
    package static let one = ExactRatio(reducedNum: 1, den: 1)

    private init(reducedNum: Int64, den: Int64) {
        self.num = reducedNum
        self.den = den
    }

    /// `n / d` in lowest terms; nil when `d == 0` or the sign cannot be moved to the numerator.
    package init?(_ n: Int64, _ d: Int64) {
        guard d != 0 else { return nil }
        let g = Int64(bitPattern: ExactRatio.gcd(n.magnitude, d.magnitude))
        // g >= 1 here because d != 0; g may be 2^63 only when both are Int64.min.
        guard g > 0 else { return nil }
        var a = n / g
        var b = d / g
        if b < 0 {
            guard a != .min, b != .min else { return nil }
            a = -a
            b = -b
        }
        self.init(reducedNum: a, den: b)
    }

    package init(_ n: Int64) { self.init(reducedNum: n, den: 1) }

    /// The exact value of a media time.
    package init(_ t: MediaTime) {
        // A timescale is > 0 and the gcd divides it, so this cannot fail.
        self = ExactRatio(t.value, Int64(t.timescale))!
    }

    package static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }

    private static func mul(_ a: Int64, _ b: Int64) -> Int64? {
        let (p, o) = a.multipliedReportingOverflow(by: b)
        return o ? nil : p
    }

    package func adding(_ o: ExactRatio) -> ExactRatio? {
        let g = Int64(ExactRatio.gcd(UInt64(den), UInt64(o.den)))
        guard let common = ExactRatio.mul(den / g, o.den),
            let x = ExactRatio.mul(num, o.den / g), let y = ExactRatio.mul(o.num, den / g)
        else { return nil }
        let (sum, overflow) = x.addingReportingOverflow(y)
        return overflow ? nil : ExactRatio(sum, common)
    }

    package func negated() -> ExactRatio? { num == .min ? nil : ExactRatio(reducedNum: -num, den: den) }

    package func subtracting(_ o: ExactRatio) -> ExactRatio? {
        guard let n = o.negated() else { return nil }
        return adding(n)
    }

    package func multiplied(by o: ExactRatio) -> ExactRatio? {
        // Cancel across before multiplying, so a representable product is always found.
        let g1 = Int64(bitPattern: ExactRatio.gcd(num.magnitude, UInt64(o.den)))
        let g2 = Int64(bitPattern: ExactRatio.gcd(o.num.magnitude, UInt64(den)))
        guard g1 > 0, g2 > 0, let n = ExactRatio.mul(num / g1, o.num / g2), let d = ExactRatio.mul(den / g2, o.den / g1)
        else {
            // A zero factor gives gcd = the other denominator (> 0); only an Int64.min magnitude lands here.
            return num == 0 || o.num == 0 ? .zero : nil
        }
        return ExactRatio(n, d)
    }

    package func multiplied(by n: Int64, over d: Int64) -> ExactRatio? {
        guard let r = ExactRatio(n, d) else { return nil }
        return multiplied(by: r)
    }

    package func divided(by o: ExactRatio) -> ExactRatio? {
        guard o.num != 0, let inverse = ExactRatio(o.den, o.num) else { return nil }
        return multiplied(by: inverse)
    }

    /// The largest integer ≤ the value.
    package var floor: Int64 {
        let q = num / den
        let r = num % den
        return r < 0 ? q - 1 : q
    }

    /// The smallest integer ≥ the value.
    package var ceiling: Int64 {
        let q = num / den
        let r = num % den
        return r > 0 ? q + 1 : q
    }

    package var isInteger: Bool { den == 1 }

    /// As a media time: at `preferred` when that timescale holds the value exactly, else at the smallest
    /// multiple of `preferred` that does (within `Int32`), else in lowest terms; nil when the lowest-terms
    /// denominator exceeds `Int32.max`.
    package func mediaTime(preferring preferred: Int32) -> MediaTime? {
        guard den <= Int64(Int32.max) else { return nil }
        let p = Int64(preferred)
        let g = Int64(ExactRatio.gcd(UInt64(p), UInt64(den)))
        let scale = p / g * den  // lcm(p, den) <= 2^62
        if scale <= Int64(Int32.max), let v = ExactRatio.mul(num, scale / den) {
            return MediaTime(value: v, timescale: Int32(scale))
        }
        return MediaTime(value: num, timescale: Int32(den))
    }

    package static func < (a: ExactRatio, b: ExactRatio) -> Bool {
        // Denominators are positive, so comparing the 128-bit cross products is exact.
        let l = a.num.multipliedFullWidth(by: b.den)
        let r = b.num.multipliedFullWidth(by: a.den)
        return (l.high, l.low) < (r.high, r.low)
    }

    package var description: String { den == 1 ? "\(num)" : "\(num)/\(den)" }
}
