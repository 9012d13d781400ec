/// The coarse levels' results under one tile, upsampled to its pixels (separable bilinear), on
/// demand: per (level, field) slot read in the tile, a coarse row is interpolated to the tile's
/// columns (the horizontal pass) the first time a pixel reads it, and the vertical pass is done
/// per group of eight as the blend reads it. Rows and groups that give a level no weight are never
/// interpolated (most pixels of a tile spanning several levels read one or two of them); the
/// values read are those a full pass would have made, bit for bit.
struct TileUpsampling {
    /// Coarse rows a slot holds: a tile's pixel rows read at most this many at level 1.
    static let rowsPerSlot = Tile.pixels / 2 + 2
    /// One interpolated coarse row: four SoA planes (r, g, b, alpha or weight) of a tile's width.
    static let rowSize = 4 * Tile.pixels

    let levels: Int
    private let views: UnsafeMutablePointer<LevelView>
    private let rows: UnsafeMutablePointer<Float>
    /// Per slot: the first coarse row under the tile, and the current pixel row's upper one
    /// (relative to `first`).
    private let first: UnsafeMutablePointer<Int>
    private let upper: UnsafeMutablePointer<Int>
    /// Per slot: the current pixel row's vertical weight (0: the upper row alone).
    private let fraction: UnsafeMutablePointer<Float>
    /// Where `touch` leaves what it read (a store, so its reads are not optimised away).
    private let touched: UnsafeMutablePointer<Float>
    /// Per slot: the rows interpolated so far in this tile (bit `row − first`); 0 for a slot the
    /// tile does not read.
    private let done: UnsafeMutablePointer<UInt32>
    /// The tile's first column and width.
    private let columns: UnsafeMutablePointer<Int>
    /// The tile row's number of pixel rows (`startRow`).
    private let tileRows: UnsafeMutablePointer<Int>
    /// Per level, for the tile row's pixel rows (`startRow`): the upper coarse row relative to
    /// the first under the tile row (at `Tile.pixels` · level + row) and its vertical weight; and
    /// the first itself (at `rowUpper[levels · Tile.pixels + level]`). The same for every tile
    /// of the row: worked out once, not per tile and slot.
    private let rowUpper: UnsafeMutablePointer<Int>
    private let rowFraction: UnsafeMutablePointer<Float>
    private let storage:
        (RawBuffer<LevelView>, RawBuffer<Float>, RawBuffer<Int>, RawBuffer<Float>, RawBuffer<UInt32>, RawBuffer<Int>, RawBuffer<Float>)

    init(_ levelViews: [LevelView]) {
        levels = levelViews.count
        let slots = max(1, 3 * levels)
        let viewBuffer = RawBuffer<LevelView>(count: max(1, levels), zeroed: false)
        for (i, view) in levelViews.enumerated() { (viewBuffer.base + i).initialize(to: view) }
        // SIMD8 slack past the last row: a partial tile's lanes past its columns read it.
        let rowBuffer = RawBuffer<Float>(count: slots * Self.rowsPerSlot * Self.rowSize + 8)
        let indexBuffer = RawBuffer<Int>(count: 2 * slots + 3)
        let fractionBuffer = RawBuffer<Float>(count: slots + 1)
        let doneBuffer = RawBuffer<UInt32>(count: slots)
        let rowUpperBuffer = RawBuffer<Int>(count: (Tile.pixels + 1) * max(1, levels))
        let rowFractionBuffer = RawBuffer<Float>(count: Tile.pixels * max(1, levels))
        rowUpper = rowUpperBuffer.base
        rowFraction = rowFractionBuffer.base
        views = viewBuffer.base
        rows = rowBuffer.base
        first = indexBuffer.base
        upper = indexBuffer.base + slots
        columns = indexBuffer.base + 2 * slots
        tileRows = indexBuffer.base + 2 * slots + 2
        fraction = fractionBuffer.base
        touched = fractionBuffer.base + slots
        done = doneBuffer.base
        storage = (viewBuffer, rowBuffer, indexBuffer, fractionBuffer, doneBuffer, rowUpperBuffer, rowFractionBuffer)
    }

    @inline(__always) static func slot(_ level: Int, _ field: Int) -> Int { level * 3 + field }

    /// Starts the tile row of pixel rows `y0 ..< y0 + count`: each level's rows and weights there.
    func startRow(y0: Int, count: Int) {
        tileRows.pointee = count
        for l in 0..<levels {
            let level = views[l]
            let first = BokehLevel.position(y0, cell: level.cell, count: level.height).0
            rowUpper[levels * Tile.pixels + l] = first
            for k in 0..<count {
                let (j, fy) = BokehLevel.position(y0 + k, cell: level.cell, count: level.height)
                rowUpper[l * Tile.pixels + k] = j - first
                rowFraction[l * Tile.pixels + k] = fy
            }
        }
    }

    /// Starts the tile at columns `x0 ..< x0 + count` of the tile row, reading the slots whose
    /// bit `slot(level, field)` is set in `slots`.
    @inline(__always) func begin(x0: Int, count: Int, slots: UInt64) {
        columns[0] = x0
        columns[1] = count
        for s in 0..<(3 * levels) {
            done[s] = 0
            guard slots & (1 << UInt64(s)) != 0 else { continue }
            first[s] = rowUpper[levels * Tile.pixels + s / 3]
            touch(s)
        }
    }

