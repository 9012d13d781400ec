import CinepackFormat
import Foundation

/// How hard the renderer works: `preview` for interactive scrubbing, `export` for the final bake.
/// Export renders from the full-resolution picture; preview runs the same algorithm on a
/// quarter-size picture and upsamples (`PreviewRenderer`): several times faster, small blur
/// circles softer.
public enum RenderQuality: String, Sendable, CaseIterable {
    case preview, export
}

/// Bakes depth of field into a picture (spec/render.md).
///
/// The blur circle of every pixel comes from the lens model (spec/render.md §1), signed: negative in front of the
/// focus plane (the near field), positive behind it (the far field). The two fields are rendered
/// separately and composited near over far:
///
/// - far field: a gather in which a sample reaches a pixel only within the smaller of the two blur
///   radii ("scatter as gather", weights coverage / disk area), so a sharp foreground never bleeds
///   into the blurred background and background never bleeds onto a sharp subject;
/// - near field: every near sample spreads over its own disk whatever lies behind, so a blurred
///   foreground spills over the sharp subject; its accumulated coverage is the alpha of the
///   composite, and behind it the background is filled from the far samples around;
/// - large blur circles are rendered at reduced resolution (half, quarter, …) so each level gathers
///   at most a few cells' radius: work grows with blur size but stays bounded per pixel. Small
///   circles are gathered at full resolution; circles under a pixel across pass the pixel through;
/// - all weights are continuous functions of the blur radius (soft near/far membership, linear
///   blends between levels), taps are fixed disks (no random taps): the result is deterministic,
///   thread-count independent and free of flicker on a static scene or during a rack focus;
/// - everything is in linear light with normalised weights, so highlights keep their energy.
public struct BokehRenderer: Sendable {
    public var quality: RenderQuality
    /// Worker threads; `nil` uses every core. The output never depends on it.
    public var threads: Int?
    /// The aperture's shape and the highlight rebuild (spec/render.md §5); the default is round.
    public var look = LensLook() {
        didSet { if look != oldValue { aperture = ApertureTaps.make(look) } }
    }
    var aperture = ApertureTaps.circle
    /// Working buffers kept between frames (one renderer for a whole clip avoids reallocating
    /// them; concurrent renders each take their own).
    let pool = LevelPool()

    public init(quality: RenderQuality) {
        self.quality = quality
        self.threads = nil
    }

    /// Renders `picture` (linear light) with a disparity map at any resolution: the map is
    /// upsampled edge-aware, guided by the picture (`DisparityUpsampler`). `focusDisparity` in
    /// diopters; `lens` gives the f-number, focal length and output width (normally the picture's).
    public func render(picture: LinearImage, disparity: DisparityMap, focusDisparity: Float, lens: LensModel) -> LinearImage {
        var clock = PassClock()
        let full: [Float]
        if disparity.width == picture.width && disparity.height == picture.height {
            full = DisparityUpsampler.filled(disparity.values, width: disparity.width, height: disparity.height)
        } else {
            full = DisparityUpsampler.upsample(disparity, guide: picture, threads: threads)
        }
        clock.lap("disparity \(disparity.width)x\(disparity.height) to picture")
        clock.report()
        return render(picture: picture, fullResolutionDisparity: full, focusDisparity: focusDisparity, lens: lens)
    }

    /// The same with a disparity map already at picture resolution (no upsampling). NaN disparity
    /// counts as in focus.
    public func render(picture: LinearImage, fullResolutionDisparity: [Float], focusDisparity: Float, lens: LensModel) -> LinearImage {
        precondition(
            fullResolutionDisparity.count == picture.width * picture.height,
            "the disparity map must have one value per picture pixel")
        guard picture.width > 0, picture.height > 0 else { return picture }
        if look.rebuildsHighlights {
            var rebuilt = picture
            look.rebuildHighlights(&rebuilt)
            var plain = self
            plain.look.highlightThreshold = nil
            return plain.render(
                picture: rebuilt, fullResolutionDisparity: fullResolutionDisparity, focusDisparity: focusDisparity, lens: lens)
        }
        if quality == .preview && picture.width >= 32 && picture.height >= 32 {
            return PreviewRenderer(renderer: self).render(
                picture: picture, disparity: fullResolutionDisparity, focusDisparity: focusDisparity, lens: lens)
        }
        return picture.values.withUnsafeBufferPointer { pixels in
            fullResolutionDisparity.withUnsafeBufferPointer { disparity in
                BokehEngine(
                    width: picture.width, height: picture.height, picture: pixels.baseAddress!, disparity: disparity.baseAddress!,
                    focus: focusDisparity, lens: lens, quality: quality, threads: threads, pool: pool, aperture: aperture
                ).run()
            }
        }
    }
}

/// Signed blur-circle radius in pixels from disparity, sanitised: NaN → in focus, clamped to the
/// largest radius the schedule renders.
struct BlurRadius: Sendable {
    let half: Float
    let focus: Float
    let limit: Float

