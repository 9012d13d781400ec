import Testing

@testable import CinepackTime

private func t(_ value: Int64, _ timescale: Int32) -> MediaTime { MediaTime(value: value, timescale: timescale) }
private func grid(_ frames: Int64, _ seconds: Int64 = 1, start: MediaTime = .zero) -> FrameGrid {
    guard let r = FrameRate(frames: frames, per: seconds) else { fatalError("invalid test rate") }
    return FrameGrid(rate: r, start: start)
}

@Suite struct FrameGridTests {
    /// The worked example from the references: 12.3 s at 29.97 fps is frame 368.63 → 369 = 369369/30000 s.
    @Test func worked12Point3SecondsAt2997() {
        let g = grid(30000, 1001)
        let s = g.snap(t(123, 10))
        #expect(s.frame == 369)
        #expect(s.time.value == 369369 && s.time.timescale == 30000)
        #expect(s.time.description == "369369/30000s")
        #expect(s.requested == t(123, 10))
        #expect(!s.wasExact)
        #expect(g.frame(containing: t(123, 10)) == 368)
        #expect(g.time(ofFrame: 369) == t(369369, 30000))
    }

    struct SnapCase: Sendable, CustomTestStringConvertible {
        var grid: FrameGrid
        var time: MediaTime
        var nearest: Int64
        var floor: Int64
        var testDescription: String { "\(time) at \(grid.rate) fps from \(grid.start)" }
    }

    @Test(arguments: [
        // Exactly halfway goes to the EARLIER frame (spec/time.md §3).
        SnapCase(grid: grid(30), time: t(1, 60), nearest: 0, floor: 0),
        SnapCase(grid: grid(30), time: t(3, 60), nearest: 1, floor: 1),
        SnapCase(grid: grid(30), time: t(5, 60), nearest: 2, floor: 2),
        SnapCase(grid: grid(30), time: t(-1, 60), nearest: -1, floor: -1),
        SnapCase(grid: grid(30), time: t(-3, 60), nearest: -2, floor: -2),
        SnapCase(grid: grid(30000, 1001), time: t(1001, 60000), nearest: 0, floor: 0),
        SnapCase(grid: grid(30000, 1001), time: t(3003, 60000), nearest: 1, floor: 1),
        SnapCase(grid: grid(24), time: t(1, 48), nearest: 0, floor: 0),
        // Just past halfway goes forward.
        SnapCase(grid: grid(24), time: t(1_000_000_001 / 48 + 1, 1_000_000_000), nearest: 1, floor: 0),
        SnapCase(grid: grid(30), time: t(1_666_667, 100_000_000), nearest: 1, floor: 0),
        SnapCase(grid: grid(30), time: t(1_666_666, 100_000_000), nearest: 0, floor: 0),
        // A grid that starts at 10 s.
        SnapCase(grid: grid(24, start: t(10, 1)), time: t(10, 1), nearest: 0, floor: 0),
        SnapCase(grid: grid(24, start: t(10, 1)), time: t(999, 100), nearest: 0, floor: -1),
        SnapCase(grid: grid(24, start: t(10, 1)), time: t(997, 100), nearest: -1, floor: -1),
        SnapCase(grid: grid(24, start: t(10, 1)), time: t(481, 48), nearest: 0, floor: 0),
        // A start off the frame grid's own timescale.
        SnapCase(grid: grid(30000, 1001, start: t(1, 3)), time: t(1, 3), nearest: 0, floor: 0),
        SnapCase(grid: grid(30000, 1001, start: t(1, 3)), time: t(0, 1), nearest: -10, floor: -10),
    ])
    func snapping(_ c: SnapCase) {
        let s = c.grid.snap(c.time)
        #expect(s.frame == c.nearest)
        #expect(s.time == c.grid.time(ofFrame: c.nearest))
        #expect(s.requested == c.time)
        #expect(c.grid.frame(containing: c.time) == c.floor)
    }

