import ArgumentParser
import Cinepack
import Foundation

/// Shared plumbing: open, retime through `Retimer`, store as one undoable edit, report.
enum RetimeRunner {
    static func run(
        file: String, description: String, dryRun: Bool, json: Bool,
        _ operation: (Retimer, FrameGrid) throws -> RetimeResult
    ) throws {
        var edits = try MovieEdits.open(path: file)
        let retimer: Retimer
        do { retimer = try Retimer(edits.edl) } catch { throw CLIErrors.failure("\(file): \(error)") }
        let result: RetimeResult
        do { result = try operation(retimer, retimer.grid) } catch let error as RetimeError {
            throw CLIErrors.failure("\(file): \(error)")
        }
        let (_, stored) = try edits.edit(description, dryRun: dryRun) { edl in edl = result.edl }
        let report = result.report
        if json {
            let moves: [InspectValue] = report.moves.map {
                .object([
                    ("decision", .int($0.fromIndex + 1)), ("from_frame", .int($0.fromFrame)), ("to_frame", .int($0.toFrame)),
                    ("from", .string($0.fromTime.description)), ("to", .string($0.toTime.description)),
                ])
            }
            let inactive: [InspectValue] = report.inactive.map {
                .object([("decision", .int($0.index + 1)), ("frame", .int($0.decision.frame))])
            }
            print(
                JSONText.encode(
                    .object([
                        ("file", .string(file)), ("dry_run", .bool(dryRun)), ("moves", .list(moves)),
                        ("inactive_decisions", .list(inactive)), ("output_duration", .string(report.outputDurationAfter.description)),
                        ("messages", .list(report.messages.map { .string($0) })),
                    ]), pretty: true))
            return
        }
        // The report's messages already name every move and every decision left outside the kept ranges.
        report.messages.forEach { print($0) }
        print(
            "output duration \(report.outputDurationBefore.formattedSeconds()) → \(report.outputDurationAfter.formattedSeconds())"
                + (dryRun ? " (dry run: nothing written)" : ""))
        if let stored, stored.isFullRewrite { CLIErrors.note("note: \(stored)") }
    }

    static func range(_ text: String, grid: FrameGrid, option: String) throws -> SourceRange {
        do {
            let r = try TimeRangeExpression(parsing: text).resolve(on: grid)
            return SourceRange(start: r.start.time, end: r.end.time)
        } catch { throw ValidationError("\(option): \(error)") }
    }

    /// A signed offset on the grid: seconds as given, frames and timecode as whole frames.
    static func offset(_ text: String, grid: FrameGrid) throws -> MediaTime {
        let parsed: TimeOffsetExpression
        do { parsed = try TimeOffsetExpression(parsing: text) } catch { throw ValidationError("--shift: \(error)") }
        let magnitude: MediaTime
        switch parsed.magnitude {
        case .seconds(let t): magnitude = t
        default:
            do { magnitude = try parsed.magnitude.resolve(on: FrameGrid(rate: grid.rate)).time } catch {
                throw ValidationError("--shift: \(error)")
            }
        }
        return parsed.negative ? (magnitude.negated() ?? magnitude) : magnitude
    }
}

/// `cinepack retime FILE --decision N --to T` or `--shift ±T --range A..B`
struct RetimeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retime",
        abstract: "Move a user focus decision, or shift every user decision in a range.",
        discussion: """
            Times are snapped to frames (ties to the earlier); every move is reported. A move onto another \
            decision's frame is refused unless --replace. Decisions falling outside the kept ranges of a trim are \
            reported, never dropped.
            Examples:
              cinepack retime clip.mov --decision 2 --to 13.0s
              cinepack retime clip.mov --shift +0.5s --range 10s..12s
            """)

    @Argument(help: "A cinematic movie.") var file: String
    @Option(parsing: .unconditional, help: "The user decision to move (its number in `cinepack decisions`).") var decision: Int?
    @Option(parsing: .unconditional, help: "Where it moves to.") var to: String?
    @Option(parsing: .unconditional, help: "Offset for --range: +0.5s, -3f.") var shift: String?
    @Option(parsing: .unconditional, help: "Source range A..B whose decisions shift.") var range: String?
    @Flag(help: "Let a moved decision replace one already at that frame.") var replace = false
    @Flag(name: .customLong("dry-run"), help: "Report what would change; write nothing.") var dryRun = false
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        let moving = decision != nil || to != nil, shifting = shift != nil || range != nil
        guard moving != shifting else { throw ValidationError("give either --decision N --to T, or --shift OFFSET --range A..B") }
        if moving && (decision == nil || to == nil) { throw ValidationError("--decision and --to go together") }
        if shifting && (shift == nil || range == nil) { throw ValidationError("--shift and --range go together") }
    }

    func run() throws {
        if let decision, let to {
            let target = try Arguments.time(to, option: "--to")
            try RetimeRunner.run(file: file, description: "retime decision \(decision)", dryRun: dryRun, json: json) { retimer, grid in
                let time: MediaTime
                do { time = try target.resolve(on: grid).time } catch { throw ValidationError("--to: \(error)") }
                return try retimer.moveDecision(decision - 1, to: time, replacing: replace)
            }
        } else if let shift, let range {
            try RetimeRunner.run(file: file, description: "shift \(shift) in \(range)", dryRun: dryRun, json: json) { retimer, grid in
                let r = try RetimeRunner.range(range, grid: grid, option: "--range")
                return try retimer.shift(range: r.start..<r.end, by: try RetimeRunner.offset(shift, grid: grid))
            }
        }
    }
}

