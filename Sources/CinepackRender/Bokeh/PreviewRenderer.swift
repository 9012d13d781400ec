/// Preview quality: the same algorithm on the picture at a quarter of its width and height (half
/// for small pictures), then one cheap pass at full resolution that upsamples it and keeps
/// in-focus pixels exactly.
///
/// The reduced render produces two layers: the near field (premultiplied colour and coverage) and
/// what lies behind it. Each full-resolution pixel takes the near layer bilinearly and, behind
/// it, a blend of its own picture value and the upsampled behind layer by its blur radius: whole
/// below half a pixel across, the share of fine detail a disk of that radius keeps up to about
/// a cell (see `PreviewUpsampler`). Sharp pixels stay exactly sharp, a blurred foreground still
/// spills over them, and the bokeh costs about a sixteenth of export's. The price: blur circles
/// under a few pixels come out softer than at export (the resampling's own spread, about a cell,
/// adds to theirs).
struct PreviewRenderer {
    let renderer: BokehRenderer

    /// How much smaller the reduced render is: 4, or 2 for pictures under 96 pixels on a side.
    static func factor(width: Int, height: Int) -> Int { min(width, height) >= 96 ? 4 : 2 }

    func render(picture: LinearImage, disparity: [Float], focusDisparity: Float, lens: LensModel) -> LinearImage {
        let W = picture.width
        let H = picture.height
        let f = Self.factor(width: W, height: H)
        let w = (W + f - 1) / f
        let h = (H + f - 1) / f
        let threads = renderer.threads
        let smallPicture = UnsafeMutablePointer<Float>.allocate(capacity: w * h * 3)
        let smallDisparity = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
        let layers = UnsafeMutablePointer<Float>.allocate(capacity: w * h * 7)
        defer {
            smallPicture.deallocate()
            smallDisparity.deallocate()
            layers.deallocate()
        }
        return picture.values.withUnsafeBufferPointer { pixels in
            disparity.withUnsafeBufferPointer { depth in
                let pic = Shared(UnsafeMutablePointer(mutating: pixels.baseAddress!))
                let disp = Shared(UnsafeMutablePointer(mutating: depth.baseAddress!))
                let sp = Shared(smallPicture)
                let sd = Shared(smallDisparity)
                var clock = PassClock()
                // Reduced resolution: colour averaged over f × f (linear light), disparity over
                // the finite values among them.
                parallelFor(h, threads: threads) { j in
                    for i in 0..<w {
                        var colour = SIMD3<Float>.zero
                        var n: Float = 0
                        var d: Float = 0
                        var valid: Float = 0
                        for y in (f * j)..<min(H, f * j + f) {
                            for x in (f * i)..<min(W, f * i + f) {
                                let p = y * W + x
                                colour += SIMD3(pic.p[3 * p], pic.p[3 * p + 1], pic.p[3 * p + 2])
                                n += 1
                                let v = disp.p[p]
                                if v.isFinite {
                                    d += v
                                    valid += 1
                                }
                            }
                        }
                        colour /= n
                        sp.p[3 * (j * w + i)] = colour.x
                        sp.p[3 * (j * w + i) + 1] = colour.y
                        sp.p[3 * (j * w + i) + 2] = colour.z
                        sd.p[j * w + i] = valid > 0 ? d / valid : .nan
                    }
                }
                clock.lap("preview downsample")
                BokehEngine(
                    width: w, height: h, picture: smallPicture, disparity: smallDisparity, focus: focusDisparity, lens: lens,
                    quality: .preview, threads: threads, pool: renderer.pool, radiusScale: Float(w) / Float(W),
                    aperture: renderer.aperture
                ).run(into: CompositeTarget(layers: layers))
                clock.lap("preview engine")
                let image = PreviewUpsampler(
                    picture: pic.p, disparity: disp.p, width: W, height: H, layers: layers, cellDisparity: smallDisparity, cells: w,
                    rows: h, factor: f,
                    radius: BlurRadius(half: 0.5 * lens.scale(focusDisparity: focusDisparity), focus: focusDisparity, limit: 1e6)
                ).run(threads: threads)
                clock.lap("preview combine")
                clock.report()
                return image
            }
        }
    }
}

