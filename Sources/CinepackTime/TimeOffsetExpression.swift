/// A typed signed offset such as `+0.5s`, `-1f` or `-00:00:01:00`: a sign (optional; none means forward)
/// and a `TimeExpression` magnitude.
public struct TimeOffsetExpression: Sendable, Hashable, CustomStringConvertible {
    public var negative: Bool
    public var magnitude: TimeExpression

    public init(negative: Bool, magnitude: TimeExpression) {
        self.negative = negative
        self.magnitude = magnitude
    }

    public init(parsing text: String) throws(TimeParseError) {
        let parser = TimeExpressionParser(text)
        let whole = parser.trimmed(0..<parser.chars.count)
        var body = whole
        negative = false
        if let first = whole.first, parser.chars[first] == "+" || parser.chars[first] == "-" {
            negative = parser.chars[first] == "-"
            body = (first + 1)..<whole.upperBound
        }
        magnitude = try parser.parseTime(in: body)
    }

    public var description: String { (negative ? "-" : "+") + magnitude.description }

    /// `base` moved by this offset on `grid`:
    /// - seconds: from `base.time` (the frame the user saw), then snapped like any typed time;
    /// - frames: exactly that many frames from `base.frame`;
    /// - timecode: read as a duration, the number of frames its label counts at the grid's rate.
    /// The result may fall outside the clip; callers check. Errors use this offset's `description`.
    public func applied(to base: SnappedTime, on grid: FrameGrid) throws(TimeParseError) -> SnappedTime {
        let text = description
        let outOfRange = TimeParseError(
            input: text, position: 1, reason: "moving \(base.time) by this offset leaves what the grid can represent")
        switch magnitude {
        case .seconds(let amount):
            let moved = negative ? base.time.subtracting(amount) : base.time.adding(amount)
            guard let requested = moved, let snapped = grid.checkedSnap(requested) else { throw outOfRange }
            return snapped
        case .frame, .timecode:
            let count: Int64
            if case .frame(let n) = magnitude {
                count = n
            } else {
                do throws(TimeParseError) {
                    count = try magnitude.timecodeFrame(rate: grid.rate)
                } catch {
                    // Positions were counted in the magnitude's text; ours has the sign in front.
                    throw TimeParseError(input: text, position: error.position + 1, reason: error.reason)
                }
            }
            let (frame, overflow) =
                negative
                ? base.frame.subtractingReportingOverflow(count) : base.frame.addingReportingOverflow(count)
            guard !overflow, let t = grid.checkedTime(ofFrame: frame) else { throw outOfRange }
            return SnappedTime(frame: frame, time: t, requested: t, wasExact: true)
        }
    }
}
