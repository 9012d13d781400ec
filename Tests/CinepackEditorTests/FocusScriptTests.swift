import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackTime
import Testing

/// The focus script against hand-computed tables (spec/focus.md), and against the demo clip's
/// captured focus, which follows the same rules.
@Suite struct FocusScriptTests {
    typealias F = FocusFixture

    @Test(arguments: FocusCases.all)
    func handComputedTable(_ c: FocusCase) {
        c.check(FocusScript(capture: c.capture, edl: c.edl))
    }

    @Test(arguments: FocusCases.all)
    func deterministic(_ c: FocusCase) {
        let one = FocusScript(capture: c.capture, edl: c.edl)
        let two = FocusScript(capture: c.capture, edl: c.edl)
        #expect(one.frames == two.frames)
        #expect(one.decisions == two.decisions)
        for n in one.frames.indices { #expect(one.frame(n) == one.frames[n]) }
    }

    @Test func revertDecisionNamesTheLostSubjectAndTheBaseDecision() throws {
        let c = try #require(FocusCases.all.first { $0.name.hasPrefix("strong: lost after a 1.5 s gap") })
        let script = FocusScript(capture: c.capture, edl: c.edl)
        let revert = try #require(script.decisions.first { $0.source == .revert })
        #expect(revert.index == 0 && revert.lastSeenFrame == 19 && revert.revertsTo == 1)
        #expect(revert.target == .detection(3) && revert.frame == 29 && revert.time == MediaTime(value: 29, timescale: 10))
        let transition = try #require(revert.transition)
        #expect(abs(transition.start - 1.9) < 1e-9 && abs(transition.duration - 1) < 1e-9 && !transition.isClipped)
        #expect(abs(transition.disparityChange - 0.5) < 1e-6)
        // The table's governing decisions: the revert's rack and what follows point at the revert.
        let k = try #require(script.decisions.firstIndex(of: revert))
        #expect(script.frame(19).decisionIndex == k && script.frame(40).decisionIndex == k)
        #expect(script.frame(18).decisionIndex == script.decisions.firstIndex { $0.source == .user })
    }

    @Test func clippedTransitionIsReported() throws {
        let c = try #require(FocusCases.all.first { $0.name.hasPrefix("a transition that would start before") })
        let decisions = FocusScript(capture: c.capture, edl: c.edl).decisions
        #expect(decisions[0].transition == nil)
        let last = try #require(decisions[2].transition)
        #expect(last.isClipped && abs(last.start - 2.0) < 1e-9 && abs(last.duration - 0.6) < 1e-9 && abs(last.nominalDuration - 1) < 1e-9)
    }

    @Test func pointsAreReportedResolved() throws {
        let c = try #require(FocusCases.all.first { $0.name.hasPrefix("point target resolves to a user custom track") })
        let user = try #require(FocusScript(capture: c.capture, edl: c.edl).decisions.first { $0.source == .user })
        #expect(user.target == .point(x: 0.5, y: 0.5) && user.resolvedTarget == .detection(1_000_000))
        let refused = try #require(FocusCases.all.first { $0.name.hasPrefix("point target on nothing") })
        let none = try #require(FocusScript(capture: refused.capture, edl: refused.edl).decisions.first { $0.source == .user })
        #expect(none.resolvedTarget == nil && none.suppressed == .unresolvedPoint && !none.isEffective)
    }

    @Test func derivedDecisionsAreMarked() throws {
        let c = try #require(FocusCases.all.first { $0.name.hasPrefix("base decisions derived") })
        let script = FocusScript(capture: c.capture, edl: c.edl)
        #expect(script.decisions.allSatisfy { $0.isDerived && $0.source == .captured })
        let plain = try #require(FocusCases.all.first { $0.name.hasPrefix("captured only") })
        #expect(FocusScript(capture: plain.capture, edl: plain.edl).decisions.allSatisfy { !$0.isDerived })
    }

    @Test func aFixedUserTrackIsNeverLost() {
        let track = UserDetectionTrack(
            id: 1_000_001, kind: .fixed,
            samples: [.init(frame: 20, rect: NormalizedRect(x: 0.4, y: 0.4, width: 0.1, height: 0.1), disparity: 1.0)])
        let capture = F.capture(frames: 60, tracks: [F.a], base: [(0, .detection(1))])
        let script = FocusScript(capture: capture, edl: F.edl([F.user(20, .detection(1_000_001), .strong)], tracks: [track]))
        #expect(!script.decisions.contains { $0.source == .revert })
        #expect(script.frame(59).primary == .detection(1_000_001) && script.frame(59).focusDisparity == 1.0)
    }

    @Test func noTargetAndNonFiniteDisparityAreSuppressed() {
        let capture = F.capture(frames: 20, tracks: [F.a], base: [(0, .detection(1)), (5, .none)])
        let script = FocusScript(
            capture: capture, edl: F.edl([F.user(10, .fixedDisparity(.nan), .weak), F.user(12, .group(0), .weak)]))
        #expect(
            script.decisions.map(ListedDecision.init) == [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.captured, 1, at: 5, .noTarget),
                ListedDecision(.user, 0, at: 10, .noDisparity),
                ListedDecision(.user, 1, at: 12, .targetNotTracked),
            ])
        #expect(script.frames.allSatisfy { $0.focusDisparity == 0.5 && $0.primary == .detection(1) })
    }

    @Test func hostileInputNeverTrapsAndAlwaysGivesFiniteFocus() {
        var p = CinematicParameters()
        p.maxDisparityRate = .nan
        p.minTransition = -1
        p.maxTransition = .infinity
        p.gapBridge = .greatestFiniteMagnitude
        p.weakSuppression = .nan
        let nanDetection = FocusFixture.Track(id: 5, spans: [(0...9, .constant(.nan))])
        let samples: [UserDetectionTrack.Sample] = [Int64.min, -1, 3, Int64.max].map {
            .init(frame: $0, rect: NormalizedRect(x: 0, y: 0, width: 1, height: 1), disparity: 0.7)
        }
        for parameters in [p, CinematicParameters()] {
            let capture = F.capture(
                frames: 10, tracks: [F.a, nanDetection], base: [(0, .detection(5)), (2, .point(x: 2, y: 2))], parameters: parameters)
            let edl = F.edl(
                [
                    UserDecision(time: MediaTime(value: Int64.max, timescale: 1), frame: 0, target: .detection(1), strength: .strong),
                    UserDecision(time: MediaTime(value: Int64.min, timescale: 1), frame: 0, target: .detection(1_000_000), strength: .weak),
                    UserDecision(time: MediaTime(value: 4, timescale: 10), frame: 4, target: .detection(1_000_000), strength: .strong),
                    F.user(6, .point(x: 0.5, y: 0.5), .weak, min: -3, max: .nan),
                    F.user(7, .detection(5), .strong),
                ],
                tracks: [UserDetectionTrack(id: 1_000_000, kind: .custom, samples: samples)])
            let script = FocusScript(capture: capture, edl: edl)
            #expect(script.frames.count == 10)
            #expect(script.frames.allSatisfy { $0.focusDisparity.isFinite })
            #expect(script.decisions.filter { $0.source != .revert }.count == 7)
        }
        let empty = FocusScript(capture: F.capture(frames: 0, tracks: []), edl: EditDecisionList())
        #expect(empty.frames.isEmpty && empty.decisions.isEmpty)
    }

    // MARK: The demo clip

    static func demoCapture(_ options: DemoScene.Options, keepDecisions: Bool = true) throws -> (DemoScene, CaptureTimeline) {
        let scene = try DemoScene(options: options)
        var frames = (0..<scene.frameCount).map { scene.metadata($0) }
        if !keepDecisions {
            for n in frames.indices { frames[n].decision = nil }
        }
        let rate = try #require(FrameRate(frames: Int64(options.framesPerSecond), per: 1))
        let grid = FrameGrid(rate: rate, frameCount: Int64(frames.count))
        return (scene, CaptureTimeline(grid: grid, frames: frames, parameters: scene.parameters))
    }

    static let demoOptions: [DemoScene.Options] = [
        .init(width: 128, height: 72, seconds: 6, framesPerSecond: 30),
        .init(width: 128, height: 72, seconds: 17, framesPerSecond: 24),
        .init(width: 128, height: 72, seconds: 9, framesPerSecond: 25),
    ]

    @Test(arguments: FocusScriptTests.demoOptions, [true, false])
    func demoWithoutUserDecisionsMatchesTheCapturedFocus(options: DemoScene.Options, keepDecisions: Bool) throws {
        let (scene, capture) = try Self.demoCapture(options, keepDecisions: keepDecisions)
        let script = FocusScript(capture: capture, edl: EditDecisionList())
        #expect(script.effectiveDecisions.map(\.frame) == scene.decisions.map(\.frame))
        #expect(script.effectiveDecisions.map(\.target) == scene.decisions.map(\.decision.target))
        #expect(script.decisions.allSatisfy { $0.isDerived != keepDecisions })
        for (n, f) in script.frames.enumerated() {
            let captured = try #require(capture.frames[n].focus)
            #expect(
                abs(f.focusDisparity - captured.focusDisparity) <= 1e-4, "frame \(n): \(f.focusDisparity) vs \(captured.focusDisparity)")
            #expect(f.primary == captured.target, "frame \(n)")
            #expect(f.isInTransition == captured.inTransition, "frame \(n)")
            if captured.inTransition {
                #expect(abs((f.transitionProgress ?? -1) - captured.transitionProgress) <= 1e-4, "frame \(n)")
            }
        }
    }

    @Test func demoWithAStrongUserDecisionHoldsTheDog() throws {
        // 6 s at 30 fps: base decisions A (0), B (66), A (132). A strong decision on the dog's head (8) at 1.0 s
        // suppresses the two later ones; the dog is in frame throughout, so focus stays there to the end.
        let (_, capture) = try Self.demoCapture(.init(width: 128, height: 72, seconds: 6, framesPerSecond: 30))
        var edl = EditDecisionList()
        edl.decisions = [UserDecision(time: MediaTime(value: 1, timescale: 1), frame: 30, target: .detection(8), strength: .strong)]
        let script = FocusScript(capture: capture, edl: edl)
        #expect(
            script.decisions.map(ListedDecision.init) == [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 30),
                ListedDecision(.captured, 1, at: 66, .strongUserDecision(0)),
                ListedDecision(.captured, 2, at: 132, .strongUserDecision(0)),
            ])
        // 0.5 → 0.8 D: 0.6 s, from frame 12.
        #expect(script.frame(11).transitionProgress == nil && abs((script.frame(12).transitionProgress ?? -1) - 0) < 1e-4)
        #expect(script.frames[30...].allSatisfy { $0.primary == .detection(8) && abs($0.focusDisparity - 0.8) < 1e-6 })
    }

    @Test func demoBallLeavingTheFrameRevertsToTheCapturedDecisions() throws {
        // The ball (9, 2.0 D) is detected on frames 0…24, then gone for about 1.9 s. A strong decision on it at
        // 0.5 s (frame 15) is lost: last seen 24, revert at 24 + 30 = 54 to A (base decision 0), a 1 s rack from
        // frame 24. After the revert the base decisions rule again: B at 66 (clipped to start at 54), A at 132.
        let (_, capture) = try Self.demoCapture(.init(width: 128, height: 72, seconds: 6, framesPerSecond: 30))
        var edl = EditDecisionList()
        edl.decisions = [UserDecision(time: MediaTime(value: 15, timescale: 30), frame: 15, target: .detection(9), strength: .strong)]
        let script = FocusScript(capture: capture, edl: edl)
        #expect(
            script.decisions.map(ListedDecision.init) == [
                ListedDecision(.captured, 0, at: 0), ListedDecision(.user, 0, at: 15), ListedDecision(.revert, 0, at: 54),
                ListedDecision(.captured, 1, at: 66),
                ListedDecision(.captured, 2, at: 132),
            ])
        #expect(script.frame(20).primary == .detection(9) && script.frame(20).focusDisparity == 2.0)
        #expect(script.frame(23).transitionProgress == nil && script.frame(24).transitionProgress == 0)
        #expect(script.frame(24).primary == .detection(1) && script.frame(24).secondary == .detection(9))
        #expect(abs(script.frame(39).focusDisparity - 1.25) < 1e-4)  // p = 0.5: (2.0 + 0.5) / 2
        #expect(script.frame(53).primary == .detection(1) && script.frame(53).secondary == .detection(9))
        // A → B: nominally 1 s from frame 36, clipped to start at the revert (frame 54), 0.4 s long; so on frame
        // 54 focus has arrived at A (0.5 D) and the rack to B begins (p = 0).
        let b = try #require(script.decisions.first { $0.source == .captured && $0.index == 1 }?.transition)
        #expect(b.isClipped && abs(b.duration - 0.4) < 1e-9)
        let arrival = script.frame(54)
        #expect(arrival.primary == .detection(4) && arrival.secondary == .detection(1))
        #expect(arrival.focusDisparity == 0.5 && arrival.transitionProgress == 0)
    }
}
