/// The full-resolution pass of the preview: near layer bilinearly over (own pixel ↔ behind layer
/// by blur radius). The behind layer is upsampled by reach rather than plainly: as in the
/// far-field gather, a cell reaches a pixel only within the smaller of the two blur radii (soft
/// over one pixel), so a sharp subject's cells never spread into the blurred background beside it.
///
/// Separable in layout: for the cell rows a band of output rows needs, every output column gets
/// the near layer interpolated horizontally and the behind values and radii of its left and right
/// cells; each output row then works on eight contiguous pixels at a time.
struct PreviewUpsampler: @unchecked Sendable {
    let picture: UnsafeMutablePointer<Float>
    /// Each pixel's disparity: one value a picture pixel, or (nil) from the cells by `edges`.
    let disparity: UnsafeMutablePointer<Float>?
    let edges: PreviewEdgeDisparity?
    let width: Int
    let height: Int
    /// The planes of `cells × rows` (`PreviewLayer`).
    let layers: UnsafeMutablePointer<Float>
    let cellDisparity: UnsafeMutablePointer<Float>
    let cells: Int
    let rows: Int
    let factor: Int
    let radius: BlurRadius

    /// The planes a cell row is spread into, each `width + 8` floats: the near layer
    /// (interpolated), then the behind colour and |radius| of the left cell and of the right cell;
    /// without a disparity a pixel, the cells' disparity (interpolated) and the weight of the
    /// guided choice in the block of cells whose top-left cell is the left one (`edges`).
    private enum RowPlane: Int, PlaneSet {
        case nearRed, nearGreen, nearBlue, nearCoverage
        case leftRed, leftGreen, leftBlue, leftRadius
        case rightRed, rightGreen, rightBlue, rightRadius
        case disparity, guided

        static let count = allCases.count
    }

    /// Consecutive output columns that take the same two cells, `left` and `right`.
    private struct ColumnRun {
        let start: Int32
        var count: Int32
        let left: Int32
        let right: Int32
    }

    /// Cell coordinate of output pixel `x`: the two cells around it and the fraction towards the
    /// second.
    private func position(_ x: Int, count: Int) -> (Int, Int, Float, Float) { Self.position(x, count: count, factor: factor) }

    /// The same for cells of `factor` pixels.
    static func position(_ x: Int, count: Int, factor: Int) -> (Int, Int, Float, Float) {
        let u = (Float(x) + 0.5) / Float(factor) - 0.5
        let i0 = min(max(Int(u.rounded(.down)), 0), count - 1)
        let i1 = min(i0 + 1, count - 1)
        let fx = i1 > i0 ? min(max(u - Float(i0), 0), 1) : 0
        return (i0, i1, fx, u)
    }

