/// What a user typed for a time. Parsing is separate from resolving against a grid, so a command can
/// read its arguments before it has opened the file that defines the frame rate.
///
/// Forms (surrounding whitespace is ignored; a plain time is never negative, see `TimeOffsetExpression`):
/// - seconds: `12.3s`, `12.3`, `.5s`, `1:02.5` (m:ss.fff), `1:02:03.5` (h:mm:ss.fff), `369369/30000s`
///   (FCPXML rational). Decimals are exact (at most 9 places) and a time is at most 10^9 s.
/// - frame: `369f`
/// - timecode: `00:00:12:09`, or drop-frame `00:00:12;09`
public enum TimeExpression: Sendable, Hashable, CustomStringConvertible {
    case seconds(MediaTime)
    case frame(Int64)
    case timecode(hours: Int, minutes: Int, seconds: Int, frames: Int, dropFrame: Bool)

    public init(parsing text: String) throws(TimeParseError) {
        let parser = TimeExpressionParser(text)
        self = try parser.parseTime(in: 0..<parser.chars.count)
    }

    /// Canonical text that `init(parsing:)` reads back to an equal expression: `12.3s` (decimal when the
    /// timescale is a power of ten, else `369369/30000s`), `369f`, `00:00:12;09`.
    public var description: String {
        switch self {
        case .seconds(let t): return t.decimalOrRationalDescription
        case .frame(let n): return "\(n)f"
        case .timecode(let h, let m, let s, let f, let dropFrame):
            func padded(_ n: Int) -> String { n >= 0 && n < 10 ? "0\(n)" : "\(n)" }
            return "\(padded(h)):\(padded(m)):\(padded(s))\(dropFrame ? ";" : ":")\(padded(f))"
        }
    }

    /// Resolves against a grid:
    /// - seconds snap to the nearest frame, ties to the earlier frame (`requested` keeps what was typed);
    /// - a frame number is exact;
    /// - a timecode names the frame with that label counted from the grid's frame 0, at the grid's nominal
    ///   rate `ceil(fps)` (30 for 29.97); drop-frame labels follow SMPTE 12M (labels ;00–;01, or ;00–;03 at
    ///   59.94, are skipped each minute except every tenth) and need a 29.97 or 59.94 fps grid.
    ///
    /// Frame indices are not range-checked against `grid.frameCount`; callers do that. Errors use this
    /// expression's `description` as their input, with the position of the offending field in it.
    public func resolve(on grid: FrameGrid) throws(TimeParseError) -> SnappedTime {
        let text = description
        func failure(at position: Int, _ reason: String) -> TimeParseError {
            TimeParseError(input: text, position: position, reason: reason)
        }
        let unrepresentable = "this time is outside what a \(grid.rate.decimalDescription) fps grid can represent"
        switch self {
        case .seconds(let t):
            guard let snapped = grid.checkedSnap(t) else { throw failure(at: 1, unrepresentable) }
            return snapped
        case .frame(let n):
            guard let t = grid.checkedTime(ofFrame: n) else { throw failure(at: 1, unrepresentable) }
            return SnappedTime(frame: n, time: t, requested: t, wasExact: true)
        case .timecode:
            let n = try timecodeFrame(rate: grid.rate)
            guard let t = grid.checkedTime(ofFrame: n) else { throw failure(at: 1, unrepresentable) }
            return SnappedTime(frame: n, time: t, requested: t, wasExact: true)
        }
    }

    /// The frame number a timecode names at `rate`; errors as in `resolve(on:)`.
    func timecodeFrame(rate: FrameRate) throws(TimeParseError) -> Int64 {
        guard case .timecode(let h, let m, let s, let f, let dropFrame) = self else {
            preconditionFailure("timecodeFrame(rate:) called on \(self)")
        }
        let text = description
        let framesWidth = (0..<10).contains(f) ? 2 : "\(f)".count  // as padded by `description`
        let framesPosition = text.count - framesWidth + 1
        let separatorPosition = framesPosition - 1
        func failure(at position: Int, _ reason: String) -> TimeParseError {
            TimeParseError(input: text, position: position, reason: reason)
        }
        let fps = rate.decimalDescription
        if dropFrame && !rate.isDropFrameCandidate {
            throw failure(
                at: separatorPosition,
                "drop-frame timecode (\";\") needs a 29.97 or 59.94 fps grid, not \(fps) fps; use \":\"")
        }
        let counting = TimecodeCounting(rate: rate, dropFrame: dropFrame)
        switch counting.frameNumber(hours: h, minutes: m, seconds: s, frames: f) {
        case .success(let n):
            return n
        case .failure(.framesTooLarge):
            throw failure(
                at: framesPosition,
                "frames field \(f) is too large: at \(fps) fps timecode frames run 00–\(counting.nominal - 1)")
        case .failure(.skippedLabel):
            throw failure(
                at: framesPosition,
                "\(text) does not exist in drop-frame timecode: labels 00–0\(counting.dropped - 1) are skipped"
                    + " at the start of every minute except each tenth")
        case .failure(.fieldOutOfRange):
            throw failure(at: 1, "timecode fields must be non-negative, with minutes and seconds below 60")
        case .failure(.overflow):
            throw failure(at: 1, "this timecode is too large")
        }
    }
}
