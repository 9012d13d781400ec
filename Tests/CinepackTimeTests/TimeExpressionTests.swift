import Testing

@testable import CinepackTime

private func t(_ value: Int64, _ timescale: Int32) -> MediaTime { MediaTime(value: value, timescale: timescale) }
private func grid(_ frames: Int64, _ seconds: Int64 = 1) -> FrameGrid {
    guard let r = FrameRate(frames: frames, per: seconds) else { fatalError("invalid test rate") }
    return FrameGrid(rate: r)
}
private typealias R = TimeExpressionParser.Reason

@Suite struct TimeExpressionParsingTests {
    /// Seconds forms, with the exact stored fraction (decimals are powers of ten, never a Double).
    @Test(
        arguments: [
            ("12.3s", Int64(123), Int32(10)),
            ("12.3", 123, 10),
            ("12.3S", 123, 10),
            ("  12.3s\t", 123, 10),
            ("12s", 12, 1),
            ("0", 0, 1),
            ("0.5", 5, 10),
            (".5s", 5, 10),
            ("007.250s", 725, 100),
            ("12.300", 123, 10),
            ("12.1234567890s", 12_123_456_789, 1_000_000_000),
            ("0.000000001s", 1, 1_000_000_000),
            ("1000000000s", 1_000_000_000, 1),
            ("1000000000.000", 1_000_000_000, 1),
            ("1:02.5", 625, 10),
            ("1:02", 62, 1),
            ("90:00", 5400, 1),
            ("1:02:03.5", 37235, 10),
            ("01:02:03", 3723, 1),
            ("277777:46:40", 1_000_000_000, 1),
            ("369369/30000s", 369369, 30000),
            ("369369/30000", 369369, 30000),
            ("0/1s", 0, 1),
            ("10000000000/10s", 10_000_000_000, 10),
        ] as [(String, Int64, Int32)])
    func seconds(_ text: String, _ value: Int64, _ timescale: Int32) throws {
        let e = try TimeExpression(parsing: text)
        guard case .seconds(let time) = e else {
            Issue.record("\(text) parsed as \(e)")
            return
        }
        #expect(time.value == value && time.timescale == timescale)
    }

    @Test(
        arguments: [
            ("369f", TimeExpression.frame(369)),
            ("0f", .frame(0)),
            ("369F", .frame(369)),
            ("007f", .frame(7)),
            (" 9223372036854775807f ", .frame(Int64.max)),
            ("00:00:12:09", .timecode(hours: 0, minutes: 0, seconds: 12, frames: 9, dropFrame: false)),
            ("00:00:12;09", .timecode(hours: 0, minutes: 0, seconds: 12, frames: 9, dropFrame: true)),
            ("1:00:00:00", .timecode(hours: 1, minutes: 0, seconds: 0, frames: 0, dropFrame: false)),
            ("00:00:00:119", .timecode(hours: 0, minutes: 0, seconds: 0, frames: 119, dropFrame: false)),
        ] as [(String, TimeExpression)])
    func framesAndTimecodes(_ text: String, _ expected: TimeExpression) throws {
        #expect(try TimeExpression(parsing: text) == expected)
    }