    /// The combined picture; with `pixelDisparity`, each pixel's disparity as the combine took it
    /// is kept there too (`width × height` values).
    func run(threads: Int?, pixelDisparity: UnsafeMutablePointer<Float>? = nil) -> LinearImage {
        let W = width
        let H = height
        let stride = W + 8
        let f = Float(factor)
        // Per column: fraction towards the right cell and squared distances to both cell centres.
        let columnsBuffer = RawBuffer<Float>(count: 3 * stride)
        let cellOfBuffer = RawBuffer<(Int32, Int32)>(count: W)
        defer { withExtendedLifetime((columnsBuffer, cellOfBuffer)) {} }
        let columns = columnsBuffer.base
        let cellOf = cellOfBuffer.base
        // Runs of up to four columns that take the same two cells (at most one a column).
        let runsBuffer = RawBuffer<ColumnRun>(count: W, zeroed: false)
        defer { withExtendedLifetime(runsBuffer) {} }
        var runCount = 0
        for x in 0..<W {
            let (i0, i1, fx, u) = position(x, count: cells)
            cellOf[x] = (Int32(i0), Int32(i1))
            columns[x] = fx
            columns[stride + x] = (u - Float(i0)) * (u - Float(i0)) * f * f
            columns[2 * stride + x] = (u - Float(i1)) * (u - Float(i1)) * f * f
            let last = runsBuffer.base + runCount - 1
            if runCount > 0, last.pointee.left == i0, last.pointee.right == i1, last.pointee.count < 4 {
                last.pointee.count += 1
            } else {
                (runsBuffer.base + runCount).initialize(to: ColumnRun(start: Int32(x), count: 1, left: Int32(i0), right: Int32(i1)))
                runCount += 1
            }
        }
        let bandRows = 8 * factor
        let values = [Float](unsafeUninitializedCapacity: W * H * 3) { buffer, initialized in
            let out = Shared(buffer.baseAddress!)
            let kept = pixelDisparity.map { Shared($0) }
            let cols = Shared(columns)
            let pairs = Shared(cellOf)
            let runStarts = Shared(runsBuffer.base)
            let runCount = runCount
            parallelFor((H + bandRows - 1) / bandRows, threads: threads) { band in
                let y0 = band * bandRows
                let y1 = min(H, y0 + bandRows)
                let first = position(y0, count: rows).0
                let last = position(y1 - 1, count: rows).1
                // Every value is written by `expand` before it is read.
                let rowsBuffer = RawBuffer<Float>(count: (last - first + 1) * RowPlane.count * stride, zeroed: false)
                defer { withExtendedLifetime(rowsBuffer) {} }
                let buffer = rowsBuffer.base
                for j in first...last {
                    expand(
                        row: j, into: buffer + (j - first) * RowPlane.count * stride, stride: stride,
                        runs: UnsafeBufferPointer(start: runStarts.p, count: runCount), fractions: cols.p)
                }
                // Distances from every output column to its left and right cells' centres, one
                // pair of rows per vertical offset: the square roots are the combine's costliest
                // step, and the band's rows share a handful of offsets (one per row in a cell).
                let distanceBuffer = RawBuffer<Float>(count: 2 * (y1 - y0) * 2 * stride, zeroed: false)
                defer { withExtendedLifetime(distanceBuffer) {} }
                var offsets: [UInt32] = []
                func distances(_ dy2: Float) -> UnsafeMutablePointer<Float> {
                    if let i = offsets.firstIndex(of: dy2.bitPattern) { return distanceBuffer.base + i * 2 * stride }
                    let pair = distanceBuffer.base + offsets.count * 2 * stride
                    offsets.append(dy2.bitPattern)
                    for k in 0..<(2 * stride) { pair[k] = (cols.p[stride + k] + dy2).squareRoot() }
                    return pair
                }
                let rowBuffer = RawBuffer<Float>(count: edges == nil ? 0 : stride, zeroed: false)
                defer { withExtendedLifetime(rowBuffer) {} }
                for y in y0..<y1 {
                    let (j0, j1, fy, v) = position(y, count: rows)
                    let top = buffer + (j0 - first) * RowPlane.count * stride
                    let bottom = buffer + (j1 - first) * RowPlane.count * stride
                    let dyTop = (v - Float(j0)) * f
                    let dyBottom = (v - Float(j1)) * f
                    var rowDisparity = UnsafePointer(rowBuffer.base)
                    if let disparity {
                        rowDisparity = UnsafePointer(disparity + y * W)
                    } else if let edges {
                        disparityRow(
                            y, edges: edges, block: j0 * cells, top: top, bottom: bottom, fy: fy, stride: stride, pairs: pairs.p,
                            into: rowBuffer.base)
                    }
                    kept.map { (($0.p + y * W).update(from: rowDisparity, count: W)) }
                    combineRow(
                        y, rowDisparity: rowDisparity, top: top, bottom: bottom, fy: fy,
                        distances: (distances(dyTop * dyTop), distances(dyBottom * dyBottom)), stride: stride,
                        columns: cols.p, out: out.p)
                }
            }
            initialized = W * H * 3
        }
        return LinearImage(width: W, height: H, values: values)
    }

