/// Consumer bits of a level mask: bit ℓ = a far pixel below renders at level ℓ; bit 16 + ℓ = a
/// near pixel below takes its fill from level ℓ.
enum MaskBit {
    static let fillShift: UInt32 = 16
}

/// One coarse level: its planes, consumer masks, active tiles and gather results.
final class BokehLevel: @unchecked Sendable {
    let level: Int
    let width: Int
    let height: Int
    let cell: Float
    let planes: Planes<LevelPlane>
    let mask: RawBuffer<UInt32>
    let tilesX: Int
    let tilesY: Int
    /// Tiles whose cells are built (others are zero: nothing there matters at this level).
    let active: RawBuffer<UInt8>
    /// Tiles where the near gather is non-zero somewhere.
    let nearTiles: RawBuffer<UInt8>
    /// Tiles whose fill planes (far field without exclusion) are needed: within reach of near
    /// pixels. Elsewhere they stay zero.
    let fill: RawBuffer<UInt8>
    /// Per tile, what this frame may leave non-zero there (`Written` bits): what `clearStale`
    /// looks at when the level is used for another frame.
    let dirty: RawBuffer<UInt8>

    /// What a frame writes in a tile: the planes and mask (an active tile), the fill planes (an
    /// active tile that needs them, or one at the level's right or bottom edge, built cell by
    /// cell), the gather results (a tile the gathers visit).
    enum Written {
        static let built: UInt8 = 1
        static let filled: UInt8 = 2
        static let gathered: UInt8 = 4
    }
    /// The far, fill and near gathers' results (`GatherPlane`).
    let results: Planes<GatherPlane>
    /// Bilinear upsampling to full resolution: per picture column, the left cell and weight.
    let column: RawBuffer<Int32>
    let columnWeight: RawBuffer<Float>

    init(level: Int, width: Int, height: Int, pad: Int, pictureWidth: Int) {
        self.level = level
        self.width = width
        self.height = height
        cell = Float(1 << level)
        planes = Planes(width: width, height: height, pad: pad)
        mask = RawBuffer(count: width * height)
        tilesX = (width + Tile.cells - 1) / Tile.cells
        tilesY = (height + Tile.cells - 1) / Tile.cells
        active = RawBuffer(count: tilesX * tilesY)
        nearTiles = RawBuffer(count: tilesX * tilesY)
        dirty = RawBuffer(count: tilesX * tilesY)
        fill = RawBuffer(count: tilesX * tilesY)
        results = Planes(width: width, height: height, pad: 0)
        column = RawBuffer(count: pictureWidth)
        columnWeight = RawBuffer(count: pictureWidth)
        for x in 0..<pictureWidth {
            let (i, f) = Self.position(x, cell: cell, count: width)
            column[x] = Int32(i)
            columnWeight[x] = f
        }
    }

    /// Readies a level taken back for another frame: the tile flags start empty; the cells the
    /// last frame left non-zero are cleared by `clearStale` once this frame's tiles are known.
    func reset() {
        nearTiles.zero()
        active.zero()
        fill.zero()
    }

    /// How many tiles around an active one the gathers visit (their taps' reach).
    var gatherSpan: Int { (planes.pad + Tile.cells - 1) / Tile.cells }

    /// Whether the gathers visit tile (tx, ty): it or a tile within `gatherSpan` is active.
    func touched(_ tx: Int, _ ty: Int) -> Bool {
        let span = gatherSpan
        for y in max(0, ty - span)...min(tilesY - 1, ty + span) {
            for x in max(0, tx - span)...min(tilesX - 1, tx + span) where active[y * tilesX + x] != 0 { return true }
        }
        return false
    }

