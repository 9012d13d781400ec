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

extension MapPlaneFit {
    /// `residual` of the eight neighbourhoods `rows × (i + k − 1)...(i + k + 1)`, k = 0 ..< 8 (all
    /// inside the map's columns), one a lane: the same operations in the same order per lane.
    @inline(__always)
    static func residual8(_ p: UnsafePointer<Float>, width w: Int, rows: ClosedRange<Int>, first i: Int) -> SIMD8<Float> {
        let my = Float(rows.lowerBound + rows.upperBound) / 2
        // Each lane's centre column, and its three columns, as `residual` converts them.
        var mx = SIMD8<Float>()
        var columns = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        for k in 0..<8 {
            mx[k] = Float((i + k - 1) + (i + k + 1)) / 2
            (columns.0[k], columns.1[k], columns.2[k]) = (Float(i + k - 1), Float(i + k), Float(i + k + 1))
        }
        let dxs = (columns.0 - mx, columns.1 - mx, columns.2 - mx)
        var (sum, sx, sy, xx, yy) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        @inline(__always) func load(_ k: Int) -> SIMD8<Float> { UnsafeRawPointer(p + k).loadUnaligned(as: SIMD8<Float>.self) }
        for y in rows {
            let dy = SIMD8<Float>(repeating: Float(y) - my)
            @inline(__always) func add(_ c: Int, _ dx: SIMD8<Float>) {
                let v = load(y * w + i + c)
                sum += v
                sx += v * dx
                sy += v * dy
                xx += dx * dx
                yy += dy * dy
            }
            add(-1, dxs.0)
            add(0, dxs.1)
            add(1, dxs.2)
        }
        let mean = sum / Float(rows.count * 3)
        var (gx, gy) = (SIMD8<Float>(), SIMD8<Float>())
        for k in 0..<8 {
            gx[k] = xx[k] > 0 ? sx[k] / xx[k] : 0
            gy[k] = yy[k] > 0 ? sy[k] / yy[k] : 0
        }
        var residual = SIMD8<Float>()
        for y in rows {
            let dy = SIMD8<Float>(repeating: Float(y) - my)
            // `Swift.max` lane by lane (a NaN distance leaves the lane as it was); the sign of a
            // zero distance does not matter to the comparison the callers make.
            @inline(__always) func widen(_ c: Int, _ dx: SIMD8<Float>) {
                let e = load(y * w + i + c) - mean - gx * dx - gy * dy
                let distance = vmax(e, -e)
                for k in 0..<8 { residual[k] = distance[k] >= residual[k] ? distance[k] : residual[k] }
            }
            widen(-1, dxs.0)
            widen(0, dxs.1)
            widen(1, dxs.2)
        }
        return residual
    }
}