/// The full-resolution pass of the preview: near layer bilinearly over (own pixel ↔ behind layer
/// by blur radius). The behind layer is upsampled by reach rather than plainly: as in the
/// far-field gather, a cell reaches a pixel only within the smaller of the two blur radii (soft
/// over one pixel), so a sharp subject's cells never spread into the blurred background beside it.
///
/// Separable in layout: for the cell rows a band of output rows needs, every output column gets
/// the near layer interpolated horizontally and the behind values and radii of its left and right
/// cells; each output row then works on eight contiguous pixels at a time.
private struct PreviewUpsampler: @unchecked Sendable {
    let picture: UnsafeMutablePointer<Float>
    let disparity: UnsafeMutablePointer<Float>
    let width: Int
    let height: Int
    /// Seven planes of `cells × rows`: near r, g, b, coverage; behind r, g, b.
    let layers: UnsafeMutablePointer<Float>
    let cellDisparity: UnsafeMutablePointer<Float>
    let cells: Int
    let rows: Int
    let factor: Int
    let radius: BlurRadius

    /// Planes per cell row, each `width + 8` floats: near r, g, b, a (interpolated); left cell
    /// behind r, g, b, |radius|; right cell the same.
    private static let planes = 12

    /// Cell coordinate of output pixel `x`: the two cells around it and the fraction towards the
    /// second.
    private func position(_ x: Int, count: Int) -> (Int, Int, Float, Float) {
        let u = (Float(x) + 0.5) / Float(factor) - 0.5
        let i0 = min(max(Int(u.rounded(.down)), 0), count - 1)
        let i1 = min(i0 + 1, count - 1)
        let fx = i1 > i0 ? min(max(u - Float(i0), 0), 1) : 0
        return (i0, i1, fx, u)
    }