    @Test(
        arguments: [
            ("12.3x", 5, R.expectedSuffix),
            ("", 1, R.expectedTime),
            ("   ", 1, R.expectedTime),
            ("-1s", 1, R.negative),
            ("  -1s", 3, R.negative),
            ("+1s", 1, R.sign),
            ("nan", 1, R.notFinite),
            ("inf", 1, R.notFinite),
            ("Infinity", 1, R.notFinite),
            ("1e3", 2, R.exponent),
            ("1.5E-3s", 4, R.exponent),
            ("12.", 4, R.expectedDigitAfterPoint),
            (".", 2, R.expectedDigitAfterPoint),
            ("abc", 1, R.expectedDigit),
            ("s", 1, R.expectedDigit),
            ("１２s", 1, R.expectedDigit),
            ("12.5f", 3, R.fractionalFrame),
            ("12sx", 4, R.expectedEnd),
            ("369ff", 5, R.expectedEnd),
            ("12 s", 3, R.expectedSuffix),
            ("1 2s", 2, R.expectedSuffix),
            ("1.5/2", 4, R.expectedSuffix),
            ("1:2", 3, R.twoDigits("seconds")),
            ("1:60", 3, R.below60("seconds")),
            ("1:02:60", 6, R.below60("seconds")),
            ("1:60:00", 3, R.below60("minutes")),
            ("1:002:00", 3, R.twoDigits("minutes")),
            ("00:00:12:09.5", 12, R.timecodeFraction),
            ("00:00;12:09", 6, R.misplacedSemicolon),
            ("00:12;09", 6, R.misplacedSemicolon),
            ("12;09", 3, R.misplacedSemicolon),
            ("00:00:12:09:01", 12, R.tooManyFields),
            ("1:", 3, R.expectedDigit),
            ("1::02", 3, R.expectedDigit),
            (":02", 1, R.expectedDigit),
            ("1:02s", 5, R.expectedPointOrEnd),
            ("1:02.", 6, R.expectedDigitAfterPoint),
            ("00:00:12:09f", 12, R.expectedEnd),
            ("10/0s", 4, R.zeroTimescale),
            ("10/3000000000s", 4, R.hugeTimescale),
            ("1/2x", 4, R.expectedSecondsOrEnd),
            ("1/", 3, R.expectedDigitAfterSlash),
            ("/2", 1, R.expectedDigit),
            ("12.1234567891s", 13, R.tooManyPlaces),
            ("1000000001s", 1, R.tooLarge),
            ("1000000000.5", 1, R.tooLarge),
            ("  1000000001s", 3, R.tooLarge),
            ("10000000001/10s", 1, R.tooLarge),
            ("277778:00:00", 1, R.tooLarge),
            ("16666667:00", 1, R.tooLarge),
            ("99999999999999999999f", 1, R.numberTooLarge),
            ("99999999999999999999/1s", 1, R.tooLarge),
            ("1/99999999999999999999s", 3, R.hugeTimescale),
            ("99999999999999999999:00", 1, R.tooLarge),
            ("00:00:00:99999999999999999999", 10, R.numberTooLarge),
            ("99999999999999999999999999999999999999999.5s", 1, R.tooLarge),
        ] as [(String, Int, String)])
    func errors(_ text: String, _ position: Int, _ reason: String) {
        let error = #expect(throws: TimeParseError.self) { try TimeExpression(parsing: text) }
        #expect(error == TimeParseError(input: text, position: position, reason: reason))
    }

    @Test func errorDescription() {
        let error = #expect(throws: TimeParseError.self) { try TimeExpression(parsing: "12.3x") }
        #expect(error?.description == #"cannot read time "12.3x" at character 5: expected "s", "f" or end"#)
    }

    @Test(
        arguments: [
            ("12.3s", "12.3s"), ("12.300", "12.3s"), ("0", "0s"), (".5s", "0.5s"), ("1:02.5", "62.5s"),
            ("0.000000001s", "0.000000001s"), ("369369/30000s", "369369/30000s"), ("2/4s", "2/4s"),
            ("369f", "369f"), ("00:00:12;09", "00:00:12;09"), ("1:00:00:00", "01:00:00:00"),
            ("00:00:00:119", "00:00:00:119"),
        ] as [(String, String)])
    func descriptionIsCanonicalAndReadsBack(_ text: String, _ canonical: String) throws {
        let e = try TimeExpression(parsing: text)
        #expect(e.description == canonical)
        #expect(try TimeExpression(parsing: canonical) == e)
    }
}

@Suite struct TimeExpressionResolvingTests {
    @Test func worked12Point3SecondsAt2997() throws {
        let s = try TimeExpression(parsing: "12.3s").resolve(on: grid(30000, 1001))
        #expect(s.frame == 369)
        #expect(s.time.value == 369369 && s.time.timescale == 30000)
        #expect(s.requested == t(123, 10))
        #expect(!s.wasExact)
    }

