import Foundation
import Testing

@testable import CinepackTime

private func t(_ value: Int64, _ timescale: Int32) -> MediaTime { MediaTime(value: value, timescale: timescale) }

@Suite struct MediaTimeTests {
    @Test(
        arguments: [
            (t(369369, 30000), "369369/30000s"),
            (t(1001, 30000), "1001/30000s"),
            (t(0, 600), "0s"),
            (t(7200, 600), "12s"),
            (t(-1001, 30000), "-1001/30000s"),
            (t(-1200, 600), "-2s"),
            (t(2, 4), "2/4s"),  // kept as stored, not reduced
        ] as [(MediaTime, String)])
    func description(_ time: MediaTime, _ expected: String) {
        #expect(time.description == expected)
    }

    @Test(
        arguments: [
            (t(369369, 30000), 3, "12.312s"),
            (t(369369, 30000), 0, "12s"),
            (t(1, 3), 5, "0.33333s"),
            (t(2, 3), 2, "0.67s"),
            (t(-1, 3), 3, "-0.333s"),
            (t(-1, 3000), 3, "0.000s"),  // no "-0.000s"
            (t(5, 1000), 2, "0.01s"),  // exact half rounds away from zero
            (t(-5, 1000), 2, "-0.01s"),
            (t(999_999, 1_000_000), 3, "1.000s"),  // carry into the whole seconds
            (t(Int64.max, 1), 3, "9223372036854775807.000s"),
            (t(Int64.min, 1), 1, "-9223372036854775808.0s"),
            (t(Int64.max, Int32.max), 18, "4294967298.000000000465661288s"),
            (t(1, 1), -4, "1s"),  // decimals clamped to 0...18
        ] as [(MediaTime, Int, String)])
    func formattedSeconds(_ time: MediaTime, _ decimals: Int, _ expected: String) {
        #expect(time.formattedSeconds(decimals: decimals) == expected)
    }

    @Test func formattedSecondsDefaultsToMilliseconds() {
        #expect(t(123, 10).formattedSeconds() == "12.300s")
    }

    /// Pairs that denote the same number, including ones whose naive cross products overflow Int64.
    @Test(
        arguments: [
            (t(1, 2), t(2, 4)),
            (t(0, 1), t(0, 600)),
            (t(-3, 9), t(-1, 3)),
            (t(369369, 30000), t(738738, 60000)),
            (t(Int64.max - 1, 2), t((Int64.max - 1) / 2, 1)),
            (t(Int64.max, Int32.max), t(Int64.max, Int32.max)),
            (t(Int64.min, 2), t(Int64.min / 2, 1)),
            (t(Int64.min, 1 << 30), t(-(1 << 33), 1)),
        ] as [(MediaTime, MediaTime)])
    func equalValuesAreEqualAndHashEqually(_ a: MediaTime, _ b: MediaTime) {
        #expect(a == b)
        #expect(b == a)
        #expect(!(a < b) && !(b < a))
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
        #expect(a.reduced.value == b.reduced.value && a.reduced.timescale == b.reduced.timescale)
    }

    /// `a < b` strictly; most of these overflow a naive Int64 cross multiplication.
    @Test(
        arguments: [
            (t(1, 3), t(333_334, 1_000_000)),
            (t(333_333, 1_000_000), t(1, 3)),
            // M/T < (M-1)/(T-1) because M > T; M*(T-1) needs ~94 bits.
            (t(Int64.max, Int32.max), t(Int64.max - 1, Int32.max - 1)),
            (t(Int64.min, 1), t(Int64.max, 1)),
            (t(Int64.min, Int32.max), t(Int64.min + 1, Int32.max)),
            (t(Int64.min, 1), t(Int64.min, 2)),
            (t(Int64.max, 2), t(Int64.max, 1)),
            (t(Int64.max - 1, Int32.max), t(Int64.max, Int32.max)),
            (t(-1, Int32.max), t(0, 1)),
            (t(Int64.max / 3, Int32.max - 2), t(Int64.max / 3 + 1, Int32.max - 2)),
        ] as [(MediaTime, MediaTime)])
    func exactOrdering(_ a: MediaTime, _ b: MediaTime) {
        #expect(a < b)
        #expect(!(b < a))
        #expect(a != b)
        #expect(a <= b && b > a)
    }

