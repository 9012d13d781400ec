/// The radius full-resolution gathers use for a blur-circle radius `r`: 0 up to the pass-through
/// radius (a quarter pixel), then growing at 0.6 of the true rate and catching up smoothly with
/// `r` by 1.5 px. Blur must start from nothing at the pass-through radius (in-focus pixels are
/// kept exactly); the gentle start keeps that onset from showing as a step during a rack focus.
/// It catches up by 1.5 px, not later: circles of 0.5 – 2 px are common (near the focus, on
/// receding ground) and blurring them less than the lens leaves them visibly too sharp (a radius
/// of 0.73 px is taken as 0.43 and 1 px as 0.81; caught up by 2.25 px, 0.35 and 0.62); a faster
/// catch-up brings a rack focus near BokehQualityTests' flicker bound (by 1.25 px its 99th
/// percentile reaches 2.93 of 3 codes, by 1.5 px 2.71, by 2.25 px 2.37).
/// (`@inline(always)`: with `@inline(__always)` the optimiser left it a call in the composite.)
@inline(always) func fineRadius(_ r: SIMD8<Float>) -> SIMD8<Float> {
    let t = vmax(SIMD8(), r - 0.25)
    let u = vsaturate(t * 0.8)
    let s = u * u * (3 - 2 * u)
    return 0.6 * t + (0.4 * t + 0.25) * s
}

@inline(__always) func fineRadius(_ r: Float) -> Float {
    let t = max(0, r - 0.25)
    let u = min(t * 0.8, 1)
    let s = u * u * (3 - 2 * u)
    return 0.6 * t + (0.4 * t + 0.25) * s
}

/// Full-resolution weights of the taps for effective radius `e` (per lane), given each tap's
/// spline weight (the fine profile times the normalisation): below one pixel of radius, the exact
/// disk ⊗ tent kernel on the 3 × 3 neighbourhood (side 2e/3π − e²/4π, diagonal e²/8π, centre the
/// rest: neighbours come in linearly as a circle starts to grow), blended into the spline by e = 1.
struct FineKernel {
    let e: SIMD8<Float>
    /// Some lane still blends (e < 1); without it every weight is the spline alone.
    let blends: Bool
    /// The blend's smoothstep.
    let t: SIMD8<Float>

    @inline(always) init(_ e: SIMD8<Float>) {
        self.e = e
        let toSpline = vsaturate((e - 0.7) * (1 / 0.3))
        // A lane compare and one test of the mask (`anyBelow`'s reduction to a float, on the
        // path to a branch taken per tap, held the gathers up).
        blends = anyBelow(toSpline, 1)
        t = toSpline * toSpline * (3 - 2 * toSpline)
    }

    /// The weight of a tap of `ring` (`DiskTaps.Tap`) whose spline weight is `spline`.
    @inline(always) func weight(ring: Int32, spline: SIMD8<Float>) -> SIMD8<Float> {
        guard blends else { return spline }
        let side = e * (2 / (3 * Float.pi)) - e * e * (1 / (4 * Float.pi))
        let diagonal = e * e * (1 / (8 * Float.pi))
        let exact: SIMD8<Float>
        switch ring {
        case 0: exact = 1 - 4 * side - 4 * diagonal
        case 1: exact = side
        case 2: exact = diagonal
        default: exact = SIMD8()
        }
        return exact + t * (spline - exact)
    }

    /// The weight of `tap` for effective radius `e`, `area` the spline's normalisation: the spline
    /// alone where the kernel cannot apply (`splineOnly`), else the blend. The profile comes
    /// first and the product on each branch, so the optimiser keeps the profile's lanes vector.
    @inline(always) static func tapWeight(_ e: SIMD8<Float>, tap: DiskTaps.Tap, area: SIMD8<Float>) -> SIMD8<Float> {
        let profile = EdgeProfile.fineProfile(e + tap.half)
        if splineOnly(tap) { return profile * area }
        return FineKernel(e).weight(ring: tap.ring, spline: profile * area)
    }

    /// Whether a tap's weight is its spline whatever e: beyond the 3 × 3 neighbourhood the exact
    /// kernel is 0, and a tap whose gauge is at least 2 (0.5 − gauge ≤ −1.5) has a nonzero spline
    /// only where e > 1, past the blend. Most taps of the larger disks; they skip the kernel.
    @inline(always) static func splineOnly(_ tap: DiskTaps.Tap) -> Bool { tap.ring > 2 && tap.half <= -1.5 }
}

/// `FineKernel(e).weight(…)` behind a call, for loops whose e is the same for every tap: inlined
/// there, the optimiser hoists part of the profile's lane arithmetic and leaves it scalar.
@inline(never) func fineWeight(_ e: SIMD8<Float>, ring: Int32, profile: SIMD8<Float>, inverseArea: SIMD8<Float>) -> SIMD8<Float> {
    FineKernel(e).weight(ring: ring, spline: profile * inverseArea)
}
