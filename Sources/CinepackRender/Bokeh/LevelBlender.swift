/// Σ weight(level) · N / D over a pixel's levels, from the tile's upsampled coarse levels.
struct LevelBlender {
    let levels: Int
    /// Per level ℓ ≥ 1 (at 2ℓ − 2 and 2ℓ − 1): where `ramp` starts and its slope, from the
    /// schedule once rather than per pixel.
    private let ramps: UnsafeMutablePointer<Float>
    private let storage: RawBuffer<Float>

    init(schedule: BokehSchedule, levels: Int) {
        self.levels = levels
        storage = RawBuffer<Float>(count: 2 * max(1, levels))
        ramps = storage.base
        for l in Swift.stride(from: 1, through: levels, by: 1) {
            let t = schedule.top(l - 1)
            ramps[2 * l - 2] = (1 - BokehSchedule.blend) * t
            ramps[2 * l - 1] = 1 / (BokehSchedule.blend * t)
        }
    }

    /// Share of radius `rho` moved into level ≥ ℓ: 1 for ℓ = 0, a ramp over the top quarter of
    /// level ℓ − 1, 0 past the coarsest.
    @inline(__always) func ramp(_ l: Int, _ rho: SIMD8<Float>) -> SIMD8<Float> {
        if l == 0 { return SIMD8(repeating: 1) }
        if l > levels { return SIMD8() }
        return vsaturate((rho - ramps[2 * l - 2]) * ramps[2 * l - 1])
    }

    /// The levels of `range` (and level 0 from `full` when `gathered`: a level with nothing
    /// gathered adds exactly zero, so it is left out), renormalised over those with data; a
    /// level's confidence grows with its gathered weight D (about 1 for a covered disk), so one
    /// that just starts to see data does not take over at once; `fallback` fades in as confidence
    /// vanishes. A coarse level whose weight is 0 in every lane adds exactly zero too: it is
    /// neither upsampled nor read.
    @inline(always) func blend(
        _ range: Range<Int>, rho: SIMD8<Float>, full: Accum8, gathered: Bool, field: Int, offset: Int,
        upsampled: TileUpsampling, fallback: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)
    ) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        var sum = Sum()
        var upper = ramp(1, rho)
        // Level 0 first when gathered, then the coarse levels of the range.
        if gathered { sum.add(1 - upper, full.r, full.g, full.b, full.a) }
        for l in range {
            let next = ramp(l + 1, rho)
            let weight = upper - next
            upper = next
            // A lane compare and a test of its mask, not a reduction to a float.
            guard anyAbove(weight, 0) else { continue }
            let (r, g, b, d) = upsampled.values(TileUpsampling.slot(l - 1, field), offset: offset)
            sum.add(weight, r, g, b, d)
        }
        let trust = vsaturate(sum.total * 4)
        let inv = trust / vmax(sum.total, SIMD8(repeating: 1e-30))
        return (
            sum.r * inv + (1 - trust) * fallback.0, sum.g * inv + (1 - trust) * fallback.1, sum.b * inv + (1 - trust) * fallback.2
        )
    }

    /// The confidence-weighted sums of `blend`.
    private struct Sum {
        var r = SIMD8<Float>()
        var g = SIMD8<Float>()
        var b = SIMD8<Float>()
        var total = SIMD8<Float>()

        @inline(always) mutating func add(
            _ weight: SIMD8<Float>, _ nr: SIMD8<Float>, _ ng: SIMD8<Float>, _ nb: SIMD8<Float>, _ d: SIMD8<Float>
        ) {
            let confident = weight * vsaturate(d * 20)
            let k = confident / vmax(d, SIMD8(repeating: 1e-30))
            r += k * nr
            g += k * ng
            b += k * nb
            total += confident
        }
    }
}
