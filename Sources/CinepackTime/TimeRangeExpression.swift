/// A typed range `start..end`, e.g. `10s..12s` or `369f..00:00:13:00`. Each side is a `TimeExpression`;
/// spaces around `..` are allowed.
public struct TimeRangeExpression: Sendable, Hashable, CustomStringConvertible {
    public var start: TimeExpression
    public var end: TimeExpression

    public init(start: TimeExpression, end: TimeExpression) {
        self.start = start
        self.end = end
    }

    public init(parsing text: String) throws(TimeParseError) {
        let parser = TimeExpressionParser(text)
        let chars = parser.chars
        guard let dots = chars.indices.dropLast().first(where: { chars[$0] == "." && chars[$0 + 1] == "." }) else {
            throw parser.failure(at: chars.count, "expected \"..\" between start and end (e.g. 10s..12s)")
        }
        // "10...12" would otherwise read as 10 to .12; make the user say which they meant.
        if dots + 2 < chars.count, chars[dots + 2] == "." {
            throw parser.failure(at: dots + 2, "expected a time after \"..\" (write 0.5s, not .5s, after \"..\")")
        }
        start = try parser.parseTime(in: 0..<dots)
        end = try parser.parseTime(in: (dots + 2)..<chars.count)
    }

    public var description: String { "\(start)..\(end)" }

    /// Both ends resolved (see `TimeExpression.resolve(on:)`); an end before the start is an error.
    /// Errors use this range's `description` as input, positioned within it.
    public func resolve(on grid: FrameGrid) throws(TimeParseError) -> (start: SnappedTime, end: SnappedTime) {
        let text = description
        let endOffset = start.description.count + 2
        func rebased(_ error: TimeParseError, by offset: Int) -> TimeParseError {
            TimeParseError(input: text, position: error.position + offset, reason: error.reason)
        }
        let first: SnappedTime
        let last: SnappedTime
        do throws(TimeParseError) { first = try start.resolve(on: grid) } catch { throw rebased(error, by: 0) }
        do throws(TimeParseError) { last = try end.resolve(on: grid) } catch { throw rebased(error, by: endOffset) }
        guard last.frame >= first.frame else {
            throw TimeParseError(
                input: text, position: endOffset + 1,
                reason: "the range ends (frame \(last.frame)) before it starts (frame \(first.frame))")
        }
        return (first, last)
    }
}
