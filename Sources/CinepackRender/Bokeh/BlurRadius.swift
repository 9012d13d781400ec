/// Signed blur-circle radius in pixels from disparity, sanitised: NaN → in focus, clamped to the
/// largest radius the schedule renders.
struct BlurRadius: Sendable {
    let half: Float
    let focus: Float
    let limit: Float

    @inline(__always) func signed(_ d: Float) -> Float {
        var r = half * (focus - d)
        if r.isNaN { r = 0 }
        return min(max(r, -limit), limit)
    }

    /// The same for eight or four values (NaN → 0 through max(0, r) + min(0, r), exact otherwise).
    @inline(always) func signed(_ d: SIMD8<Float>) -> SIMD8<Float> {
        let r = half * (focus - d)
        let clean = vmax(SIMD8(), r) + vmin(SIMD8(), r)
        return vmin(vmax(SIMD8(repeating: -limit), clean), SIMD8(repeating: limit))
    }

    @inline(__always) func signed(_ d: SIMD4<Float>) -> SIMD4<Float> {
        let r = half * (focus - d)
        let clean = vmax(SIMD4(), r) + vmin(SIMD4(), r)
        return vmin(vmax(SIMD4(repeating: -limit), clean), SIMD4(repeating: limit))
    }

    /// How much of a pixel of signed radius `r` is near field: 1 from 0.75 px in front of the
    /// focus plane, 0 from 0.25 px, linear between (a soft switch, so the near field's share
    /// changes continuously during a rack focus).
    @inline(__always) static func nearShare(_ r: Float) -> Float { min(max((-r - 0.25) * 2, 0), 1) }

    @inline(__always) static func nearShare(_ r: SIMD8<Float>) -> SIMD8<Float> { vsaturate((-r - 0.25) * 2) }

    @inline(__always) static func nearShare(_ r: SIMD4<Float>) -> SIMD4<Float> { vsaturate((-r - 0.25) * 2) }
}
