import Testing

@testable import CinepackTime

private func rate(_ frames: Int64, _ seconds: Int64 = 1) -> FrameRate {
    guard let r = FrameRate(frames: frames, per: seconds) else { fatalError("invalid test rate") }
    return r
}

@Suite struct TimecodeTests {
    /// Known SMPTE values; each is also parsed back and resolved to the same frame.
    @Test(
        arguments: [
            (rate(30000, 1001), true, Int64(0), "00:00:00;00"),
            (rate(30000, 1001), true, 1799, "00:00:59;29"),
            (rate(30000, 1001), true, 1800, "00:01:00;02"),
            (rate(30000, 1001), true, 3597, "00:01:59;29"),
            (rate(30000, 1001), true, 3598, "00:02:00;02"),
            (rate(30000, 1001), true, 17981, "00:09:59;29"),
            (rate(30000, 1001), true, 17982, "00:10:00;00"),
            (rate(30000, 1001), true, 17983, "00:10:00;01"),
            (rate(30000, 1001), true, 19781, "00:10:59;29"),
            (rate(30000, 1001), true, 19782, "00:11:00;02"),
            (rate(30000, 1001), true, 107_892, "01:00:00;00"),
            (rate(30000, 1001), true, 2_589_407, "23:59:59;29"),
            (rate(60000, 1001), true, 3599, "00:00:59;59"),
            (rate(60000, 1001), true, 3600, "00:01:00;04"),
            (rate(60000, 1001), true, 35964, "00:10:00;00"),
            (rate(60000, 1001), true, 215_784, "01:00:00;00"),
            (rate(30000, 1001), false, 1800, "00:01:00:00"),
            (rate(30000, 1001), false, 107_892, "00:59:56:12"),
            (rate(25), false, 90000, "01:00:00:00"),
            (rate(25), false, 49, "00:00:01:24"),
            (rate(24), false, 8_640_000, "100:00:00:00"),
            (rate(120000, 1001), false, 121, "00:00:01:001"),
        ] as [(FrameRate, Bool, Int64, String)])
    func knownLabels(_ r: FrameRate, _ dropFrame: Bool, _ frame: Int64, _ label: String) throws {
        #expect(timecode(ofFrame: frame, rate: r, dropFrame: dropFrame) == label)
        let resolved = try TimeExpression(parsing: label).resolve(on: FrameGrid(rate: r))
        #expect(resolved.frame == frame)
    }

    @Test func dropFrameIsIgnoredWhereSMPTEDefinesNone() {
        #expect(timecode(ofFrame: 1800, rate: rate(30), dropFrame: true) == "00:01:00:00")
        #expect(timecode(ofFrame: 24, rate: rate(24000, 1001), dropFrame: true) == "00:00:01:00")
    }

    @Test func negativeAndExtremeFrames() {
        #expect(timecode(ofFrame: -1, rate: rate(30000, 1001), dropFrame: true) == "-00:00:00;01")
        #expect(timecode(ofFrame: Int64.min, rate: rate(30), dropFrame: false).hasPrefix("-"))
        #expect(!timecode(ofFrame: Int64.max, rate: rate(60000, 1001), dropFrame: true).isEmpty)
    }

    /// Every frame of the first 40 minutes (29.97) / 25 minutes (59.94) round-trips, and labels are unique.
    @Test(
        arguments: [
            (rate(30000, 1001), true, Int64(72_000)), (rate(60000, 1001), true, 90_000),
            (rate(30000, 1001), false, 20_000), (rate(25), false, 20_000),
        ] as [(FrameRate, Bool, Int64)])
    func roundTripEveryFrame(_ r: FrameRate, _ dropFrame: Bool, _ count: Int64) throws {
        let g = FrameGrid(rate: r)
        var seen = Set<String>()
        for n in 0..<count {
            let label = timecode(ofFrame: n, rate: r, dropFrame: dropFrame)
            seen.insert(label)
            let resolved = try TimeExpression(parsing: label).resolve(on: g)
            if resolved.frame != n {
                Issue.record("\(label) resolved to \(resolved.frame), expected \(n)")
                return
            }
        }
        #expect(seen.count == Int(count))
    }
}
