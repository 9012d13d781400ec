import ArgumentParser
import Cinepack
import Foundation

/// What the retiming commands share: open, one document edit, save (or check with --dry-run), report.
enum RetimeRunner {
    static func run(
        _ document: DocumentOptions, dryRun: DryRunOption, json: Bool,
        _ operation: (inout CinematicDocument) throws(DocumentError) -> RetimeReport
    ) throws {
        let file = document.file
        var doc = try document.open()
        let report = try CLIErrors.reporting(file: file) { () throws(DocumentError) in try operation(&doc) }
        try dryRun.finish(&doc, file: file)
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
                        ("file", .string(file)), ("dry_run", .bool(dryRun.dryRun)), ("moves", .list(moves)),
                        ("inactive_decisions", .list(inactive)), ("output_duration", .string(report.outputDurationAfter.description)),
                        ("messages", .list(report.messages.map { .string($0) })),
                    ]), pretty: true))
            return
        }
        // The report's messages already name every move and every decision left outside the kept ranges.
        report.messages.forEach { print($0) }
        print(
            "output duration \(report.outputDurationBefore.formattedSeconds()) → \(report.outputDurationAfter.formattedSeconds())"
                + (dryRun.dryRun ? " (dry run: nothing written)" : ""))
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

    @OptionGroup var document: DocumentOptions
    @Option(parsing: .unconditional, help: "The user decision to move (its number in `cinepack decisions`).") var decision: Int?
    @Option(parsing: .unconditional, help: "Where it moves to.", transform: TimeArgument.init(parsing:)) var to: TimeArgument?
    @Option(parsing: .unconditional, help: "Offset for --range: +0.5s, -3f.", transform: TimeOffsetArgument.init(parsing:)) var shift:
        TimeOffsetArgument?
    @Option(parsing: .unconditional, help: "Source range A..B whose decisions shift.", transform: TimeRangeArgument.init(parsing:))
    var range: TimeRangeArgument?
    @Flag(help: "Let a moved decision replace one already at that frame.") var replace = false
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func validate() throws {
        let moving = decision != nil || to != nil, shifting = shift != nil || range != nil
        guard moving != shifting else { throw ValidationError("give either --decision N --to T, or --shift OFFSET --range A..B") }
        if moving && (decision == nil || to == nil) { throw ValidationError("--decision and --to go together") }
        if shifting && (shift == nil || range == nil) { throw ValidationError("--shift and --range go together") }
    }

    func run() throws {
        try RetimeRunner.run(document, dryRun: dryRun, json: output.json) { (doc) throws(DocumentError) in
            if let decision, let to {
                return try doc.retimeDecision(number: decision, to: to.value, replacing: replace)
            }
            return try doc.shiftDecisions(in: range!.value, by: shift!.value)
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

    @OptionGroup var document: DocumentOptions
    @Option(
        parsing: .unconditionalSingleValue, help: "A source range A..B to keep (repeatable).", transform: TimeRangeArgument.init(parsing:))
    var keep: [TimeRangeArgument] = []
    @Flag(help: "Keep the whole clip (remove the trim).") var all = false
    @Flag(name: .customLong("allow-repeats"), help: "Allow a range to overlap another (a shot used twice).") var allowRepeats = false
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func validate() throws {
        if keep.isEmpty == !all { throw ValidationError("give --keep A..B (one or more), or --all") }
    }

    func run() throws {
        try RetimeRunner.run(document, dryRun: dryRun, json: output.json) { (doc) throws(DocumentError) in
            try doc.trim(keep: keep.map(\.value), allowingRepeats: allowRepeats)
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

    @OptionGroup var document: DocumentOptions
    @Option(parsing: .unconditional, help: "Source range A..B.", transform: TimeRangeArgument.init(parsing:)) var range: TimeRangeArgument
    @Option(parsing: .unconditional, help: "Rate: N, N/D or a decimal such as 0.5.", transform: RateArgument.init(parsing:)) var rate:
        RateArgument
    @Flag(help: "Cut back speed segments this one overlaps.") var replace = false
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func run() throws {
        try RetimeRunner.run(document, dryRun: dryRun, json: output.json) { (doc) throws(DocumentError) in
            try doc.setSpeed(in: range.value, rate: rate.value, replacing: replace)
        }
    }
}