    @Test func sortingMixedTimescales() {
        let times = [t(1, 2), t(Int64.max, Int32.max), t(-1, 1), t(1001, 30000), t(0, 7), t(333, 1000), t(1, 3)]
        let sorted = times.sorted()
        #expect(sorted == [t(-1, 1), t(0, 7), t(1001, 30000), t(333, 1000), t(1, 3), t(1, 2), t(Int64.max, Int32.max)])
    }

    @Test(
        arguments: [
            (t(1001, 30000), Int32(60000), MediaTime.RoundingRule.toNearestOrEven, t(2002, 60000)),
            (t(1, 3), 10, .toNearestOrEven, t(3, 10)),
            (t(1, 3), 10, .up, t(4, 10)),
            (t(1, 3), 10, .awayFromZero, t(4, 10)),
            (t(-1, 3), 10, .down, t(-4, 10)),
            (t(-1, 3), 10, .towardZero, t(-3, 10)),
            (t(-1, 3), 10, .up, t(-3, 10)),
            (t(-1, 3), 10, .awayFromZero, t(-4, 10)),
            (t(1, 2), 1, .toNearestOrEven, t(0, 1)),
            (t(3, 2), 1, .toNearestOrEven, t(2, 1)),
            (t(1, 2), 1, .toNearestOrAwayFromZero, t(1, 1)),
            (t(-1, 2), 1, .toNearestOrAwayFromZero, t(-1, 1)),
            (t(-3, 2), 1, .toNearestOrEven, t(-2, 1)),
            (t(123, 10), 30000, .toNearestOrEven, t(369000, 30000)),
            (t(Int64.max, 1000), 1000, .toNearestOrEven, t(Int64.max, 1000)),
            (t(Int64.min, Int32.max), 1, .down, t(Int64.min / Int64(Int32.max) - 1, 1)),
        ] as [(MediaTime, Int32, MediaTime.RoundingRule, MediaTime)])
    func converted(_ time: MediaTime, _ scale: Int32, _ rule: MediaTime.RoundingRule, _ expected: MediaTime) throws {
        let result = try #require(time.converted(to: scale, rounding: rule))
        #expect(result.timescale == scale)
        #expect(result.value == expected.value)
    }

    @Test(
        arguments: [(t(Int64.max, 1), Int32(2)), (t(Int64.max, 2), 4), (t(Int64.min, 1), 2), (t(1, 1), 0), (t(1, 1), -5)]
            as [(MediaTime, Int32)])
    func convertedOverflowIsNil(_ time: MediaTime, _ scale: Int32) {
        #expect(time.converted(to: scale) == nil)
    }

    @Test(
        arguments: [
            (t(1, 2), t(1, 3), t(5, 6)),
            (t(1001, 30000), t(1001, 30000), t(2002, 30000)),
            (t(1, 600), t(1, 600), t(2, 600)),
            (t(123, 10), t(-123, 10), t(0, 10)),
            (t(Int64.max, 1), t(-1, 1), t(Int64.max - 1, 1)),
            (t(Int64.max - 1, 2), t(1, 2), t(Int64.max, 2)),
        ] as [(MediaTime, MediaTime, MediaTime)])
    func adding(_ a: MediaTime, _ b: MediaTime, _ sum: MediaTime) throws {
        let result = try #require(a.adding(b))
        #expect(result == sum)
        #expect(result.timescale == sum.timescale)  // keeps the common timescale rather than reducing
        #expect(a + b == sum)
        let back = try #require(result.subtracting(b))
        #expect(back == a)
        #expect(result - b == a)
    }

