import CinepackEDL
import CinepackFormat
import CinepackTime
import Testing

@testable import CinepackEditor

/// Fixtures shared by the retiming tests.
enum RetimeFixtures {
    static let rate30 = FrameRate(frames: 30, per: 1)!
    static let ntsc = FrameRate(frames: 30000, per: 1001)!

    static func grid(_ rate: FrameRate = rate30, frames: Int64 = 300) -> FrameGrid {
        FrameGrid(rate: rate, frameCount: frames)
    }

    /// Source time of frame `n` on `grid`.
    static func t(_ n: Int64, _ grid: FrameGrid = grid()) -> MediaTime { grid.time(ofFrame: n) }

    static func range(_ a: Int64, _ b: Int64, _ grid: FrameGrid = grid()) -> SourceRange {
        SourceRange(start: t(a, grid), end: t(b, grid))
    }

    static func speed(_ a: Int64, _ b: Int64, _ n: Int64, _ d: Int64, _ grid: FrameGrid = grid()) -> SpeedSegment {
        SpeedSegment(start: t(a, grid), end: t(b, grid), rateNumerator: n, rateDenominator: d)
    }

    static func decision(_ frame: Int64, _ target: FocusTarget = .detection(1), _ grid: FrameGrid = grid()) -> UserDecision {
        UserDecision(time: t(frame, grid), frame: frame, target: target, strength: .weak)
    }

    static func edl(
        rate: FrameRate = rate30, frames: Int = 300, decisions: [Int64] = [], ranges: [SourceRange] = [], speeds: [SpeedSegment] = []
    ) -> EditDecisionList {
        var edl = EditDecisionList()
        edl.media = MediaBinding(frameCount: frames, frameRate: rate, fingerprint: "0123456789abcdef")
        let g = grid(rate, frames: Int64(frames))
        edl.decisions = decisions.enumerated().map { decision($0.element, .detection(UInt32($0.offset + 1)), g) }
        edl.sourceRanges = ranges
        edl.speedSegments = speeds
        return edl
    }
}

@Suite struct RetimeTimelineTests {
    typealias F = RetimeFixtures

    @Test func noEditsIsTheIdentity() throws {
        let g = F.grid(F.ntsc, frames: 900)
        let tl = try EditTimeline(sourceRanges: [], speedSegments: [], grid: g)
        #expect(tl.outputDuration == g.time(ofFrame: 900))
        #expect(tl.outputFrameCount == 900)
        #expect(tl.keptRanges == [F.range(0, 900, g)])
        for n: Int64 in [0, 1, 369, 899] {
            #expect(tl.outputTime(ofSource: g.time(ofFrame: n)) == g.time(ofFrame: n))
            #expect(tl.sourceFrame(ofOutputFrame: n) == n)
            #expect(tl.outputFrame(ofSourceFrame: n) == n)
        }
        // Exact rational text, in the grid's timescale.
        #expect(tl.outputTime(ofSource: g.time(ofFrame: 369))?.description == "369369/30000s")
        #expect(tl.outputTime(ofSource: g.time(ofFrame: 900)) == nil)
        #expect(tl.sourceTime(ofOutput: tl.outputDuration) == nil)
        #expect(tl.sourceTime(ofOutput: MediaTime(value: -1, timescale: 30000)) == nil)
    }

    @Test func trimsPlayInPlaybackOrder() throws {
        let tl = try EditTimeline(sourceRanges: [F.range(60, 90), F.range(0, 30)], speedSegments: [], grid: F.grid())
        #expect(tl.outputDuration == MediaTime(value: 2, timescale: 1))
        #expect(tl.outputTime(ofSource: F.t(60)) == .zero)
        #expect(tl.outputTime(ofSource: F.t(0)) == MediaTime(value: 1, timescale: 1))
        #expect(tl.outputTime(ofSource: F.t(29)) == MediaTime(value: 59, timescale: 30))
        #expect(tl.outputTime(ofSource: F.t(45)) == nil)
        #expect(tl.outputTime(ofSource: F.t(90)) == nil)
        #expect(!tl.isKept(sourceFrame: 45))
        #expect(tl.sourceFrame(ofOutputFrame: 30) == 0)
        #expect(tl.sourceFrame(ofOutputFrame: 29) == 89)
        #expect(tl.pieces.map(\.rangeIndex) == [0, 1])
    }

    @Test func aShotUsedTwicePlaysTwice() throws {
        let tl = try EditTimeline(sourceRanges: [F.range(0, 30), F.range(10, 20)], speedSegments: [], grid: F.grid())
        #expect(tl.outputTimes(ofSource: F.t(15)) == [MediaTime(value: 15, timescale: 30), MediaTime(value: 35, timescale: 30)])
        #expect(tl.outputTime(ofSource: F.t(15)) == MediaTime(value: 15, timescale: 30))
    }

    /// 2/1: every other source frame is shown; odd frames are never shown, and the program reaches
    /// an odd frame's moment at the next program frame.
    @Test func doubleSpeedDropsEveryOtherFrame() throws {
        let tl = try EditTimeline(sourceRanges: [F.range(0, 60)], speedSegments: [F.speed(10, 30, 2, 1)], grid: F.grid())
        // 10 + 10 + 30 frames of program.
        #expect(tl.outputFrameCount == 50)
        #expect(tl.outputDuration == MediaTime(value: 50, timescale: 30))
        #expect((0..<12).map { tl.sourceFrame(ofOutputFrame: $0)! } == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12])
        #expect((18..<22).map { tl.sourceFrame(ofOutputFrame: $0)! } == [26, 28, 30, 31])
        #expect(tl.outputTime(ofSource: F.t(11)) == MediaTime(value: 21, timescale: 60))
        #expect(tl.outputFrame(ofSourceFrame: 11) == 11)
        #expect(tl.outputFrame(ofSourceFrame: 12) == 11)
        #expect(tl.outputFrame(ofSourceFrame: 30) == 20)
        #expect(tl.sourceTime(ofOutput: MediaTime(value: 21, timescale: 60)) == F.t(11))
    }

