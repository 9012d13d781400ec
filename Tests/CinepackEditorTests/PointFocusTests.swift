import CinepackEDL
import CinepackFormat
import CinepackTime
import TestSupport
import Testing

@testable import CinepackEditor

/// Synthetic disparity maps: a disc of one disparity over a flat background, with seeded noise and a
/// few invalid (NaN) pixels.
enum SyntheticDepth {
    struct Disc {
        var cx: Float  // centre, map pixels (continuous coordinates: pixel i covers [i, i + 1))
        var cy: Float
        var radius: Float
        var disparity: Float
    }

    static func contains(_ disc: Disc, _ x: Int, _ y: Int) -> Bool {
        let dx = Float(x) + 0.5 - disc.cx
        let dy = Float(y) + 0.5 - disc.cy
        return dx * dx + dy * dy <= disc.radius * disc.radius
    }

    static func map(
        width: Int = 64, height: Int = 48, background: Float = 0.2, discs: [Disc] = [], noise: Float = 0.03, invalid: Int = 8, seed: UInt64
    ) -> DisparityMap {
        var rng = SeededGenerator(seed: seed)
        var values = [Float](repeating: background, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                if let disc = discs.first(where: { contains($0, x, y) }) { values[y * width + x] = disc.disparity }
                values[y * width + x] += Float.random(in: -noise...noise, using: &rng)
            }
        }
        for _ in 0..<invalid { values[Int.random(in: 0..<values.count, using: &rng)] = .nan }
        return DisparityMap(width: width, height: height, values: values)
    }

    /// The moving disc of the tracking test: 1.5 D, radius 5 px, across a 64×48 map of 0.2 D in 20
    /// frames, from x = 10 to past the right edge (fully inside through frame 11, gone from frame 14).
    static func movingDisc(_ frame: Int) -> Disc {
        Disc(cx: 10 + 4.3 * Float(frame), cy: 24 + 0.5 * Float(frame), radius: 5, disparity: 1.5)
    }

    static func movingDiscMap(_ frame: Int) -> DisparityMap {
        map(discs: [movingDisc(frame)], seed: 1000 + UInt64(frame))
    }
}

@Suite struct PointFocusTests {
    typealias S = SyntheticDepth

    @Test(arguments: [(10, 3), (64, 3), (100, 3), (160, 3), (176, 5), (320, 7), (640, 13), (1000, 21)])
    func windowSide(width: Int, side: Int) {
        #expect(PointFocusOptions().windowSide(mapWidth: width) == side)
    }

    @Test func robustDisparityIsTheMedianOfValidPixels() throws {
        // 5×3 map; the 3×3 window around (2, 1) holds 1, 2, NaN, 3, 100, NaN, 4, 5, 6 → median of 7 values = 4.
        let n = Float.nan
        let map = DisparityMap(width: 5, height: 3, values: [9, 1, 2, n, 9, 9, 3, 100, n, 9, 9, 4, 5, 6, 9])
        #expect(PointFocus.robustDisparity(at: (x: 0.5, y: 0.5), in: map) == 4)
        // Clipped at the corner: (0, 0)'s window is 9, 1, 9, 3 → upper median 9.
        #expect(PointFocus.robustDisparity(at: (x: 0, y: 0), in: map) == 9)
        #expect(PointFocus.robustDisparity(at: (x: 1.5, y: 0.5), in: map) == nil)
        let empty = DisparityMap(width: 3, height: 3, values: [Float](repeating: .nan, count: 9))
        #expect(PointFocus.robustDisparity(at: (x: 0.5, y: 0.5), in: empty) == nil)
        #expect(PointFocus.salientRegion(at: (x: 0.5, y: 0.5), in: empty) == nil)
    }

    @Test func salientRegionOfADisc() throws {
        let disc = S.Disc(cx: 30, cy: 20, radius: 6, disparity: 1.5)
        let map = S.map(discs: [disc], seed: 7)
        let region = try #require(PointFocus.salientRegion(at: (x: 30 / 64, y: 20 / 48), in: map))
        #expect(!region.isCapped)
        #expect(abs(region.disparity - 1.5) < 0.02)
        #expect(abs((region.rect.x + region.rect.width / 2) * 64 - 30) <= 0.5)
        #expect(abs((region.rect.y + region.rect.height / 2) * 48 - 20) <= 0.5)
        #expect(abs(region.rect.width * 64 - 12) <= 1)
        // The region is the disc's pixels, less the odd invalid one.
        let discPixels = (0..<48).flatMap { y in (0..<64).filter { x in S.contains(disc, x, y) } }.count
        #expect(region.pixelCount <= discPixels && region.pixelCount >= discPixels - 8)
    }

    @Test func aSeedOnAnInvalidPixelStartsNextToIt() throws {
        var map = S.map(discs: [S.Disc(cx: 30, cy: 20, radius: 6, disparity: 1.5)], noise: 0, invalid: 0, seed: 1)
        map.values[20 * 64 + 30] = .nan
        let region = try #require(PointFocus.salientRegion(at: (x: 30.5 / 64, y: 20.5 / 48), in: map))
        #expect(region.disparity == 1.5)
        #expect(region.pixelCount > 100)
    }

