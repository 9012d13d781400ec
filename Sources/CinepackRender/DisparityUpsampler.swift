import CinepackFormat

/// Brings a (usually lower-resolution) disparity map to picture resolution, edge-aware.
///
/// 1. Invalid values (NaN, ±∞) are filled from valid neighbours by push-pull (a pyramid of
///    weighted averages, read back coarse to fine), so every value is finite; the filled ones keep
///    a low confidence.
/// 2. A confidence-weighted colour guided filter (He et al.) is fitted at map resolution: in every
///    3 × 3 window, disparity ≈ a · colour + b, the colour being the picture averaged over each
///    map cell (square root of linear light, roughly perceptual).
/// 3. At picture resolution each pixel takes the bilinearly interpolated (a, b) applied to its own
///    colour, so a disparity edge snaps to the picture edge, clamped to the range of the
///    surrounding map values (no overshoot).
///
/// Deterministic; O(picture pixels) with a small constant. A map with no valid value gives NaN
/// everywhere (the renderer treats NaN as in focus).
public enum DisparityUpsampler {
    /// Regularisation of the guided filter, in (√linear)² units.
    static let epsilon: Float = 1e-3
    /// Weight of a filled (invalid) map value relative to a valid one.
    static let filledWeight: Float = 0.02

    public static func upsample(_ map: DisparityMap, guide: LinearImage) -> [Float] {
        upsample(map, guide: guide, threads: nil)
    }