    /// 1/2: every source frame is shown twice; source frame starts land on program frame starts.
    @Test func halfSpeedShowsEveryFrameTwice() throws {
        let tl = try EditTimeline(sourceRanges: [], speedSegments: [F.speed(0, 10, 1, 2)], grid: F.grid(frames: 20))
        #expect(tl.outputFrameCount == 30)
        #expect(
            (0..<24).map { tl.sourceFrame(ofOutputFrame: $0)! } == [
                0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 11, 12, 13,
            ])
        #expect(tl.outputTime(ofSource: F.t(3)) == MediaTime(value: 6, timescale: 30))
        #expect(tl.outputFrame(ofSourceFrame: 3) == 6)
        // The program instant between the two showings maps to the middle of the source frame.
        #expect(tl.sourceTime(ofOutput: MediaTime(value: 7, timescale: 30)) == MediaTime(value: 7, timescale: 60))
    }

    @Test func ntscDoubleSpeedIsExact() throws {
        let g = F.grid(F.ntsc, frames: 900)
        let tl = try EditTimeline(sourceRanges: [], speedSegments: [F.speed(0, 900, 2, 1, g)], grid: g)
        let one = try #require(tl.outputTime(ofSource: g.time(ofFrame: 1)))
        #expect(one == MediaTime(value: 1001, timescale: 60000))
        #expect(one.description == "1001/60000s")
        #expect(tl.outputDuration == g.time(ofFrame: 450))
        #expect(tl.sourceFrame(ofOutputFrame: 449) == 898)
    }

    /// Three source frames at 2/1 last a frame and a half: the program has two frames, and the next
    /// range starts half way through a program frame.
    @Test func fractionalProgramLength() throws {
        let tl = try EditTimeline(sourceRanges: [F.range(0, 3), F.range(100, 103)], speedSegments: [F.speed(0, 3, 2, 1)], grid: F.grid())
        #expect(tl.outputDuration == MediaTime(value: 9, timescale: 60))
        #expect(tl.outputFrameCount == 5)
        #expect((0..<5).map { tl.sourceFrame(ofOutputFrame: $0)! } == [0, 2, 100, 101, 102])
        #expect(tl.outputTime(ofSource: F.t(100)) == MediaTime(value: 3, timescale: 60))
        #expect(tl.outputFrame(ofSourceFrame: 100) == 2)
        #expect(tl.sourceFrame(ofOutputFrame: 5) == nil)
    }

    @Test func outputRangesToSourceRanges() throws {
        let tl = try EditTimeline(sourceRanges: [F.range(60, 90), F.range(0, 30)], speedSegments: [F.speed(0, 10, 2, 1)], grid: F.grid())
        // Program: 30 frames of 60..<90, then 5 frames of 0..<10 at 2x, then 20 frames of 10..<30.
        #expect(tl.outputFrameCount == 55)
        let ranges = try #require(tl.sourceRanges(ofOutput: MediaTime(value: 20, timescale: 30)..<MediaTime(value: 40, timescale: 30)))
        #expect(ranges == [F.range(80, 90), F.range(0, 15)])
        #expect(tl.sourceRanges(ofOutput: MediaTime(value: 99, timescale: 1)..<MediaTime(value: 100, timescale: 1)) == [])
    }

    @Test(arguments: [
        ([SourceRange(start: .zero, end: .zero)], [SpeedSegment](), "range 1: start 0s is not before end 0s (spec/retime.md §1)"),
        (
            [SourceRange(start: .zero, end: MediaTime(value: 1, timescale: 60))], [],
            "range 1: time 1/60s is not on the frame grid of 30 fps; the nearest frame is 0, at 0s (spec/retime.md §1)"
        ),
        ([RetimeFixtures.range(0, 301)], [], "range 1: end 301/30s is past the end of the media, 10s (spec/retime.md §1)"),
        (
            [], [RetimeFixtures.speed(0, 20, 2, 1), RetimeFixtures.speed(10, 30, 1, 2)],
            "speed 2: starts at 10/30s, before speed 1 ends (20/30s); speed changes are in time order and do not overlap (spec/retime.md §1)"
        ),
        ([], [RetimeFixtures.speed(0, 20, 0, 1)], "speed 1: rate 0/1 is not a speed; both parts are 1 or more (spec/retime.md §1)"),
    ])
    func invalidTimelinesAreRefused(ranges: [SourceRange], speeds: [SpeedSegment], message: String) {
        #expect(throws: RetimeError(message)) {
            try EditTimeline(sourceRanges: ranges, speedSegments: speeds, grid: RetimeFixtures.grid())
        }
    }

    @Test func unrepresentableSpeedIsRefused() {
        let g = F.grid(F.ntsc, frames: 900)
        #expect(throws: RetimeError.self) {
            try EditTimeline(sourceRanges: [], speedSegments: [F.speed(0, 1, 1_000_003, 1, g)], grid: g)
        }
    }

    @Test func needsMedia() {
        var edl = EditDecisionList()
        edl.sourceRanges = [F.range(0, 10)]
        #expect(throws: RetimeError.self) { try EditTimeline(edl: edl) }
        #expect(throws: RetimeError.self) { try Retimer(edl) }
    }
}
