import Testing

@testable import CinepackRender

/// The upsampler tests eight neighbourhoods at once (`residual8`); its step test must decide
/// exactly as the one-neighbourhood fit does, bit for bit, and both must follow the spec's rule
/// of thumb: a plane leaves its fit by nothing, a step between two cells by a third of the step.
@Suite struct MapPlaneFitTests {
    /// A 20 × 6 map: `kind` 0 random values, 1 a steep plane, 2 a vertical step, 3 a few spikes.
    static func map(_ kind: Int, seed: UInt64) -> [Float] {
        var rng = seed
        func next() -> Float {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(rng >> 40) / Float(1 << 24)
        }
        return (0..<(6 * 20)).map { k in
            let (x, y) = (Float(k % 20), Float(k / 20))
            switch kind {
            case 0: return next()
            case 1: return 0.05 * x - 0.03 * y + 0.2
            case 2: return x < 9 ? 0.1 : 0.7
            default: return next() < 0.1 ? 1 : 0.3
            }
        }
    }

    @Test func eightAtOnceIsTheOneAtATimeFit() {
        for kind in 0..<4 {
            for seed in 1...3 as ClosedRange<UInt64> {
                let values = Self.map(kind, seed: seed)
                values.withUnsafeBufferPointer { p in
                    // Whole windows and the map's top and bottom edges (two rows).
                    for rows in [0...1, 0...2, 1...3, 3...5, 4...5] {
                        for first in 1...11 {
                            let lanes = MapPlaneFit.residual8(p.baseAddress!, width: 20, rows: rows, first: first)
                            for k in 0..<8 {
                                let one = MapPlaneFit.residual(
                                    p.baseAddress!, width: 20, rows: rows, columns: (first + k - 1)...(first + k + 1))
                                #expect(
                                    lanes[k].bitPattern == one.bitPattern,
                                    "map \(kind) seed \(seed), rows \(rows), column \(first + k): \(lanes[k]) against \(one)")
                            }
                        }
                    }
                }
            }
        }
    }

    @Test func aPlaneLeavesNothingAStepAThird() {
        let plane = Self.map(1, seed: 0)
        let step = Self.map(2, seed: 0)
        plane.withUnsafeBufferPointer { p in
            #expect(MapPlaneFit.residual8(p.baseAddress!, width: 20, rows: 1...3, first: 4).max() < 1e-5)
        }
        step.withUnsafeBufferPointer { p in
            // The window centred on column 9 straddles the step between columns 8 and 9.
            let r = MapPlaneFit.residual8(p.baseAddress!, width: 20, rows: 1...3, first: 2)
            #expect(abs(r[7] - 0.6 / 3) < 1e-5, "step window: \(r[7])")
            #expect(r[0] < 1e-6, "flat window: \(r[0])")
        }
    }
}