    /// Cell row `j` spread over the output columns (`RowPlane`), a run of columns that take the
    /// same two cells at a time: their values and radii are read once, and a run of four (every
    /// run inside the picture at factor 4) is written as one vector per plane, the same
    /// arithmetic lane by lane.
    private func expand(
        row j: Int, into target: UnsafeMutablePointer<Float>, stride: Int, runs: UnsafeBufferPointer<ColumnRun>,
        fractions: UnsafeMutablePointer<Float>
    ) {
        let plane = cells * rows
        let base = j * cells
        let guided = edges.map { $0.rowHasBlocks[j] } ?? false
        for run in runs {
            let i0 = base + Int(run.left)
            let i1 = base + Int(run.right)
            let x0 = Int(run.start)
            let count = Int(run.count)
            @inline(__always) func layer(_ l: PreviewLayer, _ i: Int) -> Float { layers[l.rawValue * plane + i] }
            // A plane interpolated from the left cell's value to the right one's.
            @inline(__always) func interpolate(_ row: RowPlane, _ v0: Float, _ v1: Float) {
                let q = target + row.rawValue * stride + x0
                if count == 4 {
                    store4(q, SIMD4(repeating: v0) + load4(fractions + x0) * SIMD4(repeating: v1 - v0))
                } else {
                    for k in 0..<count { q[k] = v0 + fractions[x0 + k] * (v1 - v0) }
                }
            }
            // A plane that holds one value across the run.
            @inline(__always) func fill(_ row: RowPlane, _ v: Float) {
                let q = target + row.rawValue * stride + x0
                if count == 4 { store4(q, SIMD4(repeating: v)) } else { q.update(repeating: v, count: count) }
            }
            interpolate(.nearRed, layer(.nearRed, i0), layer(.nearRed, i1))
            interpolate(.nearGreen, layer(.nearGreen, i0), layer(.nearGreen, i1))
            interpolate(.nearBlue, layer(.nearBlue, i0), layer(.nearBlue, i1))
            interpolate(.nearCoverage, layer(.nearCoverage, i0), layer(.nearCoverage, i1))
            fill(.leftRed, layer(.behindRed, i0))
            fill(.leftGreen, layer(.behindGreen, i0))
            fill(.leftBlue, layer(.behindBlue, i0))
            fill(.rightRed, layer(.behindRed, i1))
            fill(.rightGreen, layer(.behindGreen, i1))
            fill(.rightBlue, layer(.behindBlue, i1))
            let (d0, d1) = (cellDisparity[i0], cellDisparity[i1])
            fill(.leftRadius, abs(radius.signed(d0)))
            fill(.rightRadius, abs(radius.signed(d1)))
            interpolate(.disparity, d0, d1)
            // Whether the run's block has pixels that leave interpolation, in rows that have any.
            if let edges, guided { fill(.guided, edges.slots[i0] >= 0 ? 1 : 0) }
        }
        for c in 0..<RowPlane.count { (target + c * stride + width).update(repeating: 0, count: 8) }
    }

    /// The disparity of every pixel of row `y` from the cells (`edges`), into `target`.
    private func disparityRow(
        _ y: Int, edges: PreviewEdgeDisparity, block row: Int, top: UnsafeMutablePointer<Float>, bottom: UnsafeMutablePointer<Float>,
        fy: Float, stride: Int, pairs: UnsafeMutablePointer<(Int32, Int32)>, into target: UnsafeMutablePointer<Float>
    ) {
        let vy = SIMD8<Float>(repeating: fy)
        var x = 0
        while x < width {
            let t = load8(top + RowPlane.disparity.rawValue * stride + x)
            store8(target + x, t + vy * (load8(bottom + RowPlane.disparity.rawValue * stride + x) - t))
            x += 8
        }
        guard edges.rowHasBlocks[row / cells] else { return }
        let guided = top + RowPlane.guided.rawValue * stride
        x = 0
        while x < width {
            if anyAbove(load8(guided + x), 0) {
                for k in x..<min(width, x + 8) where guided[k] > 0 {
                    target[k] = edges.disparity(block: row + Int(pairs[k].0), x: k, y: y, bilinear: target[k])
                }
            }
            x += 8
        }
    }

