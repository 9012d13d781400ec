/// Plain view of a coarse level for the composite (no reference counting in the hot loops).
struct LevelView {
    let cell: Float
    let width: Int
    let height: Int
    let tilesX: Int
    let nearTiles: UnsafeMutablePointer<UInt8>
    /// The gather results (`GatherPlane`): the first plane, rows and planes apart.
    let results: UnsafeMutablePointer<Float>
    let stride: Int
    let planeSize: Int
    let column: UnsafeMutablePointer<Int32>
    let columnWeight: UnsafeMutablePointer<Float>

    init(_ level: BokehLevel) {
        cell = level.cell
        width = level.width
        height = level.height
        tilesX = level.tilesX
        nearTiles = level.nearTiles.base
        results = level.results.origin(0)
        stride = level.results.stride
        planeSize = level.results.planeSize
        column = level.column.base
        columnWeight = level.columnWeight.base
    }

    /// Cell row `j` of the far (0), fill (1) or near (2) result interpolated to picture columns
    /// `x0 ..< x0 + count`, as four SoA rows of `Tile.pixels` floats at `target`.
    @inline(__always) func interpolateRow(_ field: Int, row j: Int, x0: Int, count: Int, into target: UnsafeMutablePointer<Float>) {
        let base = results + GatherPlane.red(field: field) * planeSize + j * stride
        // Half resolution away from the frame's edges: each even column takes 3/4 of the cell to
        // its right, each odd one 1/4 (the weights `column` holds there), eight at a time from
        // three overlapping reads of four cells.
        let m = x0 / 2
        if cell == 2 && x0 % 2 == 0 && count == Tile.pixels && m >= 1 && m + Tile.pixels / 2 < width {
            let fx = SIMD8<Float>(0.75, 0.25, 0.75, 0.25, 0.75, 0.25, 0.75, 0.25)
            for c in 0..<4 {
                let row = base + c * planeSize + m
                for h in Swift.stride(from: 0, to: Tile.pixels, by: 8) {
                    let p = row + h / 2
                    let a = load4(p - 1)
                    let b = load4(p)
                    let d = load4(p + 1)
                    let left = SIMD8(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3])
                    let right = SIMD8(b[0], d[0], b[1], d[1], b[2], d[2], b[3], d[3])
                    store8(target + c * Tile.pixels + h, left + fx * (right - left))
                }
            }
            return
        }
        for c in 0..<4 {
            let row = base + c * planeSize
            for k in 0..<count {
                let x = x0 + k
                let i = Int(column[x])
                let fx = columnWeight[x]
                let q = row + i
                target[c * Tile.pixels + k] = q[0] + fx * (q[i + 1 < width ? 1 : 0] - q[0])
            }
        }
    }
}
