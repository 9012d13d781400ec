import ArgumentParser
import Cinepack
import Foundation

/// JSON wording of focus values, shared by the focus commands.
enum FocusJSON {
    static func target(_ target: FocusTarget) -> InspectValue {
        switch target {
        case .none: .object([("kind", .string("none"))])
        case .detection(let id): .object([("kind", .string("detection")), ("id", .int(id))])
        case .group(let id): .object([("kind", .string("group")), ("id", .int(id))])
        case .fixedDisparity(let d): .object([("kind", .string("disparity")), ("value", .double(Double(d)))])
        case .point(let x, let y): .object([("kind", .string("point")), ("x", .double(Double(x))), ("y", .double(Double(y)))])
        }
    }

    static func number(_ v: Float) -> InspectValue { v.isFinite ? .double(Double(v)) : .null }
}

/// `cinepack decisions FILE [--json]`
struct DecisionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decisions",
        abstract: "List the focus decisions: captured (base) and user, with what each does.",
        discussion: """
            Every decision is listed with its index (user decisions: the number `unfocus --decision N` and \
            `retime --decision N` take), time, frame, target, strength and source, and why it has no effect when \
            it has none (replaced, suppressed by a strong or weak user decision, subject not tracked…). Reverts \
            are the implicit decisions made when a user-chosen subject's track ends (spec/focus.md §4.5).
            Example: cinepack decisions clip.mov --json
            """)

    @OptionGroup var document: DocumentOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let doc = try document.open()
        var rows: [InspectValue] = []
        var lines: [String] = []
        for d in doc.script.decisions {
            let number = d.source == .user ? "\(d.index + 1)" : "-"
            var fields: [(String, InspectValue)] = [
                ("source", .string(d.source.rawValue)), ("index", d.source == .user ? .int(d.index + 1) : .null),
                ("time", .string(d.time.description)), ("time_seconds", .double(d.time.seconds)), ("frame", .int(d.frame)),
                ("target", FocusJSON.target(d.target)), ("strength", .string(d.strength.rawValue)),
                ("effective", .bool(d.isEffective)),
            ]
            if let reason = d.suppressed { fields.append(("reason", .string(reason.description))) }
            if let t = d.transition {
                fields.append(("transition_start_seconds", .double(t.start)))
                fields.append(("transition_seconds", .double(t.duration)))
            }
            rows.append(.object(fields))
            var line =
                "\(number.padding(toLength: 3, withPad: " ", startingAt: 0)) \(d.source.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) "
            line += "\(d.time.formattedSeconds()) (frame \(d.frame))  \(d.target), \(d.strength.rawValue)"
            if let t = d.transition, t.duration > 0 { line += String(format: ", rack %.3f s", t.duration) }
            if let reason = d.suppressed { line += "  [no effect: \(reason)]" }
            lines.append(line)
        }
        if output.json {
            print(JSONText.encode(.object([("file", .string(document.file)), ("decisions", .list(rows))]), pretty: true))
        } else {
            print("#   source   time (frame)  target, strength")
            lines.forEach { print($0) }
        }
    }
}