    static func upsample(_ map: DisparityMap, guide: LinearImage, threads: Int?) -> [Float] {
        let W = guide.width
        let H = guide.height
        let w = map.width
        let h = map.height
        guard W > 0, H > 0 else { return [] }
        guard w > 0, h > 0, let (p, confidence) = fill(map.values, width: w, height: h) else {
            return [Float](repeating: .nan, count: W * H)
        }
        if w == W && h == H { return p }

        // Cell rectangles in the picture.
        let xs = (0...w).map { $0 * W / w }
        let ys = (0...h).map { $0 * H / h }
        @Sendable func span(_ edges: [Int], _ i: Int, _ limit: Int) -> Range<Int> {
            let a = min(edges[i], limit - 1)
            return a..<max(a + 1, edges[i + 1])
        }

        // 1. The guide averaged over each cell (√ of linear light).
        var guideLow = [Float](repeating: 0, count: w * h * 3)
        guide.values.withUnsafeBufferPointer { g in
            guideLow.withUnsafeMutableBufferPointer { out in
                let gp = Shared(UnsafeMutablePointer(mutating: g.baseAddress!))
                let o = Shared(out.baseAddress!)
                parallelFor(h, threads: threads) { j in
                    let rows = span(ys, j, H)
                    for i in 0..<w {
                        let cols = span(xs, i, W)
                        var sum = SIMD3<Float>.zero
                        for y in rows {
                            for x in cols {
                                let q = (y * W + x) * 3
                                sum += SIMD3(
                                    max(gp.p[q], 0).squareRoot(), max(gp.p[q + 1], 0).squareRoot(),
                                    max(gp.p[q + 2], 0).squareRoot())
                            }
                        }
                        sum /= Float(rows.count * cols.count)
                        o.p[(j * w + i) * 3] = sum.x
                        o.p[(j * w + i) * 3 + 1] = sum.y
                        o.p[(j * w + i) * 3 + 2] = sum.z
                    }
                }
            }
        }

        // 2. Weighted colour guided filter at map resolution, 3 × 3 windows.
        let weight = confidence.map { $0 + filledWeight }
        var coefficients = [SIMD4<Float>](repeating: .zero, count: w * h)
        for j in 0..<h {
            for i in 0..<w {
                var s: Float = 0
                var sI = SIMD3<Float>.zero
                var sp: Float = 0
                var sII = [Float](repeating: 0, count: 6)
                var sIp = SIMD3<Float>.zero
                for y in max(0, j - 1)...min(h - 1, j + 1) {
                    for x in max(0, i - 1)...min(w - 1, i + 1) {
                        let k = y * w + x
                        let o = weight[k]
                        let I = SIMD3(guideLow[k * 3], guideLow[k * 3 + 1], guideLow[k * 3 + 2])
                        s += o
                        sI += o * I
                        sp += o * p[k]
                        sIp += o * p[k] * I
                        sII[0] += o * I.x * I.x
                        sII[1] += o * I.x * I.y
                        sII[2] += o * I.x * I.z
                        sII[3] += o * I.y * I.y
                        sII[4] += o * I.y * I.z
                        sII[5] += o * I.z * I.z
                    }
                }
                let mu = sI / s
                let mp = sp / s
                let cov = sIp / s - mu * mp
                let e = epsilon
                let m00 = sII[0] / s - mu.x * mu.x + e
                let m01 = sII[1] / s - mu.x * mu.y
                let m02 = sII[2] / s - mu.x * mu.z
                let m11 = sII[3] / s - mu.y * mu.y + e
                let m12 = sII[4] / s - mu.y * mu.z
                let m22 = sII[5] / s - mu.z * mu.z + e
                // Inverse of the symmetric 3 × 3 covariance by cofactors.
                let c00 = m11 * m22 - m12 * m12
                let c01 = m02 * m12 - m01 * m22
                let c02 = m01 * m12 - m02 * m11
                let c11 = m00 * m22 - m02 * m02
                let c12 = m01 * m02 - m00 * m12
                let c22 = m00 * m11 - m01 * m01
                let det = m00 * c00 + m01 * c01 + m02 * c02
                var a = SIMD3<Float>.zero
                if det > 1e-12 && det.isFinite {
                    a =
                        SIMD3(
                            c00 * cov.x + c01 * cov.y + c02 * cov.z,
                            c01 * cov.x + c11 * cov.y + c12 * cov.z,
                            c02 * cov.x + c12 * cov.y + c22 * cov.z) / det
                }
                let b = mp - (a * mu).sum()
                coefficients[j * w + i] = SIMD4(a.x, a.y, a.z, b)
            }
        }
        // Average the models of the windows covering each cell.
        var smooth = [SIMD4<Float>](repeating: .zero, count: w * h)
        for j in 0..<h {
            for i in 0..<w {
                var s: Float = 0
                var sum = SIMD4<Float>.zero
                for y in max(0, j - 1)...min(h - 1, j + 1) {
                    for x in max(0, i - 1)...min(w - 1, i + 1) {
                        let o = weight[y * w + x]
                        s += o
                        sum += o * coefficients[y * w + x]
                    }
                }
                smooth[j * w + i] = sum / s
            }
        }

        // 3. Apply at picture resolution.
        let columnCell = (0..<W).map { x -> (Int, Int, Float) in
            let u = (Float(x) + 0.5) * Float(w) / Float(W) - 0.5
            let i0 = min(max(Int(u.rounded(.down)), 0), w - 1)
            let i1 = min(i0 + 1, w - 1)
            return (i0, i1, min(max(u - Float(i0), 0), 1))
        }
        var result = [Float](repeating: 0, count: W * H)
        let bandRows = 16
        guide.values.withUnsafeBufferPointer { g in
            result.withUnsafeMutableBufferPointer { out in
                smooth.withUnsafeBufferPointer { coef in
                    p.withUnsafeBufferPointer { pp in
                        let gp = Shared(UnsafeMutablePointer(mutating: g.baseAddress!))
                        let o = Shared(out.baseAddress!)
                        let cp = Shared(UnsafeMutablePointer(mutating: coef.baseAddress!))
                        let dp = Shared(UnsafeMutablePointer(mutating: pp.baseAddress!))
                        parallelFor((H + bandRows - 1) / bandRows, threads: threads) { band in
                            var row = [SIMD4<Float>](repeating: .zero, count: w)
                            var lo = [Float](repeating: 0, count: w)
                            var hi = [Float](repeating: 0, count: w)
                            for y in (band * bandRows)..<min(H, band * bandRows + bandRows) {
                                let v = (Float(y) + 0.5) * Float(h) / Float(H) - 0.5
                                let j0 = min(max(Int(v.rounded(.down)), 0), h - 1)
                                let j1 = min(j0 + 1, h - 1)
                                let fy = min(max(v - Float(j0), 0), 1)
                                for i in 0..<w {
                                    row[i] = cp.p[j0 * w + i] * (1 - fy) + cp.p[j1 * w + i] * fy
                                    let d0 = dp.p[j0 * w + i]
                                    let d1 = dp.p[j1 * w + i]
                                    lo[i] = min(d0, d1)
                                    hi[i] = max(d0, d1)
                                }
                                for x in 0..<W {
                                    let (i0, i1, fx) = columnCell[x]
                                    let c = row[i0] * (1 - fx) + row[i1] * fx
                                    let q = (y * W + x) * 3
                                    let I = SIMD3(
                                        max(gp.p[q], 0).squareRoot(), max(gp.p[q + 1], 0).squareRoot(),
                                        max(gp.p[q + 2], 0).squareRoot())
                                    let value = c.x * I.x + c.y * I.y + c.z * I.z + c.w
                                    let low = min(lo[i0], lo[i1])
                                    let high = max(hi[i0], hi[i1])
                                    o.p[y * W + x] = value.isNaN ? low : min(max(value, low), high)
                                }
                            }
                        }
                    }
                }
            }
        }
        return result
    }

