/// The grammar of typed times, shared by single times, ranges and offsets.
///
/// It reads a slice of a larger input so that an error inside `10s..1x2s` points at the right character
/// of what the user typed. Numbers are read digit by digit into integers; no `Double` is ever involved,
/// so decimal seconds are exact (`12.3` is 123/10).
struct TimeExpressionParser {
    /// The largest time accepted, in seconds (about 31.7 years). Far beyond any clip, and small enough that
    /// a parsed time at any timescale up to `Int32.max` still fits in `Int64` ticks.
    static let maximumSeconds: Int64 = 1_000_000_000
    /// Finest decimal step: 1 ns, so the timescale 10^9 fits in `Int32`.
    static let maximumDecimalPlaces = 9

    enum Reason {
        static let expectedTime = "expected a time such as 12.3s, 369f or 00:00:12:09"
        static let expectedDigit = "expected a digit"
        static let expectedDigitAfterPoint = "expected a digit after \".\""
        static let expectedSuffix = "expected \"s\", \"f\" or end"
        static let expectedEnd = "expected end"
        static let negative = "a time cannot be negative; only an offset carries a sign (e.g. -1s)"
        static let sign = "a sign belongs only on an offset (e.g. +0.5s)"
        static let notFinite = "NaN and infinity are not times"
        static let exponent = "exponent notation is not supported; write the number out (e.g. 1000s)"
        static let fractionalFrame = "a frame number is a whole number (no \".\")"
        static let tooManyPlaces = "more than 9 decimal places cannot be represented exactly (the finest step is 1 ns)"
        static let tooLarge = "too large: a time is at most 1000000000 s (about 31.7 years)"
        static let numberTooLarge = "number too large"
        static let misplacedSemicolon =
            "\";\" marks drop-frame timecode and goes only before the frames field (hh:mm:ss;ff)"
        static let tooManyFields = "too many fields; write m:ss, h:mm:ss or hh:mm:ss:ff"
        static let timecodeFraction =
            "timecode frames are whole; for fractions of a second write h:mm:ss.fff"
        static let expectedPointOrEnd = "expected \".\" or end"
        static let zeroTimescale = "the timescale after \"/\" must be greater than zero"
        static let hugeTimescale = "the timescale after \"/\" must be at most 2147483647"
        static let expectedSecondsOrEnd = "expected \"s\" or end"
        static let expectedDigitAfterSlash = "expected a digit after \"/\""
        static func twoDigits(_ field: String) -> String { "expected two digits for \(field)" }
        static func below60(_ field: String) -> String { "\(field) must be below 60" }
    }

    let input: String
    let chars: [Character]

    init(_ input: String) {
        self.input = input
        chars = Array(input)
    }

    func failure(at index: Int, _ reason: String) -> TimeParseError {
        TimeParseError(input: input, position: index + 1, reason: reason)
    }

    /// `range` without surrounding whitespace; an all-blank range collapses to its start.
    func trimmed(_ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound
        var hi = range.upperBound
        while lo < hi, chars[lo].isWhitespace { lo += 1 }
        while hi > lo, chars[hi - 1].isWhitespace { hi -= 1 }
        return lo < hi ? lo..<hi : range.lowerBound..<range.lowerBound
    }

    private func isDigit(_ i: Int, before end: Int) -> Bool {
        i < end && asciiDigitValue(chars[i]) != nil
    }

    private func digitRun(from start: Int, before end: Int) -> Range<Int> {
        var i = start
        while isDigit(i, before: end) { i += 1 }
        return start..<i
    }

    /// An unsigned integer; an overflow is reported at its first digit with `overflowReason`.
    private func integer(
        _ digits: Range<Int>, overflowReason: String = Reason.numberTooLarge
    )
        throws(TimeParseError) -> Int64
    {
        var n: Int64 = 0
        for i in digits {
            let (times10, o1) = n.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.addingReportingOverflow(asciiDigitValue(chars[i]) ?? 0)
            guard !o1, !o2 else { throw failure(at: digits.lowerBound, overflowReason) }
            n = next
        }
        return n
    }

