import ArgumentParser
import Cinepack
import Foundation

/// Opens a movie with its EDL and computes the focus script: what the focus commands share.
struct FocusSession {
    var edits: MovieEdits
    let capture: CaptureTimeline
    var script: FocusScript

    init(path: String) throws {
        edits = try MovieEdits.open(path: path)
        edits.warnings.forEach { CLIErrors.note("warning: \($0)") }
        capture = try CaptureTimeline(movie: edits.movie)
        script = FocusScript(capture: capture, edl: edits.edl)
    }

    func seconds(_ t: MediaTime) -> String { t.formattedSeconds() }

    static func describe(_ target: FocusTarget) -> String { CinematicInspection.describe(target) }

    static func targetJSON(_ target: FocusTarget) -> InspectValue {
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

    @Argument(help: "A cinematic movie.") var file: String
    @Flag(help: "Machine-readable JSON.") var json = false

    func run() throws {
        let session = try FocusSession(path: file)
        var rows: [InspectValue] = []
        var lines: [String] = []
        for d in session.script.decisions {
            let number = d.source == .user ? "\(d.index + 1)" : "-"
            var fields: [(String, InspectValue)] = [
                ("source", .string(d.source.rawValue)), ("index", d.source == .user ? .int(d.index + 1) : .null),
                ("time", .string(d.time.description)), ("time_seconds", .double(d.time.seconds)), ("frame", .int(d.frame)),
                ("target", FocusSession.targetJSON(d.target)), ("strength", .string(d.strength.rawValue)),
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
            line += "\(d.time.formattedSeconds()) (frame \(d.frame))  \(FocusSession.describe(d.target)), \(d.strength.rawValue)"
            if let t = d.transition, t.duration > 0 { line += String(format: ", rack %.3f s", t.duration) }
            if let reason = d.suppressed { line += "  [no effect: \(reason)]" }
            lines.append(line)
        }
        if json {
            print(JSONText.encode(.object([("file", .string(file)), ("decisions", .list(rows))]), pretty: true))
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

    @Argument(help: "A cinematic movie.") var file: String
    @Option(parsing: .unconditional, help: "Only the frame at this time (12.3s, 369f, 00:00:12:09).") var at: String?
    @Flag(help: "Machine-readable JSON.") var json = false
    @Flag(help: "CSV with a header line.") var csv = false

    func validate() throws {
        if json && csv { throw ValidationError("choose one of --json and --csv") }
        if let at { _ = try Arguments.time(at, option: "--at") }
    }

    func run() throws {
        let session = try FocusSession(path: file)
        var frames = session.script.frames
        var snapped: SnappedTime?
        if let at {
            let s = try session.edits.movie.frame(at: try Arguments.time(at, option: "--at"))
            snapped = s
            frames = [session.script.frame(Int(s.frame))]
            if !json && !csv {
                CLIErrors.note("\(at) → frame \(s.frame) at \(s.time.formattedSeconds())" + (s.wasExact ? "" : " (snapped)"))
            }
        }
        if json {
            let rows: [InspectValue] = frames.map { f in
                .object([
                    ("frame", .int(f.frame)), ("time", .string(f.time.description)), ("time_seconds", .double(f.time.seconds)),
                    ("primary", FocusSession.targetJSON(f.primary)),
                    ("secondary", f.secondary.map(FocusSession.targetJSON) ?? .null),
                    ("focus_disparity", FocusSession.number(f.focusDisparity)),
                    ("transition_progress", f.transitionProgress.map { .double(Double($0)) } ?? .null),
                    ("strength", .string(f.strength.rawValue)),
                ])
            }
            var root: [(String, InspectValue)] = [("file", .string(file))]
            if let snapped, let at {
                root.append(("requested", .string(at)))
                root.append(("snapped_time", .string(snapped.time.description)))
            }
            root.append(("frames", .list(rows)))
            print(JSONText.encode(.object(root), pretty: true))
        } else if csv {
            print("frame,time_seconds,primary,secondary,focus_disparity,transition_progress,strength")
            for f in frames {
                let progress = f.transitionProgress.map { "\($0)" } ?? ""
                let secondary = f.secondary.map(FocusSession.describe) ?? ""
                print(
                    "\(f.frame),\(f.time.seconds),\(FocusSession.describe(f.primary)),\(secondary),\(f.focusDisparity),\(progress),\(f.strength.rawValue)"
                )
            }
        } else {
            print("frame  time      focus D   primary → secondary (progress)")
            for f in frames {
                var line =
                    "\(String(f.frame).padding(toLength: 6, withPad: " ", startingAt: 0)) \(f.time.formattedSeconds().padding(toLength: 9, withPad: " ", startingAt: 0)) "
                line += String(format: "%7.4f   ", f.focusDisparity) + FocusSession.describe(f.primary)
                if let s = f.secondary, let p = f.transitionProgress { line += String(format: " ← %@ (%.2f)", FocusSession.describe(s), p) }
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

    @Argument(help: "A cinematic movie.") var file: String
    @Option(parsing: .unconditional, help: "The user decision to remove (its number in `cinepack decisions`).") var decision: Int?
    @Flag(name: .customLong("all-user"), help: "Remove every user decision.") var allUser = false
    @Flag(name: .customLong("dry-run"), help: "Report what would change; write nothing.") var dryRun = false

    func validate() throws {
        if (decision == nil) == !allUser { throw ValidationError("give exactly one of --decision N and --all-user") }
    }

    func run() throws {
        var edits = try MovieEdits.open(path: file)
        let count = edits.edl.decisions.count
        if let decision {
            guard decision >= 1, decision <= count else {
                throw CLIErrors.failure("\(file): no user decision \(decision); there are \(count) (see `cinepack decisions`)")
            }
            let removed = edits.edl.decisions[decision - 1]
            try edits.edit("unfocus decision \(decision)", dryRun: dryRun) { $0.decisions.remove(at: decision - 1) }
            print(
                "\(dryRun ? "would remove" : "removed") decision \(decision): \(removed.time.formattedSeconds()) (frame \(removed.frame)) \(FocusSession.describe(removed.target))"
            )
        } else {
            try edits.edit("unfocus all user decisions", dryRun: dryRun) { $0.decisions.removeAll() }
            print("\(dryRun ? "would remove" : "removed") \(count) user decisions")
        }
    }
}

extension Arguments {
    static func time(_ text: String, option: String) throws -> TimeExpression {
        do { return try TimeExpression(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
    }
}

/// `cinepack plot FILE -o focus.svg`
struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw the focus over time as SVG: subjects' disparities, focus, decisions, racks.",
        discussion: "Example: cinepack plot clip.mov -o focus.svg")

    @Argument(help: "A cinematic movie.") var file: String
    @Option(name: .shortAndLong, help: "The SVG file to write.") var output: String

    func run() throws {
        let session = try FocusSession(path: file)
        let svg = FocusPlot.svg(script: session.script, capture: session.capture, title: (file as NSString).lastPathComponent)
        let writer = try AtomicFileWriter(path: output)
        try writer.write(Array(svg.utf8))
        try writer.commit()
        print("wrote \(output): \(session.script.frames.count) frames, \(session.script.decisions.filter(\.isEffective).count) decisions")
    }
}
