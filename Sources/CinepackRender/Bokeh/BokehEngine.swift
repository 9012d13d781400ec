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
    let levels: [BokehLevel]
    /// Plain views of the levels for the composite.
    let levelViews: [LevelView]
    let tilesX: Int
    let tilesY: Int
    let tiles: RawBuffer<TileStats>
    let pool: LevelPool

    init(
        width: Int, height: Int, picture: UnsafePointer<Float>, disparity: UnsafePointer<Float>, focus: Float, lens: LensModel,
        quality: RenderQuality, threads: Int?, pool: LevelPool, radiusScale: Float = 1, aperture: ApertureTaps = .circle
    ) {
        self.pool = pool
        self.aperture = aperture
        area = aperture.coarse
        self.width = width
        self.height = height
        self.picture = picture
        self.disparity = disparity
        let shaped = aperture !== ApertureTaps.circle
        schedule = BokehSchedule(quality: quality, width: width, height: height, shaped: shaped)
        nearSchedule = BokehSchedule(quality: quality, width: width, height: height, nearField: true, shaped: shaped)
        radius = BlurRadius(half: 0.5 * radiusScale * lens.scale(focusDisparity: focus), focus: focus, limit: schedule.maxRadius)
        self.threads = threads
        tilesX = (width + Tile.pixels - 1) / Tile.pixels
        tilesY = (height + Tile.pixels - 1) / Tile.pixels
        tiles = RawBuffer(repeating: TileStats(), count: tilesX * tilesY)
        let pad = Int(schedule.rt) + 2
        var w = width
        var h = height
        var levels: [BokehLevel] = []
        for l in 0..<schedule.levels {
            w = (w + 1) / 2
            h = (h + 1) / 2
            levels.append(pool.take(level: l + 1, width: w, height: h, pad: pad, pictureWidth: width, threads: threads))
        }
        self.levels = levels
        levelViews = levels.map(LevelView.init)
    }

    deinit { pool.give(levels) }

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
        classify()
        clock.lap("classify")
        if !levels.isEmpty {
            buildFirstLevel()
            clock.lap("level 1")
            for l in 1..<levels.count { buildLevel(levels[l], from: levels[l - 1]) }
            for level in levels { level.replicateEdges(threads: threads) }
            clock.lap("levels 2+")
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
