import Testing

@testable import CinepackTime

private func t(_ value: Int64, _ timescale: Int32) -> MediaTime { MediaTime(value: value, timescale: timescale) }
private func grid(_ frames: Int64, _ seconds: Int64 = 1) -> FrameGrid {
    guard let r = FrameRate(frames: frames, per: seconds) else { fatalError("invalid test rate") }
    return FrameGrid(rate: r)
}
private typealias R = TimeExpressionParser.Reason

@Suite struct TimeRangeExpressionTests {
    @Test(
        arguments: [
            ("10s..12s", TimeExpression.seconds(t(10, 1)), TimeExpression.seconds(t(12, 1))),
            ("10s .. 12s", .seconds(t(10, 1)), .seconds(t(12, 1))),
            ("1.5..2.5", .seconds(t(15, 10)), .seconds(t(25, 10))),
            ("369f..00:00:13:00", .frame(369), .timecode(hours: 0, minutes: 0, seconds: 13, frames: 0, dropFrame: false)),
            ("0..1:00", .seconds(t(0, 1)), .seconds(t(60, 1))),
        ] as [(String, TimeExpression, TimeExpression)])
    func parses(_ text: String, _ start: TimeExpression, _ end: TimeExpression) throws {
        let r = try TimeRangeExpression(parsing: text)
        #expect(r.start == start && r.end == end)
        #expect(try TimeRangeExpression(parsing: r.description) == r)
    }

    @Test(
        arguments: [
            ("10s", 4, "expected \"..\" between start and end (e.g. 10s..12s)"),
            ("", 1, "expected \"..\" between start and end (e.g. 10s..12s)"),
            ("10s..1x", 7, R.expectedSuffix),
            ("..12s", 1, R.expectedTime),
            ("10s..", 6, R.expectedTime),
            ("10s...5", 6, "expected a time after \"..\" (write 0.5s, not .5s, after \"..\")"),
            ("-1s..2s", 1, R.negative),
            ("10s..-2s", 6, R.negative),
            ("10s..12s..14s", 9, R.expectedEnd),
        ] as [(String, Int, String)])
    func errors(_ text: String, _ position: Int, _ reason: String) {
        let error = #expect(throws: TimeParseError.self) { try TimeRangeExpression(parsing: text) }
        #expect(error == TimeParseError(input: text, position: position, reason: reason))
    }

    @Test func resolves() throws {
        let (start, end) = try TimeRangeExpression(parsing: "10s..12.3s").resolve(on: grid(30000, 1001))
        #expect(start.frame == 300 && start.wasExact == false)
        #expect(end.frame == 369 && end.time == t(369369, 30000))
        let (a, b) = try TimeRangeExpression(parsing: "5f..5f").resolve(on: grid(30))
        #expect(a.frame == 5 && b.frame == 5)
    }

    @Test func resolveErrorsPointIntoTheRange() throws {
        let backwards = try TimeRangeExpression(parsing: "12s..10s")
        let e1 = #expect(throws: TimeParseError.self) { try backwards.resolve(on: grid(30)) }
        #expect(
            e1
                == TimeParseError(
                    input: "12s..10s", position: 6, reason: "the range ends (frame 300) before it starts (frame 360)"))
        let badEnd = try TimeRangeExpression(parsing: "00:00:01:00..00:00:01:30")
        let e2 = #expect(throws: TimeParseError.self) { try badEnd.resolve(on: grid(30)) }
        #expect(e2?.input == "00:00:01:00..00:00:01:30")
        #expect(e2?.position == 23)
    }
}

@Suite struct TimeOffsetExpressionTests {
    @Test(
        arguments: [
            ("+0.5s", false, TimeExpression.seconds(t(5, 10))),
            ("-1f", true, .frame(1)),
            ("1f", false, .frame(1)),
            ("+12.3", false, .seconds(t(123, 10))),
            (" - 00:00:01:00 ", true, .timecode(hours: 0, minutes: 0, seconds: 1, frames: 0, dropFrame: false)),
        ] as [(String, Bool, TimeExpression)])
    func parses(_ text: String, _ negative: Bool, _ magnitude: TimeExpression) throws {
        let o = try TimeOffsetExpression(parsing: text)
        #expect(o.negative == negative && o.magnitude == magnitude)
        #expect(try TimeOffsetExpression(parsing: o.description) == o)
    }

    @Test(
        arguments: [
            ("+", 2, R.expectedTime),
            ("", 1, R.expectedTime),
            ("--1s", 2, R.negative),
            ("+-1s", 2, R.negative),
            ("-+1s", 2, R.sign),
            ("-1x", 3, R.expectedSuffix),
            ("-nan", 2, R.notFinite),
        ] as [(String, Int, String)])
    func errors(_ text: String, _ position: Int, _ reason: String) {
        let error = #expect(throws: TimeParseError.self) { try TimeOffsetExpression(parsing: text) }
        #expect(error == TimeParseError(input: text, position: position, reason: reason))
    }

    @Test(
        arguments: [
            ("-1f", Int64(368)),
            ("+0.5s", 384),
            ("-0.5s", 354),
            ("+00:00:01:00", 399),
            ("-00:00:01;00", 339),
            ("-400f", -31),  // not clamped: callers check the clip
        ] as [(String, Int64)])
    func applied(_ text: String, _ frame: Int64) throws {
        let g = grid(30000, 1001)
        let base = try TimeExpression(parsing: "12.3s").resolve(on: g)
        let moved = try TimeOffsetExpression(parsing: text).applied(to: base, on: g)
        #expect(moved.frame == frame)
        #expect(moved.time == g.time(ofFrame: frame))
    }

    @Test func appliedErrors() throws {
        let g = grid(30000, 1001)
        let base = try TimeExpression(parsing: "369f").resolve(on: g)
        let tooManyFrames = try TimeOffsetExpression(parsing: "+00:00:00:30")
        let e1 = #expect(throws: TimeParseError.self) { try tooManyFrames.applied(to: base, on: g) }
        #expect(e1?.input == "+00:00:00:30" && e1?.position == 11)
        let huge = try TimeOffsetExpression(parsing: "+9223372036854775807f")
        #expect(throws: TimeParseError.self) { try huge.applied(to: base, on: g) }
    }
}
