/// Edge profiles of the soft disks, as functions of `v = radius + 0.5 − distance`:
/// - coarse levels: a smoothstep over one cell (`v` in 0…1);
/// - full resolution: the disk convolved with a pixel tent (what bilinear reconstruction does, and
///   what the reference renderer's bilinear lookups do): a quadratic spline over two pixels
///   centred on the radius (`v` in −0.5…1.5). At radius 0 it leaves a pixel alone, and it lets
///   neighbours in smoothly as the radius grows (no kink when a pixel starts to blur).
enum EdgeProfile {
    case coarse, fine

    @inline(__always) func scalar(_ v: Float) -> Float {
        switch self {
        case .coarse:
            let t = min(max(v, 0), 1)
            return t * t * (3 - 2 * t)
        case .fine:
            let u = min(max((v + 0.5) * 0.5, 0), 1)
            let a = min(u, 0.5)
            let b = max(u - 0.5, 0)
            return 2 * a * a + 2 * b * (1 - b)
        }
    }

    @inline(__always) func callAsFunction(_ v: SIMD8<Float>) -> SIMD8<Float> {
        self == .coarse ? Self.coarseProfile(v) : Self.fineProfile(v)
    }

    /// The two profiles on eight lanes, for loops that know theirs (a call through the switch
    /// is not always inlined; nor was the fine one, marked `@inline(__always)`, in the
    /// full-resolution gathers).
    @inline(__always) static func coarseProfile(_ v: SIMD8<Float>) -> SIMD8<Float> {
        let t = vsaturate(v)
        return t * t * (3 - 2 * t)
    }

    @inline(always) static func fineProfile(_ v: SIMD8<Float>) -> SIMD8<Float> {
        let u = vsaturate((v + 0.5) * 0.5)
        let a = vmin(u, SIMD8(repeating: 0.5))
        let b = vmax(u - 0.5, SIMD8())
        return 2 * a * a + 2 * b * (1 - b)
    }

    /// How far beyond the radius the profile reaches (taps needed: distance < radius + reach + 0.5).
    var reach: Float { self == .coarse ? 0.5 : 1 }
}
