import CinepackFormat

/// One frame's render: the passes and their buffers.
final class BokehEngine: @unchecked Sendable {
    let width: Int
    let height: Int
    let picture: UnsafePointer<Float>
    let disparity: UnsafePointer<Float>
    /// Far field and fill; near samples follow `nearSchedule`, which keeps more of them at full
    /// resolution: a near sample spills over sharp pixels, where the soft rim of a coarse level
    /// would show.
    let schedule: BokehSchedule
    let nearSchedule: BokehSchedule
    let radius: BlurRadius
    let threads: Int?
    let aperture: ApertureTaps
    let area: DiskArea.Table
    /// Level 1's far field built under the tent, as the coarser levels (`ChildTent`), rather than
    /// from 2 × 2 boxes: preview's reduced render, whose box would put a background light's spot
    /// at the centre of a block of 8 × 8 picture pixels.
    let tentedFirstLevel: Bool
    /// Positions to cat's-eye zones (spec/render.md §5), in this frame's pixels.
    let frame: CatEye.Frame
    let levels: [BokehLevel]
    /// Plain views of the levels for the composite.
    let levelViews: [LevelView]
    let tilesX: Int
    let tilesY: Int
    let tiles: RawBuffer<TileStats>
    let pool: LevelPool
    /// When construction began, so the profile counts it too.
    private let created = PassClock.now()

    init(
        width: Int, height: Int, picture: UnsafePointer<Float>, disparity: UnsafePointer<Float>, focus: Float, lens: LensModel,
        quality: RenderQuality, threads: Int?, pool: LevelPool, radiusScale: Float = 1, aperture: ApertureTaps = .circle
    ) {
        self.pool = pool
        self.aperture = aperture
        area = aperture.coarse
        tentedFirstLevel = quality == .preview
        self.width = width
        self.height = height
        self.picture = picture
        self.disparity = disparity
        let shaped = aperture !== ApertureTaps.circle
        schedule = BokehSchedule(quality: quality, width: width, height: height, shaped: shaped)
        nearSchedule = BokehSchedule(quality: quality, width: width, height: height, nearField: true, shaped: shaped)
        frame = CatEye.Frame(width: width, height: height)
        radius = BlurRadius(half: 0.5 * radiusScale * lens.scale(focusDisparity: focus), focus: focus, limit: schedule.maxRadius)
        self.threads = threads
        tilesX = (width + Tile.pixels - 1) / Tile.pixels
        tilesY = (height + Tile.pixels - 1) / Tile.pixels
        tiles = RawBuffer(repeating: TileStats(), count: tilesX * tilesY)
        // A squeezed shape reaches `extent` times its gauge.
        let pad = Int(schedule.rt * aperture.extent) + 2
        var w = width
        var h = height
        var levels: [BokehLevel] = []
        for l in 0..<schedule.levels {
            w = (w + 1) / 2
            h = (h + 1) / 2
            levels.append(pool.take(level: l + 1, width: w, height: h, pad: pad, pictureWidth: width))
        }
        self.levels = levels
        levelViews = levels.map(LevelView.init)
    }

    deinit { pool.give(levels) }

    /// The cat's-eye zone (spec/render.md §5) of the group of `count` cells of size `cell` from
    /// cell (x, y): at the group's centre (moved toward the frame centre for a gather of spots
    /// up to `radius` pixels, see `ApertureTaps.zone`); 0 without a cat's eye.
    @inline(__always) func zone(_ x: Int, _ y: Int, cell: Float, count: Int = 8, radius: Float = 0) -> Int {
        aperture.zone((Float(x) + Float(count) / 2) * cell, (Float(y) + 0.5) * cell, frame, radius: radius)
    }

    /// The coarse-level area table of that group's zone.
    @inline(__always) func zoneArea(_ x: Int, _ y: Int, cell: Float, count: Int = 8) -> DiskArea.Table {
        aperture.coarse(zone(x, y, cell: cell, count: count))
    }

    func run() -> LinearImage {
        var clock = prepare()
        let image = composite()
        clock.lap("composite")
        clock.report()
        return image
    }

    /// The same, composited into near and behind layers (the preview's half-resolution pass).
    func run(into target: CompositeTarget) {
        var clock = prepare()
        composite(into: target)
        clock.lap("composite")
        clock.report()
    }

    /// Everything before the composite: classification, pyramid, coarse gathers.
    private func prepare() -> PassClock {
        var clock = PassClock()
        // From the engine's construction (taking its levels from the pool) to here.
        clock.last = created
        clock.lap("setup")
        classify()
        clock.lap("classify")
        if !levels.isEmpty {
            for level in levels { level.clearStale(threads: threads) }
            clock.lap("reset")
            buildFirstLevel()
            clock.lap("levels 1–2")
            for l in levels.indices.dropFirst(2) { buildLevel(levels[l], from: levels[l - 1]) }
            for level in levels { level.replicateEdges(threads: threads) }
            clock.lap("levels 3+")
            for level in levels { gather(level) }
            clock.lap("gathers")
        }
        return clock
    }

    /// Consumer bits of a radius: the level(s) with weight for it.
    @inline(__always) func levelBits(_ rho: Float) -> UInt32 {
        let (l, t) = schedule.split(rho)
        var bits: UInt32 = 0
        if t < 1 { bits |= 1 << UInt32(l) }
        if t > 0 { bits |= 1 << UInt32(l + 1) }
        return bits
    }

}
