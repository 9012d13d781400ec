import Foundation
import Testing

@testable import CinepackTime

private func rate(_ frames: Int64, _ seconds: Int64 = 1) -> FrameRate {
    guard let r = FrameRate(frames: frames, per: seconds) else { fatalError("invalid test rate \(frames)/\(seconds)") }
    return r
}

@Suite struct FrameRateTests {
    @Test(
        arguments: [
            (29.97, rate(30000, 1001)),
            (23.976, rate(24000, 1001)),
            (23.98, rate(24000, 1001)),
            (59.94, rate(60000, 1001)),
            (119.88, rate(120000, 1001)),
            (47.952, rate(48000, 1001)),
            (30000.0 / 1001, rate(30000, 1001)),
            (30, rate(30)),
            (25, rate(25)),
            (24, rate(24)),
            (12.5, rate(25, 2)),
            (29.98, rate(1499, 50)),
            (0.5, rate(1, 2)),
            (1.0 / 3, rate(1, 3)),
            (0.0001, rate(1, 10000)),
            (Double(Int32.max), rate(Int64(Int32.max))),
        ] as [(Double, FrameRate)])
    func approximating(_ fps: Double, _ expected: FrameRate) throws {
        let r = FrameRate.approximating(fps)
        #expect(r.frames == expected.frames && r.seconds == expected.seconds)
        #expect(try #require(FrameRate(approximating: fps)) == expected)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 0, -29.97, 1e10, -0.0])
    func approximatingRejectsNonsense(_ fps: Double) {
        #expect(FrameRate(approximating: fps) == nil)
    }

    @Test(
        arguments: [
            ("30", rate(30)),
            ("29.97", rate(30000, 1001)),
            ("23.976", rate(24000, 1001)),
            ("59.94", rate(60000, 1001)),
            ("30000/1001", rate(30000, 1001)),
            ("24000/1001", rate(24000, 1001)),
            ("60/2", rate(30)),
            (" 25 ", rate(25)),
            ("25.000", rate(25)),
            ("12.5", rate(25, 2)),
            ("25fps", rate(25)),
            ("29.97 fps", rate(30000, 1001)),
        ] as [(String, FrameRate)])
    func parsing(_ text: String, _ expected: FrameRate) throws {
        let r = try #require(FrameRate(parsing: text))
        #expect(r.frames == expected.frames && r.seconds == expected.seconds)
    }

    @Test(arguments: [
        "", " ", "0", "-30", "+30", "30/0", "0/1", "30000/", "/1001", "abc", "1e3", "nan", "inf", "29.97.1",
        "29.", ".5", "99999999999999999999", "3000000000", "30/-1", "３０", "30 /1001", "fps",
    ])
    func parsingRejects(_ text: String) {
        #expect(FrameRate(parsing: text) == nil)
    }

    @Test func descriptionRoundTrips() throws {
        for r in [rate(30000, 1001), rate(25), rate(25, 2), rate(1, 10000)] {
            #expect(try #require(FrameRate(parsing: r.description)) == r)
        }
        #expect(rate(30000, 1001).description == "30000/1001")
        #expect(rate(30).description == "30")
    }

    @Test func initValidatesAndReduces() {
        #expect(FrameRate(frames: 0, per: 1) == nil)
        #expect(FrameRate(frames: 30, per: 0) == nil)
        #expect(FrameRate(frames: -30, per: 1) == nil)
        #expect(FrameRate(frames: Int64.max, per: 1) == nil)
        #expect(FrameRate(frames: 1, per: Int64(Int32.max) + 1) == nil)
        let r = rate(60000, 2002)
        #expect(r.frames == 30000 && r.seconds == 1001)
        // Larger than Int32 before reducing is fine.
        #expect(FrameRate(frames: 30000 * 1_000_000, per: 1001 * 1_000_000) == rate(30000, 1001))
    }

    @Test func frameDurationIsExact() {
        let d = rate(30000, 1001).frameDuration
        #expect(d.value == 1001 && d.timescale == 30000)
        #expect(rate(25).frameDuration == MediaTime(value: 1, timescale: 25))
    }

    @Test(
        arguments: [
            (rate(30000, 1001), true, Int64(30)),
            (rate(60000, 1001), true, 60),
            (rate(24000, 1001), false, 24),
            (rate(30), false, 30),
            (rate(60), false, 60),
            (rate(25), false, 25),
            (rate(25, 2), false, 13),
            (rate(120000, 1001), false, 120),
        ] as [(FrameRate, Bool, Int64)])
    func dropFrameAndNominalRate(_ r: FrameRate, _ isDropFrame: Bool, _ nominal: Int64) {
        #expect(r.isDropFrameCandidate == isDropFrame)
        #expect(r.nominalRate == nominal)
    }

    @Test func equalityAndHashAreByValue() {
        var a = rate(30)
        a.frames = 60
        a.seconds = 2  // unreduced through mutation: still equal to 30/1
        #expect(a == rate(30))
        #expect(a.hashValue == rate(30).hashValue)
        #expect(Set([a, rate(30), rate(30000, 1001)]).count == 2)
        #expect(rate(30000, 1001).framesPerSecond == 30000.0 / 1001)
    }

    @Test func codable() throws {
        let data = try JSONEncoder().encode(rate(30000, 1001))
        #expect(try JSONDecoder().decode(FrameRate.self, from: data) == rate(30000, 1001))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(FrameRate.self, from: Data(#"{"frames":0,"seconds":1}"#.utf8))
        }
    }
}