    func run(threads: Int?) -> LinearImage {
        let W = width
        let H = height
        let stride = W + 8
        let f = Float(factor)
        // Per column: fraction towards the right cell and squared distances to both cell centres.
        let columns = UnsafeMutablePointer<Float>.allocate(capacity: 3 * stride)
        let cellOf = UnsafeMutablePointer<(Int32, Int32)>.allocate(capacity: W)
        defer {
            columns.deallocate()
            cellOf.deallocate()
        }
        columns.initialize(repeating: 0, count: 3 * stride)
        for x in 0..<W {
            let (i0, i1, fx, u) = position(x, count: cells)
            cellOf[x] = (Int32(i0), Int32(i1))
            columns[x] = fx
            columns[stride + x] = (u - Float(i0)) * (u - Float(i0)) * f * f
            columns[2 * stride + x] = (u - Float(i1)) * (u - Float(i1)) * f * f
        }
        let bandRows = 8 * factor
        let values = [Float](unsafeUninitializedCapacity: W * H * 3) { buffer, initialized in
            let out = Shared(buffer.baseAddress!)
            let cols = Shared(columns)
            let pairs = Shared(cellOf)
            parallelFor((H + bandRows - 1) / bandRows, threads: threads) { band in
                let y0 = band * bandRows
                let y1 = min(H, y0 + bandRows)
                let first = position(y0, count: rows).0
                let last = position(y1 - 1, count: rows).1
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: (last - first + 1) * Self.planes * stride)
                defer { buffer.deallocate() }
                for j in first...last {
                    expand(row: j, into: buffer + (j - first) * Self.planes * stride, stride: stride, pairs: pairs.p, fractions: cols.p)
                }
                for y in y0..<y1 {
                    let (j0, j1, fy, v) = position(y, count: rows)
                    let top = buffer + (j0 - first) * Self.planes * stride
                    let bottom = buffer + (j1 - first) * Self.planes * stride
                    let dyTop = (v - Float(j0)) * f
                    let dyBottom = (v - Float(j1)) * f
                    combineRow(
                        y, top: top, bottom: bottom, fy: fy, dy2: (dyTop * dyTop, dyBottom * dyBottom), stride: stride,
                        columns: cols.p, out: out.p)
                }
            }
            initialized = W * H * 3
        }
        return LinearImage(width: W, height: H, values: values)
    }

    /// Cell row `j` spread over the output columns (see `planes`).
    private func expand(
        row j: Int, into target: UnsafeMutablePointer<Float>, stride: Int, pairs: UnsafeMutablePointer<(Int32, Int32)>,
        fractions: UnsafeMutablePointer<Float>
    ) {
        let plane = cells * rows
        let base = j * cells
        for x in 0..<width {
            let (a, b) = pairs[x]
            let i0 = base + Int(a)
            let i1 = base + Int(b)
            let fx = fractions[x]
            for c in 0..<4 {
                let l = layers[c * plane + i0]
                target[c * stride + x] = l + fx * (layers[c * plane + i1] - l)
            }
            for c in 0..<3 {
                target[(4 + c) * stride + x] = layers[(4 + c) * plane + i0]
                target[(8 + c) * stride + x] = layers[(4 + c) * plane + i1]
            }
            target[7 * stride + x] = abs(radius.signed(cellDisparity[i0]))
            target[11 * stride + x] = abs(radius.signed(cellDisparity[i1]))
        }
        for c in 0..<Self.planes { (target + c * stride + width).update(repeating: 0, count: 8) }
    }

    private func combineRow(
        _ y: Int, top: UnsafeMutablePointer<Float>, bottom: UnsafeMutablePointer<Float>, fy: Float, dy2: (Float, Float),
        stride: Int, columns: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>
    ) {
        let W = width
        let vy = SIMD8<Float>(repeating: fy)
        let keepRadius = 0.8 * Float(factor)
        let inverseKeep = SIMD8<Float>(repeating: 1 / (keepRadius * keepRadius))
        var x = 0
        while x < W {
            let n = min(8, W - x)
            let p0 = y * W + x
            let (d, red, green, blue) = loadPixels8(picture, disparity, at: p0, count: n, fill: radius.focus)
            @inline(__always) func near(_ c: Int) -> SIMD8<Float> {
                let t = load8(top + c * stride + x)
                return t + vy * (load8(bottom + c * stride + x) - t)
            }
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
            if any(t .> 0) {
                let fx = load8(columns + x)
                var sumR = SIMD8<Float>()
                var sumG = SIMD8<Float>()
                var sumB = SIMD8<Float>()
                var total = SIMD8<Float>()
                for edge in 0..<2 {
                    let row = edge == 0 ? top : bottom
                    let wy = edge == 0 ? 1 - fy : fy
                    let dy = edge == 0 ? dy2.0 : dy2.1
                    guard wy > 0 else { continue }
                    for side in 0..<2 {
                        let wx = side == 0 ? 1 - fx : fx
                        let o = side == 0 ? 4 : 8
                        let distance = vsqrt(load8(columns + (1 + side) * stride + x) + dy)
                        let reach = vmin(load8(row + (o + 3) * stride + x), a)
                        let weight = wy * wx * vsaturate(reach - distance + 1)
                        sumR += weight * load8(row + o * stride + x)
                        sumG += weight * load8(row + (o + 1) * stride + x)
                        sumB += weight * load8(row + (o + 2) * stride + x)
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
            let through = vmax(SIMD8(), 1 - near(3))
            let outR = near(0) + through * backR
            let outG = near(1) + through * backG
            let outB = near(2) + through * backB
            if n == 8 {
                storeInterleaved(out + 3 * p0, outR, outG, outB)
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
