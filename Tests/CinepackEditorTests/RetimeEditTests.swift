import CinepackEDL
import CinepackFormat
import CinepackTime
import Testing

@testable import CinepackEditor

@Suite struct RetimeEditTests {
    typealias F = RetimeFixtures

    // MARK: moveDecision

    @Test func moveSnapsToTheNearestFrameTiesEarlier() throws {
        let retimer = try Retimer(F.edl(decisions: [10, 20, 30]))
        // 15.5 frames: exactly half way, so frame 15.
        let half = try retimer.moveDecision(0, to: MediaTime(value: 31, timescale: 60))
        #expect(half.edl.decisions.map(\.frame) == [15, 20, 30])
        #expect(half.edl.decisions[0].time == F.t(15))
        #expect(half.report.snapped?.frame == 15)
        #expect(half.report.snapped?.wasExact == false)
        #expect(half.report.moves == [.init(fromIndex: 0, toIndex: 0, fromFrame: 10, toFrame: 15, fromTime: F.t(10), toTime: F.t(15))])
        #expect(half.report.messages.first == "31/60s is not a frame start: snapped to frame 15, at 15/30s")
        // Just past half way: the later frame.
        let past = try retimer.moveDecision(0, to: MediaTime(value: 3101, timescale: 6000))
        #expect(past.edl.decisions[0].frame == 16)
    }

    @Test func moveKeepsTimeOrder() throws {
        let retimer = try Retimer(F.edl(decisions: [10, 20, 30]))
        let r = try retimer.moveDecision(0, to: F.t(25))
        #expect(r.edl.decisions.map(\.frame) == [20, 25, 30])
        #expect(r.edl.decisions.map(\.target) == [.detection(2), .detection(1), .detection(3)])
        #expect(r.report.moves.map(\.toIndex) == [1])
        #expect(r.report.messages.contains("decision 1 moved from frame 10 (10/30s) to frame 25 (25/30s)"))
    }

