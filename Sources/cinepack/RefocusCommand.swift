import ArgumentParser
import Cinepack
import Foundation

/// `cinepack refocus FILE --at T (--object ID | --point X,Y | --disparity D) …`
struct RefocusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refocus",
        abstract: "Add a focus decision: focus arrives on a subject, a point or a plane at a time.",
        discussion: """
            Focus arrives at the target at the snapped time; the rack starts earlier (at most 0.5 D/s, 1/3 s to \
            1 s, never before the previous decision; spec/focus.md). Three ways to choose focus:
              --object ID            a detected subject (add --group to follow its group: face, head, torso)
              --point X,Y            a point, normalized (0.5,0.4) or in pixels (640,288): the smallest detection \
            containing it, else the salient region there, tracked through the following frames as a custom track
              --disparity D          a fixed focus plane at D diopters (or --fixed --point X,Y: the plane at that point)
            Defaults follow the tap logic: weak for --object and --point, strong for fixed focus.
            A decision at the same frame as an earlier user decision replaces it.

            Examples:
              cinepack refocus clip.mov --at 12.3s --object 4
              cinepack refocus clip.mov --at 369f --point 0.62,0.40 --strong
              cinepack refocus clip.mov --at 00:00:12:09 --disparity 0.8 --dry-run
            """)

    @OptionGroup var document: DocumentOptions
    @Option(
        parsing: .unconditional, help: "When focus arrives: 12.3s, 1:02.5, 00:00:12:09 or 369f.", transform: TimeArgument.init(parsing:))
    var at: TimeArgument
    @Option(parsing: .unconditional, help: "Detection id to focus on.") var object: UInt32?
    @Option(parsing: .unconditional, help: "Point X,Y: normalized (0…1) or pixels.", transform: PointArgument.init(parsing:)) var point:
        PointArgument?
    @Option(parsing: .unconditional, help: "Fixed focus plane, diopters.", transform: OptionValue.float) var disparity: Float?
    @Flag(help: "With --object: follow the object's group.") var group = false
    @Flag(help: "With --point: a fixed plane at the point's disparity.") var fixed = false
    @Flag(help: "Strong: keep focus until the next user decision or until the subject is lost.") var strong = false
    @Flag(help: "Weak: later captured decisions may take focus back (after 2 s).") var weak = false
    @OptionGroup var dryRun: DryRunOption
    @OptionGroup var output: JSONOption

    func validate() throws {
        let choices = [object != nil, point != nil, disparity != nil].filter { $0 }.count
        guard choices == 1 else { throw ValidationError("give exactly one of --object, --point and --disparity") }
        if strong && weak { throw ValidationError("--strong and --weak exclude each other") }
        if group && object == nil { throw ValidationError("--group goes with --object") }
        if fixed && point == nil { throw ValidationError("--fixed goes with --point") }
        if let disparity, !(disparity.isFinite && disparity >= 0) {
            throw ValidationError("--disparity must be a finite number of diopters ≥ 0 (got \(disparity))")
        }
    }

    var target: DecisionTarget {
        if let object { return group ? .group(ofObject: object) : .object(object) }
        if let point { return fixed ? .planeAtPoint(point.value) : .point(point.value) }
        return .plane(disparity: disparity ?? 0)
    }

    func run() throws {
        let file = document.file
        var doc = try document.open()
        let strength: DecisionStrength? = strong ? .strong : weak ? .weak : nil
        let outcome = try CLIErrors.reporting(file: file) { () throws(DocumentError) in
            try doc.addDecision(target: target, at: at.value, strength: strength)
        }
        try dryRun.finish(&doc, file: file)
        let snapped = outcome.snapped
        let effect = outcome.effect
        if output.json {
            var fields: [(String, InspectValue)] = [
                ("file", .string(file)), ("requested", .string(at.text)), ("time", .string(snapped.time.description)),
                ("time_seconds", .double(snapped.time.seconds)), ("frame", .int(snapped.frame)),
                ("target", FocusJSON.target(outcome.decision.target)), ("strength", .string(outcome.decision.strength.rawValue)),
                ("decision", .int(outcome.index + 1)), ("dry_run", .bool(dryRun.dryRun)), ("replaced", .bool(outcome.replaced != nil)),
                ("effective", .bool(effect?.isEffective ?? false)),
            ]
            if let t = effect?.transition {
                fields.append(("transition_start_seconds", .double(t.start)))
                fields.append(("transition_seconds", .double(t.duration)))
            }
            if let reason = effect?.suppressed { fields.append(("reason", .string(reason.description))) }
            if let track = outcome.track { fields.append(("custom_track", .int(track.id))) }
            print(JSONText.encode(.object(fields), pretty: true))
            return
        }
        let when = "\(snapped.time.formattedSeconds()) (frame \(snapped.frame))"
        let snapNote = snapped.wasExact ? "" : ", snapped from \(at.text)"
        print(
            "\(dryRun.dryRun ? "would refocus" : "refocused") at \(when)\(snapNote): \(Self.describe(outcome.resolution, at: snapped)), "
                + "\(outcome.decision.strength.rawValue) — decision \(outcome.index + 1)")
        if let replaced = outcome.replaced { print("  replaces the user decision at that frame (\(replaced.target))") }
        if let effect, let t = effect.transition, t.duration > 0 {
            print(String(format: "  rack from %.3f s to %@ (%.3f s)", t.start, snapped.time.formattedSeconds(), t.duration))
        }
        if let reason = effect?.suppressed { print("  note: this decision has no effect: \(reason)") }
    }

    static func describe(_ resolution: DecisionOutcome.Resolution, at snapped: SnappedTime) -> String {
        switch resolution {
        case .object(let id, let type): "object \(id) (\(type))"
        case .group(let g, let id): "group \(g) of object \(id)"
        case .plane(let d): "fixed plane at \(d) D"
        case .planeAtPoint(let d, let x, let y): "fixed plane at \(d) D (the disparity at \(x),\(y))"
        case .hit(let id, let x, let y): "object \(id), the smallest detection containing \(x),\(y)"
        case .trackedRegion(let id, let x, let y, let last, let stop):
            "the region at \(x),\(y), tracked as custom track \(id) over frames \(snapped.frame)…\(last) (\(stop))"
        }
    }
}
