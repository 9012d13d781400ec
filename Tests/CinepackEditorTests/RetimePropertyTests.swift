import CinepackEDL
import CinepackFormat
import CinepackTime
import TestSupport
import Testing

@testable import CinepackEditor

/// Seeded property tests of the retiming maps and edits (spec/retime.md §1–3).
@Suite struct RetimePropertyTests {
    typealias F = RetimeFixtures

    static let rates: [FrameRate] = [
        F.rate30, FrameRate(frames: 25, per: 1)!, FrameRate(frames: 24000, per: 1001)!, F.ntsc, FrameRate(frames: 60, per: 1)!,
    ]
    static let speeds: [(Int64, Int64)] = [(2, 1), (1, 2), (3, 1), (1, 3), (3, 2), (2, 3), (4, 1), (1, 1), (5, 4)]

    struct Case {
        var grid: FrameGrid
        var ranges: [SourceRange]
        var speeds: [SpeedSegment]
    }

    /// Distinct sorted frame numbers in `1..<count`.
    static func cuts(_ n: Int, below count: Int64, _ rng: inout SeededGenerator) -> [Int64] {
        guard count > 1 else { return [] }
        return Array(Set((0..<n).map { _ in Int64.random(in: 1..<count, using: &rng) })).sorted()
    }

    /// A random valid timeline: non-overlapping kept ranges in a random playback order (or none), and
    /// speed segments with assorted rates.
    static func randomCase(_ rng: inout SeededGenerator) -> Case {
        let rate = rates.randomElement(using: &rng)!
        let count = Int64.random(in: 20...240, using: &rng)
        let grid = FrameGrid(rate: rate, frameCount: count)
        var ranges: [SourceRange] = []
        if Bool.random(using: &rng) {
            let points = [0] + cuts(.random(in: 1...7, using: &rng), below: count, &rng) + [count]
            for (a, b) in zip(points, points.dropFirst()) where Bool.random(using: &rng) {
                ranges.append(SourceRange(start: grid.time(ofFrame: a), end: grid.time(ofFrame: b)))
            }
            ranges.shuffle(using: &rng)
        }
        var speeds: [SpeedSegment] = []
        let points = cuts(.random(in: 0...6, using: &rng), below: count, &rng)
        var i = 0
        while i + 1 < points.count {
            let (n, d) = Self.speeds.randomElement(using: &rng)!
            speeds.append(
                SpeedSegment(
                    start: grid.time(ofFrame: points[i]), end: grid.time(ofFrame: points[i + 1]), rateNumerator: n, rateDenominator: d))
            i += Int.random(in: 1...2, using: &rng)
        }
        return Case(grid: grid, ranges: ranges, speeds: speeds)
    }

    static func timeline(_ c: Case) throws -> EditTimeline {
        try EditTimeline(sourceRanges: c.ranges, speedSegments: c.speeds, grid: c.grid)
    }

    /// On the output grid: a whole number of frames from 0.
    static func isOnGrid(_ t: MediaTime, _ grid: FrameGrid) -> Bool { grid.checkedSnap(t)?.wasExact == true }