/// `cinepack focus FILE [--at T] [--json|--csv]`
struct FocusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus",
        abstract: "The focus at every frame (or at one time): target, focus disparity, transition.",
        discussion: """
            Columns: frame, time, primary target (what focus is on or moving to), secondary target (what it is \
            leaving during a rack), focus disparity in diopters, transition progress (0…1, empty outside racks), \
            strength.
            Examples:
              cinepack focus clip.mov --at 2.0s --json
              cinepack focus clip.mov --csv > focus.csv
            """)

    @OptionGroup var document: DocumentOptions
    @Option(
        parsing: .unconditional, help: "Only the frame at this time (12.3s, 369f, 00:00:12:09).", transform: TimeArgument.init(parsing:))
    var at: TimeArgument?
    @OptionGroup var output: JSONOption
    @Flag(help: "CSV with a header line.") var csv = false

    func validate() throws {
        if output.json && csv { throw ValidationError("choose one of --json and --csv") }
    }

    func run() throws {
        let doc = try document.open()
        var frames = doc.script.frames
        var snapped: SnappedTime?
        if let at {
            let s = try CLIErrors.reporting(file: document.file) { () throws(DocumentError) in try doc.frame(at: at.value) }
            snapped = s
            frames = [doc.script.frame(Int(s.frame))]
            if !output.json && !csv {
                CLIErrors.note("\(at.text) → frame \(s.frame) at \(s.time.formattedSeconds())" + (s.wasExact ? "" : " (snapped)"))
            }
        }
        if output.json {
            let rows: [InspectValue] = frames.map { f in
                .object([
                    ("frame", .int(f.frame)), ("time", .string(f.time.description)), ("time_seconds", .double(f.time.seconds)),
                    ("primary", FocusJSON.target(f.primary)), ("secondary", f.secondary.map(FocusJSON.target) ?? .null),
                    ("focus_disparity", FocusJSON.number(f.focusDisparity)),
                    ("transition_progress", f.transitionProgress.map { .double(Double($0)) } ?? .null),
                    ("strength", .string(f.strength.rawValue)),
                ])
            }
            var root: [(String, InspectValue)] = [("file", .string(document.file))]
            if let snapped, let at {
                root.append(("requested", .string(at.text)))
                root.append(("snapped_time", .string(snapped.time.description)))
            }
            root.append(("frames", .list(rows)))
            print(JSONText.encode(.object(root), pretty: true))
        } else if csv {
            print("frame,time_seconds,primary,secondary,focus_disparity,transition_progress,strength")
            for f in frames {
                let progress = f.transitionProgress.map { "\($0)" } ?? ""
                let secondary = f.secondary.map(\.description) ?? ""
                print("\(f.frame),\(f.time.seconds),\(f.primary),\(secondary),\(f.focusDisparity),\(progress),\(f.strength.rawValue)")
            }
        } else {
            print("frame  time      focus D   primary → secondary (progress)")
            for f in frames {
                var line =
                    "\(String(f.frame).padding(toLength: 6, withPad: " ", startingAt: 0)) \(f.time.formattedSeconds().padding(toLength: 9, withPad: " ", startingAt: 0)) "
                line += String(format: "%7.4f   ", f.focusDisparity) + f.primary.description
                if let s = f.secondary, let p = f.transitionProgress { line += String(format: " ← %@ (%.2f)", s.description, p) }
                print(line)
            }
        }
    }
}

/// `cinepack unfocus FILE --decision N | --all-user`
struct UnfocusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unfocus",
        abstract: "Remove user focus decisions (captured decisions stay and take over again).",
        discussion: "Examples: cinepack unfocus clip.mov --decision 2;  cinepack unfocus clip.mov --all-user")

    @OptionGroup var document: DocumentOptions
    @Option(parsing: .unconditional, help: "The user decision to remove (its number in `cinepack decisions`).") var decision: Int?
    @Flag(name: .customLong("all-user"), help: "Remove every user decision.") var allUser = false
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func validate() throws {
        if (decision == nil) == !allUser { throw ValidationError("give exactly one of --decision N and --all-user") }
    }

    func run() throws {
        var doc = try document.open()
        let verb = dryRun.dryRun ? "would remove" : "removed"
        if let decision {
            let removed = try CLIErrors.reporting(file: document.file) { () throws(DocumentError) in
                try doc.removeDecision(number: decision)
            }
            try dryRun.finish(&doc, file: document.file)
            if output.json {
                print(
                    JSONText.encode(
                        .object([
                            ("file", .string(document.file)), ("removed", .int(1)), ("decision", .int(decision)),
                            ("dry_run", .bool(dryRun.dryRun)),
                        ]), pretty: false))
            } else {
                print("\(verb) decision \(decision): \(removed.time.formattedSeconds()) (frame \(removed.frame)) \(removed.target)")
            }
        } else {
            let count = try CLIErrors.reporting(file: document.file) { () throws(DocumentError) in try doc.removeAllDecisions() }
            try dryRun.finish(&doc, file: document.file)
            if output.json {
                print(
                    JSONText.encode(
                        .object([("file", .string(document.file)), ("removed", .int(count)), ("dry_run", .bool(dryRun.dryRun))]),
                        pretty: false))
            } else {
                print("\(verb) \(count) user decisions")
            }
        }
    }
}

/// `cinepack plot FILE -o focus.svg`
struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw the focus over time as SVG: subjects' disparities, focus, decisions, racks.",
        discussion: "Example: cinepack plot clip.mov -o focus.svg")

    @OptionGroup var document: DocumentOptions
    @Option(name: .shortAndLong, help: "The SVG file to write.") var output: String
    @OptionGroup var overwrite: OverwriteOption

    func run() throws {
        let doc = try document.open()
        let target = try overwrite.target(output, inputs: [document.file])
        let svg = FocusPlot.svg(script: doc.script, capture: doc.capture, title: (document.file as NSString).lastPathComponent)
        try target.write(Array(svg.utf8))
        print("wrote \(output): \(doc.script.frames.count) frames, \(doc.script.decisions.filter(\.isEffective).count) decisions")
    }
}
