import Testing

@testable import CinepackTime

/// The 128-bit helper underneath every exact computation.
@Suite struct WideIntTests {
    @Test(
        arguments: [
            (Int64(7), Int64(2)), (-7, 2), (7, 3), (-7, 3), (0, 5), (-6, 3),
            (Int64.min, 1), (Int64.min, 3), (Int64.max, 2), (Int64.min, Int64.max),
        ] as [(Int64, Int64)])
    func floorDivisionMatchesSmallIntegers(_ n: Int64, _ d: Int64) throws {
        let (q, r) = WideInt(n).floorDivided(by: d)
        #expect(r >= 0 && r < d)
        let qv = try #require(q.int64)
        // n == q*d + r, checked at 128 bits
        #expect(WideInt.product(qv, d).adding(WideInt(r)) == WideInt(n))
    }

    @Test func productsAndDivisionAt128Bits() throws {
        let p = WideInt.product(Int64.max, Int64.max)  // (2^63-1)^2
        let (q, r) = p.floorDivided(by: Int64.max)
        #expect(q.int64 == Int64.max && r == 0)
        let n = WideInt.product(Int64.min, Int64.max)  // negative, magnitude needs 126 bits
        let (q2, r2) = n.floorDivided(by: Int64.max)
        #expect(q2.int64 == Int64.min && r2 == 0)
        let (q3, r3) = try #require(n.adding(WideInt(-1))).floorDivided(by: Int64.max)
        #expect(q3.int64 == nil)  // Int64.min - 1
        #expect(r3 == Int64.max - 1)
    }

    @Test func overflowIsReported() {
        let top = WideInt(high: Int64.max, low: UInt64.max)
        let bottom = WideInt(high: Int64.min, low: 0)
        #expect(top.adding(WideInt(1)) == nil)
        #expect(bottom.subtracting(WideInt(1)) == nil)
        #expect(bottom.adding(WideInt(-1)) == nil)
        #expect(top.adding(WideInt(-1)) != nil)
        #expect(WideInt(-1).adding(bottom.adding(WideInt(1)) ?? WideInt(0)) == bottom)
        #expect(top.multiplied(by: 2) == nil)
        #expect(WideInt(high: 1 << 62, low: 0).multiplied(by: -2) == bottom)
        #expect(top.subtracting(bottom) == nil)
    }

    @Test(
        arguments: [
            (Int64(5), Int64(2), FloatingPointRoundingRule.toNearestOrEven, Int64(2)),
            (7, 2, .toNearestOrEven, 4),
            (-5, 2, .toNearestOrEven, -2),
            (-7, 2, .toNearestOrEven, -4),
            (5, 2, .toNearestOrAwayFromZero, 3),
            (-5, 2, .toNearestOrAwayFromZero, -3),
            (-5, 3, .towardZero, -1),
            (-5, 3, .down, -2),
            (5, 3, .up, 2),
            (5, 3, .awayFromZero, 2),
            (-5, 3, .awayFromZero, -2),
        ] as [(Int64, Int64, FloatingPointRoundingRule, Int64)])
    func rounding(_ n: Int64, _ d: Int64, _ rule: FloatingPointRoundingRule, _ expected: Int64) {
        #expect(WideInt(n).divided(by: d, rounding: rule)?.int64 == expected)
    }
}