    @Test func moveOntoAnotherDecisionIsRefusedUnlessReplacing() throws {
        let retimer = try Retimer(F.edl(decisions: [10, 20, 30]))
        #expect(
            throws: RetimeError(
                "decision 1: frame 20 already has decision 2; at most one decision per frame (move with replacing to replace it) (spec/retime.md §3.1)"
            )
        ) { try retimer.moveDecision(0, to: F.t(20)) }
        let r = try retimer.moveDecision(0, to: F.t(20), replacing: true)
        #expect(r.edl.decisions.map(\.frame) == [20, 30])
        #expect(r.edl.decisions[0].target == .detection(1))
        #expect(r.report.replaced.map(\.target) == [.detection(2)])
        #expect(r.report.messages.contains("decision 2 at frame 20 was replaced by the moved decision"))
    }

    @Test func moveOutsideTheClipIsRefused() throws {
        let retimer = try Retimer(F.edl(decisions: [10]))
        #expect(throws: RetimeError.self) { try retimer.moveDecision(0, to: F.t(300)) }
        #expect(throws: RetimeError.self) { try retimer.moveDecision(0, to: MediaTime(value: -1, timescale: 30)) }
        #expect(throws: RetimeError.self) { try retimer.moveDecision(1, to: F.t(3)) }
        // Onto its own frame: nothing moves.
        let same = try retimer.moveDecision(0, to: F.t(10))
        #expect(same.edl == retimer.edl)
        #expect(same.report.moves.isEmpty)
    }

    @Test func moveKeepsTheStoredTimescaleWhenItCan() throws {
        var edl = F.edl(decisions: [])
        edl.decisions = [UserDecision(time: MediaTime(value: 1, timescale: 1), frame: 30, target: .detection(1), strength: .strong)]
        let retimer = try Retimer(edl)
        #expect(try retimer.moveDecision(0, to: MediaTime(value: 2, timescale: 1)).edl.decisions[0].time.description == "2s")
        #expect(try retimer.moveDecision(0, to: F.t(31)).edl.decisions[0].time.description == "31/30s")
    }

    @Test func moveIntoATrimmedPartIsReportedInactive() throws {
        let retimer = try Retimer(F.edl(decisions: [10], ranges: [F.range(0, 50)]))
        let r = try retimer.moveDecision(0, to: F.t(100))
        #expect(r.edl.decisions.map(\.frame) == [100])
        #expect(r.report.inactive == [InactiveDecision(index: 0, decision: r.edl.decisions[0])])
        #expect(r.report.messages.last == "decision 1 at frame 100 is outside the kept ranges: kept in the EDL, inactive for output")
    }

    // MARK: shift

    @Test func shiftMovesEveryDecisionInTheRange() throws {
        let retimer = try Retimer(F.edl(decisions: [10, 20, 30, 40]))
        let r = try retimer.shift(range: F.t(15)..<F.t(35), by: F.t(5))
        #expect(r.edl.decisions.map(\.frame) == [10, 25, 35, 40])
        #expect(r.report.moves.map(\.fromIndex) == [1, 2])
        #expect(r.report.moves.map(\.toFrame) == [25, 35])
        #expect(
            r.report.messages == [
                "decision 2 moved from frame 20 (20/30s) to frame 25 (25/30s)", "decision 3 moved from frame 30 (1s) to frame 35 (35/30s)",
            ])
        let back = try Retimer(r.edl).shift(range: F.t(25)..<F.t(36), by: MediaTime(value: -5, timescale: 30))
        #expect(back.edl == retimer.edl)
    }

    @Test func shiftMayPassOtherDecisionsButNotLandOnThem() throws {
        let retimer = try Retimer(F.edl(decisions: [10, 20, 30]))
        let r = try retimer.shift(range: F.t(0)..<F.t(15), by: F.t(15))
        #expect(r.edl.decisions.map(\.frame) == [20, 25, 30])
        #expect(r.report.moves == [.init(fromIndex: 0, toIndex: 1, fromFrame: 10, toFrame: 25, fromTime: F.t(10), toTime: F.t(25))])
        #expect(
            throws: RetimeError(
                "decision 1 at frame 10 would land on frame 20, which has decision 2 (not in the range); nothing was shifted (spec/retime.md §3.2)"
            )
        ) { try retimer.shift(range: F.t(0)..<F.t(15), by: F.t(10)) }
    }

    @Test func shiftOutOfTheClipIsRefused() throws {
        let retimer = try Retimer(F.edl(decisions: [10, 290]))
        #expect(
            throws: RetimeError(
                "decision 2 at frame 290 would move to frame 300, outside the media's frames 0…299; nothing was shifted (spec/retime.md §3.2)"
            )
        ) { try retimer.shift(range: F.t(0)..<F.t(300), by: F.t(10)) }
        #expect(throws: RetimeError.self) { try retimer.shift(range: F.t(0)..<F.t(20), by: MediaTime(value: -11, timescale: 30)) }
    }

    @Test func shiftOffsetIsSnappedToWholeFrames() throws {
        let retimer = try Retimer(F.edl(decisions: [10]))
        let r = try retimer.shift(range: F.t(0)..<F.t(20), by: MediaTime(value: 1, timescale: 10))  // 3 frames exactly
        #expect(r.edl.decisions[0].frame == 13)
        let snapped = try retimer.shift(range: F.t(0)..<F.t(20), by: MediaTime(value: 5, timescale: 60))  // 2.5 frames
        #expect(snapped.edl.decisions[0].frame == 12)
        #expect(snapped.report.snapped?.frame == 2)
        let none = try retimer.shift(range: F.t(11)..<F.t(20), by: F.t(3))
        #expect(none.edl == retimer.edl)
        #expect(none.report.messages == ["no decision lies in 11/30s..<20/30s: nothing moved"])
    }

    // MARK: trim

    @Test func trimReportsHiddenDecisionsAndKeepsThem() throws {
        let retimer = try Retimer(F.edl(decisions: [10, 100, 200]))
        let r = try retimer.trim(keep: [F.range(150, 250), F.range(0, 50)])
        #expect(r.edl.sourceRanges == [F.range(150, 250), F.range(0, 50)])
        #expect(r.edl.decisions == retimer.edl.decisions)
        #expect(r.report.inactive.map(\.index) == [1])
        #expect(r.report.outputDurationBefore == MediaTime(value: 10, timescale: 1))
        #expect(r.report.outputDurationAfter == MediaTime(value: 5, timescale: 1))
        #expect(try Retimer(r.edl).inactiveDecisions().map(\.decision.frame) == [100])
        // Keeping everything again makes it active.
        let all = try Retimer(r.edl).trim(keep: [])
        #expect(all.report.inactive.isEmpty)
        #expect(all.edl.sourceRanges.isEmpty)
    }

    @Test func trimValidates() throws {
        let retimer = try Retimer(F.edl())
        #expect(
            throws: RetimeError(
                "range 2 (10/30s..<1s) overlaps range 1 (0s..<20/30s); a trim keeps each source frame once (use allowingRepeats to play a shot twice) (spec/retime.md §3.3)"
            )
        ) { try retimer.trim(keep: [F.range(0, 20), F.range(10, 30)]) }
        #expect(try retimer.trim(keep: [F.range(0, 20), F.range(10, 30)], allowingRepeats: true).report.outputDurationAfter == F.t(40))
        #expect(throws: RetimeError.self) { try retimer.trim(keep: [SourceRange(start: .zero, end: MediaTime(value: 1, timescale: 7))]) }
        #expect(throws: RetimeError.self) { try retimer.trim(keep: [F.range(10, 10)]) }
        #expect(throws: RetimeError.self) { try retimer.trim(keep: [F.range(290, 310)]) }
        // Back to back is not an overlap.
        #expect(try retimer.trim(keep: [F.range(20, 30), F.range(0, 20)]).report.outputDurationAfter == F.t(30))
    }

    // MARK: setSpeed

    @Test func setSpeedValidatesAndReplaces() throws {
        let retimer = try Retimer(F.edl(speeds: [F.speed(0, 30, 2, 1), F.speed(60, 90, 1, 2)]))
        #expect(retimer.timeline.outputDuration == F.t(15 + 30 + 60 + 210))
        #expect(
            throws: RetimeError(
                "speed 20/30s..<70/30s overlaps speed 1 (0s..<1s at 2/1); speed changes do not overlap (set it with replacing to replace that part) (spec/retime.md §3.4)"
            )
        ) { try retimer.setSpeed(F.speed(20, 70, 3, 1)) }
        let r = try retimer.setSpeed(F.speed(20, 70, 3, 1), replacing: true)
        #expect(r.edl.speedSegments == [F.speed(0, 20, 2, 1), F.speed(20, 70, 3, 1), F.speed(70, 90, 1, 2)])
        #expect(r.report.replacedSpeedSegments == [F.speed(0, 30, 2, 1), F.speed(60, 90, 1, 2)])
        #expect(r.report.messages.contains("speed 1 (0s..<1s at 2/1) was cut back to 0s..<20/30s"))
        // 50 source frames at 3/1 last 16⅔ program frames: reported.
        #expect(r.report.messages.contains { $0.hasPrefix("source frames 20..<70 last 50/3 program frames") })
    }

    @Test func normalSpeedClearsASpan() throws {
        let retimer = try Retimer(F.edl(speeds: [F.speed(0, 30, 2, 1)]))
        let r = try retimer.setSpeed(F.speed(10, 20, 4, 4), replacing: true)
        #expect(r.edl.speedSegments == [F.speed(0, 10, 2, 1), F.speed(20, 30, 2, 1)])
        #expect(r.report.messages.contains("speed 10/30s..<20/30s plays at normal speed: no speed segment stored"))
    }

    @Test func setSpeedRefusesBadSegments() throws {
        let retimer = try Retimer(F.edl())
        #expect(throws: RetimeError.self) { try retimer.setSpeed(F.speed(0, 30, 0, 1)) }
        #expect(throws: RetimeError.self) { try retimer.setSpeed(F.speed(30, 30, 2, 1)) }
        #expect(throws: RetimeError.self) { try retimer.setSpeed(F.speed(290, 301, 2, 1)) }
        #expect(throws: RetimeError.self) {
            try retimer.setSpeed(SpeedSegment(start: .zero, end: MediaTime(value: 1, timescale: 7), rateNumerator: 2, rateDenominator: 1))
        }
        #expect(throws: RetimeError.self) { try retimer.setSpeed(F.speed(0, 30, Int64.max, 1)) }
    }
}
