import Cinepack
import Foundation
import TestSupport
import Testing

/// The document API in process, on the demo clip (4 s, 30 fps, 160×90): every rule of adding a
/// decision, undo and redo of every edit kind, saving, and the errors' payloads. Expectations come
/// from the movie's own metadata read through `CinematicMovie`, not from the document.
@Suite struct CinematicDocumentTests {
    /// One demo clip per test run, copied for each test.
    static let master: Result<String, any Error> = Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinepack-document-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("demo.mov").path
        let made = try CLI.run(["demo", "-o", path, "--seconds", "4", "--size", "160x90"])
        guard made.status == 0 else { throw FormatError("demo failed: \(made.stderr)") }
        return path
    }

    struct Clip {
        let dir: TemporaryDirectory
        let path: String
    }

    static func clip() throws -> Clip {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        try FileManager.default.copyItem(atPath: try master.get(), toPath: path)
        return Clip(dir: dir, path: path)
    }

    static func t(_ text: String) throws -> TimeExpression { try TimeExpression(parsing: text) }

    /// `edl` as written validates against spec/edl.rng (xmllint, when installed).
    static func expectValidAgainstSchema(_ edl: EditDecisionList, in dir: TemporaryDirectory, name: String) throws {
        guard try Peers.available("xmllint") else { return }
        let file = dir.file(name)
        try Data(edl.xmlData()).write(to: URL(fileURLWithPath: file))
        let schema = Paths.root.appendingPathComponent("spec/edl.rng").path
        let result = try Peers.run("xmllint", ["--noout", "--relaxng", schema, file], allowFailure: true)
        #expect(result.status == 0 && result.stderr.contains("validates"), "\(result.stderr)")
    }

    /// The captured detections of frame `n`, read straight from the movie.
    static func detections(_ path: String, frame n: Int) throws -> [Detection] {
        try CinematicMovie.open(path: path).metadata(n).detections
    }

    // MARK: - Rules of addDecision

    enum Expected {
        case target(FocusTarget, DecisionStrength)
        case fails((DocumentError) -> Bool)
    }

    @Test func everyRuleOfAddingADecision() throws {
        let clip = try Self.clip()
        let at30 = try Self.detections(clip.path, frame: 30)
        let torso = try #require(at30.first { $0.id == 3 })
        let dog60 = try #require(try Self.detections(clip.path, frame: 60).first { $0.id == 7 })
        // The smallest detection containing the dog's centre, found here by hand.
        let centre = (x: dog60.rect.centerX, y: dog60.rect.centerY)
        let containing = try Self.detections(clip.path, frame: 60).filter { $0.rect.contains(x: centre.x, y: centre.y) }
        let smallest = try #require(containing.min { $0.rect.area < $1.rect.area })
        let cases: [(String, DecisionTarget, String, DecisionStrength?, Expected)] = [
            ("visible object", .object(7), "2.0s", nil, .target(.detection(7), .weak)),
            ("explicit strength", .object(7), "2.0s", .strong, .target(.detection(7), .strong)),
            ("group of an object", .group(ofObject: 3), "1s", nil, .target(.group(torso.groupID), .weak)),
            ("fixed plane is strong by default", .plane(disparity: 0.8), "1s", nil, .target(.fixedDisparity(0.8), .strong)),
            (
                "point on a subject hits the smallest detection", .point(PicturePoint(x: centre.x, y: centre.y)), "60f", nil,
                .target(.detection(smallest.id), .weak)
            ),
            (
                "point on empty space becomes a user track", .point(PicturePoint(x: 0.9, y: 0.12)), "1s", nil,
                .target(.detection(1_000_000), .weak)
            ),
            (
                "object seen elsewhere", .object(9), "1.5s", nil,
                .fails { if case .notVisible(9, let at, let seen) = $0 { at.frame == 45 && !seen.isEmpty } else { false } }
            ),
            (
                "object never seen", .object(99), "1s", nil,
                .fails { if case .noSuchObject(99, _, let visible) = $0 { visible.map(\.id) == at30.map(\.id) } else { false } }
            ),
            (
                "time outside the clip", .object(1), "9s", nil,
                .fails { if case .outOfRange(_, 120, _) = $0 { true } else { false } }
            ),
            (
                "point outside the picture", .point(PicturePoint(x: 200, y: 20)), "1s", nil,
                .fails { if case .pointOutsidePicture(_, 160, 90) = $0 { true } else { false } }
            ),
            ("negative plane", .plane(disparity: -1), "1s", nil, .fails { if case .badDisparity = $0 { true } else { false } }),
        ]
        for (name, target, time, strength, expected) in cases {
            var doc = try CinematicDocument(path: clip.path)
            switch expected {
            case .target(let focus, let strengthExpected):
                let outcome = try doc.addDecision(target: target, at: try Self.t(time), strength: strength)
                #expect(outcome.decision.target == focus, "\(name)")
                #expect(outcome.decision.strength == strengthExpected, "\(name)")
                #expect(doc.decisions == [outcome.decision], "\(name)")
                #expect(doc.decisions[0].time == doc.grid.time(ofFrame: doc.decisions[0].frame), "\(name): time and frame agree")
            case .fails(let matches):
                do {
                    try doc.addDecision(target: target, at: try Self.t(time), strength: strength)
                    Issue.record("\(name): accepted")
                } catch let error as DocumentError {
                    #expect(matches(error), "\(name): \(error)")
                    #expect(doc.decisions.isEmpty && !doc.hasUnsavedChanges, "\(name): a refused edit changes nothing")
                }
            }
        }
    }

    @Test func notVisibleNamesTheSpansWhereTheObjectIs() throws {
        let clip = try Self.clip()
        var doc = try CinematicDocument(path: clip.path)
        let movie = try CinematicMovie.open(path: clip.path)
        let framesWith9 = try (0..<movie.frameCount).filter { try movie.metadata($0).detections.contains { $0.id == 9 } }
        do {
            try doc.addDecision(target: .object(9), at: try Self.t("1.5s"))
            Issue.record("accepted")
        } catch let error as DocumentError {
            guard case .notVisible(_, _, let seen) = error else { throw error }
            let covered = (0..<movie.frameCount).filter { n in seen.contains { $0.contains(doc.grid.time(ofFrame: Int64(n))) } }
            #expect(covered == framesWith9)
            #expect(error.description.hasPrefix("object 9 is not visible at 1.500s (frame 45); it is seen at 0.000s–"))
        }
    }

    @Test func sameFrameReplacesAndDecisionsStayInTimeOrder() throws {
        let clip = try Self.clip()
        var doc = try CinematicDocument(path: clip.path)
        try doc.addDecision(target: .object(1), at: try Self.t("2s"))
        try doc.addDecision(target: .object(4), at: try Self.t("1s"))
        try doc.addDecision(target: .plane(disparity: 0.5), at: try Self.t("3s"))
        let replacing = try doc.addDecision(target: .object(7), at: try Self.t("60f"))
        #expect(replacing.replaced?.target == .detection(1))
        #expect(doc.decisions.map(\.frame) == [30, 60, 90])
        #expect(doc.decisions.map(\.target) == [.detection(4), .detection(7), .fixedDisparity(0.5)])
        #expect(replacing.index == 1)
    }

    // MARK: - Taps

    @Test func tapFocusesThenLocksLongPressFixes() throws {
        let clip = try Self.clip()
        var doc = try CinematicDocument(path: clip.path)
        let dog = try #require(try Self.detections(clip.path, frame: 60).first { $0.id == 7 })
        let point = PicturePoint(x: dog.rect.centerX, y: dog.rect.centerY)
        let first = try doc.apply(tap: .tap(point, at: try Self.t("60f")))
        #expect(first.action == .focusDetection)
        let second = try doc.apply(tap: .tap(point, at: try Self.t("60f")))
        #expect(second.action == .lockFocus)
        #expect(doc.decisions.count == 1 && doc.decisions[0].strength == .strong)
        let third = try doc.apply(tap: .tap(point, at: try Self.t("60f")))
        #expect(third.action == .alreadyLocked)
        let press = try doc.apply(tap: .longPress(PicturePoint(x: 0.9, y: 0.12), at: try Self.t("30f")))
        #expect(press.action == .fixedFocus)
        #expect(doc.decisions.map(\.frame) == [30, 60])
        #expect(doc.undoSteps.count == 3)
    }

    // MARK: - Undo and redo

    @Test func undoAndRedoEveryEditKind() throws {
        let clip = try Self.clip()
        var doc = try CinematicDocument(path: clip.path)
        try doc.addDecision(target: .object(1), at: try Self.t("1s"))
        try doc.addDecision(target: .object(7), at: try Self.t("2s"))
        let edits: [(String, (inout CinematicDocument) throws -> Void)] = [
            ("add", { try $0.addDecision(target: .object(4), at: try Self.t("3s")) }),
            ("remove", { try $0.removeDecision(number: 1) }),
            ("remove all", { try $0.removeAllDecisions() }),
            ("aperture", { try $0.setAperture(2.8) }),
            ("retime", { try $0.retimeDecision(number: 1, to: try Self.t("1.5s")) }),
            (
                "shift",
                {
                    try $0.shiftDecisions(in: try TimeRangeExpression(parsing: "0s..3s"), by: try TimeOffsetExpression(parsing: "+3f"))
                }
            ),
            ("trim", { try $0.trim(keep: [try TimeRangeExpression(parsing: "0s..2s")]) }),
            ("speed", { try $0.setSpeed(in: try TimeRangeExpression(parsing: "0s..1s"), rate: FrameRate(frames: 2, per: 1)!) }),
            ("tap", { try $0.apply(tap: .longPress(PicturePoint(x: 0.9, y: 0.12), at: try Self.t("10f"))) }),
            ("clear", { try $0.clear() }),
        ]
        for (name, edit) in edits {
            let before = doc.edl
            try edit(&doc)
            let after = doc.edl
            #expect(Self.body(after) != Self.body(before), "\(name) changed nothing")
            try doc.undo()
            #expect(Self.body(doc.edl) == Self.body(before), "undo \(name)")
            #expect(doc.edl.history == before.history, "undo \(name): history")
            try doc.redo()
            #expect(Self.body(doc.edl) == Self.body(after), "redo \(name)")
            try doc.undo()
        }
        #expect(try doc.redo() == "clear all edits")
        #expect(throws: DocumentError.self) { try doc.redo() }
        // A new edit drops the redo steps.
        try doc.clear()
        try doc.undo()
        try doc.setAperture(4)
        #expect(doc.redoSteps.isEmpty)
    }

    /// The EDL without its history, as text: what an edit changes.
    static func body(_ edl: EditDecisionList) -> String {
        var copy = edl
        copy.history = []
        copy.redo = []
        return String(decoding: copy.xmlData(), as: UTF8.self)
    }

    @Test func clearIsUndoableAfterSavingAndReopening() throws {
        let clip = try Self.clip()
        var doc = try CinematicDocument(path: clip.path)
        try doc.addDecision(target: .object(7), at: try Self.t("2s"))
        try doc.setAperture(2.8)
        try doc.save()
        try doc.clear()
        try doc.save()
        var reopened = try CinematicDocument(path: clip.path)
        #expect(reopened.decisions.isEmpty && reopened.edl.fNumber == nil)
        #expect(try reopened.undo() == "clear all edits")
        try reopened.save()
        let again = try CinematicDocument(path: clip.path)
        #expect(again.decisions.map(\.target) == [.detection(7)] && again.edl.fNumber == 2.8)
    }

    // MARK: - Saving, focus, render

    @Test func savedDecisionIsWhatTheFocusShowsAfterReopening() throws {
        let clip = try Self.clip()
        var doc = try CinematicDocument(path: clip.path)
        #expect(try doc.focus(at: try Self.t("2s")).primary != .detection(7))
        try doc.addDecision(target: .object(7), at: try Self.t("2s"), strength: .strong)
        #expect(doc.hasUnsavedChanges)
        try doc.save()
        #expect(!doc.hasUnsavedChanges)
        let reopened = try CinematicDocument(path: clip.path)
        let focus = try reopened.focus(frame: 60)
        #expect(focus.primary == .detection(7))
        let dog = try #require(try Self.detections(clip.path, frame: 60).first { $0.id == 7 })
        #expect(abs(focus.focusDisparity - dog.disparity) < 1e-6)
        #expect(throws: DocumentError.self) { try reopened.focus(frame: 120) }
    }

    @Test
    func secondWriterIsRefusedAndTheFirstEditSurvives() throws {
        let clip = try Self.clip()
        var first = try CinematicDocument(path: clip.path)
        var second = try CinematicDocument(path: clip.path)
        try first.addDecision(target: .object(7), at: try Self.t("2s"))
        try first.save()
        try second.setAperture(2.8)
        do {
            try second.save()
            Issue.record("the second save overwrote the first")
        } catch {
            guard case .changedByAnotherWriter = error else { throw error }
        }
        let stored = try CinematicDocument(path: clip.path)
        #expect(stored.decisions.map(\.target) == [.detection(7)] && stored.edl.fNumber == nil)
    }

    @Test func aMovieWithoutDepthIsNotCinematic() throws {
        let clip = try Self.clip()
        let flat = clip.dir.file("flat.mov")
        let made = try CLI.run(["render", clip.path, "-o", flat, "--range", "0s..0.1s", "--quality", "preview"])
        #expect(made.status == 0, "\(made.stderr)")
        do {
            _ = try CinematicDocument(path: flat)
            Issue.record("opened")
        } catch {
            guard case .notCinematic(let path) = error else { throw error }
            #expect(path == flat)
        }
    }

    @Test func renderedFrameIsTheCommandLinesStill() async throws {
        let clip = try Self.clip()
        var doc = try CinematicDocument(path: clip.path)
        try doc.addDecision(target: .object(7), at: try Self.t("2s"), strength: .strong)
        try doc.save()
        let frame = try await doc.renderFrame(at: try Self.t("2s"), quality: .preview)
        let still = clip.dir.file("still.png")
        let cli = try CLI.run(["render", clip.path, "--at", "2s", "-o", still, "--quality", "preview"])
        #expect(cli.status == 0, "\(cli.stderr)")
        let decoded = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: still))))
        #expect(decoded == frame.image)
        #expect(frame.snapped.frame == 60)
    }

    @Test func movieRenderReportsProgressAndCancelsWithoutOutput() async throws {
        let clip = try Self.clip()
        let doc = try CinematicDocument(path: clip.path)
        let out = clip.dir.file("program.mov")
        var seen: [Int] = []
        let frames = try await doc.renderMovie(to: out, quality: .preview, range: try TimeRangeExpression(parsing: "0s..0.2s")) {
            done, total in
            #expect(total == 6)
            seen.append(done)
        }
        #expect(frames == 6 && seen == Array(1...6))
        #expect(try Movie.read(path: out).tracks.first { $0.kind == .video }?.samples.count == 6)

        let cancelled = clip.dir.file("cancelled.mov")
        let task = Task { try await doc.renderMovie(to: cancelled, quality: .preview) }
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("not cancelled")
        } catch let error as DocumentError {
            guard case .cancelled = error else { throw error }
        }
        #expect(!FileManager.default.fileExists(atPath: cancelled))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: clip.dir.path).filter { $0.contains("cancelled") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// Redo steps are stored with the edits (spec/edl.md §8): a later session can redo, the stored
    /// EDL validates against spec/edl.rng with xmllint, and a new edit drops them.
    @Test func redoSurvivesReopeningAndValidatesAgainstTheSchema() throws {
        let clip = try Self.clip()
        var doc = try CinematicDocument(path: clip.path)
        try doc.addDecision(target: .object(7), at: try Self.t("2s"))
        try doc.setAperture(2.8)
        try doc.undo()
        try doc.undo()
        try doc.save()
        var reopened = try CinematicDocument(path: clip.path)
        #expect(reopened.decisions.isEmpty && reopened.redoSteps == ["refocus at 2.000s", "aperture f/2.8"])
        try Self.expectValidAgainstSchema(reopened.edl, in: clip.dir, name: "stored.xml")
        #expect(try reopened.redo() == "refocus at 2.000s")
        #expect(reopened.decisions.map(\.target) == [.detection(7)] && reopened.edl.fNumber == nil)
        try reopened.save()
        var third = try CinematicDocument(path: clip.path)
        #expect(third.redoSteps == ["aperture f/2.8"] && third.undoSteps == ["refocus at 2.000s"])
        try third.removeAllDecisions()
        #expect(third.redoSteps.isEmpty)
        #expect(throws: DocumentError.self) { try third.redo() }
    }
}
