/// The least-squares plane through a 3 × 3 neighbourhood of map cells and how far the cells leave
/// it: how the upsampler and the preview tell a depth step from a slope (spec/render.md §2 step 6,
/// §3). A step between two cells leaves its plane by a third of the step; a plane, however steep,
/// by nothing.
enum MapPlaneFit {
    /// The largest distance of a value of `p` (a `w`-wide map) in `rows × columns` from the
    /// least-squares plane through them.
    @inline(__always)
    static func residual(_ p: UnsafePointer<Float>, width w: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) -> Float {
        let my = Float(rows.lowerBound + rows.upperBound) / 2
        let mx = Float(columns.lowerBound + columns.upperBound) / 2
        var (sum, sx, sy, xx, yy): (Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0)
        for y in rows {
            for x in columns {
                let v = p[y * w + x]
                let dx = Float(x) - mx
                let dy = Float(y) - my
                sum += v
                sx += v * dx
                sy += v * dy
                xx += dx * dx
                yy += dy * dy
            }
        }
        let mean = sum / Float(rows.count * columns.count)
        let gx = xx > 0 ? sx / xx : 0
        let gy = yy > 0 ? sy / yy : 0
        var residual: Float = 0
        for y in rows {
            for x in columns {
                residual = max(residual, abs(p[y * w + x] - mean - gx * (Float(x) - mx) - gy * (Float(y) - my)))
            }
        }
        return residual
    }
}
