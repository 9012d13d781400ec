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
        @inline(__always) func pixel(_ k: Int) -> SIMD4<Float> {
            let x = x0 + k
            let i = Int(column[x])
            let fx = columnWeight[x]
            let q = base + i
            return q[0] + fx * (q[i + 1 < width ? 1 : 0] - q[0])
        }
        // Four pixels at a time, transposed in registers to one store per channel (a lane at a
        // time costs four scalar stores per pixel).
        var k = 0
        while k + 4 <= count {
            let a = pixel(k)
            let b = pixel(k + 1)
            let c = pixel(k + 2)
            let d = pixel(k + 3)
            @inline(__always) func store(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
                UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
            }
            store(SIMD4(a.x, b.x, c.x, d.x), target + k)
            store(SIMD4(a.y, b.y, c.y, d.y), target + k + Tile.pixels)
            store(SIMD4(a.z, b.z, c.z, d.z), target + k + 2 * Tile.pixels)
            store(SIMD4(a.w, b.w, c.w, d.w), target + k + 3 * Tile.pixels)
            k += 4
        }
        while k < count {
            let v = pixel(k)
            target[k] = v.x
            target[k + Tile.pixels] = v.y
            target[k + 2 * Tile.pixels] = v.z
            target[k + 3 * Tile.pixels] = v.w
            k += 1
        }
    }
}
