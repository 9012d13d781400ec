/// Preview quality: the same algorithm on the picture at half resolution, then one cheap pass at
/// full resolution that upsamples it and keeps in-focus pixels exactly.
///
/// The half-resolution render produces two layers: the near field (premultiplied colour and
/// coverage) and what lies behind it. Each full-resolution pixel takes the near layer bilinearly
/// and, behind it, its own picture value where its blur circle is under half a pixel across,
/// fading to the upsampled behind layer by one pixel of radius — so sharp pixels stay exactly
/// sharp, a blurred foreground still spills over them, and blurred areas cost a quarter.
struct PreviewRenderer {
    let renderer: BokehRenderer

    func render(picture: LinearImage, disparity: [Float], focusDisparity: Float, lens: LensModel) -> LinearImage {
        let W = picture.width
        let H = picture.height
        let w = (W + 1) / 2
        let h = (H + 1) / 2
        let threads = renderer.threads
        let halfPicture = UnsafeMutablePointer<Float>.allocate(capacity: w * h * 3)
        let halfDisparity = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
        let layers = UnsafeMutablePointer<Float>.allocate(capacity: w * h * 7)
        defer {
            halfPicture.deallocate()
            halfDisparity.deallocate()
            layers.deallocate()
        }
        return picture.values.withUnsafeBufferPointer { pixels in
            disparity.withUnsafeBufferPointer { depth in
                let pic = Shared(UnsafeMutablePointer(mutating: pixels.baseAddress!))
                let disp = Shared(UnsafeMutablePointer(mutating: depth.baseAddress!))
                let hp = Shared(halfPicture)
                let hd = Shared(halfDisparity)
                var clock = PassClock()
                // Half resolution: colour averaged over 2 × 2 (linear light), disparity over the
                // finite values among them.
                parallelFor(h, threads: threads) { j in
                    for i in 0..<w {
                        var colour = SIMD3<Float>.zero
                        var n: Float = 0
                        var d: Float = 0
                        var valid: Float = 0
                        for y in (2 * j)..<min(H, 2 * j + 2) {
                            for x in (2 * i)..<min(W, 2 * i + 2) {
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
                        hp.p[3 * (j * w + i)] = colour.x
                        hp.p[3 * (j * w + i) + 1] = colour.y
                        hp.p[3 * (j * w + i) + 2] = colour.z
                        hd.p[j * w + i] = valid > 0 ? d / valid : .nan
                    }
                }
                clock.lap("preview downsample")
                BokehEngine(
                    width: w, height: h, picture: halfPicture, disparity: halfDisparity, focus: focusDisparity, lens: lens,
                    quality: .preview, threads: threads, pool: renderer.pool, radiusScale: Float(w) / Float(W)
                ).run(into: CompositeTarget(layers: layers))
                clock.lap("preview engine")
                let image = combine(pic.p, disp.p, W, H, layers, halfDisparity, w, h, focusDisparity: focusDisparity, lens: lens)
                clock.lap("preview combine")
                clock.report()
                return image
            }
        }
    }

    /// Full resolution: near layer over (own pixel ↔ upsampled behind layer by blur radius). Cell
    /// k of a half-resolution row covers pixels 2k and 2k + 1, which take it with weight ¾ and its
    /// left or right neighbour with ¼; eight cells at a time, even and odd pixels apart. The near
    /// layer is upsampled bilinearly (its spill reaches over anything); the behind layer
    /// joint-bilaterally — bilinear weights times the similarity of the cell's blur radius to the
    /// pixel's — so a sharp subject does not bleed into the blurred background next to it.
    private func combine(
        _ picture: UnsafeMutablePointer<Float>, _ disparity: UnsafeMutablePointer<Float>, _ W: Int, _ H: Int,
        _ layers: UnsafeMutablePointer<Float>, _ halfDisparity: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int,
        focusDisparity: Float, lens: LensModel
    ) -> LinearImage {
        let radius = BlurRadius(half: 0.5 * lens.scale(focusDisparity: focusDisparity), focus: focusDisparity, limit: 1e6)
        let pic = Shared(picture)
        let disp = Shared(disparity)
        let source = Shared(layers)
        let cells = Shared(halfDisparity)
        let threads = renderer.threads
        let bandRows = 16
        let stride = w + 16
        let values = [Float](unsafeUninitializedCapacity: W * H * 3) { buffer, initialized in
            let out = Shared(buffer.baseAddress!)
            parallelFor((H + bandRows - 1) / bandRows, threads: threads) { band in
                // Rows of one cell of edge repeat on each side: near r g b a (interpolated between
                // the two cell rows), then for each of the two cell rows behind r g b and radius.
                let rows = UnsafeMutablePointer<Float>.allocate(capacity: 12 * stride)
                defer { rows.deallocate() }
                @inline(__always) func row(_ c: Int) -> UnsafeMutablePointer<Float> { rows + c * stride + 1 }
                @inline(__always) func pad(_ r: UnsafeMutablePointer<Float>) {
                    r[-1] = r[0]
                    for k in w..<(w + 9) { r[k] = r[w - 1] }
                }
                for y in (band * bandRows)..<min(H, band * bandRows + bandRows) {
                    let v = Float(y) * 0.5 - 0.25
                    let j = min(max(Int(v.rounded(.down)), 0), h - 1)
                    let j1 = min(j + 1, h - 1)
                    let fy = j1 > j ? min(max(v - Float(j), 0), 1) : 0
                    for c in 0..<4 {
                        let top = source.p + c * w * h + j * w
                        let bottom = source.p + c * w * h + j1 * w
                        let target = row(c)
                        var i = 0
                        while i + 8 <= w {
                            let t = load8(top + i)
                            store8(target + i, t + fy * (load8(bottom + i) - t))
                            i += 8
                        }
                        while i < w {
                            target[i] = top[i] + fy * (bottom[i] - top[i])
                            i += 1
                        }
                        pad(target)
                    }
                    for (n, jj) in [j, j1].enumerated() {
                        for c in 0..<3 {
                            let target = row(4 + 4 * n + c)
                            target.update(from: source.p + (4 + c) * w * h + jj * w, count: w)
                            pad(target)
                        }
                        let target = row(7 + 4 * n)
                        for i in 0..<w { target[i] = radius.signed(cells.p[jj * w + i]) }
                        pad(target)
                    }
                    var k0 = 0
                    while k0 < w {
                        // Cells k0 ..< k0 + 8 → pixels 2k0 ..< 2k0 + 16.
                        for parity in 0..<2 {
                            let count = min(8, (W - parity - 2 * k0 + 1) / 2)
                            guard count > 0 else { continue }
                            let side = parity == 0 ? -1 : 1
                            @inline(__always) func sample(_ c: Int) -> SIMD8<Float> {
                                let r = row(c) + k0
                                return 0.75 * load8(r) + 0.25 * load8(r + side)
                            }
                            let p0 = y * W + 2 * k0 + parity
                            var d = SIMD8<Float>(repeating: focusDisparity)
                            var red = SIMD8<Float>()
                            var green = SIMD8<Float>()
                            var blue = SIMD8<Float>()
                            if count == 8 {
                                let q = disp.p + p0
                                d = SIMD8(q[0], q[2], q[4], q[6], q[8], q[10], q[12], q[14])
                                let c = pic.p + 3 * p0
                                red = SIMD8(c[0], c[6], c[12], c[18], c[24], c[30], c[36], c[42])
                                green = SIMD8(c[1], c[7], c[13], c[19], c[25], c[31], c[37], c[43])
                                blue = SIMD8(c[2], c[8], c[14], c[20], c[26], c[32], c[38], c[44])
                            } else {
                                for k in 0..<count {
                                    d[k] = disp.p[p0 + 2 * k]
                                    red[k] = pic.p[3 * (p0 + 2 * k)]
                                    green[k] = pic.p[3 * (p0 + 2 * k) + 1]
                                    blue[k] = pic.p[3 * (p0 + 2 * k) + 2]
                                }
                            }
                            let r = radius.signed(d)
                            let a = vabs(r)
                            let t = vsaturate((a - BokehSchedule.passThrough) * (4.0 / 3))
                            var backR = red
                            var backG = green
                            var backB = blue
                            if any(t .> 0) {
                                // Four cells: (this, side) × (row j, row j1), bilinear × reach: as in
                                // the far-field gather, a cell reaches the pixel only within the smaller
                                // of the two blur radii (soft over one pixel), so a sharp subject's
                                // cells never spill into the blurred background beside it.
                                var sumR = SIMD8<Float>()
                                var sumG = SIMD8<Float>()
                                var sumB = SIMD8<Float>()
                                var total = SIMD8<Float>()
                                for n in 0..<2 {
                                    let wy: Float = n == 0 ? 1 - fy : fy
                                    guard wy > 0 else { continue }
                                    let dy = Float(y) - 0.5 - 2 * Float(n == 0 ? j : j1)
                                    for m in 0..<2 {
                                        let offset = k0 + (m == 0 ? 0 : side)
                                        let wb = wy * (m == 0 ? 0.75 : 0.25)
                                        let dx: Float = m == 0 ? 0.5 : 1.5
                                        let distance = (dx * dx + dy * dy).squareRoot()
                                        let reach = vmin(vabs(load8(row(7 + 4 * n) + offset)), a)
                                        let wgt = wb * vsaturate(reach - distance + 1)
                                        sumR += wgt * load8(row(4 + 4 * n) + offset)
                                        sumG += wgt * load8(row(5 + 4 * n) + offset)
                                        sumB += wgt * load8(row(6 + 4 * n) + offset)
                                        total += wgt
                                    }
                                }
                                // No cell reaches (a blurred pixel among sharp cells): keep its own value.
                                let reached = total .> 1e-6
                                let k = t / vmax(total, SIMD8(repeating: 1e-6))
                                backR = red + (k * sumR - t * red).replacing(with: 0, where: .!reached)
                                backG = green + (k * sumG - t * green).replacing(with: 0, where: .!reached)
                                backB = blue + (k * sumB - t * blue).replacing(with: 0, where: .!reached)
                            }
                            let through = vmax(SIMD8(), 1 - sample(3))
                            let outR = sample(0) + through * backR
                            let outG = sample(1) + through * backG
                            let outB = sample(2) + through * backB
                            for k in 0..<count {
                                let p = 3 * (p0 + 2 * k)
                                out.p[p] = outR[k]
                                out.p[p + 1] = outG[k]
                                out.p[p + 2] = outB[k]
                            }
                        }
                        k0 += 8
                    }
                }
            }
            initialized = W * H * 3
        }
        return LinearImage(width: W, height: H, values: values)
    }
}
