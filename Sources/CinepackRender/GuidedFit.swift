/// The guided filter's fit at map resolution (spec/render.md §2): per cell, the models
/// (a.r, a.g, a.b, b) of the 3 × 3 windows covering it, averaged with the fit's weights.
///
/// Laid out one plane a quantity (the 14 weighted moments, then the models' 5 weighted terms) so
/// that eight neighbouring cells are summed and solved at once; every lane does the same operations
/// in the same order as one cell at a time would.
enum GuidedFit {
    /// The averaged models, one `SIMD4` (a.r, a.g, a.b, b) a cell. `guide` is the cells' √colour,
    /// one plane a channel; `weights` the fit's weight of each cell.
    static func models(
        _ values: UnsafeMutablePointer<Float>, _ weights: UnsafeMutablePointer<Float>, _ guide: UnsafeMutablePointer<Float>,
        _ w: Int, _ h: Int, epsilon: Float, threads: Int?
    ) -> RawBuffer<SIMD4<Float>> {
        let stride = (w + 7) / 8 * 8
        // The windows' models, one plane each of a.r, a.g, a.b, b (every group of eight written).
        let modelBuffer = RawBuffer<Float>(count: 4 * h * stride, zeroed: false)
        defer { withExtendedLifetime(modelBuffer) {} }
        let (we, gl, map, m) = (Shared(weights), Shared(guide), Shared(values), Shared(modelBuffer.base))
        let cells = w * h
        boxed3(w, h, stride, planes: 14, threads: threads) { j, out in
            // Weighted moments of a cell: ω, ωI (3), ωp, ωIIᵀ (6), ωIp (3).
            forEachGroup(w) { i, n in
                var (r, g, b, v, weight) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
                let k0 = j * w + i
                if n == 8 {
                    (r, g, b) = (load8(gl.p + k0), load8(gl.p + cells + k0), load8(gl.p + 2 * cells + k0))
                    (v, weight) = (load8(map.p + k0), load8(we.p + k0))
                } else {
                    for k in 0..<n {
                        (r[k], g[k], b[k]) = (gl.p[k0 + k], gl.p[cells + k0 + k], gl.p[2 * cells + k0 + k])
                        (v[k], weight[k]) = (map.p[k0 + k], we.p[k0 + k])
                    }
                }
                store8(out + i, weight * 1)
                store8(out + stride + i, weight * r)
                store8(out + 2 * stride + i, weight * g)
                store8(out + 3 * stride + i, weight * b)
                store8(out + 4 * stride + i, weight * v)
                store8(out + 5 * stride + i, weight * (r * r))
                store8(out + 6 * stride + i, weight * (r * g))
                store8(out + 7 * stride + i, weight * (r * b))
                store8(out + 8 * stride + i, weight * (g * g))
                store8(out + 9 * stride + i, weight * (g * b))
                store8(out + 10 * stride + i, weight * (b * b))
                store8(out + 11 * stride + i, weight * (r * v))
                store8(out + 12 * stride + i, weight * (g * v))
                store8(out + 13 * stride + i, weight * (b * v))
            }
        } row: { j, s in
            forEachGroup(w) { i, _ in
                @inline(__always) func sum(_ q: Int) -> SIMD8<Float> { load8(s + q * stride + i) }
                let n = 1 / sum(0)
                let (muR, muG, muB) = (sum(1) * n, sum(2) * n, sum(3) * n)
                let mp = sum(4) * n
                let (covR, covG, covB) = (sum(11) * n - muR * mp, sum(12) * n - muG * mp, sum(13) * n - muB * mp)
                let e = SIMD8<Float>(repeating: epsilon)
                let m00 = sum(5) * n - muR * muR + e
                let m01 = sum(6) * n - muR * muG
                let m02 = sum(7) * n - muR * muB
                let m11 = sum(8) * n - muG * muG + e
                let m12 = sum(9) * n - muG * muB
                let m22 = sum(10) * n - muB * muB + e
                // Inverse of the symmetric 3 × 3 covariance by cofactors.
                let c00 = m11 * m22 - m12 * m12
                let c01 = m02 * m12 - m01 * m22
                let c02 = m01 * m12 - m02 * m11
                let c11 = m00 * m22 - m02 * m02
                let c12 = m01 * m02 - m00 * m12
                let c22 = m00 * m11 - m01 * m01
                let det = m00 * c00 + m01 * c01 + m02 * c02
                var aR = (c00 * covR + c01 * covG + c02 * covB) / det
                var aG = (c01 * covR + c11 * covG + c12 * covB) / det
                var aB = (c02 * covR + c12 * covG + c22 * covB) / det
                for k in 0..<8 where !(det[k] > 1e-12 && det[k].isFinite) { (aR[k], aG[k], aB[k]) = (0, 0, 0) }
                let target = m.p + j * 4 * stride + i
                store8(target, aR)
                store8(target + stride, aG)
                store8(target + 2 * stride, aB)
                // `SIMD3.sum()` adds x, y, z in that order.
                store8(target + 3 * stride, mp - (aR * muR + aG * muG + aB * muB))
            }
        }
        // Average the models of the windows covering each cell (weighted like the fit).
        let out = RawBuffer<SIMD4<Float>>(count: w * h, zeroed: false)
        let o = Shared(out.base)
        boxed3(w, h, stride, planes: 5, threads: threads) { j, out in
            forEachGroup(w) { i, n in
                var weight = SIMD8<Float>()
                if n == 8 {
                    weight = load8(we.p + j * w + i)
                } else {
                    for k in 0..<n { weight[k] = we.p[j * w + i + k] }
                }
                let model = m.p + j * 4 * stride + i
                store8(out + i, weight * 1)
                for q in 0..<4 { store8(out + (q + 1) * stride + i, weight * load8(model + q * stride)) }
            }
        } row: { j, s in
            forEachGroup(w) { i, n in
                let total = load8(s + i)
                let (aR, aG, aB, b) = (
                    load8(s + stride + i), load8(s + 2 * stride + i), load8(s + 3 * stride + i), load8(s + 4 * stride + i)
                )
                let (r, g, bl, c) = (aR / total, aG / total, aB / total, b / total)
                for k in 0..<n { o.p[j * w + i + k] = SIMD4(r[k], g[k], bl[k], c[k]) }
            }
        }
        return out
    }