    /// Reads the first and last cell under the tile of every coarse row and plane slot `s` may
    /// interpolate, all at once: they come from memory, and read as each row is first needed,
    /// one row's misses waited behind the arithmetic of the rows before.
    @inline(__always) private func touch(_ s: Int) {
        let l = s / 3
        let level = views[l]
        let rows = rowUpper[l * Tile.pixels + tileRows.pointee - 1] + 2
        let c0 = Int(level.column[columns[0]])
        let c1 = min(level.width - 1, Int(level.column[columns[0] + columns[1] - 1]) + 1)
        let base = level.results + GatherPlane.red(field: s % 3) * level.planeSize + first[s] * level.stride
        // The bits ORed into one word per plane: four short chains of one-cycle operations (a
        // float sum was one chain of additions, each waiting for the last, where the reads hit
        // the cache).
        var bits = SIMD4<UInt32>()
        for k in 0..<min(rows, level.height - first[s]) {
            let row = base + k * level.stride
            let ps = level.planeSize
            bits |= SIMD4(row[c0].bitPattern, row[ps + c0].bitPattern, row[2 * ps + c0].bitPattern, row[3 * ps + c0].bitPattern)
            bits |= SIMD4(row[c1].bitPattern, row[ps + c1].bitPattern, row[2 * ps + c1].bitPattern, row[3 * ps + c1].bitPattern)
        }
        touched.pointee = Float(bitPattern: bits[0] | bits[1] | bits[2] | bits[3])
    }

    /// Moves the slots of `slots` to the tile row's pixel row `k`.
    @inline(__always) func row(_ k: Int, slots: UInt64) {
        var remaining = slots
        while remaining != 0 {
            let s = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            let i = (s / 3) * Tile.pixels + k
            upper[s] = rowUpper[i]
            fraction[s] = rowFraction[i]
        }
    }

    /// Coarse row `k` (relative to the slot's first) of `slot`, interpolated to the tile's columns.
    @inline(__always) private func horizontal(_ slot: Int, _ k: Int) -> UnsafeMutablePointer<Float> {
        let p = rows + (slot * Self.rowsPerSlot + k) * Self.rowSize
        let bit = UInt32(1) << UInt32(k)
        if done[slot] & bit == 0 {
            let level = views[slot / 3]
            // (The wide path behind a call and only for coarser cells: inlined, it kept this
            // function, and the half-resolution path most reads take, from being inlined.)
            if level.cell < 4 || !Self.interpolateWide(level, slot % 3, row: first[slot] + k, x0: columns[0], count: columns[1], into: p) {
                level.interpolateRow(slot % 3, row: first[slot] + k, x0: columns[0], count: columns[1], into: p)
            }
            done[slot] |= bit
        }
        return p
    }

    /// `LevelView.interpolateRow` for cells of 4 pixels or more away from the level's right edge,
    /// eight columns at a time: the tile's columns read at most 16 / cell + 2 neighbouring cells,
    /// so each lane's left and right cell is picked among them by comparing its cell (`column`)
    /// with each in turn, and the lanes then do the scalar path's arithmetic with its weights:
    /// the same values, without a scalar load, multiply and add per column and plane. False
    /// where it does not apply (the scalar path then runs).
    @inline(never) private static func interpolateWide(
        _ level: LevelView, _ field: Int, row j: Int, x0: Int, count: Int, into target: UnsafeMutablePointer<Float>
    ) -> Bool {
        guard level.cell >= 4 && count == Tile.pixels else { return false }
        let i0 = Int(level.column[x0])
        let last = Int(level.column[x0 + Tile.pixels - 1])
        // Every right neighbour inside the level (the scalar path clamps there), and the cells
        // read few enough to pick among.
        guard last + 1 < level.width && last - i0 <= 6 else { return false }
        let base = level.results + GatherPlane.red(field: field) * level.planeSize + j * level.stride + i0
        for h in Swift.stride(from: 0, to: Tile.pixels, by: 8) {
            let cells = UnsafeRawPointer(level.column + x0 + h).loadUnaligned(as: SIMD8<Int32>.self) &- Int32(truncatingIfNeeded: i0)
            let fx = load8(level.columnWeight + x0 + h)
            for c in 0..<4 {
                let q = base + c * level.planeSize
                var left = SIMD8<Float>(repeating: q[0])
                var right = SIMD8<Float>(repeating: q[1])
                var o = 1
                while o <= last - i0 {
                    let m = Int32(truncatingIfNeeded: o)
                    let l = q[o]
                    let r = q[o + 1]
                    // Lane loops of selects, which the optimiser turns into a compare and two blends.
                    for k in 0..<8 { left[k] = cells[k] == m ? l : left[k] }
                    for k in 0..<8 { right[k] = cells[k] == m ? r : right[k] }
                    o += 1
                }
                store8(target + c * Tile.pixels + h, left + fx * (right - left))
            }
        }
        return true
    }

    /// The upsampled r, g, b and alpha (or weight) of `slot` at the current row, for the eight
    /// pixels from tile column `offset`.
    @inline(always) func values(_ slot: Int, offset: Int) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let k = upper[slot]
        let fy = fraction[slot]
        let top = horizontal(slot, k) + offset
        let bottom = fy > 0 ? horizontal(slot, k + 1) + offset : top
        let f = SIMD8<Float>(repeating: fy)
        @inline(__always) func lerp(_ c: Int) -> SIMD8<Float> {
            let t = load8(top + c * Tile.pixels)
            return t + f * (load8(bottom + c * Tile.pixels) - t)
        }
        return (lerp(0), lerp(1), lerp(2), lerp(3))
    }
}
