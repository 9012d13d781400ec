/// Deterministic randomness for the demo scene: nothing here reads a clock or the system generator,
/// so the same options always give the same clip, bit for bit, on every run.

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, well-mixed 64-bit generator. Used once, in
/// `DemoScene.init`, to derive the texture keys and the light bulbs' jitter from the seed.
struct DemoSplitMix64: Sendable {
    private(set) var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func nextUnit() -> Float { Float(next() >> 40) / Float(1 << 24) }

    /// Uniform in `range`.
    mutating func next(in range: ClosedRange<Float>) -> Float {
        range.lowerBound + nextUnit() * (range.upperBound - range.lowerBound)
    }

    mutating func nextKey() -> UInt32 { UInt32(truncatingIfNeeded: next() >> 32) }
}

/// A stateless integer hash of a 2-D lattice point and a key: the source of every procedural
/// texture (brick tints, wood grain, fabric grain). Pure, so frames can be rendered in any order.
@inline(__always)
func demoHash(_ x: Int32, _ y: Int32, _ key: UInt32) -> UInt32 {
    var h = UInt32(bitPattern: x) &* 0x8DA6_B343
    h ^= UInt32(bitPattern: y) &* 0xD816_3841
    h ^= key &* 0xCB1A_B31F
    h ^= h >> 16
    h &*= 0x7FEB_352D
    h ^= h >> 15
    h &*= 0x846C_A68B
    h ^= h >> 16
    return h
}

/// `demoHash` mapped to [0, 1).
@inline(__always)
func demoHashUnit(_ x: Int32, _ y: Int32, _ key: UInt32) -> Float {
    Float(demoHash(x, y, key) >> 8) * (1.0 / 16_777_216.0)
}

/// `demoHash` mapped to [-1, 1).
@inline(__always)
func demoHashSigned(_ x: Int32, _ y: Int32, _ key: UInt32) -> Float {
    demoHashUnit(x, y, key) * 2 - 1
}

/// `floor` to a lattice index, saturating far outside the frame (never traps). Inlined integer
/// conversion rather than libm's `floorf`, which is a call per pixel on baseline x86-64.
@inline(__always)
func demoCell(_ v: Float) -> Int32 {
    guard v > -2e9, v < 2e9 else { return v > 0 ? 2_000_000_000 : -2_000_000_000 }
    let i = Int32(v)  // truncates toward zero
    return Float(i) > v ? i - 1 : i
}

/// `floor`, for values in the ±2e9 range the demo uses.
@inline(__always)
func demoFloor(_ v: Float) -> Float { Float(demoCell(v)) }

/// Box-filtered coverage of the "line" part of a periodic pattern: `t` is the coordinate in periods,
/// the line occupies the first `line` fraction of each period, and `footprint` is the pixel's width in
/// periods. Exact integral of the square wave over the pixel, so fine lines fade to their mean grey
/// instead of aliasing when they get smaller than a pixel.
@inline(__always)
func demoLineCoverage(_ t: Float, line: Float, footprint: Float) -> Float {
    let w = max(footprint, 1e-6)
    @inline(__always) func integral(_ s: Float) -> Float {
        let f = demoFloor(s)
        return f * line + min(s - f, line)
    }
    let c = (integral(t + w / 2) - integral(t - w / 2)) / w
    return min(max(c, 0), 1)
}
