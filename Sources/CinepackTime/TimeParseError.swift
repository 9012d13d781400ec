/// Why a time the user typed could not be read or resolved, and where.
///
/// `position` is 1-based and counts characters (grapheme clusters) of `input`; a position one past the
/// end means the input stopped too early.
public struct TimeParseError: Error, Equatable, CustomStringConvertible, Sendable {
    public var input: String
    public var position: Int
    public var reason: String

    public init(input: String, position: Int, reason: String) {
        self.input = input
        self.position = position
        self.reason = reason
    }

    /// e.g. `cannot read time "12.3x" at character 5: expected "s", "f" or end`
    public var description: String {
        "cannot read time \"\(input)\" at character \(position): \(reason)"
    }
}
