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

    @OptionGroup var document: DocumentOptions
    @Option(name: .customLong("f-number"), help: "The f-number, e.g. 2.8.") var fNumber: Float
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func validate() throws {
        guard fNumber.isFinite, fNumber > 0 else { throw ValidationError("--f-number must be a positive number (got \(fNumber))") }
    }

    func run() throws {
        let file = document.file
        var doc = try document.open()
        let change = try CLIErrors.reporting(file: file) { () throws(DocumentError) in try doc.setAperture(fNumber) }
        try dryRun.finish(&doc, file: file)
        let p = doc.parameters
        if output.json {
            print(
                #"{"file":\#(JSONText.quote(file)),"f_number":\#(change.applied),"requested":\#(fNumber),"clamped":\#(change.wasClamped),"previous":\#(change.previous.map { "\($0)" } ?? "null"),"dry_run":\#(dryRun.dryRun)}"#
            )
        } else {
            let clampNote =
                change.wasClamped ? " (f/\(fNumber) is outside this movie's range f/\(p.minFNumber)…f/\(p.maxFNumber); clamped)" : ""
            let before = change.previous.map { "f/\($0)" } ?? "the default f/\(p.defaultFNumber)"
            print("\(dryRun.dryRun ? "would set" : "set") f/\(change.applied), was \(before)\(clampNote)")
        }
    }
}

/// `cinepack undo FILE`
struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Revert the last edit (the EDL keeps an undo history).",
        discussion: "Example: cinepack undo clip.mov")

    @OptionGroup var document: DocumentOptions
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func run() throws {
        var doc = try document.open()
        let description = try CLIErrors.reporting(file: document.file) { () throws(DocumentError) in try doc.undo() }
        try dryRun.finish(&doc, file: document.file)
        if output.json {
            print(
                JSONText.encode(
                    .object([
                        ("file", .string(document.file)), ("undone", .string(description)), ("remaining", .int(doc.undoSteps.count)),
                        ("dry_run", .bool(dryRun.dryRun)),
                    ]), pretty: false))
        } else {
            print("\(dryRun.dryRun ? "would undo" : "undid") \"\(description)\"; \(doc.undoSteps.count) earlier steps remain")
        }
    }
}
