/// A frame rate as an exact rational: `frames` frames every `seconds` seconds, e.g. 30000/1001.
///
/// Kept in lowest terms by the initialisers, and both parts are limited to `1...Int32.max` so that
/// `frameDuration` is a `MediaTime` and frame arithmetic stays within 128 bits.
/// Equality and hashing are by the rate itself, so 60/2 == 30/1.
public struct FrameRate: Sendable, Hashable, CustomStringConvertible, Codable {
    /// The range each part must lie in.
    public static let validPartRange: ClosedRange<Int64> = 1...Int64(Int32.max)

    public var frames: Int64 {
        didSet { precondition(Self.validPartRange.contains(frames), "FrameRate.frames out of range: \(frames)") }
    }
    public var seconds: Int64 {
        didSet { precondition(Self.validPartRange.contains(seconds), "FrameRate.seconds out of range: \(seconds)") }
    }

    /// `frames` per `seconds` seconds, reduced to lowest terms; nil unless both are > 0 and, once reduced,
    /// at most `Int32.max`.
    public init?(frames: Int64, per seconds: Int64) {
        guard frames > 0, seconds > 0 else { return nil }
        let g = Int64(greatestCommonDivisor(UInt64(frames), UInt64(seconds)))
        let f = frames / g
        let s = seconds / g
        guard Self.validPartRange.contains(f), Self.validPartRange.contains(s) else { return nil }
        self.frames = f
        self.seconds = s
    }

    /// For constants known to be valid and reduced.
    private init(uncheckedFrames frames: Int64, seconds: Int64) {
        self.frames = frames
        self.seconds = seconds
    }

    // MARK: Approximating a decimal rate

    /// The integer rates whose NTSC (×1000/1001) variants are in use: 14.985, 23.976, 29.97, 47.952, 59.94, …
    static let ntscBases: Set<Int64> = [15, 24, 30, 48, 60, 96, 120, 240]
    /// How far a decimal may be from n×1000/1001 and still mean it; covers labels like "23.98" and "29.97".
    static let ntscTolerance = 0.005

    /// The rate a decimal frame rate stands for: integers exactly; values within 0.005 of an NTSC rate
    /// (29.97, 23.976 or 23.98, 59.94, …) as n×1000/1001; anything else as the closest fraction with a
    /// denominator of at most 1001 (or 1/n for rates below one frame per 2002 s).
    ///
    /// - Precondition: `fps` is finite, > 0 and at most `Int32.max`. For values read from files or users,
    ///   use `init?(approximating:)`, which returns nil instead of trapping.
    public static func approximating(_ fps: Double) -> FrameRate {
        guard let rate = FrameRate(approximating: fps) else {
            preconditionFailure("FrameRate.approximating needs a finite fps in (0, Int32.max], got \(fps)")
        }
        return rate
    }

    /// As `approximating(_:)`, but nil for NaN, infinities, zero, negative or too large rates.
    public init?(approximating fps: Double) {
        guard fps.isFinite, fps > 0, fps <= Double(Int32.max) else { return nil }
        if fps == fps.rounded(.towardZero) {
            self.init(frames: Int64(fps), per: 1)
            return
        }
        let base = (fps * 1.001).rounded()
        if Self.ntscBases.contains(Int64(base)), abs(fps - base / 1.001) <= Self.ntscTolerance {
            self.init(frames: Int64(base) * 1000, per: 1001)
            return
        }
        // Best approximation by exhaustion: 1001 candidates is cheap and obviously correct.
        var best: (frames: Int64, seconds: Int64, error: Double)?
        for q in 1...1001 {
            let p = (fps * Double(q)).rounded()
            guard p >= 1, p <= Double(Int32.max) else { continue }
            let error = abs(fps - p / Double(q))
            if let current = best, error >= current.error { continue }  // ties keep the smaller denominator
            best = (Int64(p), Int64(q), error)
            if error == 0 { break }
        }
        if let best {
            self.init(frames: best.frames, per: best.seconds)
            return
        }
        // Below 1/2002 fps no fraction with a small denominator is > 0: count seconds per frame instead.
        let secondsPerFrame = (1 / fps).rounded()
        guard secondsPerFrame <= Double(Int32.max) else { return nil }
        self.init(frames: 1, per: Int64(secondsPerFrame))
    }