    @Test(
        arguments: [
            ("12.3s", grid(30000, 1001), Int64(369), false),
            ("369369/30000s", grid(30000, 1001), 369, true),
            ("369f", grid(30000, 1001), 369, true),
            ("00:00:12:09", grid(30000, 1001), 369, true),
            ("00:00:12;09", grid(30000, 1001), 369, true),
            ("00:00:00;00", grid(30000, 1001), 0, true),
            ("00:01:00;02", grid(30000, 1001), 1800, true),
            ("00:10:00;00", grid(30000, 1001), 17982, true),
            ("01:00:00;00", grid(30000, 1001), 107_892, true),
            ("00:01:00:00", grid(30000, 1001), 1800, true),
            ("00:01:00;04", grid(60000, 1001), 3600, true),
            ("00:10:00;00", grid(60000, 1001), 35964, true),
            ("01:00:00;00", grid(60000, 1001), 215_784, true),
            ("01:00:00:00", grid(25), 90000, true),
            ("00:00:01:24", grid(25), 49, true),
            ("1:02.5", grid(24), 1500, true),
            ("0.0166666s", grid(30), 0, false),
            ("1/60s", grid(30), 0, false),  // exactly halfway: the earlier frame
            ("3/60s", grid(30), 1, false),
        ] as [(String, FrameGrid, Int64, Bool)])
    func resolve(_ text: String, _ g: FrameGrid, _ frame: Int64, _ exact: Bool) throws {
        let s = try TimeExpression(parsing: text).resolve(on: g)
        #expect(s.frame == frame)
        #expect(s.time == g.time(ofFrame: frame))
        #expect(s.wasExact == exact)
    }

    @Test(
        arguments: [
            ("00:00:12:30", grid(30000, 1001), 10, "frames field 30 is too large: at 29.97 fps timecode frames run 00–29"),
            ("00:00:01:25", grid(25), 10, "frames field 25 is too large: at 25 fps timecode frames run 00–24"),
            ("00:00:00:60", grid(60000, 1001), 10, "frames field 60 is too large: at 59.94 fps timecode frames run 00–59"),
            (
                "00:01:00;00", grid(30000, 1001), 10,
                "00:01:00;00 does not exist in drop-frame timecode: labels 00–01 are skipped at the start of every minute except each tenth"
            ),
            (
                "00:01:00;01", grid(30000, 1001), 10,
                "00:01:00;01 does not exist in drop-frame timecode: labels 00–01 are skipped at the start of every minute except each tenth"
            ),
            (
                "00:01:00;03", grid(60000, 1001), 10,
                "00:01:00;03 does not exist in drop-frame timecode: labels 00–03 are skipped at the start of every minute except each tenth"
            ),
            ("00:00:01;00", grid(25), 9, #"drop-frame timecode (";") needs a 29.97 or 59.94 fps grid, not 25 fps; use ":""#),
            (
                "00:00:01;00", grid(24000, 1001), 9,
                #"drop-frame timecode (";") needs a 29.97 or 59.94 fps grid, not 23.976 fps; use ":""#
            ),
            ("9223372036854775807f", grid(30000, 1001), 1, "this time is outside what a 29.97 fps grid can represent"),
        ] as [(String, FrameGrid, Int, String)])
    func resolveErrors(_ text: String, _ g: FrameGrid, _ position: Int, _ reason: String) throws {
        let e = try TimeExpression(parsing: text)
        let error = #expect(throws: TimeParseError.self) { try e.resolve(on: g) }
        #expect(error == TimeParseError(input: e.description, position: position, reason: reason))
    }

    @Test func constructedNonsenseIsAnErrorNotATrap() {
        let bad = TimeExpression.timecode(hours: 0, minutes: 61, seconds: 0, frames: 0, dropFrame: false)
        #expect(throws: TimeParseError.self) { try bad.resolve(on: grid(25)) }
        let huge = TimeExpression.timecode(hours: Int.max, minutes: 0, seconds: 0, frames: 0, dropFrame: false)
        #expect(throws: TimeParseError.self) { try huge.resolve(on: grid(25)) }
        #expect(throws: TimeParseError.self) { try TimeExpression.seconds(t(Int64.max, 1)).resolve(on: grid(30)) }
    }
}