    /// Whole seconds plus decimal fraction digits as an exact time with a power-of-ten timescale.
    /// Trailing zeros are dropped first, so `12.30` is 123/10 and up to 9 significant places are allowed.
    private func decimalTime(
        wholeSeconds: Int64, fraction: Range<Int>, numberStart: Int
    ) throws(TimeParseError)
        -> MediaTime
    {
        var end = fraction.upperBound
        while end > fraction.lowerBound, chars[end - 1] == "0" { end -= 1 }
        let places = end - fraction.lowerBound
        guard places <= Self.maximumDecimalPlaces else {
            throw failure(at: fraction.lowerBound + Self.maximumDecimalPlaces, Reason.tooManyPlaces)
        }
        let hasFraction = places > 0
        guard wholeSeconds < Self.maximumSeconds || (wholeSeconds == Self.maximumSeconds && !hasFraction) else {
            throw failure(at: numberStart, Reason.tooLarge)
        }
        var timescale: Int64 = 1
        var fractionValue: Int64 = 0
        for i in fraction.lowerBound..<end {
            timescale *= 10
            fractionValue = fractionValue * 10 + (asciiDigitValue(chars[i]) ?? 0)
        }
        // <= 10^9 * 10^9 + 10^9: fits.
        return MediaTime(value: wholeSeconds * timescale + fractionValue, timescale: Int32(timescale))
    }

    /// One time expression filling `range` (surrounding whitespace allowed).
    func parseTime(in range: Range<Int>) throws(TimeParseError) -> TimeExpression {
        let r = trimmed(range)
        let (lo, hi) = (r.lowerBound, r.upperBound)
        guard lo < hi else { throw failure(at: lo, Reason.expectedTime) }
        switch chars[lo] {
        case "-": throw failure(at: lo, Reason.negative)
        case "+": throw failure(at: lo, Reason.sign)
        default: break
        }
        if ["nan", "inf", "infinity"].contains(String(chars[r]).lowercased()) {
            throw failure(at: lo, Reason.notFinite)
        }

        let whole = digitRun(from: lo, before: hi)
        var i = whole.upperBound
        if i < hi, chars[i] == ":" || chars[i] == ";" {
            guard !whole.isEmpty else { throw failure(at: lo, Reason.expectedDigit) }
            return try parseClock(firstField: whole, end: hi)
        }
        if i < hi, chars[i] == "/" {
            guard !whole.isEmpty else { throw failure(at: lo, Reason.expectedDigit) }
            return try parseRational(numerator: whole, end: hi)
        }

        var fraction = i..<i
        var point: Int?
        if i < hi, chars[i] == "." {
            point = i
            fraction = digitRun(from: i + 1, before: hi)
            guard !fraction.isEmpty else { throw failure(at: i + 1, Reason.expectedDigitAfterPoint) }
            i = fraction.upperBound
        } else if whole.isEmpty {
            throw failure(at: lo, Reason.expectedDigit)
        }

        var isFrame = false
        if i < hi {
            switch chars[i] {
            case "s", "S": break
            case "f", "F":
                if let point { throw failure(at: point, Reason.fractionalFrame) }
                isFrame = true
            case "e", "E": throw failure(at: i, Reason.exponent)
            default: throw failure(at: i, Reason.expectedSuffix)
            }
            i += 1
            guard i == hi else { throw failure(at: i, Reason.expectedEnd) }
        }
        // A seconds value too long for Int64 is simply too large a time; a frame number is a number.
        let wholeValue = try integer(whole, overflowReason: isFrame ? Reason.numberTooLarge : Reason.tooLarge)
        if isFrame { return .frame(wholeValue) }
        return .seconds(try decimalTime(wholeSeconds: wholeValue, fraction: fraction, numberStart: lo))
    }