    /// A point on the background grows up to the cap: a quarter of the map's pixels, breadth first
    /// from the point (so a diamond around it), flagged as capped.
    @Test func backgroundRegionIsCapped() throws {
        let map = S.map(discs: [S.Disc(cx: 10, cy: 10, radius: 5, disparity: 1.5)], seed: 3)
        let region = try #require(PointFocus.salientRegion(at: (x: 0.75, y: 0.7), in: map))
        #expect(region.isCapped)
        #expect(region.pixelCount == 64 * 48 / 4)
        #expect(abs(region.disparity - 0.2) < 0.02)
        #expect(region.rect.area > 0.35)
    }

    @Test func tracksAMovingDisc() throws {
        let grid = FrameGrid(rate: FrameRate(frames: 30, per: 1)!, frameCount: 20)
        let start = S.movingDisc(0)
        var reads: [Int] = []
        let found = try #require(
            PointFocus.customTrack(
                id: 1_000_000, at: (x: start.cx / 64, y: start.cy / 48), frame: 0, grid: grid, frameCount: 20,
                maps: {
                    reads.append($0); return S.movingDiscMap($0)
                }))
        let track = found.track
        #expect(track.id == 1_000_000 && track.kind == .custom)
        let frames = track.samples.map(\.frame)
        #expect(frames == Array(0...Int64(frames.count - 1)))
        // Followed while fully visible (through frame 11), stopped once it leaves (gone from frame 14).
        #expect(frames.count >= 12 && frames.count <= 14)
        #expect([.lost, .sizeChanged].contains(found.tracking.stop))
        #expect(reads == Array(0...frames.count))  // lazily, one read per frame, and one more for the frame it was lost in
        for sample in track.samples {
            let disc = S.movingDisc(Int(sample.frame))
            #expect(abs(sample.disparity - 1.5) < 0.05)
            #expect(
                sample.rect.x >= 0 && sample.rect.y >= 0 && sample.rect.x + sample.rect.width <= 1
                    && sample.rect.y + sample.rect.height <= 1)
            guard disc.cx + disc.radius <= 64 else { continue }
            let cx = (sample.rect.x + sample.rect.width / 2) * 64
            let cy = (sample.rect.y + sample.rect.height / 2) * 48
            #expect(abs(cx - disc.cx) < 1, "frame \(sample.frame): centre x \(cx), disc at \(disc.cx)")
            #expect(abs(cy - disc.cy) < 1, "frame \(sample.frame): centre y \(cy), disc at \(disc.cy)")
        }
    }

    @Test func aStaticRegionIsFollowedForTheMaximumSpan() throws {
        let grid = FrameGrid(rate: FrameRate(frames: 30, per: 1)!, frameCount: 100)
        var options = PointFocusOptions()
        options.maximumSpan = MediaTime(value: 1, timescale: 1)
        let found = try #require(
            PointFocus.customTrack(
                id: 1_000_001, at: (x: 0.5, y: 0.5), frame: 10, grid: grid, frameCount: 100,
                maps: { S.map(discs: [S.Disc(cx: 32, cy: 24, radius: 8, disparity: 0.9)], seed: UInt64($0)) }, options: options))
        #expect(found.track.samples.map(\.frame) == Array(10...40))
        #expect(found.tracking.stop == .maximumSpan)
        // The clip's end comes first.
        let late = try #require(
            PointFocus.customTrack(
                id: 1_000_001, at: (x: 0.5, y: 0.5), frame: 90, grid: grid, frameCount: 100,
                maps: { S.map(discs: [S.Disc(cx: 32, cy: 24, radius: 8, disparity: 0.9)], seed: UInt64($0)) }, options: options))
        #expect(late.track.samples.map(\.frame) == Array(90...99))
        #expect(late.tracking.stop == .endOfClip)
    }

    @Test func aRegionThatRunsIntoItsSurroundingsIsLost() throws {
        // Frame 0: a small disc of 0.8 D; frame 1: the disc is gone and the background is 0.8 D too.
        let maps: (Int) -> DisparityMap = { f in
            f == 0
                ? S.map(discs: [S.Disc(cx: 32, cy: 24, radius: 5, disparity: 0.8)], seed: 1)
                : S.map(background: 0.8, seed: 2)
        }
        let start = try #require(PointFocus.salientRegion(at: (x: 0.5, y: 0.5), in: maps(0)))
        let track = PointFocus.track(start, from: 0, through: 5, maps: maps)
        #expect(track.regions.count == 1)
        #expect(track.stop == .leaked)
        #expect(track.stopFrame == 1)
        // And one that vanishes is lost.
        let vanished = PointFocus.track(start, from: 0, through: 5, maps: { f in f == 0 ? maps(0) : S.map(seed: 3) })
        #expect(vanished.stop == .lost)
    }
}
