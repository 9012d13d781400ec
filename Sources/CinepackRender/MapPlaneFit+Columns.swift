extension MapPlaneFit {
    /// `residual` over `rows` × columns `c − 1 … c + 1` (inside the map's `w` columns), the same
    /// operations in the same order, the columns unrolled: each column's `Float(x) − mx` is −1,
    /// 0 or 1 (a difference of two integers below 2²⁴, exact), so it is not converted per value.
    @inline(__always)
    static func residual3(_ p: UnsafePointer<Float>, width w: Int, rows: ClosedRange<Int>, centre c: Int) -> Float {
        let my = Float(rows.lowerBound + rows.upperBound) / 2
        var (sum, sx, sy, xx, yy): (Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0)
        let offsets: (Float, Float, Float) = (-1, 0, 1)
        for y in rows {
            let row = p + (y &* w &+ c &- 1)
            let dy = Float(y) - my
            @inline(__always) func add(_ v: Float, _ dx: Float) {
                sum += v
                sx += v * dx
                sy += v * dy
                xx += dx * dx
                yy += dy * dy
            }
            add(row[0], offsets.0)
            add(row[1], offsets.1)
            add(row[2], offsets.2)
        }
        let mean = sum / Float(rows.count * 3)
        let gx = xx > 0 ? sx / xx : 0
        let gy = yy > 0 ? sy / yy : 0
        var residual: Float = 0
        for y in rows {
            let row = p + (y &* w &+ c &- 1)
            let dy = Float(y) - my
            @inline(__always) func include(_ v: Float, _ dx: Float) { residual = max(residual, abs(v - mean - gx * dx - gy * dy)) }
            include(row[0], offsets.0)
            include(row[1], offsets.1)
            include(row[2], offsets.2)
        }
        return residual
    }
}
