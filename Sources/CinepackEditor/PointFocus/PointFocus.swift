import CinepackFormat
import CinepackTime

/// The numbers of point focus (spec/retime.md §5). Every one is configurable; the defaults are the
/// normative ones.
public struct PointFocusOptions: Sendable, Equatable {
    /// Side of the square window of the robust disparity, as a fraction of the map width …
    public var windowFraction: Float = 0.02
    /// … but at least this many pixels; the side is made odd so the window is centred on the pixel.
    public var minimumWindow: Int = 3
    /// A pixel belongs to a region when its disparity is within `max(absoluteTolerance,
    /// relativeTolerance × reference)` of the region's reference disparity (diopters).
    public var absoluteTolerance: Float = 0.1
    public var relativeTolerance: Float = 0.1
    /// A region stops growing at this fraction of the map's pixels (a tap on a wall or the sky).
    public var maximumAreaFraction: Float = 0.25
    /// Tracking stops when a region's pixel count changes by more than this factor from one frame to
    /// the next (either way).
    public var maximumAreaChange: Float = 2
    /// A custom track covers at most this much time after the tap (last sample − first ≤ this).
    public var maximumSpan: MediaTime = MediaTime(value: 10, timescale: 1)

    public init() {}

    /// The side of the robust-disparity window for a map this wide: `max(minimumWindow,
    /// round(windowFraction × width))`, plus one when even.
    public func windowSide(mapWidth: Int) -> Int {
        let side = max(minimumWindow, Int((windowFraction * Float(mapWidth)).rounded()), 1)
        return side % 2 == 0 ? side + 1 : side
    }

    /// How far a pixel may be from the reference disparity `d` and still belong to the region.
    public func tolerance(around d: Float) -> Float {
        max(absoluteTolerance, relativeTolerance * abs(d))
    }
}

/// A connected region of similar disparity in one disparity map (spec/retime.md §5.2).
public struct SalientRegion: Sendable, Equatable {
    /// Bounding rectangle of the region's pixels, normalized, origin top-left.
    public var rect: NormalizedRect
    /// Median disparity of the region's pixels (the upper median for an even count), diopters.
    public var disparity: Float
    /// Number of pixels in the region.
    public var pixelCount: Int
    /// Mean of the region's pixel centres, normalized.
    public var centroidX: Float
    public var centroidY: Float
    /// True when growing stopped at the size cap (the region may continue beyond it).
    public var isCapped: Bool
    /// The map the region was found in.
    public var mapWidth: Int
    public var mapHeight: Int

    public init(
        rect: NormalizedRect, disparity: Float, pixelCount: Int, centroidX: Float, centroidY: Float, isCapped: Bool, mapWidth: Int,
        mapHeight: Int
    ) {
        self.rect = rect
        self.disparity = disparity
        self.pixelCount = pixelCount
        self.centroidX = centroidX
        self.centroidY = centroidY
        self.isCapped = isCapped
        self.mapWidth = mapWidth
        self.mapHeight = mapHeight
    }

    /// The region's share of its map's pixels.
    public var areaFraction: Float { Float(pixelCount) / Float(max(1, mapWidth * mapHeight)) }
}

/// Point focus on a disparity map (spec/retime.md §5): the robust disparity at a point, the salient
/// region at a point, and following that region through later frames as a custom detection track.
/// Pure functions: maps come in as values or through a closure the caller reads lazily.
public enum PointFocus {
    /// The pixel a normalized point falls in (clamped to the map), or nil for a point outside 0…1 or NaN.
    public static func pixel(at point: (x: Float, y: Float), in map: DisparityMap) -> (x: Int, y: Int)? {
        guard map.width > 0, map.height > 0, point.x >= 0, point.x <= 1, point.y >= 0, point.y <= 1 else { return nil }
        return (min(map.width - 1, Int(point.x * Float(map.width))), min(map.height - 1, Int(point.y * Float(map.height))))
    }

    static func isValid(_ d: Float) -> Bool { d.isFinite }

    /// The median of the valid (finite) values of `values`, the upper median for an even count.
    static func median(_ values: [Float]) -> Float? {
        guard !values.isEmpty else { return nil }
        return values.sorted()[values.count / 2]
    }

    /// The robust disparity at a point (spec/retime.md §5.1): the median of the valid disparities in the
    /// square window of side `options.windowSide(mapWidth:)` centred on the point's pixel (clipped to the
    /// map). Nil when the point is outside the frame or the window has no valid value.
    public static func robustDisparity(
        at point: (x: Float, y: Float), in map: DisparityMap, options: PointFocusOptions = PointFocusOptions()
    ) -> Float? {
        guard let p = pixel(at: point, in: map) else { return nil }
        return robustDisparity(px: p.x, py: p.y, in: map, options: options)
    }

    static func robustDisparity(px: Int, py: Int, in map: DisparityMap, options: PointFocusOptions) -> Float? {
        median(window(px: px, py: py, in: map, options: options).map(\.value))
    }