    @inline(__always) func signed(_ d: Float) -> Float {
        var r = half * (focus - d)
        if r.isNaN { r = 0 }
        return min(max(r, -limit), limit)
    }

    /// The same for eight or four values (NaN → 0 through max(0, r) + min(0, r), exact otherwise).
    @inline(__always) func signed(_ d: SIMD8<Float>) -> SIMD8<Float> {
        let r = half * (focus - d)
        let clean = vmax(SIMD8(), r) + vmin(SIMD8(), r)
        return vmin(vmax(SIMD8(repeating: -limit), clean), SIMD8(repeating: limit))
    }

    @inline(__always) func signed(_ d: SIMD4<Float>) -> SIMD4<Float> {
        let r = half * (focus - d)
        let clean = vmax(SIMD4(), r) + vmin(SIMD4(), r)
        return vmin(vmax(SIMD4(repeating: -limit), clean), SIMD4(repeating: limit))
    }
}

/// Near-field membership: 0 at and behind the focus plane (radius ≥ −0.25 px), 1 from −0.75 px on.
@inline(__always) func nearMembership(_ r: Float) -> Float { min(max((-r - 0.25) * 2, 0), 1) }

@inline(__always) func saturate4(_ v: SIMD4<Float>) -> SIMD4<Float> { vsaturate(v) }

/// Plane numbers of a level.
enum LevelPlane {
    /// Far field with exclusion (gathered by far pixels): premultiplied colour, alpha, radius
    /// (cells), 1 / disk area.
    static let farR = 0
    static let farA = 3
    static let farC = 4
    static let farI = 5
    /// Far field without exclusion (the fill behind a blurred foreground): colour, alpha.
    static let allR = 6
    static let allA = 9
    /// Near field: colour, alpha, radius (cells), level share / disk area.
    static let nearR = 10
    static let nearA = 13
    static let nearC = 14
    static let nearI = 15
    /// Largest far and near radius among the full-resolution pixels below (pixels), 0 if none.
    static let maxFar = 16
    static let maxNear = 17
    static let count = 18
}

/// Consumer bits of a level mask: bit ℓ = a far pixel below renders at level ℓ; bit 16 + ℓ = a
/// near pixel below takes its fill from level ℓ.
enum MaskBit {
    static let fillShift: UInt32 = 16
}

/// Tiles: 16 × 16 full-resolution pixels = 8 × 8 cells of level 1; every coarse level is tiled
/// 8 × 8 cells too, so a tile row of cells is one SIMD8 group.
enum Tile {
    static let pixels = 16
    static let cells = 8
}

/// One coarse level: its planes, consumer masks, active tiles and gather results.
final class BokehLevel: @unchecked Sendable {
    let level: Int
    let width: Int
    let height: Int
    let cell: Float
    let planes: Planes
    let mask: UnsafeMutablePointer<UInt32>
    let tilesX: Int
    let tilesY: Int
    /// Tiles whose cells are built (others are zero: nothing there matters at this level).
    let active: UnsafeMutablePointer<UInt8>
    /// Tiles where the near gather is non-zero somewhere.
    let nearTiles: UnsafeMutablePointer<UInt8>
    /// Tiles whose fill planes (far field without exclusion) are needed: within reach of near
    /// pixels. Elsewhere they stay zero.
    let fill: UnsafeMutablePointer<UInt8>
    /// Tiles this frame may leave non-zero (the active ones and two tiles around): what `reset`
    /// clears before the level is used for another frame.
    let dirty: UnsafeMutablePointer<UInt8>
    /// Far gather: (Σ w·colour, Σ w·alpha); fill gather the same; near gather: (Σ colour, Σ alpha).
    let farOut: Quads
    let fillOut: Quads
    let nearOut: Quads
    /// Bilinear upsampling to full resolution: per picture column, the left cell and weight.
    let column: UnsafeMutableBufferPointer<Int32>
    let columnWeight: UnsafeMutablePointer<Float>

    init(level: Int, width: Int, height: Int, pad: Int, pictureWidth: Int) {
        self.level = level
        self.width = width
        self.height = height
        cell = Float(1 << level)
        planes = Planes(width: width, height: height, pad: pad, count: LevelPlane.count)
        mask = zeroed(UInt32.self, width * height)
        tilesX = (width + Tile.cells - 1) / Tile.cells
        tilesY = (height + Tile.cells - 1) / Tile.cells
        active = zeroed(UInt8.self, tilesX * tilesY)
        nearTiles = zeroed(UInt8.self, tilesX * tilesY)
        dirty = zeroed(UInt8.self, tilesX * tilesY)
        fill = zeroed(UInt8.self, tilesX * tilesY)
        farOut = Quads(width: width, height: height)
        fillOut = Quads(width: width, height: height)
        nearOut = Quads(width: width, height: height)
        column = UnsafeMutableBufferPointer(start: zeroed(Int32.self, pictureWidth), count: pictureWidth)
        columnWeight = zeroed(Float.self, pictureWidth)
        for x in 0..<pictureWidth {
            let (i, f) = Self.position(x, cell: cell, count: width)
            column[x] = Int32(i)
            columnWeight[x] = f
        }
    }