    /// Reads `30`, `29.97`, `30000/1001` or `24000/1001` (surrounding spaces and a trailing `fps` allowed).
    /// Decimals go through `init?(approximating:)`, so `29.97` is 30000/1001. Nil for anything else,
    /// including zero, negatives, exponents, `nan` and `inf`.
    public init?(parsing text: String) {
        var chars = Array(text)
        func trimSpaces() {
            while let c = chars.first, c.isWhitespace { chars.removeFirst() }
            while let c = chars.last, c.isWhitespace { chars.removeLast() }
        }
        trimSpaces()
        if chars.count >= 3, String(chars.suffix(3)).lowercased() == "fps" {
            chars.removeLast(3)
            trimSpaces()
        }
        // Digit runs are capped at 18 so they always fit in Int64.
        func integer(_ digits: ArraySlice<Character>) -> Int64? {
            guard !digits.isEmpty, digits.count <= 18 else { return nil }
            var n: Int64 = 0
            for c in digits {
                guard let d = asciiDigitValue(c) else { return nil }
                n = n * 10 + d
            }
            return n
        }
        if let slash = chars.firstIndex(of: "/") {
            guard let f = integer(chars[..<slash]), let s = integer(chars[(slash + 1)...]) else { return nil }
            self.init(frames: f, per: s)
            return
        }
        let dot = chars.firstIndex(of: ".") ?? chars.endIndex
        guard let whole = integer(chars[..<dot]) else { return nil }
        if dot == chars.endIndex {
            self.init(frames: whole, per: 1)
            return
        }
        let fraction = chars[(dot + 1)...]
        guard !fraction.isEmpty, fraction.allSatisfy({ asciiDigitValue($0) != nil }) else { return nil }
        if fraction.allSatisfy({ $0 == "0" }) {
            self.init(frames: whole, per: 1)
            return
        }
        // The grammar is checked above, so Double(_:) never sees "nan", "inf", hex or exponents.
        guard let fps = Double(String(chars)) else { return nil }
        self.init(approximating: fps)
    }

    // MARK: Derived values

    /// Approximate frames per second, for display only.
    public var framesPerSecond: Double { Double(frames) / Double(seconds) }

    /// The exact duration of one frame, `seconds/frames` (e.g. 1001/30000 s).
    public var frameDuration: MediaTime { MediaTime(value: seconds, timescale: Int32(frames)) }

    /// 30000/1001 or 60000/1001: the rates SMPTE drop-frame timecode is defined for.
    public var isDropFrameCandidate: Bool { dropFramesPerMinute != nil }

    /// Frame labels skipped each minute (except every tenth) in drop-frame timecode: 2 at 29.97, 4 at 59.94.
    public var dropFramesPerMinute: Int64? {
        if self == FrameRate(uncheckedFrames: 30000, seconds: 1001) { return 2 }
        if self == FrameRate(uncheckedFrames: 60000, seconds: 1001) { return 4 }
        return nil
    }

    /// The timecode counting base: frames per timecode second, `ceil(fps)` (30 for 29.97, 24 for 23.976).
    public var nominalRate: Int64 { (frames + seconds - 1) / seconds }

    /// `30` for integer rates, else `30000/1001`; `FrameRate(parsing:)` reads it back.
    public var description: String { seconds == 1 ? "\(frames)" : "\(frames)/\(seconds)" }

    /// Short decimal for messages: `29.97`, `23.976`, `25`.
    var decimalDescription: String {
        var text = String(MediaTime(value: frames, timescale: Int32(seconds)).formattedSeconds(decimals: 3).dropLast())
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    // MARK: Equality by value

    public static func == (lhs: FrameRate, rhs: FrameRate) -> Bool {
        // Both parts are <= Int32.max, so the cross products fit in Int64.
        lhs.frames * rhs.seconds == rhs.frames * lhs.seconds
    }

    public func hash(into hasher: inout Hasher) {
        let g = Int64(greatestCommonDivisor(UInt64(frames), UInt64(seconds)))
        hasher.combine(frames / g)
        hasher.combine(seconds / g)
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey { case frames, seconds }

    /// Decodes `{"frames": …, "seconds": …}`, rejecting invalid rates instead of trapping.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let f = try container.decode(Int64.self, forKey: .frames)
        let s = try container.decode(Int64.self, forKey: .seconds)
        guard let rate = FrameRate(frames: f, per: s) else {
            throw DecodingError.dataCorruptedError(
                forKey: .frames, in: container,
                debugDescription: "frame rate \(f)/\(s) is not valid (both parts must be in 1...\(Int32.max))")
        }
        self = rate
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(frames, forKey: .frames)
        try container.encode(seconds, forKey: .seconds)
    }
}

/// The value of an ASCII digit, or nil; other Unicode digits (e.g. fullwidth) are not accepted.
func asciiDigitValue(_ c: Character) -> Int64? {
    guard let a = c.asciiValue, a >= 48, a <= 57 else { return nil }
    return Int64(a - 48)
}