    private func combineRow(
        _ y: Int, rowDisparity: UnsafePointer<Float>, top: UnsafeMutablePointer<Float>, bottom: UnsafeMutablePointer<Float>, fy: Float,
        distances: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>), stride: Int, columns: UnsafeMutablePointer<Float>,
        out: UnsafeMutablePointer<Float>
    ) {
        let W = width
        let vy = SIMD8<Float>(repeating: fy)
        let keepRadius = 0.8 * Float(factor)
        // No output pixel is farther than this from the centres of the cells it takes.
        let everyCell = Float(2).squareRoot() * Float(factor)
        let inverseKeep = SIMD8<Float>(repeating: 1 / (keepRadius * keepRadius))
        var x = 0
        while x < W {
            let n = min(8, W - x)
            let p0 = y * W + x
            @inline(__always) func near(_ plane: RowPlane) -> SIMD8<Float> {
                let t = load8(top + plane.rawValue * stride + x)
                return t + vy * (load8(bottom + plane.rawValue * stride + x) - t)
            }
            let (d, red, green, blue) = loadPixels8(picture + 3 * y * W, rowDisparity, at: x, count: n, fill: radius.focus)
            let a = vabs(radius.signed(d))
            // Share of the reduced render. Resampling through cells of f pixels already softens
            // detail finer than a cell, which a blur circle under about 0.8 f would partly keep;
            // so the pixel's own value keeps the share a disk of radius a passes at that scale,
            // (1 − (a / 0.8 f)²)², and circles under half a pixel across keep it whole.
            let q = vsaturate(1 - a * a * inverseKeep)
            let t = vsaturate((a - BokehSchedule.passThrough) * 4) * (1 - q * q)
            var backR = red
            var backG = green
            var backB = blue
            @inline(__always) func cell(_ row: UnsafeMutablePointer<Float>, _ plane: RowPlane) -> SIMD8<Float> {
                load8(row + plane.rawValue * stride + x)
            }
            let radii = vmin(
                vmin(cell(top, .leftRadius), cell(top, .rightRadius)), vmin(cell(bottom, .leftRadius), cell(bottom, .rightRadius)))
            if !anyBelow(vmin(a, radii), everyCell) {
                // Every cell reaches the pixel whole and its own value no longer shows (t = 1):
                // the behind layer bilinearly, which the weights below come to.
                let fx = load8(columns + x)
                @inline(__always) func behind(_ left: RowPlane, _ right: RowPlane) -> SIMD8<Float> {
                    let upper = cell(top, left) + fx * (cell(top, right) - cell(top, left))
                    let lower = cell(bottom, left) + fx * (cell(bottom, right) - cell(bottom, left))
                    return upper + vy * (lower - upper)
                }
                backR = behind(.leftRed, .rightRed)
                backG = behind(.leftGreen, .rightGreen)
                backB = behind(.leftBlue, .rightBlue)
            } else if anyAbove(t, 0) {
                let fx = load8(columns + x)
                var sumR = SIMD8<Float>()
                var sumG = SIMD8<Float>()
                var sumB = SIMD8<Float>()
                var total = SIMD8<Float>()
                for edge in 0..<2 {
                    let row = edge == 0 ? top : bottom
                    let wy = edge == 0 ? 1 - fy : fy
                    let distanceRows = edge == 0 ? distances.0 : distances.1
                    guard wy > 0 else { continue }
                    for side in 0..<2 {
                        let wx = side == 0 ? 1 - fx : fx
                        let (r, g, b, cellRadius): (RowPlane, RowPlane, RowPlane, RowPlane) =
                            side == 0 ? (.leftRed, .leftGreen, .leftBlue, .leftRadius) : (.rightRed, .rightGreen, .rightBlue, .rightRadius)
                        @inline(__always) func cell(_ plane: RowPlane) -> SIMD8<Float> { load8(row + plane.rawValue * stride + x) }
                        let distance = load8(distanceRows + side * stride + x)
                        let reach = vmin(cell(cellRadius), a)
                        let weight = wy * wx * vsaturate(reach - distance + 1)
                        sumR += weight * cell(r)
                        sumG += weight * cell(g)
                        sumB += weight * cell(b)
                        total += weight
                    }
                }
                // No cell reaches (a blurred pixel among sharp cells): it keeps its own value.
                let k = vpositive(total - 1e-6) * t / vmax(total, SIMD8(repeating: 1e-6))
                let keep = 1 - vpositive(total - 1e-6) * t
                backR = keep * red + k * sumR
                backG = keep * green + k * sumG
                backB = keep * blue + k * sumB
            }
            let through = vmax(SIMD8(), 1 - near(.nearCoverage))
            let outR = near(.nearRed) + through * backR
            let outG = near(.nearGreen) + through * backG
            let outB = near(.nearBlue) + through * backB
            if n == 8 {
                storeRGB8(out + 3 * p0, outR, outG, outB)
            } else {
                for k in 0..<n {
                    let p = 3 * (p0 + k)
                    out[p] = outR[k]
                    out[p + 1] = outG[k]
                    out[p + 2] = outB[k]
                }
            }
            x += 8
        }
    }
}
