import TestSupport
import Testing

@testable import CinepackRender

/// The schedule on eight lanes must give exactly what the scalar `split` gives, lane by lane: the
/// pyramid's consumer masks and near shares come from it, and the render must not change.
@Suite struct BokehScheduleLanesTests {
    static let schedules: [BokehSchedule] = [RenderQuality.export, .preview].flatMap { quality in
        [(1920, 1080), (640, 360), (37, 23)].flatMap { size in
            [false, true].flatMap { near in
                [false, true].map { shaped in
                    BokehSchedule(quality: quality, width: size.0, height: size.1, nearField: near, shaped: shaped)
                }
            }
        }
    }

    /// Radii around every boundary of the schedule (a level's top and blend start, one ulp either
    /// side), then a spread of ordinary ones.
    static func radii(_ s: BokehSchedule) -> [Float] {
        var edges: [Float] = [0, 0.25, 0.5, 1, s.maxRadius, 1e30]
        for l in 0...s.levels { edges += [s.top(l), s.low(l), (1 - BokehSchedule.blend) * s.top(l)] }
        var radii = edges.flatMap { [$0.nextDown, $0, $0.nextUp] }.filter { $0 >= 0 }
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<200 { radii.append(Float(generator.next() % 100_000) / 100_000 * s.maxRadius * 1.1) }
        return radii
    }

    /// The scalar definition: every level from the one `low` renders at to the one `high` renders
    /// at, plus the next when `high` already blends into it.
    static func rangeBits(_ s: BokehSchedule, _ low: Float, _ high: Float) -> UInt32 {
        let first = s.split(low).level
        let (last, t) = s.split(high)
        let top = t > 0 ? last + 1 : last
        guard top >= first else { return 0 }
        return ((1 << UInt32(top - first + 1)) - 1) << UInt32(first)
    }

    @Test func rangeBitsMatchTheScalarSplit() {
        for s in Self.schedules {
            let radii = Self.radii(s)
            var pairs: [(Float, Float)] = []
            for (i, a) in radii.enumerated() {
                for b in radii[i...] where (i + pairs.count) % 3 == 0 || b == a { pairs.append(a <= b ? (a, b) : (b, a)) }
            }
            for start in stride(from: 0, to: pairs.count, by: 8) {
                var low = SIMD8<Float>(repeating: 0)
                var high = SIMD8<Float>(repeating: 0)
                let n = min(8, pairs.count - start)
                for k in 0..<n { (low[k], high[k]) = pairs[start + k] }
                let lanes = s.rangeBits(low, high)
                for k in 0..<n {
                    #expect(
                        UInt32(lanes[k]) == Self.rangeBits(s, low[k], high[k]),
                        "levels \(s.levels), r0 \(s.r0), rt \(s.rt): \(low[k]) ... \(high[k])")
                }
            }
        }
    }

    @Test func weightsMatchTheScalarSplit() {
        for s in Self.schedules {
            let radii = Self.radii(s)
            for start in stride(from: 0, to: radii.count, by: 8) {
                var rho = SIMD8<Float>(repeating: 0)
                let n = min(8, radii.count - start)
                for k in 0..<n { rho[k] = radii[start + k] }
                for l in 0...s.levels {
                    let lanes = s.weight(rho, level: l)
                    for k in 0..<n {
                        #expect(lanes[k].bitPattern == s.weight(rho[k], level: l).bitPattern, "level \(l), radius \(rho[k])")
                    }
                }
            }
        }
    }
}