/// `cinepack trim FILE --keep A..B [--keep C..D]`
struct TrimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Keep only these source ranges, in this order (an editorial trim; media untouched).",
        discussion: """
            Focus decisions outside the kept ranges stay in the EDL and are reported as inactive.
            Examples:
              cinepack trim clip.mov --keep 1s..4s
              cinepack trim clip.mov --keep 0s..2s --keep 3s..5s
              cinepack trim clip.mov --all          (keep the whole clip again)
            """)

    @Argument(help: "A cinematic movie.") var file: String
    @Option(parsing: .unconditionalSingleValue, help: "A source range A..B to keep (repeatable).") var keep: [String] = []
    @Flag(help: "Keep the whole clip (remove the trim).") var all = false
    @Flag(name: .customLong("allow-repeats"), help: "Allow a range to overlap another (a shot used twice).") var allowRepeats = false
    @Flag(name: .customLong("dry-run"), help: "Report what would change; write nothing.") var dryRun = false
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        if keep.isEmpty == !all { throw ValidationError("give --keep A..B (one or more), or --all") }
    }

    func run() throws {
        try RetimeRunner.run(
            file: file, description: all ? "trim: whole clip" : "trim \(keep.joined(separator: ", "))", dryRun: dryRun,
            json: json
        ) { retimer, grid in
            let ranges = try keep.map { try RetimeRunner.range($0, grid: grid, option: "--keep") }
            return try retimer.trim(keep: ranges, allowingRepeats: allowRepeats)
        }
    }
}

/// `cinepack speed FILE --range A..B --rate 2`
struct SpeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Play a source range faster or slower (2 = twice as fast, 1/2 = half speed).",
        discussion: """
            Focus points are carried through exactly: a decision keeps its source frame; racks play at the new speed.
            Examples:
              cinepack speed clip.mov --range 2s..3s --rate 2
              cinepack speed clip.mov --range 60f..90f --rate 1/2 --replace
            """)

    @Argument(help: "A cinematic movie.") var file: String
    @Option(parsing: .unconditional, help: "Source range A..B.") var range: String
    @Option(parsing: .unconditional, help: "Rate: N, N/D or a decimal such as 0.5.") var rate: String
    @Flag(help: "Cut back speed segments this one overlaps.") var replace = false
    @Flag(name: .customLong("dry-run"), help: "Report what would change; write nothing.") var dryRun = false
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws { _ = try Self.rational(rate) }

    static func rational(_ text: String) throws -> (Int64, Int64) {
        guard let r = FrameRate(parsing: text) else {
            throw ValidationError("--rate must be a positive number such as 2, 1/2 or 0.5 (got \(text))")
        }
        return (r.frames, r.seconds)
    }

    func run() throws {
        let (num, den) = try Self.rational(rate)
        try RetimeRunner.run(file: file, description: "speed \(rate) in \(range)", dryRun: dryRun, json: json) { retimer, grid in
            let r = try RetimeRunner.range(range, grid: grid, option: "--range")
            let segment = SpeedSegment(start: r.start, end: r.end, rateNumerator: num, rateDenominator: den)
            return try retimer.setSpeed(segment, replacing: replace)
        }
    }
}