    @Test(arguments: [grid(30), grid(30000, 1001), grid(60000, 1001), grid(25, 2), grid(24, start: t(7, 3))])
    func frameStartsSnapExactly(_ g: FrameGrid) {
        for n in Int64(-50)...500 {
            let time = g.time(ofFrame: n)
            let s = g.snap(time)
            #expect(s.frame == n && s.wasExact && s.time == time)
            #expect(g.frame(containing: time) == n)
            // A thousandth of a tick before a frame start belongs to the previous frame but snaps forward.
            let justBefore = t(time.value * 1000 - 1, time.timescale * 1000)
            #expect(g.frame(containing: justBefore) == n - 1)
            #expect(g.snap(justBefore).frame == n)
            #expect(!g.snap(justBefore).wasExact)
        }
    }

    @Test(
        arguments: [
            (grid(30000, 1001), Int64(369), t(369369, 30000)),
            (grid(30000, 1001), 0, t(0, 1)),
            (grid(30000, 1001), -1, t(-1001, 30000)),
            (grid(30), 45, t(3, 2)),
            (grid(24, start: t(10, 1)), 24, t(11, 1)),
            (grid(30000, 1001, start: t(1, 3)), 1, t(11001, 30000)),
        ] as [(FrameGrid, Int64, MediaTime)])
    func timeOfFrame(_ g: FrameGrid, _ n: Int64, _ expected: MediaTime) {
        #expect(g.time(ofFrame: n) == expected)
    }

    @Test func timeOfFrameUsesTheStartTimescaleWhenItCan() {
        let g = grid(24, start: t(0, 600))
        let time = g.time(ofFrame: 1)
        #expect(time.value == 25 && time.timescale == 600)
        let ntsc = grid(30000, 1001).time(ofFrame: 1)
        #expect(ntsc.value == 1001 && ntsc.timescale == 30000)
    }

    @Test func hugeValuesAreNilInsteadOfTrapping() {
        let g = grid(30000, 1001)
        #expect(g.checkedTime(ofFrame: Int64.max) == nil)
        #expect(g.checkedTime(ofFrame: Int64.min) == nil)
        #expect(g.checkedSnap(t(Int64.max, 1)) == nil)
        #expect(g.checkedFrame(containing: t(Int64.max, 1)) == nil)
        #expect(g.checkedSnap(t(Int64.min, 1)) == nil)
        // Large but representable: Int64.max ticks of 1/30000 s.
        let far = t(Int64.max / 1001 * 1001, 30000)
        #expect(g.checkedSnap(far)?.frame == Int64.max / 1001)
        #expect(g.checkedFrame(containing: t(Int64.max, Int32.max)) != nil)
        // Start and rate with no common timescale within Int32: frame times that do not reduce are nil.
        let odd = grid(30000, 1001, start: t(1, 1_000_000_007))
        #expect(odd.checkedTime(ofFrame: 1) == nil)
        #expect(odd.checkedTime(ofFrame: 0) == t(1, 1_000_000_007))
        #expect(odd.checkedFrame(containing: t(1, 1)) == 29)
    }

    @Test func containsChecksTheClip() {
        let r = FrameRate(frames: 30, per: 1) ?? FrameRate.approximating(30)
        let clip = FrameGrid(rate: r, frameCount: 10)
        #expect(clip.contains(frame: 0) && clip.contains(frame: 9))
        #expect(!clip.contains(frame: 10) && !clip.contains(frame: -1))
        #expect(clip.snap(t(100, 1)).frame == 3000)  // snapping never clamps
        #expect(FrameGrid(rate: r).contains(frame: 1_000_000))
    }

    @Test func gridsAreHashableByValue() {
        #expect(grid(30, start: t(0, 1)) == grid(60, 2, start: t(0, 600)))
        #expect(Set([grid(30), grid(60, 2), grid(30000, 1001)]).count == 2)
    }
}
