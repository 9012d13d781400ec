/// The radius full-resolution gathers use for a blur-circle radius `r`: 0 up to the pass-through
/// radius (a quarter pixel), then growing at 0.6 of the true rate and catching up smoothly with
/// `r` by 2.25 px. Blur must start from nothing at the pass-through radius (in-focus pixels are
/// kept exactly); the gentle start keeps that onset from showing as a step during a rack focus.
@inline(__always) func fineRadius(_ r: SIMD8<Float>) -> SIMD8<Float> {
    let t = vmax(SIMD8(), r - 0.25)
    let u = vsaturate(t * 0.5)
    let s = u * u * (3 - 2 * u)
    return 0.6 * t + (0.4 * t + 0.25) * s
}

@inline(__always) func fineRadius(_ r: Float) -> Float {
    let t = max(0, r - 0.25)
    let u = min(t * 0.5, 1)
    let s = u * u * (3 - 2 * u)
    return 0.6 * t + (0.4 * t + 0.25) * s
}

/// Full-resolution weight of a tap for effective radius `e` (per lane), `profile` the spline
/// weight and `inverseArea` its normalisation: below one pixel of radius, the exact disk ⊗ tent
/// kernel on the 3 × 3 neighbourhood (side 2e/3π − e²/4π, diagonal e²/8π, centre the rest:
/// neighbours come in linearly as a circle starts to grow), blended into the spline by e = 1.
@inline(__always) func fineWeight(
    _ e: SIMD8<Float>, ring: Int32, profile: SIMD8<Float>, inverseArea: SIMD8<Float>
) -> SIMD8<Float> {
    let spline = profile * inverseArea
    let toSpline = vsaturate((e - 0.7) * (1 / 0.3))
    guard any(toSpline .< 1) else { return spline }
    let side = e * (2 / (3 * Float.pi)) - e * e * (1 / (4 * Float.pi))
    let diagonal = e * e * (1 / (8 * Float.pi))
    let exact: SIMD8<Float>
    switch ring {
    case 0: exact = 1 - 4 * side - 4 * diagonal
    case 1: exact = side
    case 2: exact = diagonal
    default: exact = SIMD8()
    }
    let t = toSpline * toSpline * (3 - 2 * toSpline)
    return exact + t * (spline - exact)
}
