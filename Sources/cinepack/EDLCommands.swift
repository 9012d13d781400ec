import ArgumentParser
import Cinepack
import Foundation

struct EDLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edl",
        abstract: "Export, import, clear or validate the edit-decision list (XML, spec/edl.md).",
        discussion: """
            The EDL holds every user change (aperture, focus decisions, user detection tracks, trims, speed) \
            and nothing else; the captured metadata is never rewritten. It lives inside the movie and is \
            updated in place, crash-safely: one small write, never a rewrite of the media (spec/format.md §8).
            """,
        subcommands: [Export.self, Import.self, Clear.self, Validate.self]
    )

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the movie's EDL as a sidecar XML file (or to stdout).",
            discussion: "Example: cinepack edl export clip.mov -o edits.xml")

        @OptionGroup var document: DocumentOptions
        @Option(name: .shortAndLong, help: "The XML file to write; stdout when omitted.") var output: String?
        @OptionGroup var overwrite: OverwriteOption

        func run() throws {
            let target = try output.map { path throws -> OutputTarget in try overwrite.target(path, inputs: [document.file]) }
            let doc = try document.open()
            if let target, let output {
                let bytes = try CLIErrors.reporting(file: document.file) { () throws(DocumentError) in try doc.exportEDL(to: target) }
                print("wrote \(output): \(doc.decisions.count) decisions, \(bytes) bytes")
            } else {
                FileHandle.standardOutput.write(Data(doc.exportEDL()))
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the movie's EDL with a sidecar XML file.",
            discussion: """
                The sidecar is validated (schema and rules, with line and column in errors) and must be bound to \
                this movie (same frames, rate and picture fingerprint); --force applies one made for other media.
                Example: cinepack edl import clip.mov edits.xml
                """)

        @OptionGroup var document: DocumentOptions
        @Argument(help: "The EDL sidecar.") var sidecar: String
        @Flag(help: "Apply an EDL bound to different media; also replaces a stored EDL that cannot be read.") var force = false
        @OptionGroup var output: JSONOption

        func run() throws {
            let file = document.file
            let edl = try CLIErrors.reporting(file: sidecar) { () throws(DocumentError) in try CinematicDocument.readEDL(path: sidecar) }
            // --force also replaces a stored EDL that cannot be read (spec/format.md §8).
            var doc = try document.open(recovering: force)
            do { try doc.importEDL(edl, allowingOtherMedia: force) } catch {
                guard case .boundToOtherMedia(let theirs, let ours) = error else {
                    throw CLIErrors.failure(CLIErrors.message(for: error, file: file))
                }
                throw CLIErrors.failure(
                    "\(sidecar) was made for other media (\(theirs.map(\.description) ?? "-")); \(file) has \(ours). Use --force to apply it anyway"
                )
            }
            let result = try CLIErrors.reporting(file: file) { () throws(DocumentError) in try doc.save() }
            EDLCommand.noteDroppedHistory(doc.droppedHistorySteps)
            EDLCommand.report(result, file: file, json: output.json)
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove every user edit (the captured metadata stays); `cinepack undo` brings them back.",
            discussion: "Example: cinepack edl clear clip.mov")

        @OptionGroup var document: DocumentOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            // Works whatever the stored EDL holds, even one that cannot be read (spec/format.md §8).
            var doc = try document.open(recovering: true)
            let result = try CLIErrors.reporting(file: document.file) { () throws(DocumentError) in
                try doc.clear()
                return try doc.save()
            }
            EDLCommand.report(result, file: document.file, json: output.json)
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check an EDL file against spec/edl.rng and the rules of spec/edl.md.",
            discussion: "Exit status 0 when valid; 1 with the first problem's line and column otherwise.")

        @Argument(help: "The EDL XML file.") var sidecar: String

        func run() throws {
            guard let data = FileManager.default.contents(atPath: sidecar) else {
                throw CLIErrors.failure("\(sidecar): cannot read the file")
            }
            let edl = try EditDecisionList.parse(Array(data), source: sidecar)
            print(
                "\(sidecar): valid (\(edl.decisions.count) decisions, \(edl.detectionTracks.count) tracks, \(edl.sourceRanges.count) ranges, \(edl.speedSegments.count) speed segments)"
            )
        }
    }

    /// Says when the oldest undo steps had to go so the stored EDL stays readable.
    static func noteDroppedHistory(_ steps: Int) {
        guard steps > 0 else { return }
        CLIErrors.note(
            "note: the \(steps) oldest undo steps were dropped to keep the stored EDL under \(XMLLimits.maxInputBytes) bytes, the most a reader accepts"
        )
    }

    static func report(_ result: EDLUpdateResult, file: String, json: Bool) {
        if json {
            let method = result.isFullRewrite ? "full-rewrite" : "in-place"
            print(
                #"{"file":\#(JSONText.quote(file)),"method":"\#(method)","slot":"\#(result.slot)","sequence":\#(result.sequence),"bytes_written":\#(result.bytesWritten)}"#
            )
        } else {
            if result.isFullRewrite { CLIErrors.note("note: \(result)") }
            print("\(file): \(result)")
        }
    }
}

struct ExportTimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-timeline",
        abstract: "Export the clip with its focus decisions for editing tools: OpenTimelineIO or FCPXML.",
        discussion: """
            OTIO: a Timeline with the clip, every focus decision as a zero-duration marker, the aperture as an \
            effect named cinepack.Cinematic and cinepack data under metadata["cinepack"]. FCPXML 1.10: the \
            aperture through adjust-cinematic, focus decisions as markers. What maps where: spec/interchange.md.

            Examples:
              cinepack export-timeline clip.mov --format otio -o clip.otio
              cinepack export-timeline clip.mov --format fcpxml -o clip.fcpxml
            """
    )

    @OptionGroup var document: DocumentOptions
    @Option(help: "otio or fcpxml.") var format: String
    @Option(name: .shortAndLong, help: "The file to write.") var output: String
    @OptionGroup var overwrite: OverwriteOption

    func validate() throws {
        guard TimelineExport.Format(rawValue: format) != nil else { throw ValidationError("--format must be otio or fcpxml") }
    }

    func run() throws {
        let file = document.file
        let target = try overwrite.target(output, inputs: [file])
        let doc = try document.open()
        let url = TimelineExport.fileURL(forPath: file, relativeTo: FileManager.default.currentDirectoryPath)
        try CLIErrors.reporting(file: file) { () throws(DocumentError) in
            try doc.exportTimeline(TimelineExport.Format(rawValue: format)!, mediaURL: url, to: target)
        }
        print("wrote \(output): \(format), \(doc.decisions.count) user decisions")
    }
}