    /// Zeroes what the last frame left non-zero (`dirty`) and this frame will not write over,
    /// after classification has set `active` and `fill`: the pyramid writes every plane and mask
    /// cell of an active tile (the fill planes only on fill tiles) and the gathers every result
    /// cell of a touched tile, so only the rest of what was written is cleared. Then records what
    /// this frame writes.
    func clearStale(threads: Int?) {
        let tw = tilesX
        let dirty = Shared(self.dirty.base)
        let fillPlanes = LevelPlane.fillRed.rawValue...LevelPlane.fillAlpha.rawValue
        parallelFor(tilesY, threads: threads) { ty in
            for tx in 0..<tw where dirty.p[ty * tw + tx] != 0 {
                let was = dirty.p[ty * tw + tx]
                let built = self.active[ty * tw + tx] != 0
                let filled = built && self.fill[ty * tw + tx] != 0
                let gathered = self.touched(tx, ty)
                let clearPlanes = was & Written.built != 0 && !built
                let clearFill = was & Written.filled != 0 && !filled
                let clearResults = was & Written.gathered != 0 && !gathered
                if !clearPlanes && !clearFill && !clearResults { continue }
                let x0 = tx * Tile.cells
                let n = min(self.width, x0 + Tile.cells) - x0
                for y in (ty * Tile.cells)..<min(self.height, ty * Tile.cells + Tile.cells) {
                    for plane in LevelPlane.allCases where fillPlanes.contains(plane.rawValue) ? clearFill : clearPlanes {
                        (self.planes.origin(plane) + self.planes.index(x0, y)).update(repeating: 0, count: n)
                    }
                    if clearPlanes { (self.mask.base + y * self.width + x0).update(repeating: 0, count: n) }
                    if clearResults {
                        for plane in GatherPlane.allCases {
                            (self.results.origin(plane) + self.results.index(x0, y)).update(repeating: 0, count: n)
                        }
                    }
                }
            }
        }
        markDirty()
    }

    /// Fills the padding of the gathered planes with the nearest edge cell: beyond the frame the
    /// picture repeats its edge (as the reference renderer assumes), so blur circles near the
    /// border see a full neighbourhood and near-field coverage does not fall off there. The
    /// padding left and right of each row is filled as the row is built (`RowEdges`); this fills
    /// the padding rows above and below from the first and last rows, once all are built.
    func replicateEdges(threads: Int?) {
        let pad = planes.pad
        let stride = planes.stride
        let h = height
        let gathered = LevelPlane.gathered
        parallelFor(gathered.count, threads: threads) { k in
            let o = self.planes.origin(gathered.lowerBound + k)
            for y in 1...pad {
                (o - pad - y * stride).update(from: o - pad, count: stride)
                (o - pad + (h - 1 + y) * stride).update(from: o - pad + (h - 1) * stride, count: stride)
            }
        }
    }

    /// The padding left and right of a row of the gathered planes, filled with the row's edge
    /// cells as soon as the row is built: its ends are then still cached (filled once the whole
    /// level is built, each row end of each plane was read back from memory). Pointers fetched
    /// once per task.
    struct RowEdges {
        private let first: UnsafeMutablePointer<Float>
        private let planeSize: Int
        private let stride: Int
        private let pad: Int
        private let width: Int
        private let right: Int

        init(_ level: BokehLevel) {
            first = level.planes.origin(LevelPlane.gathered.lowerBound)
            planeSize = level.planes.planeSize
            stride = level.planes.stride
            pad = level.planes.pad
            width = level.width
            right = level.planes.stride - level.planes.pad - level.width
        }

        /// Row `y`, whose cells are all final.
        @inline(__always) func replicate(_ y: Int) {
            var row = first + y * stride
            for _ in LevelPlane.gathered {
                (row - pad).update(repeating: row[0], count: pad)
                (row + width).update(repeating: row[width - 1], count: right)
                row += planeSize
            }
        }
    }

    /// Records what this frame writes in each tile (`Written`).
    func markDirty() {
        dirty.zero()
        let span = gatherSpan
        for ty in 0..<tilesY {
            for tx in 0..<tilesX where active[ty * tilesX + tx] != 0 {
                // The fill planes of an edge tile too: level 1 builds those cell by cell, fill
                // tile or not.
                let edge = tx == tilesX - 1 || ty == tilesY - 1
                dirty[ty * tilesX + tx] |= Written.built | (fill[ty * tilesX + tx] != 0 || edge ? Written.filled : 0)
                for y in max(0, ty - span)...min(tilesY - 1, ty + span) {
                    for x in max(0, tx - span)...min(tilesX - 1, tx + span) { dirty[y * tilesX + x] |= Written.gathered }
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