    @Test func arithmeticOverflowIsNil() {
        #expect(t(Int64.max, 1).adding(t(1, 1)) == nil)
        #expect(t(Int64.min, 1).subtracting(t(1, 1)) == nil)
        #expect(t(Int64.max, 1).subtracting(t(-1, 1)) == nil)
        // No common timescale within Int32 and the sum does not reduce.
        #expect(t(1, 1_000_000_007).adding(t(1, 1_000_000_009)) == nil)
        #expect(t(Int64.min, 1).negated() == nil)
        #expect(t(5, 7).negated() == t(-5, 7))
    }

    @Test func addingReducesWhenTheCommonTimescaleIsTooLarge() throws {
        // lcm(2, 2^31 - 1) exceeds Int32, but 1/2 + P/P = 3/2 reduces back into range.
        let p = Int32.max  // prime
        let sum = try #require(t(1, 2).adding(t(Int64(p), p)))
        #expect(sum.value == 3 && sum.timescale == 2)
        let back = try #require(sum.subtracting(t(Int64(p), p)))
        #expect(back.value == 1 && back.timescale == 2)
    }

    @Test(
        arguments: [
            (t(1001, 30000), (Int64(1), Int64(2)), t(1001, 60000)),
            (t(10, 1), (2, 1), t(20, 1)),
            (t(1, 3), (3, 1), t(3, 3)),
            (t(1001, 30000), (1001, 1000), t(1_002_001, 30_000_000)),
            (t(3, 1), (-1, 2), t(-3, 2)),
            (t(3, 1), (1, -2), t(-3, 2)),
            (t(-3, 1), (-2, -4), t(-3, 2)),
            (t(600, 600), (Int64.max, Int64.max), t(600, 600)),
            // Not representable exactly (needs timescale 3e9 even in lowest terms): 2/3 tick rounds to 1 tick.
            (t(2, 2_000_000_000), (1, 3), t(1, 2_000_000_000)),
        ] as [(MediaTime, (Int64, Int64), MediaTime)])
    func multiplied(_ time: MediaTime, _ ratio: (Int64, Int64), _ expected: MediaTime) throws {
        let result = try #require(time.multiplied(by: ratio))
        #expect(result == expected)
        #expect(result.timescale == expected.timescale)
    }

    @Test func multipliedKeepsTheTimescaleWhenExact() throws {
        let r = try #require(t(3003, 30000).multiplied(by: (2, 3)))
        #expect(r.value == 2002 && r.timescale == 30000)
    }

    @Test func multipliedEdgeCasesAreNil() {
        #expect(t(1, 1).multiplied(by: (1, 0)) == nil)
        #expect(t(Int64.max, 1).multiplied(by: (2, 1)) == nil)
        #expect(t(1, 1).multiplied(by: (Int64.min, 1)) == nil)
    }

    @Test func secondsIsApproximate() {
        #expect(t(369369, 30000).seconds == 12.3123)
        #expect(MediaTime.zero.seconds == 0)
    }

    @Test(arguments: [(12.3, Int32(10), t(123, 10)), (-0.5, 2, t(-1, 2)), (1.0 / 3, 3, t(1, 3))] as [(Double, Int32, MediaTime)])
    func fromSeconds(_ seconds: Double, _ scale: Int32, _ expected: MediaTime) throws {
        let time = try #require(MediaTime(seconds: seconds, timescale: scale))
        #expect(time == expected && time.timescale == scale)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e19, -1e19])
    func fromSecondsRejectsNonFiniteAndHuge(_ seconds: Double) {
        #expect(MediaTime(seconds: seconds, timescale: 1) == nil)
    }

    @Test func codableRoundTrip() throws {
        let time = t(369369, 30000)
        let data = try JSONEncoder().encode(time)
        let back = try JSONDecoder().decode(MediaTime.self, from: data)
        #expect(back.value == 369369 && back.timescale == 30000)
        let json = try #require(String(data: data, encoding: .utf8))
        #expect(json.contains("\"value\":369369") && json.contains("\"timescale\":30000"))
    }

    @Test(arguments: [#"{"value":1,"timescale":0}"#, #"{"value":1,"timescale":-30}"#, #"{"value":1}"#])
    func codableRejectsBadTimescale(_ json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(MediaTime.self, from: Data(json.utf8))
        }
    }
}
