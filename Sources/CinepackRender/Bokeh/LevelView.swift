/// Plain view of a coarse level for the composite (no reference counting in the hot loops).
struct LevelView {
    let cell: Float
    let width: Int
    let height: Int
    let tilesX: Int
    let nearTiles: UnsafeMutablePointer<UInt8>
    let far: UnsafeMutablePointer<SIMD4<Float>>
    let fill: UnsafeMutablePointer<SIMD4<Float>>
    let near: UnsafeMutablePointer<SIMD4<Float>>
    let column: UnsafeMutablePointer<Int32>
    let columnWeight: UnsafeMutablePointer<Float>

    init(_ level: BokehLevel) {
        cell = level.cell
        width = level.width
        height = level.height
        tilesX = level.tilesX
        nearTiles = level.nearTiles.base
        far = level.farOut.p
        fill = level.fillOut.p
        near = level.nearOut.p
        column = level.column.base
        columnWeight = level.columnWeight.base
    }

    /// Cell row `j` of the far (0), fill (1) or near (2) result interpolated to picture columns
    /// `x0 ..< x0 + count`, as four SoA rows of `Tile.pixels` floats at `target`.
    @inline(__always) func interpolateRow(_ field: Int, row j: Int, x0: Int, count: Int, into target: UnsafeMutablePointer<Float>) {
        let base = (field == 0 ? far : (field == 1 ? fill : near)) + j * width
        for k in 0..<count {
            let x = x0 + k
            let i = Int(column[x])
            let fx = columnWeight[x]
            let q = base + i
            let v = q[0] + fx * (q[i + 1 < width ? 1 : 0] - q[0])
            target[k] = v.x
            target[k + Tile.pixels] = v.y
            target[k + 2 * Tile.pixels] = v.z
            target[k + 3 * Tile.pixels] = v.w
        }
    }
}
