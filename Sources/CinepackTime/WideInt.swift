/// A signed 128-bit two's-complement integer with just the operations exact media-time arithmetic
/// needs. Products of an `Int64` value and a timescale need up to 95 bits; chaining two of them up to
/// 126, so everything here fits. (The standard library's `Int128` needs macOS 15; we support macOS 13.)
struct WideInt: Hashable, Comparable, Sendable {
    var high: Int64
    var low: UInt64

    init(high: Int64, low: UInt64) {
        self.high = high
        self.low = low
    }

    init(_ value: Int64) {
        high = value < 0 ? -1 : 0
        low = UInt64(bitPattern: value)
    }

    /// The exact product of two `Int64`s (never overflows 128 bits).
    static func product(_ a: Int64, _ b: Int64) -> WideInt {
        let p = a.multipliedFullWidth(by: b)
        return WideInt(high: p.high, low: p.low)
    }

    var isNegative: Bool { high < 0 }
    var isOdd: Bool { low & 1 == 1 }

    /// `|self|` as an unsigned (high, low) pair; exact even for the most negative value.
    var magnitude: (high: UInt64, low: UInt64) {
        guard isNegative else { return (UInt64(bitPattern: high), low) }
        return Self.negate((UInt64(bitPattern: high), low))
    }

    /// Two's-complement negation of an unsigned pair (wrapping).
    private static func negate(_ m: (high: UInt64, low: UInt64)) -> (high: UInt64, low: UInt64) {
        (~m.high &+ (m.low == 0 ? 1 : 0), 0 &- m.low)
    }

    /// Builds the value with the given sign and magnitude; nil if it does not fit in 128 bits.
    init?(negative: Bool, magnitude m: (high: UInt64, low: UInt64)) {
        let signBit: UInt64 = 1 << 63
        if negative {
            guard m.high < signBit || (m.high == signBit && m.low == 0) else { return nil }
            let n = Self.negate(m)
            self.init(high: Int64(bitPattern: n.high), low: n.low)
        } else {
            guard m.high < signBit else { return nil }
            self.init(high: Int64(bitPattern: m.high), low: m.low)
        }
    }

    /// The value as an `Int64`, or nil if it does not fit.
    var int64: Int64? {
        let fits = (high == 0 && low < 1 << 63) || (high == -1 && low >= 1 << 63)
        return fits ? Int64(bitPattern: low) : nil
    }

    func adding(_ other: WideInt) -> WideInt? {
        let (lo, carry) = low.addingReportingOverflow(other.low)
        let (h1, o1) = high.addingReportingOverflow(other.high)
        let (h2, o2) = h1.addingReportingOverflow(carry ? 1 : 0)
        // The two steps can overflow in opposite directions and cancel; only a lone overflow is real.
        guard o1 == o2 else { return nil }
        return WideInt(high: h2, low: lo)
    }

    func subtracting(_ other: WideInt) -> WideInt? {
        let (lo, borrow) = low.subtractingReportingOverflow(other.low)
        let (h1, o1) = high.subtractingReportingOverflow(other.high)
        let (h2, o2) = h1.subtractingReportingOverflow(borrow ? 1 : 0)
        guard o1 == o2 else { return nil }
        return WideInt(high: h2, low: lo)
    }

    func multiplied(by factor: Int64) -> WideInt? {
        let a = magnitude
        let b = factor.magnitude
        let lowPart = a.low.multipliedFullWidth(by: b)
        let highPart = a.high.multipliedFullWidth(by: b)
        guard highPart.high == 0 else { return nil }
        let (top, overflow) = highPart.low.addingReportingOverflow(lowPart.high)
        guard !overflow else { return nil }
        return WideInt(negative: isNegative != (factor < 0), magnitude: (top, lowPart.low))
    }

    /// Floor division by a positive divisor: `self == quotient * divisor + remainder`, `0 <= remainder < divisor`.
    /// Never overflows: the quotient's magnitude is at most `|self|`.
    func floorDivided(by divisor: Int64) -> (quotient: WideInt, remainder: Int64) {
        precondition(divisor > 0, "WideInt.floorDivided(by:) needs a positive divisor")
        let m = magnitude
        let d = UInt64(divisor)
        // Schoolbook long division in two 64-bit digits; the first remainder is < d, as dividingFullWidth requires.
        let qHigh = m.high / d
        let (qLow, r) = d.dividingFullWidth((m.high % d, m.low))
        var q = (high: qHigh, low: qLow)
        var rem = Int64(r)
        if isNegative && r != 0 {
            // Truncation rounded toward zero; floor needs one more step down, and the remainder flips.
            let (l, c) = q.low.addingReportingOverflow(1)
            q = (q.high &+ (c ? 1 : 0), l)
            rem = divisor - rem
        }
        // The quotient's magnitude never exceeds the dividend's (plus one only when divisor >= 2), so it fits.
        let quotient = WideInt(negative: isNegative, magnitude: q) ?? WideInt(0)
        return (quotient, rem)
    }

    /// `self / divisor` (divisor > 0) rounded by `rule`; nil only if rounding away overflows.
    func divided(by divisor: Int64, rounding rule: FloatingPointRoundingRule) -> WideInt? {
        let (q, r) = floorDivided(by: divisor)
        guard r != 0 else { return q }
        let rest = divisor - r  // r vs rest compares the fraction with 1/2 without doubling (which could overflow)
        let roundUp: Bool
        switch rule {
        case .down: roundUp = false
        case .up: roundUp = true
        case .towardZero: roundUp = q.isNegative
        case .awayFromZero: roundUp = !q.isNegative
        case .toNearestOrAwayFromZero: roundUp = r > rest || (r == rest && !q.isNegative)
        case .toNearestOrEven: roundUp = r > rest || (r == rest && q.isOdd)
        @unknown default: roundUp = r > rest || (r == rest && q.isOdd)
        }
        return roundUp ? q.adding(WideInt(1)) : q
    }

    static func < (lhs: WideInt, rhs: WideInt) -> Bool {
        // Signed high word first, then the unsigned low word: ordinary two's-complement order.
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// Greatest common divisor (Euclid). gcd(0, 0) == 0.
func greatestCommonDivisor(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}

func greatestCommonDivisor(_ a: Int64, _ b: Int64) -> Int64 {
    // Only called with at least one operand in Int32 range, so the result fits in Int64.
    Int64(greatestCommonDivisor(a.magnitude, b.magnitude))
}