    /// `body(i, n)` for the groups of eight cells of a row, `n` of them inside it (the last group
    /// may hold fewer).
    @inline(__always) private static func forEachGroup(_ w: Int, _ body: (Int, Int) -> Void) {
        var i = 0
        while i < w {
            body(i, min(8, w - i))
            i += 8
        }
    }

    /// Sums of `planes` quantities over every cell's 3 × 3 neighbourhood (clipped at the edges),
    /// in the order centre, left, right, then centre row, row above, row below. `element(j, rows)`
    /// writes map row `j`'s quantities, plane `q` from `rows + q * stride` (`stride`, a multiple of
    /// 8, at least `w`); `row(j, sums)` gets the sums laid out alike. Bands of rows in parallel.
    @inline(__always) private static func boxed3(
        _ w: Int, _ h: Int, _ stride: Int, planes: Int, threads: Int?,
        element: @Sendable (Int, UnsafeMutablePointer<Float>) -> Void, row: @Sendable (Int, UnsafeMutablePointer<Float>) -> Void
    ) {
        let bandRows = 16
        parallelFor((h + bandRows - 1) / bandRows, threads: threads) { band in
            let j0 = band * bandRows
            let j1 = min(h, j0 + bandRows)
            let first = max(0, j0 - 1)
            let last = min(h - 1, j1)
            let rowSize = planes * stride
            // Horizontal sums of rows first ... last, then one vertical sum row. Every value is
            // written before it is read (`element` writes whole groups of eight, the horizontal
            // sums zero the columns from `w` to `stride`): no zeroing.
            let buffers = (
                across: RawBuffer<Float>(count: (last - first + 1) * rowSize, zeroed: false),
                sums: RawBuffer<Float>(count: rowSize, zeroed: false), cells: RawBuffer<Float>(count: rowSize, zeroed: false)
            )
            defer { withExtendedLifetime(buffers) {} }
            let (across, sums, cells) = (buffers.across.base, buffers.sums.base, buffers.cells.base)
            for j in first...last {
                element(j, cells)
                let target = across + (j - first) * rowSize
                for q in 0..<planes {
                    let (c, t) = (cells + q * stride, target + q * stride)
                    t[0] = w > 1 ? c[0] + c[1] : c[0]
                    var i = 1
                    while i + 9 <= w {
                        store8(t + i, load8(c + i) + load8(c + i - 1) + load8(c + i + 1))
                        i += 8
                    }
                    while i < w {
                        t[i] = i + 1 < w ? c[i] + c[i - 1] + c[i + 1] : c[i] + c[i - 1]
                        i += 1
                    }
                    (t + w).update(repeating: 0, count: stride - w)
                }
            }
            for j in j0..<j1 {
                let middle = across + (j - first) * rowSize
                var i = 0
                while i < rowSize {
                    var s = load8(middle + i)
                    if j > 0 { s += load8(middle + i - rowSize) }
                    if j + 1 < h { s += load8(middle + i + rowSize) }
                    store8(sums + i, s)
                    i += 8
                }
                row(j, sums)
            }
        }
    }
}
