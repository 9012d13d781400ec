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
    @Option(name: .customLong("f-number"), parsing: .unconditional, help: "The f-number, e.g. 2.8.", transform: OptionValue.fNumber)
    var fNumber: Float
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

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
        abstract: "Revert the last edit (the EDL keeps an undo history; `cinepack redo` re-applies it).",
        discussion: "Example: cinepack undo clip.mov")

    @OptionGroup var document: DocumentOptions
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func run() throws {
        try HistoryStep.run(document, dryRun: dryRun, json: output.json, verbs: ("undid", "would undo", "undone")) {
            (doc) throws(DocumentError) in try doc.undo()
        }
    }
}

/// `cinepack redo FILE`
struct RedoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "Re-apply the last edit `cinepack undo` reverted (until another edit is made).",
        discussion: "Example: cinepack redo clip.mov")

    @OptionGroup var document: DocumentOptions
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func run() throws {
        try HistoryStep.run(document, dryRun: dryRun, json: output.json, verbs: ("redid", "would redo", "redone")) {
            (doc) throws(DocumentError) in try doc.redo()
        }
    }
}

/// What undo and redo share: one step through the history, saved, reported.
enum HistoryStep {
    static func run(
        _ document: DocumentOptions, dryRun: DryRunOption, json: Bool, verbs: (done: String, dry: String, key: String),
        _ step: (inout CinematicDocument) throws(DocumentError) -> String
    ) throws {
        var doc = try document.open()
        let description = try CLIErrors.reporting(file: document.file) { () throws(DocumentError) in try step(&doc) }
        try dryRun.finish(&doc, file: document.file)
        if json {
            print(
                JSONText.encode(
                    .object([
                        ("file", .string(document.file)), (verbs.key, .string(description)), ("undo_steps", .int(doc.undoSteps.count)),
                        ("redo_steps", .int(doc.redoSteps.count)), ("dry_run", .bool(dryRun.dryRun)),
                    ]), pretty: false))
        } else {
            print("\(dryRun.dryRun ? verbs.dry : verbs.done) \"\(description)\"; \(doc.undoSteps.count) earlier steps remain")
        }
    }
}