    /// The valid pixels of the window around (px, py), row by row.
    static func window(
        px: Int, py: Int, in map: DisparityMap, options: PointFocusOptions, side: Int? = nil
    ) -> [(
        x: Int, y: Int, value: Float
    )] {
        let half = (side ?? options.windowSide(mapWidth: map.width)) / 2
        var found: [(x: Int, y: Int, value: Float)] = []
        for y in max(0, py - half)...min(map.height - 1, py + half) {
            for x in max(0, px - half)...min(map.width - 1, px + half) where isValid(map[x, y]) {
                found.append((x, y, map[x, y]))
            }
        }
        return found
    }

    /// The salient region at a point (spec/retime.md §5.2): grows from the point's pixel over
    /// 4-connected valid pixels whose disparity is within the tolerance of the robust disparity at the
    /// point, breadth first, stopping at `maximumAreaFraction` of the map. When the point's own pixel is
    /// invalid or out of tolerance, growing starts at the nearest pixel of the window that is within it.
    /// Nil when the point is outside the frame or has no valid disparity around it.
    public static func salientRegion(
        at point: (x: Float, y: Float), in map: DisparityMap, options: PointFocusOptions = PointFocusOptions()
    ) -> SalientRegion? {
        guard let p = pixel(at: point, in: map), let reference = robustDisparity(px: p.x, py: p.y, in: map, options: options) else {
            return nil
        }
        let tolerance = options.tolerance(around: reference)
        let candidates = window(px: p.x, py: p.y, in: map, options: options).filter { abs($0.value - reference) <= tolerance }
        guard
            let seed = nearest(
                candidates, toX: Float(p.x) + 0.5, y: Float(p.y) + 0.5, reference: reference)
        else { return nil }
        return grow(from: seed, reference: reference, in: map, options: options)
    }

    /// The candidate nearest to (x, y) in pixel units (pixel centres); ties to the closer disparity,
    /// then to the first in row order.
    static func nearest(_ candidates: [(x: Int, y: Int, value: Float)], toX x: Float, y: Float, reference: Float) -> (x: Int, y: Int)? {
        var best: (x: Int, y: Int, distance: Float, difference: Float)?
        for c in candidates {
            let dx = Float(c.x) + 0.5 - x
            let dy = Float(c.y) + 0.5 - y
            let distance = dx * dx + dy * dy
            let difference = abs(c.value - reference)
            if let b = best, (distance, difference) >= (b.distance, b.difference) { continue }
            best = (c.x, c.y, distance, difference)
        }
        return best.map { ($0.x, $0.y) }
    }

    /// The maximum number of pixels of a region in a map of this size.
    static func cap(_ map: DisparityMap, _ options: PointFocusOptions) -> Int {
        max(1, Int(options.maximumAreaFraction * Float(map.width * map.height)))
    }

    /// Breadth-first growth over 4-connected valid pixels within tolerance of `reference`, in the order
    /// left, right, up, down, stopping at the cap.
    static func grow(from seed: (x: Int, y: Int), reference: Float, in map: DisparityMap, options: PointFocusOptions) -> SalientRegion {
        let w = map.width
        let h = map.height
        let tolerance = options.tolerance(around: reference)
        let limit = cap(map, options)
        var visited = [Bool](repeating: false, count: w * h)
        var queue: [Int] = [seed.y * w + seed.x]
        visited[queue[0]] = true
        var head = 0
        var capped = false
        func admits(_ i: Int) -> Bool {
            let d = map.values[i]
            return isValid(d) && abs(d - reference) <= tolerance
        }
        while head < queue.count {
            let i = queue[head]
            head += 1
            let x = i % w
            let y = i / w
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && nx < w && ny >= 0 && ny < h {
                let j = ny * w + nx
                guard !visited[j] else { continue }
                visited[j] = true
                guard admits(j) else { continue }
                if queue.count >= limit {
                    capped = true
                    break
                }
                queue.append(j)
            }
            if capped { break }
        }
        var x0 = w
        var y0 = h
        var x1 = -1
        var y1 = -1
        var sx = 0.0
        var sy = 0.0
        var values: [Float] = []
        values.reserveCapacity(queue.count)
        for i in queue {
            let x = i % w
            let y = i / w
            x0 = min(x0, x)
            x1 = max(x1, x)
            y0 = min(y0, y)
            y1 = max(y1, y)
            sx += Double(x) + 0.5
            sy += Double(y) + 0.5
            values.append(map.values[i])
        }
        let n = queue.count
        let rect = NormalizedRect(
            x: Float(x0) / Float(w), y: Float(y0) / Float(h), width: Float(x1 - x0 + 1) / Float(w), height: Float(y1 - y0 + 1) / Float(h))
        return SalientRegion(
            rect: rect, disparity: median(values) ?? reference, pixelCount: n, centroidX: Float(sx / Double(n) / Double(w)),
            centroidY: Float(sy / Double(n) / Double(h)), isCapped: capped, mapWidth: w, mapHeight: h)
    }
}