    deinit {
        release(mask)
        release(active)
        release(nearTiles)
        release(dirty)
        release(fill)
        release(column.baseAddress!)
        release(columnWeight)
    }

    /// Zero everything the last frame may have written, so the level is as new: per cell row,
    /// each run of dirty tiles in one go.
    func reset(threads: Int?) {
        let tw = tilesX
        let th = tilesY
        let dirty = Shared(self.dirty)
        parallelFor(th, threads: threads) { ty in
            var tx = 0
            while tx < tw {
                guard dirty.p[ty * tw + tx] != 0 else {
                    tx += 1
                    continue
                }
                var end = tx
                while end < tw && dirty.p[ty * tw + end] != 0 { end += 1 }
                let x0 = tx * Tile.cells
                let n = min(self.width, end * Tile.cells) - x0
                for y in (ty * Tile.cells)..<min(self.height, ty * Tile.cells + Tile.cells) {
                    for k in 0..<LevelPlane.count { (self.planes.origin(k) + self.planes.index(x0, y)).update(repeating: 0, count: n) }
                    (self.mask + y * self.width + x0).update(repeating: 0, count: n)
                    (self.farOut.p + y * self.width + x0).update(repeating: .zero, count: n)
                    (self.fillOut.p + y * self.width + x0).update(repeating: .zero, count: n)
                    (self.nearOut.p + y * self.width + x0).update(repeating: .zero, count: n)
                }
                for t in tx..<end { dirty.p[ty * tw + t] = 0 }
                tx = end
            }
        }
        nearTiles.update(repeating: 0, count: tw * th)
        active.update(repeating: 0, count: tw * th)
        fill.update(repeating: 0, count: tw * th)
    }

    /// Fills the padding of the gathered planes with the nearest edge cell: beyond the frame the
    /// picture repeats its edge (as the reference renderer assumes), so blur circles near the
    /// border see a full neighbourhood and near-field coverage does not fall off there.
    func replicateEdges(threads: Int?) {
        let pad = planes.pad
        let stride = planes.stride
        let w = width
        let h = height
        parallelFor(LevelPlane.maxFar, threads: threads) { k in
            let o = self.planes.origin(k)
            for y in 0..<h {
                let row = o + y * stride
                (row - pad).update(repeating: row[0], count: pad)
                (row + w).update(repeating: row[w - 1], count: stride - pad - w)
            }
            for y in 1...pad {
                (o - pad - y * stride).update(from: o - pad, count: stride)
                (o - pad + (h - 1 + y) * stride).update(from: o - pad + (h - 1) * stride, count: stride)
            }
        }
    }

    /// Marks the active tiles and two tiles around them dirty.
    func markDirty() {
        for ty in 0..<tilesY {
            for tx in 0..<tilesX where active[ty * tilesX + tx] != 0 {
                for y in max(0, ty - 2)...min(tilesY - 1, ty + 2) {
                    for x in max(0, tx - 2)...min(tilesX - 1, tx + 2) { dirty[y * tilesX + x] = 1 }
                }
            }
        }
    }

    /// The cell left of / above full-resolution coordinate `x` and the bilinear weight of the next.
    @inline(__always) static func position(_ x: Int, cell: Float, count: Int) -> (Int, Float) {
        let u = (Float(x) + 0.5) / cell - 0.5
        let i = min(max(Int(u.rounded(.down)), 0), count - 1)
        return (i, i + 1 < count ? min(max(u - Float(i), 0), 1) : 0)
    }

}

/// Pointers to the planes of a level, fetched once per task.
struct LevelPointers {
    let stride: Int
    let farR, farG, farB, farA, farC, farI: UnsafeMutablePointer<Float>
    let allR, allG, allB, allA: UnsafeMutablePointer<Float>
    let nearR, nearG, nearB, nearA, nearC, nearI: UnsafeMutablePointer<Float>
    let maxFar, maxNear: UnsafeMutablePointer<Float>

    init(_ p: Planes) {
        stride = p.stride
        farR = p.origin(0)
        farG = p.origin(1)
        farB = p.origin(2)
        farA = p.origin(3)
        farC = p.origin(4)
        farI = p.origin(5)
        allR = p.origin(6)
        allG = p.origin(7)
        allB = p.origin(8)
        allA = p.origin(9)
        nearR = p.origin(10)
        nearG = p.origin(11)
        nearB = p.origin(12)
        nearA = p.origin(13)
        nearC = p.origin(14)
        nearI = p.origin(15)
        maxFar = p.origin(16)
        maxNear = p.origin(17)
    }

    @inline(__always) func index(_ x: Int, _ y: Int) -> Int { y * stride + x }
}

/// Per full-resolution tile: smallest and largest radius of its far pixels with blur (radius >
/// 0.5) and of its near pixels; (∞, −1) when there are none.
struct TileStats {
    var minFar: Float = .infinity
    var maxFar: Float = -1
    var minNear: Float = .infinity
    var maxNear: Float = -1

