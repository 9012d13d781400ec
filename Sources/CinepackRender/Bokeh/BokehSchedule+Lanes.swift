// The schedule on eight lanes, for the pyramid's hot loops: `split` walks the levels one radius at
// a time, and eight calls per group of cells cost more than the arithmetic they feed. Each lane
// gets exactly the scalar function's value (same comparisons, same float operations).
extension BokehSchedule {
    /// Consumer bits of the levels serving radii in `low ... high`, per lane, as the float sum of
    /// their bit values (exact: at most 2^11). Level ℓ serves (`low(ℓ)`, `top(ℓ)`] (level 0 from
    /// 0, the last without a top), so its bit is set when that range meets `low ... high`: every
    /// level from `split(low)`'s to `split(high)`'s, and the next where `high` already blends into
    /// it, lane by lane, because each level's blend starts above the top of the level two below
    /// (`low(ℓ) ≥ top(ℓ − 2)`).
    @inline(always) func rangeBits(_ low: SIMD8<Float>, _ high: SIMD8<Float>) -> SIMD8<Float> {
        var bits = SIMD8<Float>()
        var value: Float = 1
        for l in 0...levels {
            // Levels only rise from here: none serves a lane once every high is below its range.
            if l > 0 && !anyAbove(high, self.low(l)) { break }
            // Comparisons and a blend: the bit value or nothing, lane by lane. `!(low > top)`,
            // NaN included, as `split` counts.
            var reaches = SIMDMask<SIMD8<Int32>>(repeating: true)
            if l < levels { reaches = .!(low .> SIMD8(repeating: top(l))) }
            if l > 0 { reaches = reaches .& (high .> SIMD8(repeating: self.low(l))) }
            bits += SIMD8<Float>().replacing(with: SIMD8(repeating: value), where: reaches)
            value *= 2
        }
        return bits
    }

    /// `weight(rho, level: l)` per lane: 1 − t over level ℓ's own range, t over the range of the
    /// level below (where weight moves up to ℓ), 0 elsewhere.
    @inline(always) func weight(_ rho: SIMD8<Float>, level l: Int) -> SIMD8<Float> {
        /// Lanes with `split(rho).level == k`, as 1 or 0.
        @inline(always) func inLevel(_ k: Int) -> SIMD8<Float> {
            let above = k == 0 ? SIMD8(repeating: 1) : vpositive(rho - top(k - 1))
            return k == levels ? above : above * (1 - vpositive(rho - top(k)))
        }
        /// `split(rho).t` for lanes in level k.
        @inline(always) func rising(_ k: Int) -> SIMD8<Float> {
            guard k < levels else { return SIMD8() }
            let start = (1 - Self.blend) * top(k)
            return vsaturate((rho - start) / (Self.blend * top(k)))
        }
        var w = inLevel(l) * (1 - rising(l))
        if l > 0 { w += inLevel(l - 1) * rising(l - 1) }
        return w
    }
}