    @Test func mappingsAreMonotonicAndInvertible() throws {
        var rng = SeededGenerator(seed: 0x5EED_0001)
        for _ in 0..<150 {
            let c = Self.randomCase(&rng)
            let tl = try Self.timeline(c)
            let grid = c.grid
            // Source → output → source is the identity on every kept frame, and strictly increasing inside a piece.
            for p in tl.pieces {
                var previous: MediaTime?
                for n in p.startFrame..<p.endFrame {
                    let s = grid.time(ofFrame: n)
                    let o = try #require(tl.outputTime(ofSource: s))
                    #expect(o >= p.outputStart && o < p.outputEnd)
                    #expect(tl.sourceTime(ofOutput: o) == s)
                    if let previous { #expect(previous < o) }
                    previous = o
                }
            }
            // Output → source → output is the identity on the program's frames (no range repeats here),
            // and the frames shown never go backwards inside a piece.
            var last: (piece: Int, frame: Int64)?
            for k in 0..<tl.outputFrameCount {
                let o = tl.outputGrid.time(ofFrame: k)
                let s = try #require(tl.sourceTime(ofOutput: o))
                #expect(tl.outputTime(ofSource: s) == o)
                let shown = try #require(tl.sourceFrame(ofOutputFrame: k))
                #expect(tl.isKept(sourceFrame: shown))
                let piece = try #require(tl.pieces.lastIndex { $0.outputStart <= o })
                #expect(shown >= tl.pieces[piece].startFrame && shown < tl.pieces[piece].endFrame)
                if let last, last.piece == piece { #expect(shown >= last.frame) }
                last = (piece, shown)
            }
            // Durations add up, and the output grid covers the program.
            let total = tl.pieces.reduce(MediaTime.zero) { $0 + ($1.outputEnd - $1.outputStart) }
            #expect(total == tl.outputDuration)
            #expect(tl.outputGrid.time(ofFrame: tl.outputFrameCount) >= tl.outputDuration)
            #expect(tl.outputFrameCount == 0 || tl.outputGrid.time(ofFrame: tl.outputFrameCount - 1) < tl.outputDuration)
        }
    }

    /// Grid times map to grid times where the speed allows it: in a piece that starts on a program
    /// frame, at 1/k every source frame start is a program frame start (each source frame is shown k
    /// times), and at k/1 every program frame start is a source frame start (k − 1 of every k source
    /// frames are skipped).
    @Test func integerRatesAreFrameExact() throws {
        var rng = SeededGenerator(seed: 0x5EED_0002)
        var checkedSlow = 0
        var checkedFast = 0
        for _ in 0..<150 {
            let c = Self.randomCase(&rng)
            let tl = try Self.timeline(c)
            for p in tl.pieces where Self.isOnGrid(p.outputStart, tl.outputGrid) {
                let g = ExactRatio.gcd(UInt64(p.rateNumerator), UInt64(p.rateDenominator))
                let (num, den) = (p.rateNumerator / Int64(g), p.rateDenominator / Int64(g))
                if num == 1 {
                    for n in p.startFrame..<p.endFrame {
                        let o = try #require(tl.outputTime(ofSource: c.grid.time(ofFrame: n)))
                        let k = try #require(tl.outputGrid.checkedSnap(o))
                        #expect(k.wasExact)
                        #expect(tl.outputFrame(ofSourceFrame: n) == k.frame)
                        for repeatIndex in 0..<den where k.frame + repeatIndex < tl.outputFrameCount {
                            #expect(tl.sourceFrame(ofOutputFrame: k.frame + repeatIndex) == n)
                        }
                        checkedSlow += 1
                    }
                }
                if den == 1 {
                    let first = try #require(tl.outputGrid.checkedSnap(p.outputStart)).frame
                    var k = first
                    while k < tl.outputFrameCount, tl.outputGrid.time(ofFrame: k) < p.outputEnd {
                        let s = try #require(tl.sourceTime(ofOutput: tl.outputGrid.time(ofFrame: k)))
                        #expect(Self.isOnGrid(s, c.grid))
                        #expect(tl.sourceFrame(ofOutputFrame: k) == p.startFrame + (k - first) * num)
                        k += 1
                        checkedFast += 1
                    }
                }
            }
        }
        #expect(checkedSlow > 1000)
        #expect(checkedFast > 1000)
    }

    /// Trimming the program to [x1, y1) and the result to [x2, y2) keeps what trimming to
    /// [x1 + x2, x1 + y2) keeps, and the trimmed program plays what the original played there.
    @Test func trimsCompose() throws {
        var rng = SeededGenerator(seed: 0x5EED_0003)
        var composed = 0
        for _ in 0..<200 {
            let c = Self.randomCase(&rng)
            let t0 = try Self.timeline(c)
            guard let w1 = Self.window(t0, &rng) else { continue }
            let r1 = try #require(t0.sourceRanges(ofOutput: w1))
            // The window's bounds are source frame starts, so the trim is a valid EDL edit.
            var edl = F.edl(rate: c.grid.rate, frames: Int(c.grid.frameCount!), speeds: c.speeds)
            edl.sourceRanges = c.ranges
            let trimmed = try Retimer(edl).trim(keep: r1)
            let t1 = try EditTimeline(edl: trimmed.edl)
            #expect(t1.outputDuration == w1.upperBound - w1.lowerBound)
            for k in 0..<t1.outputFrameCount {
                let o = t1.outputGrid.time(ofFrame: k)
                #expect(t1.sourceTime(ofOutput: o) == t0.sourceTime(ofOutput: o + w1.lowerBound))
            }
            guard let w2 = Self.window(t1, &rng) else { continue }
            let r2 = try #require(t1.sourceRanges(ofOutput: w2))
            let r12 = try #require(t0.sourceRanges(ofOutput: (w1.lowerBound + w2.lowerBound)..<(w1.lowerBound + w2.upperBound)))
            #expect(r2 == r12)
            composed += 1
        }
        #expect(composed > 100)
    }

    /// A program window whose bounds are where source frames start (or the program's end).
    static func window(_ tl: EditTimeline, _ rng: inout SeededGenerator) -> Range<MediaTime>? {
        let kept = tl.pieces.flatMap { Array($0.startFrame..<$0.endFrame) }
        guard kept.count >= 2 else { return nil }
        var bounds = [tl.outputDuration]
        for _ in 0..<2 {
            if let n = kept.randomElement(using: &rng), let o = tl.outputTime(ofSource: tl.sourceGrid.time(ofFrame: n)) { bounds.append(o) }
        }
        bounds.sort()
        let a = bounds[0]
        let b = bounds[Int.random(in: 1..<bounds.count, using: &rng)]
        return a < b ? a..<b : nil
    }

    /// Shifting the decisions of a range and shifting them back restores the EDL; a refused shift
    /// changes nothing; a successful one keeps decisions in strict frame order inside the clip.
    @Test func shiftThenShiftBackIsTheIdentity() throws {
        var rng = SeededGenerator(seed: 0x5EED_0004)
        var restored = 0
        var refused = 0
        for _ in 0..<400 {
            let count = Int64.random(in: 10...120, using: &rng)
            let rate = Self.rates.randomElement(using: &rng)!
            let frames = Self.cuts(.random(in: 0...12, using: &rng), below: count, &rng)
            let edl = F.edl(rate: rate, frames: Int(count), decisions: frames)
            let grid = FrameGrid(rate: rate, frameCount: count)
            let a = Int64.random(in: 0..<count, using: &rng)
            let b = Int64.random(in: a...count, using: &rng)
            let d = Int64.random(in: -20...20, using: &rng)
            let range = grid.time(ofFrame: a)..<grid.time(ofFrame: b)
            let offset = FrameGrid(rate: rate).time(ofFrame: d)
            let retimer = try Retimer(edl)
            let result: RetimeResult
            do {
                result = try retimer.shift(range: range, by: offset)
            } catch {
                refused += 1
                continue
            }
            let after = result.edl.decisions.map(\.frame)
            #expect(after == after.sorted() && Set(after).count == after.count)
            #expect(after.allSatisfy { $0 >= 0 && $0 < count })
            #expect(result.report.moves.count == (d == 0 ? 0 : frames.filter { $0 >= a && $0 < b }.count))
            for m in result.report.moves {
                #expect(m.toFrame == m.fromFrame + d)
                #expect(result.edl.decisions[m.toIndex].frame == m.toFrame)
            }
            // Shift back the range the moved decisions now occupy, if nothing else is in it.
            let moved = Set(result.report.moves.map(\.toIndex))
            let backRange = grid.time(ofFrame: a + d)..<grid.time(ofFrame: b + d)
            let intruders = result.edl.decisions.indices.filter { !moved.contains($0) && backRange.contains(result.edl.decisions[$0].time) }
            guard intruders.isEmpty else { continue }
            let back = try Retimer(result.edl).shift(range: backRange, by: FrameGrid(rate: rate).time(ofFrame: -d))
            #expect(back.edl == edl)
            restored += 1
        }
        #expect(restored > 200)
        #expect(refused > 20)
    }
}
