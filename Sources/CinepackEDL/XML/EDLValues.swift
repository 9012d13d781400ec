import CinepackTime

/// The value syntax of spec/edl.md §10, read and written exactly as spec/edl.rng's patterns say.
/// Reading separates text that does not match the pattern (a schema error) from text that matches
/// but names a value out of range (a validity error), so each gets its own message.
enum EDLValue {
    enum Parsed<T> {
        case value(T)
        /// Matches the pattern, but the value does not fit (e.g. more than Int64).
        case outOfRange
        /// Does not match the pattern.
        case badSyntax
    }

    /// What each kind of value looks like, for messages.
    enum Syntax: String {
        case count = "a whole number ≥ 0 without leading zeros"
        case id = "a whole number 0…4294967295 without leading zeros"
        case time = "a time N/Ds or Ns (like 369369/30000s or 12s)"
        case rate = "a rate N/D (like 30000/1001)"
        case number = "a decimal number (like 0.5, 2 or 1e-05)"
        case fingerprint = "8 to 128 lowercase hex digits"
    }

    // MARK: Pattern pieces

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// `0|[1-9][0-9]{0,maxDigits-1}` as a whole string → its value, or nil if it does not match
    /// (`overflow` when it matches but exceeds UInt64).
    private static func unsigned(_ bytes: ArraySlice<UInt8>, maxDigits: Int) -> (value: UInt64, overflow: Bool)? {
        guard let first = bytes.first, bytes.count <= maxDigits, bytes.allSatisfy(isDigit) else { return nil }
        if first == 0x30 && bytes.count > 1 { return nil }  // no leading zeros
        var value: UInt64 = 0
        var overflow = false
        for b in bytes {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(b - 0x30))
            overflow = overflow || o1 || o2
            value = a
        }
        return (value, overflow)
    }

    /// `[1-9][0-9]{0,maxDigits-1}`: like `unsigned` but zero is not allowed.
    private static func positive(_ bytes: ArraySlice<UInt8>, maxDigits: Int) -> (value: UInt64, overflow: Bool)? {
        guard let first = bytes.first, first != 0x30 else { return nil }
        return unsigned(bytes, maxDigits: maxDigits)
    }

    // MARK: Reading

    /// `count`: `0|[1-9][0-9]{0,18}`, within Int64.
    static func count(_ text: String) -> Parsed<Int64> {
        guard let (v, overflow) = unsigned(ArraySlice(text.utf8), maxDigits: 19) else { return .badSyntax }
        guard !overflow, v <= UInt64(Int64.max) else { return .outOfRange }
        return .value(Int64(v))
    }

    /// `id`: `0|[1-9][0-9]{0,9}`, within UInt32.
    static func id(_ text: String) -> Parsed<UInt32> {
        guard let (v, _) = unsigned(ArraySlice(text.utf8), maxDigits: 10) else { return .badSyntax }
        guard v <= UInt64(UInt32.max) else { return .outOfRange }
        return .value(UInt32(v))
    }

    /// `time`: `(0|[1-9][0-9]{0,18})(/[1-9][0-9]{0,9})?s`; value within Int64, timescale within Int32.
    static func time(_ text: String) -> Parsed<MediaTime> {
        let bytes = Array(text.utf8)
        guard bytes.last == UInt8(ascii: "s") else { return .badSyntax }
        let body = bytes.dropLast()
        let slash = body.firstIndex(of: UInt8(ascii: "/"))
        guard let (v, vOverflow) = unsigned(body[..<(slash ?? body.endIndex)], maxDigits: 19) else { return .badSyntax }
        var timescale: UInt64 = 1
        var tOverflow = false
        if let slash {
            guard let (t, o) = positive(body[(slash + 1)...], maxDigits: 10) else { return .badSyntax }
            timescale = t
            tOverflow = o
        }
        guard !vOverflow, !tOverflow, v <= UInt64(Int64.max), timescale <= UInt64(Int32.max) else { return .outOfRange }
        return .value(MediaTime(value: Int64(v), timescale: Int32(timescale)))
    }

    /// `N/D` with each part `[1-9][0-9]{0,maxDigits-1}`, each within `limit`.
    static func ratio(_ text: String, maxDigits: Int, limit: UInt64) -> Parsed<(Int64, Int64)> {
        let bytes = Array(text.utf8)
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")),
            let (n, o1) = positive(bytes[..<slash], maxDigits: maxDigits),
            let (d, o2) = positive(bytes[(slash + 1)...], maxDigits: maxDigits)
        else { return .badSyntax }
        guard !o1, !o2, n <= limit, d <= limit else { return .outOfRange }
        return .value((Int64(n), Int64(d)))
    }

    /// The media's `rate`: `[1-9][0-9]{0,9}/[1-9][0-9]{0,9}`, each part within Int32.
    static func frameRate(_ text: String) -> Parsed<FrameRate> {
        switch ratio(text, maxDigits: 10, limit: UInt64(Int32.max)) {
        case .badSyntax: return .badSyntax
        case .outOfRange: return .outOfRange
        case .value(let (f, s)):
            guard let rate = FrameRate(frames: f, per: s) else { return .outOfRange }
            return .value(rate)
        }
    }

    /// A speed `rate`: `[1-9][0-9]{0,18}/[1-9][0-9]{0,18}`, each part within Int64.
    static func speedRate(_ text: String) -> Parsed<(Int64, Int64)> {
        ratio(text, maxDigits: 19, limit: UInt64(Int64.max))
    }

    /// Whether `text` matches `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+\-]?[0-9]+)?`.
    static func isNumber(_ text: String) -> Bool {
        let b = Array(text.utf8)
        var i = 0
        func digits() -> Int {
            let start = i
            while i < b.count, isDigit(b[i]) { i += 1 }
            return i - start
        }
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { return false }
        if b[i] == 0x30 {
            i += 1
        } else {
            guard digits() > 0 else { return false }
        }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == b.count
    }

    /// A `number` as the nearest binary32; out of range when that is not finite (e.g. `1e39`).
    static func float(_ text: String) -> Parsed<Float> {
        guard isNumber(text) else { return .badSyntax }
        guard let f = Float(text), f.isFinite else { return .outOfRange }
        return .value(f)
    }

    /// A `number` as the nearest binary64.
    static func double(_ text: String) -> Parsed<Double> {
        guard isNumber(text) else { return .badSyntax }
        guard let d = Double(text), d.isFinite else { return .outOfRange }
        return .value(d)
    }

    /// `[0-9a-f]{8,128}`.
    static func isFingerprint(_ text: String) -> Bool {
        let b = text.utf8
        return (8...128).contains(b.count) && b.allSatisfy { isDigit($0) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    // MARK: Writing (spec/edl.md §12)

    /// As stored, never reduced (the timescale is information): `value/timescale s`, or `Ns` when the
    /// timescale is 1, so reading gives back the same pair.
    static func text(_ t: MediaTime) -> String {
        t.timescale == 1 ? "\(t.value)s" : "\(t.value)/\(t.timescale)s"
    }

    /// The shortest decimal that reads back as the same binary32 (Swift's `description`).
    static func text(_ f: Float) -> String { f.description }

    /// The shortest decimal that reads back as the same binary64.
    static func text(_ d: Double) -> String { d.description }

    /// Whether every character of `s` may appear in an XML 1.0 document (Char production).
    static func isXMLText(_ s: String) -> Bool {
        s.unicodeScalars.allSatisfy(XMLEscape.isCharacter)
    }
}