    /// `m:ss[.fff]`, `h:mm:ss[.fff]` or timecode `hh:mm:ss:ff` / drop-frame `hh:mm:ss;ff`.
    private func parseClock(firstField: Range<Int>, end hi: Int) throws(TimeParseError) -> TimeExpression {
        var fields = [firstField]
        var separators: [Int] = []
        var i = firstField.upperBound
        while i < hi, chars[i] == ":" || chars[i] == ";" {
            if fields.count == 4 { throw failure(at: i, Reason.tooManyFields) }
            separators.append(i)
            let field = digitRun(from: i + 1, before: hi)
            guard !field.isEmpty else { throw failure(at: i + 1, Reason.expectedDigit) }
            fields.append(field)
            i = field.upperBound
        }
        for (k, s) in separators.enumerated() where chars[s] == ";" {
            guard fields.count == 4, k == 2 else { throw failure(at: s, Reason.misplacedSemicolon) }
        }
        var fraction = i..<i
        if i < hi, chars[i] == "." {
            if fields.count == 4 { throw failure(at: i, Reason.timecodeFraction) }
            fraction = digitRun(from: i + 1, before: hi)
            guard !fraction.isEmpty else { throw failure(at: i + 1, Reason.expectedDigitAfterPoint) }
            i = fraction.upperBound
        }
        guard i == hi else {
            throw failure(at: i, fields.count == 4 ? Reason.expectedEnd : Reason.expectedPointOrEnd)
        }

        /// A two-digit field below 60 (minutes or seconds after the first field).
        func sexagesimal(_ field: Range<Int>, _ name: String) throws(TimeParseError) -> Int64 {
            guard field.count == 2 else { throw failure(at: field.lowerBound, Reason.twoDigits(name)) }
            let n = try integer(field)
            guard n < 60 else { throw failure(at: field.lowerBound, Reason.below60(name)) }
            return n
        }

        let lo = firstField.lowerBound
        let first = try integer(firstField, overflowReason: Reason.tooLarge)
        var hours: Int64 = 0
        var minutes: Int64
        var seconds: Int64
        switch fields.count {
        case 2:
            minutes = first  // m:ss: the minutes field may exceed 59 ("90:00")
            seconds = try sexagesimal(fields[1], "seconds")
        default:
            hours = first
            minutes = try sexagesimal(fields[1], "minutes")
            seconds = try sexagesimal(fields[2], "seconds")
        }
        // Same cap as decimal seconds; check before multiplying so nothing overflows.
        let maxMinutes = Self.maximumSeconds / 60
        guard hours <= maxMinutes / 60, hours * 60 + minutes <= maxMinutes else {
            throw failure(at: lo, Reason.tooLarge)
        }
        let total = (hours * 60 + minutes) * 60 + seconds
        if fields.count == 4 {
            guard total <= Self.maximumSeconds else { throw failure(at: lo, Reason.tooLarge) }
            let frames = try integer(fields[3])
            return .timecode(
                hours: Int(hours), minutes: Int(minutes), seconds: Int(seconds), frames: Int(frames),
                dropFrame: chars[separators[2]] == ";")
        }
        return .seconds(try decimalTime(wholeSeconds: total, fraction: fraction, numberStart: lo))
    }

    /// `369369/30000s`: FCPXML's rational seconds (the `s` is optional).
    private func parseRational(numerator: Range<Int>, end hi: Int) throws(TimeParseError) -> TimeExpression {
        let slash = numerator.upperBound
        let denominator = digitRun(from: slash + 1, before: hi)
        guard !denominator.isEmpty else { throw failure(at: slash + 1, Reason.expectedDigitAfterSlash) }
        var i = denominator.upperBound
        if i < hi, chars[i] == "s" || chars[i] == "S" { i += 1 }
        guard i == hi else { throw failure(at: i, Reason.expectedSecondsOrEnd) }
        let value = try integer(numerator, overflowReason: Reason.tooLarge)
        let timescale = try integer(denominator, overflowReason: Reason.hugeTimescale)
        guard timescale > 0 else { throw failure(at: denominator.lowerBound, Reason.zeroTimescale) }
        guard timescale <= Int64(Int32.max) else { throw failure(at: denominator.lowerBound, Reason.hugeTimescale) }
        // value / timescale <= maximumSeconds, compared without dividing (the product fits: < 2^62).
        guard value <= Self.maximumSeconds * timescale else { throw failure(at: numerator.lowerBound, Reason.tooLarge) }
        return .seconds(MediaTime(value: value, timescale: Int32(timescale)))
    }
}
