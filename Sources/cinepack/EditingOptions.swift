import ArgumentParser
import Cinepack
import Foundation

/// The movie every editing command works on, opened as a `CinematicDocument`.
struct DocumentOptions: ParsableArguments {
    @Argument(help: "A cinematic movie.") var file: String

    /// Opens the movie, printing warnings about its stored edits on stderr.
    /// With `recovering`, a stored EDL that cannot be read is set aside (for `edl clear`).
    func open(recovering: Bool = false) throws -> CinematicDocument {
        let document = try CLIErrors.reporting(file: file) { () throws(DocumentError) in
            try CinematicDocument(path: file, recovering: recovering)
        }
        document.warnings.forEach { CLIErrors.note("warning: \($0)") }
        return document
    }
}

/// Machine-readable output.
struct JSONOption: ParsableArguments {
    @Flag(help: "Print the result as JSON.") var json = false
}

/// Report without writing.
struct DryRunOption: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "Report what would change; write nothing.") var dryRun = false

    /// Saves the document's edits, or with --dry-run only checks them. Notes a full rewrite on stderr.
    @discardableResult
    func finish(_ document: inout CinematicDocument, file: String) throws -> EDLUpdateResult? {
        try CLIErrors.reporting(file: file) { () throws(DocumentError) -> EDLUpdateResult? in
            if dryRun {
                try document.validate()
                return nil
            }
            let result = try document.save()
            if result.isFullRewrite { CLIErrors.note("note: \(result)") }
            EDLCommand.noteDroppedHistory(document.droppedHistorySteps)
            return result
        }
    }
}

/// How one kind of argument is read from its text: the one place the command line reads times,
/// ranges, offsets, points and rates.
protocol ArgumentText {
    associatedtype Value
    static func parse(_ text: String) throws -> Value
}

/// An argument read by `P`, keeping what was typed (for messages and reports).
struct Parsed<P: ArgumentText>: ExpressibleByArgument, CustomStringConvertible {
    var text: String
    var value: P.Value
    init(parsing text: String) throws {
        self.text = text
        value = try P.parse(text)
    }
    init?(argument: String) { try? self.init(parsing: argument) }
    var description: String { text }
}

/// A time: 12.3s, 1:02.5, 00:00:12:09 or 369f.
enum TimeText: ArgumentText {
    static func parse(_ text: String) throws -> TimeExpression { try TimeExpression(parsing: text) }
}

/// A range A..B of times.
enum TimeRangeText: ArgumentText {
    static func parse(_ text: String) throws -> TimeRangeExpression { try TimeRangeExpression(parsing: text) }
}

/// A signed offset: +0.5s, -3f.
enum TimeOffsetText: ArgumentText {
    static func parse(_ text: String) throws -> TimeOffsetExpression { try TimeOffsetExpression(parsing: text) }
}

/// A point X,Y: normalized (0…1) or pixels.
enum PointText: ArgumentText {
    static func parse(_ text: String) throws -> PicturePoint {
        let parts = text.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else {
            throw ValidationError("a point is X,Y (normalized 0…1, or pixels), got \(text)")
        }
        return PicturePoint(x: x, y: y)
    }
}

/// A rate: N, N/D or a decimal such as 0.5.
enum RateText: ArgumentText {
    static func parse(_ text: String) throws -> FrameRate {
        guard let rate = FrameRate(parsing: text) else {
            throw ValidationError("a rate is a positive number such as 2, 1/2 or 0.5 (got \(text))")
        }
        return rate
    }
}

typealias TimeArgument = Parsed<TimeText>
typealias TimeRangeArgument = Parsed<TimeRangeText>
typealias TimeOffsetArgument = Parsed<TimeOffsetText>
typealias PointArgument = Parsed<PointText>
typealias RateArgument = Parsed<RateText>

extension Arguments {
    static func time(_ text: String, option: String) throws -> TimeExpression {
        do { return try TimeText.parse(text) } catch { throw ValidationError("\(option): \(error)") }
    }
}

extension CLIErrors {
    /// Runs `body`, turning a document error into today's command-line message.
    static func reporting<T>(file: String, _ body: () throws(DocumentError) -> T) throws -> T {
        do { return try body() } catch {
            switch error {
            case .busy, .changedByAnotherWriter:
                // Distinct exit codes, so scripts know running again is the remedy (README, exit codes).
                note("Error: \(message(for: error, file: file))")
                if case .busy = error { throw ExitCode(ExitCodes.busy) }
                throw ExitCode(ExitCodes.changedByAnotherWriter)
            default: throw failure(message(for: error, file: file))
            }
        }
    }

    /// The command-line wording of a document error: the library's sentence, with the file named
    /// where it is not, and the command or option to use where one helps.
    static func message(for error: DocumentError, file: String) -> String {
        switch error {
        case .notCinematic(let path):
            "\(path) is not a cinematic movie (no disparity/focus-metadata track); make one with `cinepack pack`"
        case .busy(let path):
            "\(path) is busy: another process holds its edit lock; nothing written — try again when it has finished"
        case .changedByAnotherWriter(let path):
            "\(path) was changed by another process since it was read; nothing written — run the command again"
        case .noGroup: "\(error); drop --group"
        case .noSuchDecision: "\(file): \(error) (see `cinepack decisions`)"
        case .nothingToUndo, .nothingToRedo, .noTrackIDLeft, .timeline: "\(file): \(error)"
        case .badTime(let requested, let cause): "\(requested): \(cause)"
        // The writer's own words (the output rules name the file already).
        case .writeFailed(_, let cause): CLIWording.rewrite("\(cause)", for: cause)
        default: CLIWording.rewrite("\(error)", for: error)
        }
    }
}
