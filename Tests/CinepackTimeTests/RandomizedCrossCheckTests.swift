import TestSupport
import Testing

@testable import CinepackTime

/// Small operands, where plain Int64 arithmetic cannot overflow, checked against the 128-bit paths.
@Suite struct RandomizedCrossCheckTests {
    @Test func comparisonAndArithmeticMatchSmallIntegerMath() throws {
        var rng = SeededGenerator(seed: 2024)
        for _ in 0..<20_000 {
            let a = MediaTime(
                value: .random(in: -10_000_000...10_000_000, using: &rng),
                timescale: .random(in: 1...100_000, using: &rng))
            let b = MediaTime(
                value: .random(in: -10_000_000...10_000_000, using: &rng),
                timescale: .random(in: 1...100_000, using: &rng))
            let lhs = a.value * Int64(b.timescale)
            let rhs = b.value * Int64(a.timescale)
            #expect((a < b) == (lhs < rhs))
            #expect((a == b) == (lhs == rhs))
            if a == b { #expect(a.hashValue == b.hashValue) }
            guard let sum = a.adding(b) else {
                // Nil is allowed only when the exact sum's lowest-terms timescale exceeds Int32.
                let denominator = Int64(a.timescale) * Int64(b.timescale)
                let g = Int64(greatestCommonDivisor((lhs + rhs).magnitude, UInt64(denominator)))
                #expect(denominator / g > Int64(Int32.max))
                continue
            }
            // sum == (a.v*b.ts + b.v*a.ts) / (a.ts*b.ts), checked by cross multiplication at 128 bits
            #expect(
                WideInt.product(sum.value, Int64(a.timescale) * Int64(b.timescale))
                    == WideInt.product(lhs + rhs, Int64(sum.timescale)))
            #expect(try #require(sum.subtracting(b)) == a)
        }
    }

    @Test func snappingMatchesSmallIntegerMath() {
        var rng = SeededGenerator(seed: 7)
        let rates: [(Int64, Int64)] = [(24, 1), (25, 1), (30, 1), (30000, 1001), (24000, 1001), (60000, 1001), (25, 2)]
        for _ in 0..<20_000 {
            let (f, s) = rates[Int.random(in: 0..<rates.count, using: &rng)]
            guard let rate = FrameRate(frames: f, per: s) else { continue }
            let start = MediaTime(value: .random(in: -1000...1000, using: &rng), timescale: .random(in: 1...60, using: &rng))
            let grid = FrameGrid(rate: rate, start: start)
            let t = MediaTime(
                value: .random(in: -10_000_000...10_000_000, using: &rng),
                timescale: .random(in: 1...100_000, using: &rng))
            // x = (t - start) * f / s = num / den with small integers.
            let num = (t.value * Int64(start.timescale) - start.value * Int64(t.timescale)) * f
            let den = Int64(t.timescale) * Int64(start.timescale) * s
            let floor = num >= 0 ? num / den : -((-num + den - 1) / den)
            let remainder = num - floor * den
            let nearest = 2 * remainder > den ? floor + 1 : floor  // exactly half: the earlier frame
            #expect(grid.frame(containing: t) == floor)
            let snapped = grid.snap(t)
            #expect(snapped.frame == nearest)
            #expect(snapped.wasExact == (remainder == 0))
            #expect(snapped.time == start + MediaTime(value: nearest * s, timescale: Int32(f)))
        }
    }
}
