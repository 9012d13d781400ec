import ArgumentParser
import Cinepack
import Foundation

/// `cinepack aperture FILE --f-number 2.8`
struct ApertureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aperture",
        abstract: "Set the f-number the movie renders with (stored in the EDL).",
        discussion: """
            The value is clamped to the movie's aperture range (spec/format.md §7), and the command says so when \
            it clamps. Smaller f-numbers give shallower depth of field.
            Example: cinepack aperture clip.mov --f-number 2.8
            """)

    @Argument(help: "A cinematic movie.") var file: String
    @Option(name: .customLong("f-number"), parsing: .unconditional, help: "The f-number, e.g. 2.8.", transform: OptionValue.fNumber)
    var fNumber: Float
    @Flag(name: .customLong("dry-run"), help: "Report what would change; write nothing.") var dryRun = false
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
    }

    func run() throws {
        var edits = try MovieEdits.open(path: file)
        let p = edits.movie.parameters
        let applied = LensRules.clampedFNumber(fNumber, for: p).applied
        let previous = edits.edl.fNumber
        let (_, result) = try edits.edit("aperture f/\(applied)", dryRun: dryRun) { $0.fNumber = applied }
        let clampNote =
            applied != fNumber ? " (f/\(fNumber) is outside this movie's range f/\(p.minFNumber)…f/\(p.maxFNumber); clamped)" : ""
        if json {
            print(
                #"{"file":\#(JSONText.quote(file)),"f_number":\#(applied),"requested":\#(fNumber),"clamped":\#(applied != fNumber),"previous":\#(previous.map { "\($0)" } ?? "null"),"dry_run":\#(dryRun)}"#
            )
        } else {
            let before = previous.map { "f/\($0)" } ?? "the default f/\(p.defaultFNumber)"
            print("\(dryRun ? "would set" : "set") f/\(applied), was \(before)\(clampNote)")
            if let result, result.isFullRewrite { CLIErrors.note("note: \(result)") }
        }
    }
}

/// `cinepack undo FILE`
struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Revert the last edit (the EDL keeps an undo history).",
        discussion: "Example: cinepack undo clip.mov")

    @Argument(help: "A cinematic movie.") var file: String

    func run() throws {
        var edits = try MovieEdits.open(path: file)
        let (description, result) = try edits.undo()
        print("undid \"\(description)\"; \(edits.edl.history.count) earlier steps remain")
        if result.isFullRewrite { CLIErrors.note("note: \(result)") }
    }
}