    /// The map with invalid values filled (same resolution); NaN everywhere when none is valid.
    static func filled(_ values: [Float], width: Int, height: Int) -> [Float] {
        guard width > 0, height > 0, let (p, _) = fill(values, width: width, height: height) else {
            return [Float](repeating: .nan, count: values.count)
        }
        return p
    }

    /// Push-pull fill: the values with every invalid one replaced by a weighted average of the
    /// nearest valid ones, and the confidence (1 valid, 0 filled). Nil when nothing is valid.
    static func fill(_ values: [Float], width: Int, height: Int) -> (values: [Float], confidence: [Float])? {
        let confidence = values.map { $0.isFinite ? Float(1) : 0 }
        guard confidence.contains(1) else { return nil }
        if !confidence.contains(0) { return (values, confidence) }
        var pyramid: [(w: Int, h: Int, v: [Float], c: [Float])] = [
            (width, height, values.map { $0.isFinite ? $0 : 0 }, confidence)
        ]
        while let top = pyramid.last, top.w > 1 || top.h > 1 {
            let w = (top.w + 1) / 2
            let h = (top.h + 1) / 2
            var v = [Float](repeating: 0, count: w * h)
            var c = [Float](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    var s: Float = 0
                    var sv: Float = 0
                    for yy in (2 * y)..<min(top.h, 2 * y + 2) {
                        for xx in (2 * x)..<min(top.w, 2 * x + 2) {
                            let k = yy * top.w + xx
                            s += top.c[k]
                            sv += top.c[k] * top.v[k]
                        }
                    }
                    v[y * w + x] = s > 0 ? sv / s : 0
                    c[y * w + x] = min(s, 1)
                }
            }
            pyramid.append((w, h, v, c))
        }
        for l in stride(from: pyramid.count - 2, through: 0, by: -1) {
            let coarse = pyramid[l + 1]
            var fine = pyramid[l]
            for y in 0..<fine.h {
                for x in 0..<fine.w {
                    let k = y * fine.w + x
                    let c = fine.c[k]
                    if c < 1 {
                        let parent = coarse.v[(y / 2) * coarse.w + x / 2]
                        fine.v[k] = c * fine.v[k] + (1 - c) * parent
                        fine.c[k] = 1
                    }
                }
            }
            pyramid[l] = fine
        }
        return (pyramid[0].v, confidence)
    }
}
