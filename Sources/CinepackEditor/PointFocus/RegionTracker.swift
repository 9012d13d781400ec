import CinepackEDL
import CinepackFormat
import CinepackTime

/// A region found in one frame while tracking.
public struct TrackedRegion: Sendable, Equatable {
    public var frame: Int
    public var region: SalientRegion
    public init(frame: Int, region: SalientRegion) {
        self.frame = frame
        self.region = region
    }
}

/// A region followed from frame to frame, and why following stopped (spec/retime.md §5.3).
public struct RegionTrack: Sendable, Equatable {
    public enum Stop: Sendable, Equatable {
        /// No pixel within tolerance of the region's disparity near where it was expected.
        case lost
        /// The region's size changed by more than `maximumAreaChange` from one frame to the next.
        case sizeChanged
        /// The region reached the size cap when it had not before: it ran into its surroundings.
        case leaked
        /// The track reached `maximumSpan`.
        case maximumSpan
        /// The clip ended.
        case endOfClip
    }

    /// One region per frame, consecutive frames from the starting one.
    public var regions: [TrackedRegion]
    public var stop: Stop
    /// The first frame without a region when the region was lost (`lost`, `sizeChanged`, `leaked`).
    public var stopFrame: Int?

    public init(regions: [TrackedRegion], stop: Stop, stopFrame: Int?) {
        self.regions = regions
        self.stop = stop
        self.stopFrame = stopFrame
    }
}

extension PointFocus {
    /// The last frame a track starting at `frame` may reach: `frame + floor(maximumSpan / frameDuration)`,
    /// and whether the clip's end comes first.
    static func lastFrame(from frame: Int, grid: FrameGrid, frameCount: Int, options: PointFocusOptions) -> (frame: Int, spanLimited: Bool)
    {
        let span = ExactRatio(options.maximumSpan).divided(by: ExactRatio(grid.frameDuration))?.floor ?? Int64.max
        let bySpan = Int64(frame) &+ max(0, min(span, Int64(Int32.max)))
        let byClip = Int64(frameCount - 1)
        return bySpan <= byClip ? (Int(bySpan), true) : (Int(byClip), false)
    }

    /// Follows `start` (found in frame `frame`) through frames `frame + 1 … lastFrame` (spec/retime.md
    /// §5.3). In each frame the region is expected at its previous centroid moved by its last
    /// displacement; the seed is the pixel nearest that point whose disparity is within tolerance of the
    /// region's previous disparity, searched in a square of half-side `max(window/2, half the previous
    /// region's larger side)`; the region grows from the seed around the previous disparity (so the
    /// disparity drifts by at most the tolerance per frame). Stops at the first frame where no seed is
    /// found, the region newly reaches the size cap, or its size changes by more than
    /// `maximumAreaChange`; that frame gets no region. Maps are read one by one through `maps`.
    /// Reaching `lastFrame` is reported as `reasonAtLastFrame` (`endOfClip` or `maximumSpan`).
    public static func track(
        _ start: SalientRegion, from frame: Int, through lastFrame: Int, maps: (Int) throws -> DisparityMap,
        options: PointFocusOptions = PointFocusOptions(), reasonAtLastFrame: RegionTrack.Stop = .endOfClip
    ) rethrows -> RegionTrack {
        var regions = [TrackedRegion(frame: frame, region: start)]
        var f = frame + 1
        while f <= lastFrame {
            let map = try maps(f)
            guard map.width > 0, map.height > 0 else { return RegionTrack(regions: regions, stop: .lost, stopFrame: f) }
            let previous = regions[regions.count - 1].region
            var cx = previous.centroidX
            var cy = previous.centroidY
            if regions.count >= 2 {
                let before = regions[regions.count - 2].region
                cx += previous.centroidX - before.centroidX
                cy += previous.centroidY - before.centroidY
            }
            let w = Float(map.width)
            let h = Float(map.height)
            let px = min(max(cx * w, 0), w - 0.5)
            let py = min(max(cy * h, 0), h - 0.5)
            let reference = previous.disparity
            let tolerance = options.tolerance(around: reference)
            let halfRegion = Int((max(previous.rect.width * w, previous.rect.height * h) / 2).rounded(.up))
            let side = 2 * max(options.windowSide(mapWidth: map.width) / 2, halfRegion) + 1
            let candidates = window(px: Int(px), py: Int(py), in: map, options: options, side: side).filter {
                abs($0.value - reference) <= tolerance
            }
            guard let seed = nearest(candidates, toX: px, y: py, reference: reference) else {
                return RegionTrack(regions: regions, stop: .lost, stopFrame: f)
            }
            let region = grow(from: seed, reference: reference, in: map, options: options)
            if region.isCapped && !previous.isCapped {
                return RegionTrack(regions: regions, stop: .leaked, stopFrame: f)
            }
            let change = region.areaFraction / previous.areaFraction
            if change > options.maximumAreaChange || change * options.maximumAreaChange < 1 {
                return RegionTrack(regions: regions, stop: .sizeChanged, stopFrame: f)
            }
            regions.append(TrackedRegion(frame: f, region: region))
            f += 1
        }
        return RegionTrack(regions: regions, stop: reasonAtLastFrame, stopFrame: nil)
    }

    /// Point focus on empty space (spec/retime.md §5): the salient region at `point` in frame `frame`, followed
    /// through the next frames up to `maximumSpan` or the end of the clip, as a custom detection track
    /// with id `id` (≥ 1 000 000). One sample per tracked frame: the region's bounding rect and median
    /// disparity (negative disparities, which noise can give, are written as 0, spec/edl.md §6).
    /// Nil when the point has no valid disparity around it.
    public static func customTrack(
        id: UInt32, at point: (x: Float, y: Float), frame: Int, grid: FrameGrid, frameCount: Int,
        maps: (Int) throws -> DisparityMap, options: PointFocusOptions = PointFocusOptions()
    ) rethrows -> (track: UserDetectionTrack, tracking: RegionTrack)? {
        guard frame >= 0, frame < frameCount else { return nil }
        guard let start = salientRegion(at: point, in: try maps(frame), options: options) else { return nil }
        let end = lastFrame(from: frame, grid: grid, frameCount: frameCount, options: options)
        let tracking = try track(
            start, from: frame, through: end.frame, maps: maps, options: options,
            reasonAtLastFrame: end.spanLimited ? .maximumSpan : .endOfClip)
        let samples = tracking.regions.map {
            UserDetectionTrack.Sample(frame: Int64($0.frame), rect: clamped($0.region.rect), disparity: max(0, $0.region.disparity))
        }
        return (UserDetectionTrack(id: id, kind: .custom, samples: samples), tracking)
    }

    /// The rect with `x + width` and `y + height` at most 1 (float rounding can exceed it by an ulp).
    static func clamped(_ r: NormalizedRect) -> NormalizedRect {
        var r = r
        if r.x + r.width > 1 { r.width = 1 - r.x }
        if r.y + r.height > 1 { r.height = 1 - r.y }
        return r
    }
}