    var hasWork: Bool { maxFar >= 0 || maxNear >= 0 }
}

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
    let tiles: UnsafeMutablePointer<TileStats>
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
        tiles = .allocate(capacity: tilesX * tilesY)
        tiles.initialize(repeating: TileStats(), count: tilesX * tilesY)
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

    deinit {
        tiles.deallocate()
        pool.give(levels)
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

    // MARK: - Classification: which tiles have any blur, and which coarse tiles to build

    func classify() {
        let W = width
        let H = height
        let tx = tilesX
        let disp = Shared(UnsafeMutablePointer(mutating: disparity))
        let stats = Shared(tiles)
        let radius = self.radius
        parallelFor(tilesY, threads: threads) { ty in
            for y in (ty * Tile.pixels)..<min(H, ty * Tile.pixels + Tile.pixels) {
                var x = 0
                while x < W {
                    let n = min(8, W - x)
                    var d = SIMD8<Float>(repeating: radius.focus)
                    if n == 8 {
                        d = load8(disp.p + y * W + x)
                    } else {
                        for k in 0..<n { d[k] = disp.p[y * W + x + k] }
                    }
                    let r = radius.signed(d)
                    // Lanes with blur (|r| > 0.5) or in the near field (r < −0.25).
                    if any((r .> BokehSchedule.passThrough) .| (r .< -0.25)) {
                        var s = stats.p[ty * tx + x / Tile.pixels]
                        for k in 0..<n {
                            let v = r[k]
                            let a = abs(v)
                            if v > -0.75 && a > BokehSchedule.passThrough {
                                s.minFar = min(s.minFar, a)
                                s.maxFar = max(s.maxFar, a)
                            }
                            if v < -0.25 {
                                s.minNear = min(s.minNear, a)
                                s.maxNear = max(s.maxNear, a)
                            }
                        }
                        stats.p[ty * tx + x / Tile.pixels] = s
                    }
                    x += 8
                }
            }
        }
        guard !levels.isEmpty else { return }
        // Level-1 tiles coincide with picture tiles. Active: any blur or near pixel, or within
        // reach of the fill gathered around near pixels (which reads sharp pixels too).
        let first = levels[0]
        for ty in 0..<tilesY {
            for tx in 0..<tilesX {
                let s = tiles[ty * tilesX + tx]
                if s.hasWork { first.active[ty * first.tilesX + tx] = 1 }
                if s.maxNear >= 0 {
                    let reach = Int(((1.25 * s.maxNear + 2) / Float(Tile.pixels)).rounded(.up)) + 1
                    for y in max(0, ty - reach)...min(tilesY - 1, ty + reach) {
                        for x in max(0, tx - reach)...min(tilesX - 1, tx + reach) {
                            first.active[y * first.tilesX + x] = 1
                            first.fill[y * first.tilesX + x] = 1
                        }
                    }
                }
            }
        }
        for l in 1..<levels.count {
            let fine = levels[l - 1]
            let level = levels[l]
            for ty in 0..<level.tilesY {
                for tx in 0..<level.tilesX {
                    var on: UInt8 = 0
                    var fill: UInt8 = 0
                    for y in (2 * ty)..<min(fine.tilesY, 2 * ty + 2) {
                        for x in (2 * tx)..<min(fine.tilesX, 2 * tx + 2) {
                            on |= fine.active[y * fine.tilesX + x]
                            fill |= fine.fill[y * fine.tilesX + x]
                        }
                    }
                    level.active[ty * level.tilesX + tx] = on
                    level.fill[ty * level.tilesX + tx] = fill
                }
            }
        }
        for level in levels { level.markDirty() }
    }

    // MARK: - Level 1 from full resolution

    /// Consumer bits of all levels serving radii in `low ... high`.
    @inline(__always) func rangeBits(_ low: Float, _ high: Float) -> UInt32 {
        let first = schedule.split(low).level
        let (last, t) = schedule.split(high)
        let top = t > 0 ? last + 1 : last
        guard top >= first else { return 0 }
        return ((1 << UInt32(top - first + 1)) - 1) << UInt32(first)
    }

    func buildFirstLevel() {
        let level = levels[0]
        let w1 = level.width
        let h1 = level.height
        let W = width
        let H = height
        let pic = Shared(UnsafeMutablePointer(mutating: picture))
        let disp = Shared(UnsafeMutablePointer(mutating: disparity))
        let radius = self.radius
        let planes = level.planes
        let mask = Shared(level.mask)
        let active = Shared(level.active)
        let area = self.area
        let tilesX = level.tilesX
        parallelFor(level.tilesY, threads: threads) { ty in
            let o = LevelPointers(planes)
            for tx in 0..<tilesX where active.p[ty * tilesX + tx] != 0 {
                let cx0 = tx * Tile.cells
                for cy in (ty * Tile.cells)..<min(h1, ty * Tile.cells + Tile.cells) {
                    if 2 * cx0 + 16 <= W && 2 * cy + 1 < H {
                        self.buildFirstGroup(cx0, cy, o, pic.p, disp.p, mask.p, fill: level.fill[ty * tilesX + tx] != 0)
                        continue
                    }
                    // Right or bottom border: cell by cell, children may be missing.
                    let y0 = cy * 2
                    let dy = y0 + 1 < H ? W : 0
                    for cx in cx0..<min(w1, cx0 + Tile.cells) {
                        let x0 = cx * 2
                        let dx = x0 + 1 < W ? 1 : 0
                        let p = y0 * W + x0
                        let valid = SIMD4<Float>(1, Float(dx), dy != 0 ? 1 : 0, dy != 0 ? Float(dx) : 0)
                        let index = SIMD4<Int>(p, p + dx, p + dy, p + dy + dx)
                        let d = SIMD4(disp.p[index[0]], disp.p[index[1]], disp.p[index[2]], disp.p[index[3]])
                        let red = SIMD4(pic.p[3 * index[0]], pic.p[3 * index[1]], pic.p[3 * index[2]], pic.p[3 * index[3]])
                        let green = SIMD4(
                            pic.p[3 * index[0] + 1], pic.p[3 * index[1] + 1], pic.p[3 * index[2] + 1], pic.p[3 * index[3] + 1])
                        let blue = SIMD4(
                            pic.p[3 * index[0] + 2], pic.p[3 * index[1] + 2], pic.p[3 * index[2] + 2], pic.p[3 * index[3] + 2])
                        let r = radius.signed(d)
                        let a = vabs(r)
                        let c = vmax(a, SIMD4(repeating: 0.5))
                        let mnRaw = saturate4((-r - 0.25) * 2)
                        let mn = mnRaw * valid
                        let mf = (1 - mnRaw) * valid
                        let cmax = hmax(c * vpositive(mf))
                        let e = mf * saturate4(c - 0.5) * saturate4((c / max(cmax, 1e-6) - 0.3) * 2.5)
                        let inv = 1 / valid.sum()
                        let q = planes.index(cx, cy)
                        let farA = e.sum()
                        let farC = farA > 0 ? max((e * c).sum() / farA / 2, 0.5) : 0.5
                        o.farR[q] = (e * red).sum() * inv
                        o.farG[q] = (e * green).sum() * inv
                        o.farB[q] = (e * blue).sum() * inv
                        o.farA[q] = farA * inv
                        o.farC[q] = farC
                        o.farI[q] = DiskArea.inverse(farC, area)
                        o.allR[q] = (mf * red).sum() * inv
                        o.allG[q] = (mf * green).sum() * inv
                        o.allB[q] = (mf * blue).sum() * inv
                        o.allA[q] = mf.sum() * inv
                        let nearA = mn.sum()
                        var bits: UInt32 = 0
                        if nearA > 0 {
                            let cbar = (mn * c).sum() / nearA
                            let nearC = max(cbar / 2, 0.5)
                            o.nearR[q] = (mn * red).sum() * inv
                            o.nearG[q] = (mn * green).sum() * inv
                            o.nearB[q] = (mn * blue).sum() * inv
                            o.nearA[q] = nearA * inv
                            o.nearC[q] = nearC
                            o.nearI[q] = DiskArea.inverse(nearC, area) * nearSchedule.weight(cbar, level: 1)
                            o.maxNear[q] = hmax(a * vpositive(mn))
                            for k in 0..<4 where mn[k] > 0 {
                                bits |= self.levelBits(max(a[k], BokehSchedule.passThrough)) << MaskBit.fillShift
                            }
                        }
                        let farConsumer = vpositive(mf) * vpositive(a - BokehSchedule.passThrough)
                        let maxFar = hmax(a * farConsumer)
                        if maxFar > 0 {
                            o.maxFar[q] = maxFar
                            for k in 0..<4 where farConsumer[k] > 0 { bits |= self.levelBits(a[k]) }
                        }
                        mask.p[cy * w1 + cx] = bits
                    }
                }
            }
        }
    }

    /// Eight level-1 cells from 16 × 2 full-resolution pixels, all present.
    @inline(__always)
    private func buildFirstGroup(
        _ cx0: Int, _ cy: Int, _ o: LevelPointers, _ pic: UnsafeMutablePointer<Float>, _ disp: UnsafeMutablePointer<Float>,
        _ mask: UnsafeMutablePointer<UInt32>, fill: Bool
    ) {
        let W = width
        let half = SIMD8<Float>(repeating: 0.5)
        struct Child {
            var r, a, c, mn, mf, red, green, blue: SIMD8<Float>
        }
        @inline(__always) func pair(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>) -> (SIMD8<Float>, SIMD8<Float>) {
            (SIMD8(lowHalf: v0.evenHalf, highHalf: v1.evenHalf), SIMD8(lowHalf: v0.oddHalf, highHalf: v1.oddHalf))
        }
        @inline(__always) func children(_ y: Int) -> (Child, Child) {
            let p = y * W + 2 * cx0
            let (d0, d1) = pair(load8(disp + p), load8(disp + p + 8))
            let (r0, r1) = pair(strided(pic + 3 * p), strided(pic + 3 * p + 24))
            let (g0, g1) = pair(strided(pic + 3 * p + 1), strided(pic + 3 * p + 25))
            let (b0, b1) = pair(strided(pic + 3 * p + 2), strided(pic + 3 * p + 26))
            @inline(__always) func child(_ d: SIMD8<Float>, _ red: SIMD8<Float>, _ green: SIMD8<Float>, _ blue: SIMD8<Float>) -> Child {
                let r = radius.signed(d)
                let a = vabs(r)
                let mn = vsaturate((-r - 0.25) * 2)
                return Child(r: r, a: a, c: vmax(a, half), mn: mn, mf: 1 - mn, red: red, green: green, blue: blue)
            }
            return (child(d0, r0, g0, b0), child(d1, r1, g1, b1))
        }
        let (k0, k1) = children(2 * cy)
        let (k2, k3) = children(2 * cy + 1)
        let q = o.index(cx0, cy)
        // The blurriest far child decides which children are too sharp for the level.
        let cmax = vmax(vmax(k0.c * vpositive(k0.mf), k1.c * vpositive(k1.mf)), vmax(k2.c * vpositive(k2.mf), k3.c * vpositive(k3.mf)))
        let invMax = 1 / vmax(cmax, SIMD8(repeating: 1e-6))
        @inline(__always) func e(_ k: Child) -> SIMD8<Float> {
            k.mf * vsaturate(k.c - 0.5) * vsaturate((k.c * invMax - 0.3) * 2.5)
        }
        let e0 = e(k0)
        let e1 = e(k1)
        let e2 = e(k2)
        let e3 = e(k3)
        let farA = e0 + e1 + e2 + e3
        let farC = vmax((e0 * k0.c + e1 * k1.c + e2 * k2.c + e3 * k3.c) / vmax(farA, SIMD8(repeating: 1e-30)) * 0.5, half)
        store8(o.farR + q, 0.25 * (e0 * k0.red + e1 * k1.red + e2 * k2.red + e3 * k3.red))
        store8(o.farG + q, 0.25 * (e0 * k0.green + e1 * k1.green + e2 * k2.green + e3 * k3.green))
        store8(o.farB + q, 0.25 * (e0 * k0.blue + e1 * k1.blue + e2 * k2.blue + e3 * k3.blue))
        store8(o.farA + q, 0.25 * farA)
        store8(o.farC + q, farC)
        let area = self.area
        store8(o.farI + q, map8(farC) { DiskArea.inverse($0, area) })
        if fill {
            store8(o.allR + q, 0.25 * (k0.mf * k0.red + k1.mf * k1.red + k2.mf * k2.red + k3.mf * k3.red))
            store8(o.allG + q, 0.25 * (k0.mf * k0.green + k1.mf * k1.green + k2.mf * k2.green + k3.mf * k3.green))
            store8(o.allB + q, 0.25 * (k0.mf * k0.blue + k1.mf * k1.blue + k2.mf * k2.blue + k3.mf * k3.blue))
            store8(o.allA + q, 0.25 * (k0.mf + k1.mf + k2.mf + k3.mf))
        }
        let bits = mask + cy * levels[0].width + cx0
        let nearA = k0.mn + k1.mn + k2.mn + k3.mn
        let big = SIMD8<Float>(repeating: 1e30)
        if any(nearA .> 0) {
            let cbar = (k0.mn * k0.c + k1.mn * k1.c + k2.mn * k2.c + k3.mn * k3.c) / vmax(nearA, SIMD8(repeating: 1e-30))
            let nearC = vmax(cbar * 0.5, half)
            store8(o.nearR + q, 0.25 * (k0.mn * k0.red + k1.mn * k1.red + k2.mn * k2.red + k3.mn * k3.red))
            store8(o.nearG + q, 0.25 * (k0.mn * k0.green + k1.mn * k1.green + k2.mn * k2.green + k3.mn * k3.green))
            store8(o.nearB + q, 0.25 * (k0.mn * k0.blue + k1.mn * k1.blue + k2.mn * k2.blue + k3.mn * k3.blue))
            store8(o.nearA + q, 0.25 * nearA)
            store8(o.nearC + q, nearC)
            let schedule = self.nearSchedule
            let levelShare = map8(cbar) { schedule.weight($0, level: 1) }
            store8(o.nearI + q, map8(nearC) { DiskArea.inverse($0, area) } * levelShare * vpositive(nearA))
            // Fill consumers: every near child, with radius max(a, 0.5).
            let n0 = vpositive(k0.mn)
            let n1 = vpositive(k1.mn)
            let n2 = vpositive(k2.mn)
            let n3 = vpositive(k3.mn)
            let hi = vmax(vmax(k0.c * n0, k1.c * n1), vmax(k2.c * n2, k3.c * n3))
            let lo = vmin(vmin(k0.c + (1 - n0) * big, k1.c + (1 - n1) * big), vmin(k2.c + (1 - n2) * big, k3.c + (1 - n3) * big))
            store8(o.maxNear + q, vmax(vmax(k0.a * n0, k1.a * n1), vmax(k2.a * n2, k3.a * n3)))
            for i in 0..<8 where hi[i] > 0 { bits[i] |= rangeBits(lo[i], hi[i]) << MaskBit.fillShift }
        }
        // Far consumers: far children with a blur circle over a pixel across.
        @inline(__always) func consumer(_ k: Child) -> SIMD8<Float> { vpositive(k.mf) * vpositive(k.a - 0.5) }
        let f0 = consumer(k0)
        let f1 = consumer(k1)
        let f2 = consumer(k2)
        let f3 = consumer(k3)
        let hi = vmax(vmax(k0.a * f0, k1.a * f1), vmax(k2.a * f2, k3.a * f3))
        if any(hi .> 0) {
            let lo = vmin(vmin(k0.a + (1 - f0) * big, k1.a + (1 - f1) * big), vmin(k2.a + (1 - f2) * big, k3.a + (1 - f3) * big))
            store8(o.maxFar + q, hi)
            for i in 0..<8 where hi[i] > 0 { bits[i] |= rangeBits(lo[i], hi[i]) }
        }
    }

    // MARK: - Coarser levels, each from the one below

    func buildLevel(_ level: BokehLevel, from fine: BokehLevel) {
        let h = level.height
        let tilesX = level.tilesX
        parallelFor(level.tilesY, threads: threads) { ty in
            let s = LevelPointers(fine.planes)
            let o = LevelPointers(level.planes)
            for tx in 0..<tilesX where level.active[ty * tilesX + tx] != 0 {
                let fill = level.fill[ty * tilesX + tx] != 0
                for cy in (ty * Tile.cells)..<min(h, ty * Tile.cells + Tile.cells) {
                    self.buildGroup(level, fine, tx * Tile.cells, cy, s, o, fill: fill)
                }
            }
        }
    }

    /// Eight cells of `level` from their 16 × 2 children in `fine` (children outside `fine` are
    /// its zero padding; the averages divide by the children present).
    @inline(__always)
    private func buildGroup(
        _ level: BokehLevel, _ fine: BokehLevel, _ cx0: Int, _ cy: Int, _ s: LevelPointers, _ o: LevelPointers, fill: Bool
    ) {
        let fw = fine.width
        let fh = fine.height
        let cell = level.cell
        let fineCell = fine.cell
        let half = SIMD8<Float>(repeating: 0.5)
        let p = s.index(2 * cx0, 2 * cy)
        let stride = s.stride
        @inline(__always) func pair(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>) -> (SIMD8<Float>, SIMD8<Float>) {
            (SIMD8(lowHalf: v0.evenHalf, highHalf: v1.evenHalf), SIMD8(lowHalf: v0.oddHalf, highHalf: v1.oddHalf))
        }
        // Children outside the finer level (its padding repeats the edge) do not count.
        var left = SIMD8<Float>(repeating: 1)
        var right = SIMD8<Float>(repeating: 1)
        let bottom: Float = 2 * cy + 1 < fh ? 1 : 0
        if 2 * cx0 + 16 > fw {
            left = SIMD8((0..<8).map { 2 * (cx0 + $0) < fw ? 1 : 0 })
            right = SIMD8((0..<8).map { 2 * (cx0 + $0) + 1 < fw ? 1 : 0 })
        }
        let leftBottom = left * bottom
        let rightBottom = right * bottom
        /// The four children (top left, top right, bottom left, bottom right) of the eight cells.
        @inline(__always) func quad(_ plane: UnsafeMutablePointer<Float>) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
            let (a, b) = pair(load8(plane + p), load8(plane + p + 8))
            let (c, d) = pair(load8(plane + p + stride), load8(plane + p + stride + 8))
            return (a * left, b * right, c * leftBottom, d * rightBottom)
        }
        @inline(__always) func sum(_ v: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)) -> SIMD8<Float> {
            v.0 + v.1 + v.2 + v.3
        }
        var inv = SIMD8<Float>(repeating: 0.25)
        if 2 * cx0 + 16 > fw || 2 * cy + 1 >= fh {
            let rows: Float = 2 * cy + 1 < fh ? 2 : 1
            inv = SIMD8(
                (0..<8).map { i -> Float in
                    let x = 2 * (cx0 + i)
                    let columns: Float = x + 1 < fw ? 2 : (x < fw ? 1 : 0)
                    return columns > 0 ? 1 / (columns * rows) : 0
                })
        }
        let q = o.index(cx0, cy)
        // Far field, leaving out children too sharp for this level or much sharper than the
        // blurriest child.
        let farA = quad(s.farA)
        let c = quad(s.farC)
        let c0 = c.0 * fineCell
        let c1 = c.1 * fineCell
        let c2 = c.2 * fineCell
        let c3 = c.3 * fineCell
        let cmax = vmax(vmax(c0 * vpositive(farA.0), c1 * vpositive(farA.1)), vmax(c2 * vpositive(farA.2), c3 * vpositive(farA.3)))
        let invMax = 1 / vmax(cmax, SIMD8(repeating: 1e-6))
        let invCell = 1 / cell
        @inline(__always) func e(_ c: SIMD8<Float>) -> SIMD8<Float> {
            vsaturate((c * invCell - 0.25) * 2) * vsaturate((c * invMax - 0.3) * 2.5)
        }
        let e0 = e(c0)
        let e1 = e(c1)
        let e2 = e(c2)
        let e3 = e(c3)
        let ea0 = e0 * farA.0
        let ea1 = e1 * farA.1
        let ea2 = e2 * farA.2
        let ea3 = e3 * farA.3
        let sumA = ea0 + ea1 + ea2 + ea3
        let farC = vmax((ea0 * c0 + ea1 * c1 + ea2 * c2 + ea3 * c3) / vmax(sumA, SIMD8(repeating: 1e-30)) * invCell, half)
        let red = quad(s.farR)
        let green = quad(s.farG)
        let blue = quad(s.farB)
        store8(o.farR + q, inv * (e0 * red.0 + e1 * red.1 + e2 * red.2 + e3 * red.3))
        store8(o.farG + q, inv * (e0 * green.0 + e1 * green.1 + e2 * green.2 + e3 * green.3))
        store8(o.farB + q, inv * (e0 * blue.0 + e1 * blue.1 + e2 * blue.2 + e3 * blue.3))
        store8(o.farA + q, inv * sumA)
        store8(o.farC + q, farC)
        let area = self.area
        store8(o.farI + q, map8(farC) { DiskArea.inverse($0, area) })
        if fill {
            store8(o.allR + q, inv * sum(quad(s.allR)))
            store8(o.allG + q, inv * sum(quad(s.allG)))
            store8(o.allB + q, inv * sum(quad(s.allB)))
            store8(o.allA + q, inv * sum(quad(s.allA)))
        }
        let nearA = quad(s.nearA)
        let sumNear = sum(nearA)
        if any(sumNear .> 0) {
            let nc = quad(s.nearC)
            let cbar =
                (nearA.0 * nc.0 + nearA.1 * nc.1 + nearA.2 * nc.2 + nearA.3 * nc.3) * fineCell / vmax(sumNear, SIMD8(repeating: 1e-30))
            let nearC = vmax(cbar * invCell, half)
            store8(o.nearR + q, inv * sum(quad(s.nearR)))
            store8(o.nearG + q, inv * sum(quad(s.nearG)))
            store8(o.nearB + q, inv * sum(quad(s.nearB)))
            store8(o.nearA + q, inv * sumNear)
            store8(o.nearC + q, nearC)
            let schedule = self.nearSchedule
            let l = level.level
            let share = map8(cbar) { schedule.weight($0, level: l) }
            store8(o.nearI + q, map8(nearC) { DiskArea.inverse($0, area) } * share * vpositive(sumNear))
        }
        let maxFar = quad(s.maxFar)
        store8(o.maxFar + q, vmax(vmax(maxFar.0, maxFar.1), vmax(maxFar.2, maxFar.3)))
        let maxNear = quad(s.maxNear)
        store8(o.maxNear + q, vmax(vmax(maxNear.0, maxNear.1), vmax(maxNear.2, maxNear.3)))
        let w = level.width
        for i in 0..<min(8, w - cx0) {
            let x = 2 * (cx0 + i)
            let m = 2 * cy * fw + x
            var bits = fine.mask[m]
            if x + 1 < fw { bits |= fine.mask[m + 1] }
            if 2 * cy + 1 < fh {
                bits |= fine.mask[m + fw]
                if x + 1 < fw { bits |= fine.mask[m + fw + 1] }
            }
            level.mask[cy * w + cx0 + i] = bits
        }
    }
}

/// Coarse levels kept between the frames of a renderer (same-size frames reuse them; `reset`
/// clears only what the previous frame touched).
final class LevelPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [BokehLevel] = []

    func take(level: Int, width: Int, height: Int, pad: Int, pictureWidth: Int, threads: Int?) -> BokehLevel {
        lock.lock()
        let found = idle.firstIndex {
            $0.level == level && $0.width == width && $0.height == height && $0.planes.pad == pad && $0.column.count == pictureWidth
        }.map { idle.remove(at: $0) }
        lock.unlock()
        if let found {
            found.reset(threads: threads)
            return found
        }
        return BokehLevel(level: level, width: width, height: height, pad: pad, pictureWidth: pictureWidth)
    }

    func give(_ levels: [BokehLevel]) {
        lock.lock()
        idle.append(contentsOf: levels)
        // Enough for two renders in flight at two sizes; the oldest go first.
        if idle.count > 40 { idle.removeFirst(idle.count - 40) }
        lock.unlock()
    }
}
