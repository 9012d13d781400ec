/// How far the samples of a coarse level can reach a gather, per row of cells and per tile: for
/// the fill 1 where a cell has colour or alpha, for the near field the largest radius (cells)
/// among the cells with weight; 0 where no sample adds anything. The gathers leave out the rows
/// of taps whose samples all add exactly zero, and narrow the near ones to the radii there
/// (`TapRows`). (The far field's rows nearly all reach: a bound there costs more than it leaves
/// out.)
enum SampleReach: Int {
    case fill, near

    static let count = 2

    /// The largest lane of `radius` where any of `v0 … v3` is non-zero (of either sign), 0 if
    /// none is: in integer lanes, without a branch or a comparison mask per lane.
    @inline(__always) static func largest(
        _ radius: SIMD8<Float>, where v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ v2: SIMD8<Float>, _ v3: SIMD8<Float>
    ) -> Float {
        @inline(__always) func bits(_ v: SIMD8<Float>) -> SIMD8<UInt32> { unsafeBitCast(v, to: SIMD8<UInt32>.self) }
        let magnitude = (bits(v0) | bits(v1) | bits(v2) | bits(v3)) & 0x7FFF_FFFF
        // All ones where the magnitude is non-zero: it or its negation has the top bit then.
        let live = 0 &- ((magnitude | (0 &- magnitude)) &>> 31)
        return hmax(unsafeBitCast(bits(radius) & live, to: SIMD8<Float>.self))
    }

    /// The fill reach of eight cells of colour `r`, `g`, `b` and alpha `a`.
    @inline(__always) static func fill(_ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>, _ a: SIMD8<Float>) -> Float {
        largest(SIMD8(repeating: 1), where: r, g, b, a)
    }

    /// The near reach of eight cells of radii `c` and weights `w` (the level's share over the area).
    @inline(__always) static func near(_ c: SIMD8<Float>, weight w: SIMD8<Float>) -> Float { largest(c, where: w, w, w, w) }
}
