/// Σ weight(level) · N / D over a pixel's levels, from the upsampled row segments.
struct LevelBlender {
    let schedule: BokehSchedule
    let levels: Int
    let segments: UnsafeMutablePointer<Float>
    let segmentSize: Int

    @inline(__always) func segment(_ level: Int, _ field: Int) -> UnsafeMutablePointer<Float> {
        segments + (level * 3 + field) * segmentSize
    }

    /// Share of radius `rho` moved into level ≥ ℓ: 1 for ℓ = 0, a ramp over the top quarter of
    /// level ℓ − 1, 0 past the coarsest.
    @inline(__always) func ramp(_ l: Int, _ rho: SIMD8<Float>) -> SIMD8<Float> {
        if l == 0 { return SIMD8(repeating: 1) }
        if l > levels { return SIMD8() }
        let t = schedule.top(l - 1)
        return vsaturate((rho - (1 - BokehSchedule.blend) * t) * (1 / (BokehSchedule.blend * t)))
    }

    /// The levels of `range` (and level 0 from `full` when `gathered`: a level with nothing
    /// gathered adds exactly zero, so it is left out), renormalised over those with data; a
    /// level's confidence grows with its gathered weight D (about 1 for a covered disk), so one
    /// that just starts to see data does not take over at once; `fallback` fades in as confidence
    /// vanishes.
    @inline(__always) func blend(
        _ range: Range<Int>, rho: SIMD8<Float>, full: Accum8, gathered: Bool, field: Int, offset: Int,
        fallback: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)
    ) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        var sumR = SIMD8<Float>()
        var sumG = SIMD8<Float>()
        var sumB = SIMD8<Float>()
        var total = SIMD8<Float>()
        var upper = ramp(1, rho)
        var weight = 1 - upper
        var r = full.r
        var g = full.g
        var b = full.b
        var d = full.a
        var l = range.lowerBound
        // Level 0 first when gathered, then the coarse levels of the range.
        var present = gathered
        while true {
            if present {
                let confident = weight * vsaturate(d * 20)
                let k = confident / vmax(d, SIMD8(repeating: 1e-30))
                sumR += k * r
                sumG += k * g
                sumB += k * b
                total += confident
            }
            guard l < range.upperBound else { break }
            let next = ramp(l + 1, rho)
            let q = segment(l - 1, field) + offset
            weight = upper - next
            r = load8(q)
            g = load8(q + Tile.pixels)
            b = load8(q + 2 * Tile.pixels)
            d = load8(q + 3 * Tile.pixels)
            upper = next
            l += 1
            present = true
        }
        let trust = vsaturate(total * 4)
        let inv = trust / vmax(total, SIMD8(repeating: 1e-30))
        return (sumR * inv + (1 - trust) * fallback.0, sumG * inv + (1 - trust) * fallback.1, sumB * inv + (1 - trust) * fallback.2)
    }
}
