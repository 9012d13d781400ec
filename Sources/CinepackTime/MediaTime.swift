/// Exact media time: `value / timescale` seconds, like `CMTime` and FCPXML's `1001/30000s`.
///
/// Equality, ordering and hashing are by the number the fraction denotes, so `1/2 == 2/4`; the stored
/// `value`/`timescale` pair is kept as given (it usually names a track's timescale, which users recognise).
/// Comparison is exact for every representable pair: cross products are formed at 128 bits, so nothing
/// overflows or traps. Arithmetic comes in checked forms that return nil instead of trapping.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// The rounding rules `converted(to:rounding:)` and `multiplied(by:rounding:)` accept.
    public typealias RoundingRule = FloatingPointRoundingRule

    public var value: Int64
    /// Ticks per second; always > 0 (a zero or negative timescale has no meaning, so setting one traps).
    public var timescale: Int32 {
        didSet { precondition(timescale > 0, "MediaTime.timescale must be > 0, got \(timescale)") }
    }

    /// - Precondition: `timescale > 0`.
    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime.timescale must be > 0, got \(timescale)")
        self.value = value
        self.timescale = timescale
    }

    /// `seconds` rounded to the nearest tick of `timescale`; nil for NaN, infinity, a non-positive
    /// timescale, or a result outside `Int64`. For data that is already rational, prefer the exact forms.
    public init?(seconds: Double, timescale: Int32, rounding rule: RoundingRule = .toNearestOrEven) {
        guard seconds.isFinite, timescale > 0 else { return nil }
        let scaled = (seconds * Double(timescale)).rounded(rule)
        // 2^63 is exactly representable as a Double; Int64's range is [-2^63, 2^63).
        guard scaled >= -0x1p63, scaled < 0x1p63 else { return nil }
        self.init(value: Int64(scaled), timescale: timescale)
    }

    public static let zero = MediaTime(value: 0, timescale: 1)

    /// Approximate seconds, for display and plotting only; never for decisions.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// The same time in lowest terms (zero becomes `0/1`). Always representable: reducing never grows a part.
    public var reduced: MediaTime {
        let g = greatestCommonDivisor(value.magnitude, UInt64(timescale))
        guard g > 1 else { return self }
        return MediaTime(value: value / Int64(g), timescale: timescale / Int32(g))
    }

    // MARK: Exact comparison

    /// The cross products `a.value * b.timescale` and `b.value * a.timescale`, exact at 128 bits.
    private static func crossProducts(_ a: MediaTime, _ b: MediaTime) -> (WideInt, WideInt) {
        (WideInt.product(a.value, Int64(b.timescale)), WideInt.product(b.value, Int64(a.timescale)))
    }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        let (a, b) = crossProducts(lhs, rhs)
        return a == b
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        let (a, b) = crossProducts(lhs, rhs)
        return a < b
    }

    /// Hashes the reduced fraction, so values that compare equal hash equally.
    public func hash(into hasher: inout Hasher) {
        let r = reduced
        hasher.combine(r.value)
        hasher.combine(r.timescale)
    }

    // MARK: Checked arithmetic

    /// This time expressed in `newTimescale`, rounded by `rule`; nil if the value overflows `Int64`
    /// or `newTimescale` is not positive.
    public func converted(to newTimescale: Int32, rounding rule: RoundingRule = .toNearestOrEven) -> MediaTime? {
        guard newTimescale > 0 else { return nil }
        let scaled = WideInt.product(value, Int64(newTimescale))
        guard let v = scaled.divided(by: Int64(timescale), rounding: rule)?.int64 else { return nil }
        return MediaTime(value: v, timescale: newTimescale)
    }

    /// The exact sum, or nil if it cannot be represented (value beyond `Int64`, or the two timescales
    /// have no common multiple within `Int32` even after reducing the result).
    /// With equal timescales the result keeps that timescale; otherwise it uses their least common multiple.
    public func adding(_ other: MediaTime) -> MediaTime? { combined(with: other, subtracting: false) }

    /// The exact difference, or nil if it cannot be represented (see `adding(_:)`).
    public func subtracting(_ other: MediaTime) -> MediaTime? { combined(with: other, subtracting: true) }

    private func combined(with other: MediaTime, subtracting: Bool) -> MediaTime? {
        let a = Int64(timescale)
        let b = Int64(other.timescale)
        let common = a / greatestCommonDivisor(a, b) * b  // <= 2^62
        let x = WideInt.product(value, common / a)
        let y = WideInt.product(other.value, common / b)
        // Each term is below 2^94, so the sum cannot leave 128 bits; the optional is a formality.
        guard let sum = subtracting ? x.subtracting(y) : x.adding(y) else { return nil }
        return MediaTime(exactly: sum, over: common)
    }

    /// The negated time; nil only for `Int64.min` ticks.
    public func negated() -> MediaTime? {
        let (v, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : MediaTime(value: v, timescale: timescale)
    }

    /// `numerator / denominator` (denominator > 0) at that denominator when it fits, else in lowest terms;
    /// nil when neither fits.
    init?(exactly numerator: WideInt, over denominator: Int64) {
        if denominator <= Int64(Int32.max), let v = numerator.int64 {
            self.init(value: v, timescale: Int32(denominator))
            return
        }
        let remainder = numerator.floorDivided(by: denominator).remainder
        let g = Int64(greatestCommonDivisor(UInt64(remainder), UInt64(denominator)))
        guard g > 1 else { return nil }
        let d = denominator / g
        guard d <= Int64(Int32.max), let v = numerator.floorDivided(by: g).quotient.int64 else { return nil }
        self.init(value: v, timescale: Int32(d))
    }

    /// This time scaled by `ratio.0 / ratio.1` (e.g. `(1, 2)` for the source time at double speed).
    ///
    /// Exact when the result is representable: first at this timescale, then at the smallest multiple of it
    /// within `Int32`, then in lowest terms. Only when none of those fits is the result rounded by `rule`
    /// to this timescale. Nil when `ratio.1 == 0` or the value overflows.
    public func multiplied(by ratio: (Int64, Int64), rounding rule: RoundingRule = .toNearestOrEven) -> MediaTime? {
        guard ratio.1 != 0 else { return nil }
        // Reduce the ratio and give its sign to the numerator, so the divisor is positive.
        let negative = (ratio.0 < 0) != (ratio.1 < 0)
        var pm = ratio.0.magnitude
        var qm = ratio.1.magnitude
        let g = greatestCommonDivisor(pm, qm)
        pm /= g
        qm /= g
        guard pm <= UInt64(Int64.max), qm <= UInt64(Int64.max) else { return nil }
        let p = negative ? -Int64(pm) : Int64(pm)
        let q = Int64(qm)

        let numerator = WideInt.product(value, p)
        let (quotient, remainder) = numerator.floorDivided(by: q)
        let ts = Int64(timescale)
        // 1. Exact at this timescale.
        if remainder == 0, let v = quotient.int64 {
            return MediaTime(value: v, timescale: timescale)
        }
        // 2. Exact at ts * k, where k is the part of q that does not divide value * p.
        let shared = Int64(greatestCommonDivisor(UInt64(remainder), UInt64(q)))
        let k = q / shared
        let (wider, overflow) = ts.multipliedReportingOverflow(by: k)
        if !overflow, wider <= Int64(Int32.max), let v = numerator.floorDivided(by: shared).quotient.int64 {
            return MediaTime(value: v, timescale: Int32(wider))
        }
        // 3. Exact in lowest terms: cancel across the two fractions before multiplying.
        let r = reduced
        let g1 = Int64(greatestCommonDivisor(r.value.magnitude, UInt64(q)))
        let g2 = Int64(greatestCommonDivisor(p.magnitude, UInt64(r.timescale)))
        let lowestScale = WideInt.product(Int64(r.timescale) / g2, q / g1)
        if let scale = lowestScale.int64, scale <= Int64(Int32.max),
            let v = WideInt.product(r.value / g1, p / g2).int64
        {
            return MediaTime(value: v, timescale: Int32(scale))
        }
        // 4. Not representable exactly: round at this timescale.
        guard let v = numerator.divided(by: q, rounding: rule)?.int64 else { return nil }
        return MediaTime(value: v, timescale: timescale)
    }

    /// Exact sum; traps on overflow like integer `+`. Use `adding(_:)` for values that come from outside.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        guard let sum = lhs.adding(rhs) else { preconditionFailure("MediaTime overflow: \(lhs) + \(rhs)") }
        return sum
    }

    /// Exact difference; traps on overflow like integer `-`. Use `subtracting(_:)` for values from outside.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        guard let difference = lhs.subtracting(rhs) else {
            preconditionFailure("MediaTime overflow: \(lhs) - \(rhs)")
        }
        return difference
    }

    // MARK: Text

    /// Rational FCPXML form as stored, e.g. `369369/30000s`; `12s` when the timescale divides the value
    /// (so zero is `0s`). Not reduced: the timescale is information.
    public var description: String {
        let ts = Int64(timescale)
        if value % ts == 0 { return "\(value / ts)s" }
        return "\(value)/\(timescale)s"
    }

    /// Exact decimal seconds with `decimals` places (clamped to 0...18), rounded half away from zero,
    /// e.g. `12.312s`. Computed from the fraction, not from a `Double`, so it never shows binary noise.
    public func formattedSeconds(decimals: Int = 3) -> String {
        let places = min(max(decimals, 0), 18)
        let ts = UInt64(timescale)
        var whole = value.magnitude / ts
        let remainder = Int64(value.magnitude % ts)
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        // remainder * 10^places < 2^31 * 10^18, fine at 128 bits; the quotient is < 10^places.
        var fraction =
            WideInt.product(remainder, scale)
            .divided(by: Int64(ts), rounding: .toNearestOrAwayFromZero)?.int64 ?? 0
        if fraction == scale {  // rounding carried into the whole seconds
            fraction = 0
            whole += 1  // whole <= 2^63, so this cannot overflow UInt64
        }
        var text = "\(whole)"
        if places > 0 {
            let digits = "\(fraction)"
            text += "." + String(repeating: "0", count: places - digits.count) + digits
        }
        // No "-0.000s": a negative time that rounds to zero shows as zero.
        let negative = value < 0 && (whole != 0 || fraction != 0)
        return (negative ? "-" : "") + text + "s"
    }

    /// Exact decimal text when the timescale is a power of ten (`12.3s`), otherwise the rational form.
    /// Used where a user typed decimal seconds and should see them back the same way.
    var decimalOrRationalDescription: String {
        var places = 0
        var power: Int32 = 1
        while power < timescale, places < 9 {
            power *= 10
            places += 1
        }
        guard power == timescale, places > 0 else { return description }
        var text = String(formattedSeconds(decimals: places).dropLast())  // exact: no rounding at these places
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text + "s"
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey { case value, timescale }

    /// Decodes `{"value": …, "timescale": …}`, rejecting a timescale that is not positive instead of trapping.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let value = try container.decode(Int64.self, forKey: .value)
        let timescale = try container.decode(Int32.self, forKey: .timescale)
        guard timescale > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .timescale, in: container, debugDescription: "timescale must be > 0, got \(timescale)")
        }
        self.init(value: value, timescale: timescale)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encode(timescale, forKey: .timescale)
    }
}
