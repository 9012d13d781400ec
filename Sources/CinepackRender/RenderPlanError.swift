import CinepackFormat
import CinepackTime

/// Why a `RenderPlan` could not be made, or could not answer a question about a program frame.
/// Each case carries what was asked and the program's extent; `description` speaks of the program,
/// not of any command line.
public enum RenderPlanError: Error, Sendable, CustomStringConvertible {
    /// The movie, its capture timeline, its edits or the lens look could not be read.
    case format(FormatError)
    /// A range that cannot be placed on the program's frame grid.
    case badRange(TimeRangeExpression, cause: TimeParseError)
    /// A range that holds no frame of the program; `programDuration` is how long the program is.
    case emptyRange(TimeRangeExpression, programDuration: MediaTime)
    /// The source's primaries cannot be converted to the colour space asked for.
    case colourSpace(file: String, target: ColourSpace, cause: ColourModelError)
    /// A program frame outside the program's frames `program`.
    case outOfRange(frame: Int64, program: Range<Int64>)

    public var description: String {
        switch self {
        case .format(let error): "\(error)"
        case .badRange(let range, let cause): "range \(range): \(cause)"
        case .emptyRange(let range, let duration):
            "range \(range) holds no frames of the program (0s…\(duration.formattedSeconds()))"
        case .colourSpace(let file, let target, let cause): "\(file): cannot convert to colour space \(target.rawValue): \(cause)"
        case .outOfRange(let frame, let program):
            "program frame \(frame) is outside the program's frames \(program.lowerBound)..\(program.upperBound)"
        }
    }
}
