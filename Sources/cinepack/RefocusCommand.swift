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

    @Argument(help: "A cinematic movie.") var file: String
    @Option(parsing: .unconditional, help: "When focus arrives: 12.3s, 1:02.5, 00:00:12:09 or 369f.") var at: String
    @Option(parsing: .unconditional, help: "Detection id to focus on.") var object: UInt32?
    @Option(parsing: .unconditional, help: "Point X,Y: normalized (0…1) or pixels.") var point: String?
    @Option(parsing: .unconditional, help: "Fixed focus plane, diopters.", transform: OptionValue.float) var disparity: Float?
    @Flag(help: "With --object: follow the object's group.") var group = false
    @Flag(help: "With --point: a fixed plane at the point's disparity.") var fixed = false
    @Flag(help: "Strong: keep focus until the next user decision or until the subject is lost.") var strong = false
    @Flag(help: "Weak: later captured decisions may take focus back (after 2 s).") var weak = false
    @Flag(name: .customLong("dry-run"), help: "Report what would happen; write nothing.") var dryRun = false
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        let choices = [object != nil, point != nil, disparity != nil].filter { $0 }.count
        guard choices == 1 else { throw ValidationError("give exactly one of --object, --point and --disparity") }
        if strong && weak { throw ValidationError("--strong and --weak exclude each other") }
        if group && object == nil { throw ValidationError("--group goes with --object") }
        if fixed && point == nil { throw ValidationError("--fixed goes with --point") }
        if let disparity, !(disparity.isFinite && disparity >= 0) {
            throw ValidationError("--disparity must be a finite number of diopters ≥ 0 (got \(disparity))")
        }
        _ = try Arguments.time(at, option: "--at")
    }

    func run() throws {
        var session = try FocusSession(path: file)
        let movie = session.edits.movie
        let snapped = try movie.frame(at: try Arguments.time(at, option: "--at"))
        let n = Int(snapped.frame)
        let when = "\(snapped.time.formattedSeconds()) (frame \(n))"
        let detections = session.capture.frames[n].detections
        var target: FocusTarget
        var defaultStrong = false
        var newTrack: UserDetectionTrack?
        var how = ""

        if let object {
            let present =
                detections.first { $0.id == object }
                ?? session.edits.edl.detectionTracks.first { $0.id == object && $0.samples.contains { $0.frame == Int64(n) } }
                .map { _ in Detection(id: object, type: .custom, rect: NormalizedRect(x: 0, y: 0, width: 0, height: 0), disparity: .nan) }
            guard let present else { throw CLIErrors.failure(Self.notVisible(object, at: when, frame: n, session: session)) }
            if group {
                guard present.groupID != 0 else { throw CLIErrors.failure("object \(object) has no group (group id 0); drop --group") }
                target = .group(present.groupID)
                how = "group \(present.groupID) of object \(object)"
            } else {
                target = .detection(object)
                how = "object \(object) (\(present.type))"
            }
        } else if let disparity {
            target = .fixedDisparity(disparity)
            defaultStrong = true
            how = "fixed plane at \(disparity) D"
        } else {
            let p = try Self.point(point!, width: movie.width, height: movie.height)
            let maps: (Int) throws -> DisparityMap = { try movie.disparityMap($0) }
            if fixed {
                guard let d = PointFocus.robustDisparity(at: p, in: try movie.disparityMap(n)) else {
                    throw CLIErrors.failure("no depth at point \(p.x),\(p.y) at \(when): the disparity map has no valid pixels there")
                }
                target = .fixedDisparity(d)
                defaultStrong = true
                how = "fixed plane at \(d) D (the disparity at \(p.x),\(p.y))"
            } else if let hit = TapLogic.hitTest(at: p, frame: n, capture: session.capture, userTracks: session.edits.edl.detectionTracks) {
                target = .detection(hit.id)
                how = "object \(hit.id), the smallest detection containing \(p.x),\(p.y)"
            } else {
                guard let id = TapLogic.nextTrackID(after: session.edits.edl.detectionTracks) else {
                    throw CLIErrors.failure("\(file): no user track ids left")
                }
                guard
                    let made = try PointFocus.customTrack(
                        id: id, at: p, frame: n, grid: session.capture.grid, frameCount: session.capture.frameCount, maps: maps)
                else {
                    throw CLIErrors.failure("no salient region at point \(p.x),\(p.y) at \(when): no valid depth there")
                }
                newTrack = made.track
                target = .detection(id)
                let last = made.track.samples.last.map { Int($0.frame) } ?? n
                how = "the region at \(p.x),\(p.y), tracked as custom track \(id) over frames \(n)…\(last) (\(made.tracking.stop))"
            }
        }
        let strength: DecisionStrength = strong ? .strong : weak ? .weak : (defaultStrong ? .strong : .weak)
        let decision = UserDecision(time: snapped.time, frame: Int64(n), target: target, strength: strength)
        var replaced: UserDecision?
        let (edl, result) = try session.edits.edit("refocus at \(snapped.time.formattedSeconds())", dryRun: dryRun) { edl in
            if let i = edl.decisions.firstIndex(where: { $0.frame == Int64(n) }) { replaced = edl.decisions.remove(at: i) }
            let insertAt = edl.decisions.firstIndex { $0.time > decision.time } ?? edl.decisions.count
            edl.decisions.insert(decision, at: insertAt)
            if let newTrack { edl.detectionTracks.append(newTrack) }
        }
        // What the focus script makes of it.
        let script = FocusScript(capture: session.capture, edl: edl)
        let index = edl.decisions.firstIndex { $0.frame == Int64(n) } ?? 0
        let effect = script.decisions.first { $0.source == .user && $0.index == index }
        if json {
            var fields: [(String, InspectValue)] = [
                ("file", .string(file)), ("requested", .string(at)), ("time", .string(snapped.time.description)),
                ("time_seconds", .double(snapped.time.seconds)), ("frame", .int(n)), ("target", FocusSession.targetJSON(target)),
                ("strength", .string(strength.rawValue)), ("decision", .int(index + 1)), ("dry_run", .bool(dryRun)),
                ("replaced", .bool(replaced != nil)), ("effective", .bool(effect?.isEffective ?? false)),
            ]
            if let t = effect?.transition {
                fields.append(("transition_start_seconds", .double(t.start)))
                fields.append(("transition_seconds", .double(t.duration)))
            }
            if let reason = effect?.suppressed { fields.append(("reason", .string(reason.description))) }
            if let newTrack { fields.append(("custom_track", .int(newTrack.id))) }
            print(JSONText.encode(.object(fields), pretty: true))
            return
        }
        let snapNote = snapped.wasExact ? "" : ", snapped from \(at)"
        print("\(dryRun ? "would refocus" : "refocused") at \(when)\(snapNote): \(how), \(strength.rawValue) — decision \(index + 1)")
        if let replaced { print("  replaces the user decision at that frame (\(FocusSession.describe(replaced.target)))") }
        if let effect, let t = effect.transition, t.duration > 0 {
            print(String(format: "  rack from %.3f s to %@ (%.3f s)", t.start, snapped.time.formattedSeconds(), t.duration))
        }
        if let reason = effect?.suppressed { print("  note: this decision has no effect: \(reason)") }
        if let result, result.isFullRewrite { CLIErrors.note("note: \(result)") }
    }

    /// A point as normalized coordinates; values above 1 are pixels of the picture.
    static func point(_ text: String, width: Int, height: Int) throws -> (x: Float, y: Float) {
        let parts = text.split(separator: ",").map { try? DecimalNumber.float($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let px = parts[0], let py = parts[1], px.isFinite, py.isFinite else {
            throw ValidationError("--point must be X,Y (normalized 0…1, or pixels), got \(text)")
        }
        let pixels = px > 1 || py > 1
        let x = pixels ? px / Float(max(width, 1)) : px
        let y = pixels ? py / Float(max(height, 1)) : py
        guard x >= 0, x <= 1, y >= 0, y <= 1 else {
            throw CLIErrors.failure("point \(text) is outside the frame (\(width)×\(height) pixels, or 0…1 normalized)")
        }
        return (x, y)
    }

    /// Why an object cannot be focused at that time: when it is visible, or which objects are.
    static func notVisible(_ id: UInt32, at when: String, frame n: Int, session: FocusSession) -> String {
        let frames = session.capture.frames.indices.filter { n in session.capture.frames[n].detections.contains { $0.id == id } }
        if !frames.isEmpty {
            var spans: [(Int, Int)] = []
            for f in frames {
                if let end = spans.last?.1, f == end + 1 { spans[spans.count - 1].1 = f } else { spans.append((f, f)) }
            }
            let text = spans.prefix(4).map { span in
                "\(session.capture.grid.time(ofFrame: Int64(span.0)).formattedSeconds())–\(session.capture.grid.time(ofFrame: Int64(span.1)).formattedSeconds())"
            }.joined(separator: ", ")
            return "object \(id) is not visible at \(when); it is seen at \(text)\(spans.count > 4 ? ", …" : "")"
        }
        let present = session.capture.frames.indices.contains(n) ? session.capture.frames[n].detections : []
        let list = present.map { "\($0.id) (\($0.type))" }.joined(separator: ", ")
        return "no object \(id) in this movie; objects at \(when): \(list.isEmpty ? "none" : list)"
    }
}
