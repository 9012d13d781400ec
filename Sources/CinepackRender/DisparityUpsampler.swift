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
///    colour, so a disparity edge snaps to the picture edge.
/// 4. Across a depth step, a two-layer assignment replaces that where the colours decide: each
///    cell's neighbourhood has a near and a far layer with a colour each, and a pixel's colour
///    picks between them (soft where it lies between), weighted by how well the two colours are
///    separated (`LayerModel`). The result is clamped to the range of the surrounding map values
///    (no overshoot), raised where a cell's mixed value holds a structure thinner than the cell
///    (`ceilings`); the pixels of such a cell end at least their share of the structure's depth
///    (`settleMixtures`).
/// 5. Where the map steps (`layerModels` tells where), a confidence-weighted joint bilateral pass at picture
///    resolution (`refine`), run twice, gives the pixels those cell-level models left between the
///    two depths the depth of the decided pixels of their own colour nearby; those it still
///    leaves between take the side whose decided pixels hold their closest colours
///    (`settleUndecided`).
/// 6. Along thin structures (wires, strands) that the map hits only here and there, the depth
///    decided at the hits is carried between them (`carryAlongThinStructures`).
///
/// Deterministic and thread-count independent; O(picture pixels) with a small constant. A map
/// with no valid value gives NaN everywhere (the renderer treats NaN as in focus).
package enum DisparityUpsampler {
    /// Regularisation of the guided filter, in (√linear)² units: small, so that a colour edge
    /// inside a window still carries the disparity step across it (thin structures, textured
    /// surfaces on both sides of an edge); the clamp below keeps the result inside the map's range.
    static let epsilon: Float = 1e-5
    /// Weight of a filled (invalid) map value relative to a valid one.
    static let filledWeight: Float = 0.02
    /// Fraction of a cell's width and height whose picture average guides it (the whole cell
    /// measured best, for maps sampled at cell centres as well as area-averaged ones).
    static let footprint: Float = 1

    package static func upsample(_ map: DisparityMap, guide: LinearImage) -> [Float] {
        upsample(map, guide: guide, threads: nil)
    }

    static func upsample(_ map: DisparityMap, guide: LinearImage, threads: Int?) -> [Float] {
        let W = guide.width
        let H = guide.height
        let w = map.width
        let h = map.height
        guard W > 0, H > 0 else { return [] }
        guard w > 0, h > 0, let (filled, confidence) = fill(map.values, width: w, height: h) else {
            return [Float](repeating: .nan, count: W * H)
        }
        if w == W && h == H { return filled }
        return guide.values.withUnsafeBufferPointer { picture in
            let g = picture.baseAddress!
            let map = RawBuffer<Float>(count: w * h, zeroed: false)
            map.base.initialize(from: filled, count: w * h)
            let p = map.base
            var clock = PassClock()
            // √colour at picture resolution, one plane a channel, for both the guide and the refinement.
            let (colourBuffer, guideBuffer, spreadBuffer) = averageGuide(g, W, H, w, h, threads: threads)
            let colour = colourBuffer.base
            let (guideLow, spread) = (guideBuffer.base, spreadBuffer.base)
            clock.lap("guide")
            let coefficientBuffer = fit(p, confidence, guideLow, w, h, threads: threads)
            let coefficients = coefficientBuffer.base
            // Steps under a hundredth of the map's range are left to the guided filter: the
            // assignment could move them by no more than that (gradients, not edges).
            var range = (low: Float.infinity, high: -Float.infinity)
            for v in filled { range = (min(range.low, v), max(range.high, v)) }
            let step = max(1e-2 * (range.high - range.low), .leastNormalMagnitude)
            let (layerBuffer, steps) = layerModels(p, guideLow, spread, w, h, least: step, threads: threads)
            let layers = layerBuffer.base
            let ceilingBuffer = ceilings(coefficients, layers, p, colour, W, H, w, h, least: step, top: range.high, threads: threads)
            let ceilings = ceilingBuffer.base
            clock.lap("fit")
            var result = apply(coefficients, layers, ceilings, step: step, p, colour, W, H, w, h, threads: threads)
            clock.lap("apply")
            // Twice: the pixels the first pass decides lend their depth one cell further in the
            // second, which moves each pixel `secondPassShare` of the way to its result.
            let scope = RefineScope(steps, W, H, w, h)
            refine(&result, layers, ceilings, steps, share: 1, scope, recorded: false, p, colour, W, H, w, h, threads: threads)
            refine(&result, layers, ceilings, steps, share: secondPassShare, scope, recorded: true, p, colour, W, H, w, h, threads: threads)
            clock.lap("refine")
            settleUndecided(&result, steps, scope, p, ceilings, colour, W, H, w, h, threads: threads)
            clock.lap("settle")
            carryAlongThinStructures(&result, layers, p, colour, W, H, w, h, range: range.high - range.low, threads: threads)
            settleMixtures(&result, coefficients, layers, ceilings, p, colour, W, H, w, h, threads: threads)
            clock.lap("thin")
            clock.report()
            // The passes work on the buffers' pointers: keep the owners alive until they are done.
            withExtendedLifetime((map, colourBuffer, guideBuffer, spreadBuffer, coefficientBuffer, layerBuffer, ceilingBuffer)) {}
            return result
        }
    }

    /// The picture's √colour (`colourRow`, one plane a channel), its average over the central
    /// `footprint` of every cell, one plane a channel, and its spread there (the variance summed
    /// over the channels), one float a cell. One pass: each row of cells makes the picture rows it
    /// owns and sums them while they are in cache (rows of its footprint owned by the next row of
    /// cells are made again in a scratch row, with the same values).
    private static func averageGuide(
        _ g: UnsafePointer<Float>, _ W: Int, _ H: Int, _ w: Int, _ h: Int, threads: Int?
    ) -> (colour: RawBuffer<Float>, guide: RawBuffer<Float>, spread: RawBuffer<Float>) {
        @Sendable func span(_ i: Int, _ cells: Int, _ pixels: Int) -> Range<Int> {
            let size = Float(pixels) / Float(cells)
            let centre = (Float(i) + 0.5) * size
            let half = 0.5 * footprint * size
            let a = min(pixels - 1, max(0, Int((centre - half).rounded(.down))))
            return a..<max(a + 1, min(pixels, Int((centre + half).rounded(.up))))
        }
        let plane = W * H
        let colour = RawBuffer<Float>(count: 3 * plane, zeroed: false)
        let out = RawBuffer<Float>(count: w * h * 3, zeroed: false)
        let spread = RawBuffer<Float>(count: w * h, zeroed: false)
        let o = Shared(out.base)
        let v = Shared(spread.base)
        let planes = Shared(colour.base)
        let source = Shared(UnsafeMutablePointer(mutating: g))
        // Column spans are the same for every row of cells.
        let columns = (0..<w).map { span($0, w, W) }
        // The spans' common width when they tile the row (a whole number of pixels a cell).
        let width: Int? = columns.enumerated().allSatisfy { $0.element == $0.offset * (W / w)..<($0.offset + 1) * (W / w) } ? W / w : nil
        parallelFor(h, threads: threads) { j in
            let rows = span(j, h, H)
            // Every picture row is made into the planes by exactly one row of cells.
            let owned = (j * H / h)..<((j + 1) * H / h)
            // The rows' √colour summed column by column (one plane a channel), then each cell's
            // columns. The footprint's rows this row of cells does not own are made in scratch rows.
            // The sums are written in full before they are read: no zeroing.
            let buffers = (
                sums: RawBuffer<Float>(count: W * 3 + 8, zeroed: false), squares: RawBuffer<Float>(count: W * 3 + 8, zeroed: false),
                scratch: RawBuffer<Float>(count: W * 3 * rows.count, zeroed: false)
            )
            defer { withExtendedLifetime(buffers) {} }
            let (sums, squares) = (buffers.sums.base, buffers.squares.base)
            // The footprint's rows in order, each with its channels' stride.
            var made: [(row: UnsafeMutablePointer<Float>, stride: Int)] = []
            made.reserveCapacity(rows.count)
            for y in min(rows.lowerBound, owned.lowerBound)..<max(rows.upperBound, owned.upperBound) {
                let target = owned.contains(y) ? planes.p + y * W : buffers.scratch.base + (y - rows.lowerBound) * W * 3
                let stride = owned.contains(y) ? plane : W
                colourRow(source.p + y * W * 3, W, into: target, stride: stride)
                if rows.contains(y) { made.append((target, stride)) }
            }
            // Down the rows in registers, eight columns at a time, the rows added in order (as
            // into a zeroed sum row one row at a time), each sum stored once.
            for channel in 0..<3 {
                let (sum, square) = (sums + channel * W, squares + channel * W)
                var k = 0
                while k + 8 <= W {
                    var (s, q) = (SIMD8<Float>(), SIMD8<Float>())
                    for (row, stride) in made {
                        let r = load8(row + channel * stride + k)
                        s += r
                        q += r * r
                    }
                    store8(sum + k, s)
                    store8(square + k, q)
                    k += 8
                }
                while k < W {
                    var (s, q): (Float, Float) = (0, 0)
                    for (row, stride) in made {
                        let r = row[channel * stride + k]
                        s += r
                        q += r * r
                    }
                    (sum[k], square[k]) = (s, q)
                    k += 1
                }
            }
            var first = 0
            if let c = width {
                // Eight cells at once, the same operations in the same order per lane as below
                // (`SIMD3` divides and multiplies lane by lane; `sum()` adds x, y, z in that order).
                let n = Float(rows.count * c)
                while first + 8 <= w {
                    var (sR, sG, sB) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
                    var (qR, qG, qB) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
                    if c == 4 {
                        // Four pixels a cell (a quarter-size map): the eight cells' 32 columns are
                        // four whole vectors, dealt out to the columns by lane shuffles rather
                        // than gathered a float at a time. Added in the same order as below.
                        @inline(__always) func added(_ s: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
                            let q = p + first * 4
                            let (a, b, c, d) = (load8(q), load8(q + 8), load8(q + 16), load8(q + 24))
                            let c0 = SIMD8(a[0], a[4], b[0], b[4], c[0], c[4], d[0], d[4])
                            let c1 = SIMD8(a[1], a[5], b[1], b[5], c[1], c[5], d[1], d[5])
                            let c2 = SIMD8(a[2], a[6], b[2], b[6], c[2], c[6], d[2], d[6])
                            let c3 = SIMD8(a[3], a[7], b[3], b[7], c[3], c[7], d[3], d[7])
                            return s + c0 + c1 + c2 + c3
                        }
                        (sR, sG, sB) = (added(sR, sums), added(sG, sums + W), added(sB, sums + 2 * W))
                        (qR, qG, qB) = (added(qR, squares), added(qG, squares + W), added(qB, squares + 2 * W))
                    } else {
                        for t in 0..<c {
                            /// Column `t` of each of the eight cells.
                            @inline(__always) func column(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
                                var r = SIMD8<Float>()
                                for k in 0..<8 { r[k] = p[(first + k) * c + t] }
                                return r
                            }
                            (sR, sG, sB) = (sR + column(sums), sG + column(sums + W), sB + column(sums + 2 * W))
                            (qR, qG, qB) = (qR + column(squares), qG + column(squares + W), qB + column(squares + 2 * W))
                        }
                    }
                    (sR, sG, sB) = (sR / n, sG / n, sB / n)
                    let cell = j * w + first
                    store8(o.p + cell, sR)
                    store8(o.p + w * h + cell, sG)
                    store8(o.p + 2 * w * h + cell, sB)
                    let variance = (qR / n - sR * sR) + (qG / n - sG * sG) + (qB / n - sB * sB)
                    for k in 0..<8 { v.p[cell + k] = max(0, variance[k]) }
                    first += 8
                }
            }
            for i in first..<w {
                var s = SIMD3<Float>.zero
                var q = SIMD3<Float>.zero
                for x in columns[i] {
                    s += SIMD3(sums[x], sums[W + x], sums[2 * W + x])
                    q += SIMD3(squares[x], squares[W + x], squares[2 * W + x])
                }
                let n = Float(rows.count * columns[i].count)
                s /= n
                o.p[j * w + i] = s.x
                o.p[w * h + j * w + i] = s.y
                o.p[2 * w * h + j * w + i] = s.z
                v.p[j * w + i] = max(0, (q / n - s * s).sum())
            }
        }
        return (colour, out, spread)
    }

    /// The two depth layers of a cell's 3 × 3 neighbourhood: the nearest and farthest map values
    /// there, each with the colour of the cells that hold it, and how well those colours tell the
    /// layers apart.
    struct LayerModel {
        /// √colour of the far layer.
        var far: SIMD3<Float>
        /// (near − far) / |near − far|²: a colour's projection on it is 0 at the far layer's colour
        /// and 1 at the near layer's.
        var axis: SIMD3<Float>
        var low: Float
        var high: Float
        /// 0 (the colours overlap: keep the guided filter) … 1 (the colours decide).
        var confidence: Float
    }

    /// Sharpness of the assignment along the colour axis: the middle third of the way from one
    /// layer's colour to the other's stays a soft mix, the rest goes to the nearer colour.
    static let assignmentSharpness: Float = 3
    /// Spread (variance, √colour units summed over channels) added to every cell's own, so flat
    /// cells do not weigh without bound (about the spread of film grain and 8-bit noise).
    static let spreadFloor: Float = 1e-2

    /// Two-layer models per cell. A cell's colour counts for a layer by how close its value is to
    /// that layer's (fourth power of the normalised distance, so cells between the two — mixed
    /// cells of an area-averaged map — count little) and by how uniform the cell's own colour is
    /// (a cell straddling an edge has a wide spread and a mixed mean). The confidence is a Fisher
    /// separation: the squared distance of the two colours over their summed spreads.
    ///
    /// With them, from the same neighbourhoods, the cells at a depth step rather than on a slope
    /// (`steps`, where the refinement works): the 3 × 3 neighbourhood (clipped at the edges) spans
    /// more than `least`, and its values leave the least-squares plane through them by more than a
    /// quarter of that span (a step between two cells leaves it by a third of the step; a plane,
    /// however steep, by nothing).
    private static func layerModels(
        _ p: UnsafeMutablePointer<Float>, _ guideLow: UnsafeMutablePointer<Float>, _ spread: UnsafeMutablePointer<Float>,
        _ w: Int, _ h: Int, least: Float, threads: Int?
    ) -> (models: RawBuffer<LayerModel>, steps: [Bool]) {
        let out = RawBuffer<LayerModel>(count: w * h, zeroed: false)
        let stepBuffer = RawBuffer<Bool>(count: w * h)
        let (o, isStep) = (Shared(out.base), Shared(stepBuffer.base))
        let values = Shared(p)
        let gl = Shared(guideLow)
        let cells = w * h
        let sp = Shared(spread)
        // Each cell's weight for its uniformity, once (every neighbourhood around it reads it twice).
        let uniformBuffer = RawBuffer<Float>(count: w * h, zeroed: false)
        let uniformity = Shared(uniformBuffer.base)
        parallelFor(h, threads: threads) { j in
            for k in (j * w)..<(j * w + w) { uniformity.p[k] = 1 / (sp.p[k] + spreadFloor) }
        }
        defer { withExtendedLifetime((uniformBuffer, stepBuffer)) {} }
        parallelFor(h, threads: threads) { j in
            let rows = max(0, j - 1)...min(h - 1, j + 1)
            // Each neighbour's two layer weights, kept from the means for the spreads.
            let weightBuffer = RawBuffer<Float>(count: 18, zeroed: false)
            defer { withExtendedLifetime(weightBuffer) {} }
            let (nearWeights, farWeights) = (weightBuffer.base, weightBuffer.base + 9)
            let weightBuffer8 = RawBuffer<SIMD8<Float>>(count: 18, zeroed: false)
            defer { withExtendedLifetime(weightBuffer8) {} }
            let (nearWeights8, farWeights8) = (weightBuffer8.base, weightBuffer8.base + 9)
            /// Cell `i`'s model from its neighbourhood's farthest and nearest values.
            @inline(__always) func model(_ i: Int, low: Float, high: Float) {
                let columns = max(0, i - 1)...min(w - 1, i + 1)
                var model = LayerModel(far: .zero, axis: .zero, low: low, high: high, confidence: 0)
                let range = high - low
                // Most cells lie on a flat or gently sloping map: no layers to tell apart.
                guard range > least && range.isFinite else {
                    o.p[j * w + i] = model
                    return
                }
                var n = 0
                var sumNear: Float = 0
                var sumFar: Float = 0
                var near = SIMD3<Float>.zero
                var far = SIMD3<Float>.zero
                for y in rows {
                    for x in columns {
                        let k = y * w + x
                        let t = (values.p[k] - low) / range
                        let uniform = uniformity.p[k]
                        let a = t * t * t * t * uniform
                        let b = (1 - t) * (1 - t) * (1 - t) * (1 - t) * uniform
                        (nearWeights[n], farWeights[n]) = (a, b)
                        n += 1
                        let c = SIMD3(gl.p[k], gl.p[cells + k], gl.p[2 * cells + k])
                        sumNear += a
                        sumFar += b
                        near += a * c
                        far += b * c
                    }
                }
                near /= sumNear
                far /= sumFar
                var spreadNear: Float = 0
                var spreadFar: Float = 0
                n = 0
                for y in rows {
                    for x in columns {
                        let k = y * w + x
                        let c = SIMD3(gl.p[k], gl.p[cells + k], gl.p[2 * cells + k])
                        let dn = c - near
                        let df = c - far
                        spreadNear += nearWeights[n] * ((dn * dn).sum() + sp.p[k])
                        spreadFar += farWeights[n] * ((df * df).sum() + sp.p[k])
                        n += 1
                    }
                }
                let d = near - far
                let distance = (d * d).sum()
                let separation = distance / (spreadNear / sumNear + spreadFar / sumFar + 1e-4)
                model.far = far
                model.axis = distance > 0 ? d / distance : .zero
                model.confidence = min(max((separation - separationFloor) / separationSpan, 0), 1)
                o.p[j * w + i] = model
                isStep.p[j * w + i] = MapPlaneFit.residual(values.p, width: w, rows: rows, columns: columns) > 0.25 * range
            }
            /// Cells `i ..< i + 8` (their neighbourhoods inside the map's columns) at once: the
            /// same operations in the same order per lane as `model`, the sums over the
            /// neighbourhood eight lanes wide, each lane finished as `model` finishes.
            func models8(_ i: Int, low: SIMD8<Float>, high: SIMD8<Float>) {
                let range = high - low
                var any = false
                for k in 0..<8 where range[k] > least && range[k].isFinite { any = true }
                guard any else {
                    for k in 0..<8 { o.p[j * w + i + k] = LayerModel(far: .zero, axis: .zero, low: low[k], high: high[k], confidence: 0) }
                    return
                }
                var (sumNear, sumFar) = (SIMD8<Float>(), SIMD8<Float>())
                var (nearR, nearG, nearB) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
                var (farR, farG, farB) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
                var n = 0
                for y in rows {
                    for dx in -1...1 {
                        let k = y * w + i + dx
                        let t = (load8(values.p + k) - low) / range
                        let uniform = load8(uniformity.p + k)
                        let a = t * t * t * t * uniform
                        let b = (1 - t) * (1 - t) * (1 - t) * (1 - t) * uniform
                        (nearWeights8[n], farWeights8[n]) = (a, b)
                        n += 1
                        let (r, g, bl) = (load8(gl.p + k), load8(gl.p + cells + k), load8(gl.p + 2 * cells + k))
                        sumNear += a
                        sumFar += b
                        (nearR, nearG, nearB) = (nearR + a * r, nearG + a * g, nearB + a * bl)
                        (farR, farG, farB) = (farR + b * r, farG + b * g, farB + b * bl)
                    }
                }
                // The layers' colours, divided as `model` divides them (a `SIMD3` divides lane by lane).
                (nearR, nearG, nearB) = (nearR / sumNear, nearG / sumNear, nearB / sumNear)
                (farR, farG, farB) = (farR / sumFar, farG / sumFar, farB / sumFar)
                var (spreadNear, spreadFar) = (SIMD8<Float>(), SIMD8<Float>())
                n = 0
                for y in rows {
                    for dx in -1...1 {
                        let k = y * w + i + dx
                        let (r, g, bl) = (load8(gl.p + k), load8(gl.p + cells + k), load8(gl.p + 2 * cells + k))
                        let own = load8(sp.p + k)
                        let (nr, ng, nb) = (r - nearR, g - nearG, bl - nearB)
                        let (fr, fg, fb) = (r - farR, g - farG, bl - farB)
                        // `SIMD3.sum()` adds x, y, z in that order.
                        spreadNear += nearWeights8[n] * (nr * nr + ng * ng + nb * nb + own)
                        spreadFar += farWeights8[n] * (fr * fr + fg * fg + fb * fb + own)
                        n += 1
                    }
                }
                // Each lane finished as `model` finishes, the arithmetic eight lanes wide.
                let (dR, dG, dB) = (nearR - farR, nearG - farG, nearB - farB)
                let distance = dR * dR + dG * dG + dB * dB
                let separation = distance / (spreadNear / sumNear + spreadFar / sumFar + 1e-4)
                let (axisR, axisG, axisB) = (dR / distance, dG / distance, dB / distance)
                let confidence = (separation - separationFloor) / separationSpan
                let residual = MapPlaneFit.residual8(values.p, width: w, rows: rows, first: i)
                for k in 0..<8 {
                    let cell = j * w + i + k
                    var model = LayerModel(far: .zero, axis: .zero, low: low[k], high: high[k], confidence: 0)
                    if range[k] > least && range[k].isFinite {
                        model.far = SIMD3(farR[k], farG[k], farB[k])
                        model.axis = distance[k] > 0 ? SIMD3(axisR[k], axisG[k], axisB[k]) : .zero
                        model.confidence = min(max(confidence[k], 0), 1)
                        isStep.p[cell] = residual[k] > 0.25 * range[k]
                    }
                    o.p[cell] = model
                }
            }
            var i = 0
            while i < w {
                if i >= 1 && i + 9 <= w {
                    // Eight neighbourhoods inside the map's columns at once, the values taken in
                    // the same order per lane as one at a time (`vmin` picks as `min` does,
                    // `latestMax` as `max`: even between −0 and +0).
                    var low = SIMD8<Float>(repeating: .infinity)
                    var high = SIMD8<Float>(repeating: -.infinity)
                    for y in rows {
                        let row = values.p + y * w + i
                        for dx in -1...1 {
                            let v = load8(row + dx)
                            low = vmin(low, v)
                            high = latestMax(high, v)
                        }
                    }
                    models8(i, low: low, high: high)
                    i += 8
                } else {
                    var low = Float.infinity
                    var high = -Float.infinity
                    for y in rows {
                        for x in max(0, i - 1)...min(w - 1, i + 1) {
                            let v = values.p[y * w + x]
                            low = min(low, v)
                            high = max(high, v)
                        }
                    }
                    model(i, low: low, high: high)
                    i += 1
                }
            }
        }
        return (out, Array(UnsafeBufferPointer(start: stepBuffer.base, count: w * h)))
    }

    /// `Swift.max` lane by lane: `b` where it is at least `a` (`vmax` keeps `a` on a tie, which
    /// differs between −0 and +0).
    @inline(__always) private static func latestMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        var r = a
        for i in 0..<8 { r[i] = b[i] >= a[i] ? b[i] : a[i] }
        return r
    }

    /// Separation below which the two layers' colours do not decide at all, and the span over
    /// which the confidence rises to 1 above it.
    static let separationFloor: Float = 1.5
    static let separationSpan: Float = 3

    /// One row of √ of the picture's linear light (negatives count as 0), its channels `stride`
    /// apart (one plane a channel): the guide averages it per cell, and the refinement reads it
    /// (2·reach + 1)² times per refined pixel, eight neighbouring pixels at once.
    @inline(__always) private static func colourRow(
        _ row: UnsafePointer<Float>, _ W: Int, into r: UnsafeMutablePointer<Float>, stride: Int
    ) {
        let (gr, b) = (r + stride, r + 2 * stride)
        var x = 0
        while x + 8 <= W {
            let (red, green, blue) = loadRGB8(row + 3 * x)
            store8(r + x, vsqrt(vmax(red, SIMD8())))
            store8(gr + x, vsqrt(vmax(green, SIMD8())))
            store8(b + x, vsqrt(vmax(blue, SIMD8())))
            x += 8
        }
        while x < W {
            r[x] = max(row[3 * x], 0).squareRoot()
            gr[x] = max(row[3 * x + 1], 0).squareRoot()
            b[x] = max(row[3 * x + 2], 0).squareRoot()
            x += 1
        }
    }

    /// Guided-filter models (a.r, a.g, a.b, b) per cell, averaged over the windows covering it
    /// (`GuidedFit`), each cell weighted by its confidence.
    private static func fit(
        _ p: UnsafeMutablePointer<Float>, _ confidence: [Float], _ guideLow: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int,
        threads: Int?
    ) -> RawBuffer<SIMD4<Float>> {
        let weightBuffer = RawBuffer<Float>(count: w * h, zeroed: false)
        defer { withExtendedLifetime(weightBuffer) {} }
        let weights = weightBuffer.base
        for k in 0..<(w * h) { weights[k] = confidence[k] + filledWeight }
        return GuidedFit.models(p, weights, guideLow, w, h, epsilon: epsilon, threads: threads)
    }

    /// Each picture pixel: the bilinear model applied to its √colour (`colourRow`), clamped to the range of the
    /// 2 × 2 map values around it. Separable: the map rows a band needs are first interpolated to
    /// picture columns (coefficients and range as six planes), then each picture row blends two of
    /// them eight pixels at a time.
    private static func apply(
        _ coefficients: UnsafeMutablePointer<SIMD4<Float>>, _ layers: UnsafeMutablePointer<LayerModel>,
        _ ceilings: UnsafeMutablePointer<Float>,
        step least: Float, _ p: UnsafeMutablePointer<Float>, _ colour: UnsafeMutablePointer<Float>,
        _ W: Int, _ H: Int, _ w: Int, _ h: Int, threads: Int?
    ) -> [Float] {
        // Per picture column: the map columns interpolated there and the weight of the right one.
        let columnBuffer = (
            left: RawBuffer<Int>(count: W, zeroed: false), right: RawBuffer<Int>(count: W, zeroed: false),
            fraction: RawBuffer<Float>(count: W, zeroed: false)
        )
        defer { withExtendedLifetime(columnBuffer) {} }
        for x in 0..<W {
            let u = (Float(x) + 0.5) * Float(w) / Float(W) - 0.5
            let i = min(max(Int(u.rounded(.down)), 0), w - 1)
            columnBuffer.left[x] = i
            columnBuffer.right[x] = min(i + 1, w - 1)
            columnBuffer.fraction[x] = i + 1 < w ? min(max(u - Float(i), 0), 1) : 0
        }
        @Sendable func mapRow(_ y: Int) -> (j0: Int, j1: Int, fy: Float) {
            let v = (Float(y) + 0.5) * Float(h) / Float(H) - 0.5
            let j0 = min(max(Int(v.rounded(.down)), 0), h - 1)
            let j1 = min(j0 + 1, h - 1)
            return (j0, j1, j1 > j0 ? min(max(v - Float(j0), 0), 1) : 0)
        }
        let (left, right, fraction) = (Shared(columnBuffer.left.base), Shared(columnBuffer.right.base), Shared(columnBuffer.fraction.base))
        let coef = Shared(coefficients)
        let lay = Shared(layers)
        let ceiling = Shared(ceilings)
        let map = Shared(p)
        let planes = Shared(colour)
        let stride = W + 8
        // Bands of the picture rows whose upper map row lies in the same run of `bandMapRows` map
        // rows (about 32 picture rows): each band interpolates its map rows once and shares only
        // one with the next.
        let bandMapRows = max(1, 32 * h / H)
        let bandStarts = [0] + (1..<H).filter { mapRow($0).j0 / bandMapRows != mapRow($0 - 1).j0 / bandMapRows } + [H]
        return [Float](unsafeUninitializedCapacity: W * H) { buffer, initialized in
            let o = Shared(buffer.baseAddress!)
            parallelFor(bandStarts.count - 1, threads: threads) { band in
                let y0 = bandStarts[band]
                let y1 = bandStarts[band + 1]
                let first = mapRow(y0).j0
                let last = mapRow(y1 - 1).j1
                // Per map row: a.r, a.g, a.b, b, low, high at every picture column.
                let rowBuffer = RawBuffer<Float>(count: (last - first + 1) * 6 * stride, zeroed: false)
                defer { withExtendedLifetime(rowBuffer) {} }
                let rows = rowBuffer.base
                // Per map cell `i` and its right neighbour `min(i + 1, w − 1)` (the pair every
                // picture column interpolates between): the models' difference and the pair's
                // least value and highest ceiling, once a cell rather than once a column.
                let pairBuffer = (
                    difference: RawBuffer<SIMD4<Float>>(count: w, zeroed: false), low: RawBuffer<Float>(count: w, zeroed: false),
                    high: RawBuffer<Float>(count: w, zeroed: false)
                )
                defer { withExtendedLifetime(pairBuffer) {} }
                let (difference, pairLow, pairHigh) = (pairBuffer.difference.base, pairBuffer.low.base, pairBuffer.high.base)
                for j in first...last {
                    let plane = rows + (j - first) * 6 * stride
                    let (models, values, tops) = (coef.p + j * w, map.p + j * w, ceiling.p + j * w)
                    for i in 0..<w {
                        let r = min(i + 1, w - 1)
                        difference[i] = models[r] - models[i]
                        pairLow[i] = min(values[i], values[r])
                        pairHigh[i] = max(tops[i], tops[r])
                    }
                    /// Column `x`'s model, interpolated as a whole (the same lane operations as
                    /// one component at a time).
                    @inline(__always) func model(_ x: Int) -> SIMD4<Float> {
                        let i = left.p[x]
                        return models[i] + fraction.p[x] * difference[i]
                    }
                    @inline(__always) func four(_ row: UnsafeMutablePointer<Float>, _ cells: UnsafeMutablePointer<Int>) -> SIMD4<Float> {
                        SIMD4(row[cells[0]], row[cells[1]], row[cells[2]], row[cells[3]])
                    }
                    var x = 0
                    // Four columns at a time, their models turned into the planes' lanes.
                    while x + 4 <= W {
                        let (m0, m1, m2, m3) = (model(x), model(x + 1), model(x + 2), model(x + 3))
                        store4(plane + x, SIMD4(m0.x, m1.x, m2.x, m3.x))
                        store4(plane + stride + x, SIMD4(m0.y, m1.y, m2.y, m3.y))
                        store4(plane + 2 * stride + x, SIMD4(m0.z, m1.z, m2.z, m3.z))
                        store4(plane + 3 * stride + x, SIMD4(m0.w, m1.w, m2.w, m3.w))
                        store4(plane + 4 * stride + x, four(pairLow, left.p + x))
                        store4(plane + 5 * stride + x, four(pairHigh, left.p + x))
                        x += 4
                    }
                    while x < W {
                        let c = model(x)
                        plane[x] = c.x
                        plane[stride + x] = c.y
                        plane[2 * stride + x] = c.z
                        plane[3 * stride + x] = c.w
                        plane[4 * stride + x] = pairLow[left.p[x]]
                        plane[5 * stride + x] = pairHigh[left.p[x]]
                        x += 1
                    }
                    for k in 0..<6 { (plane + k * stride + W).update(repeating: 0, count: 8) }
                }
                for y in y0..<y1 {
                    let (j0, j1, fy) = mapRow(y)
                    let top = rows + (j0 - first) * 6 * stride
                    let bottom = rows + (j1 - first) * 6 * stride
                    let f = SIMD8<Float>(repeating: fy)
                    @inline(__always) func blend(_ k: Int, _ x: Int) -> SIMD8<Float> {
                        let t = load8(top + k * stride + x)
                        return t + f * (load8(bottom + k * stride + x) - t)
                    }
                    var x = 0
                    while x < W {
                        let n = min(8, W - x)
                        let c = planes.p + y * W + x
                        var red = SIMD8<Float>()
                        var green = SIMD8<Float>()
                        var blue = SIMD8<Float>()
                        if n == 8 {
                            red = load8(c)
                            green = load8(c + W * H)
                            blue = load8(c + 2 * W * H)
                        } else {
                            for k in 0..<n {
                                red[k] = c[k]
                                green[k] = c[W * H + k]
                                blue[k] = c[2 * W * H + k]
                            }
                        }
                        let value = blend(0, x) * red + blend(1, x) * green + blend(2, x) * blue + blend(3, x)
                        let low = vmin(load8(top + 4 * stride + x), load8(bottom + 4 * stride + x))
                        let high = vmax(load8(top + 5 * stride + x), load8(bottom + 5 * stride + x))
                        // vmax keeps its first argument when either is NaN: a NaN model gives `low`.
                        var clamped = vmin(vmax(low, value), high)
                        // Across a depth step, the two-layer assignment (bilinear over the four
                        // cells' models) decides where the colours do.
                        let step = high - low
                        // (A NaN lane counts as no step, as `step[k] > least` has it: `least` > 0.)
                        if anyAbove(vmax(SIMD8(), step), least) {
                            for k in 0..<n where step[k] > least {
                                let (i0, i1, fx) = (left.p[x + k], right.p[x + k], fraction.p[x + k])
                                let confident =
                                    lay.p[j0 * w + i0].confidence + lay.p[j0 * w + i1].confidence
                                    + lay.p[j1 * w + i0].confidence + lay.p[j1 * w + i1].confidence
                                if confident == 0 { continue }
                                let colour = SIMD3(red[k], green[k], blue[k])
                                let guided = clamped[k]
                                @inline(__always) func layered(_ m: LayerModel) -> Float {
                                    let a = ((colour - m.far) * m.axis).sum()
                                    let alpha = min(max(0.5 + assignmentSharpness * (a - 0.5), 0), 1)
                                    return guided + m.confidence * (m.low + alpha * (m.high - m.low) - guided)
                                }
                                let topLeft = layered(lay.p[j0 * w + i0])
                                let bottomLeft = layered(lay.p[j1 * w + i0])
                                let top = topLeft + fx * (layered(lay.p[j0 * w + i1]) - topLeft)
                                let bottom = bottomLeft + fx * (layered(lay.p[j1 * w + i1]) - bottomLeft)
                                clamped[k] = min(max(top + fy * (bottom - top), low[k]), high[k])
                            }
                        }
                        if n == 8 {
                            store8(o.p + y * W + x, clamped)
                        } else {
                            for k in 0..<n { o.p[y * W + x + k] = clamped[k] }
                        }
                        x += 8
                    }
                }
            }
            initialized = W * H
        }
    }

    /// Colour scale σ² of the refinement's range weight, in √linear units (squared, summed over
    /// the channels): about a clearly visible colour difference.
    static let refineColourScale: Float = 1e-2
    /// Weight of an undecided depth (halfway between its neighbourhood's nearest and farthest)
    /// relative to a decided one in the refinement, so that a neighbourhood with no decided pixel
    /// of the pixel's colour still averages.
    static let undecidedWeight: Float = 0.02
    /// How far the refinement's second pass moves each pixel toward its result: all the way
    /// would carry a depth too far where three layers meet.
    static let secondPassShare: Float = 0.75

    /// How much of its colour a pixel must find in its refinement window (the taps' tent and colour
    /// weights summed, its own included, in shares of its own tent weight) before a depth of its
    /// own that contradicts its map cell starts to lose its vote (all of it one share further):
    /// below that the colour is nearly the pixel's alone (a strand, a fine line) and its depth
    /// stays its best evidence.
    static let contradictionSupport: Float = 1.5

    /// `weight` where `t > 0`, else `−weight`, lane by lane (written out: the standard library's
    /// `replacing(with:where:)` is a call per use in the refinement's inner loop).
    @inline(__always) private static func signed(_ weight: SIMD8<Float>, where t: SIMD8<Float>) -> SIMD8<Float> {
        var r = weight
        for i in 0..<8 { r[i] = t[i] > 0 ? weight[i] : -weight[i] }
        return r
    }

    /// The share of its own vote a pixel loses in the refinement (spec/render.md §2 step 6): how far
    /// its depth `d` contradicts the value `v` of the map cell it lies in, `e · |d − v| / (N − L)`
    /// with `e = |2t − 1|` of the value's place `t` between the neighbourhood's farthest `L` (0)
    /// and nearest `N` (1) values (a cell at either layer vouches for its pixels, a mixed cell
    /// halfway for none), scaled by how far the taps' tent and colour weights (`support`, the
    /// pixel's own included) exceed `contradictionSupport` times its own tent weight `own`, over
    /// one more `own`. `toT` is `2 / (N − L)`.
    @inline(__always) static func contradiction(_ d: Float, _ v: Float, low: Float, toT: Float, support: Float, own: Float) -> Float {
        let side = abs((v - low) * toT - 1)
        let found = min(max((support - contradictionSupport * own) / own, 0), 1)
        return min(side * abs(d - v) * 0.5 * toT, 1) * found
    }

    /// `contradiction` eight pixels at once, the same operations in the same order per lane.
    @inline(__always) static func contradiction8(
        _ d: SIMD8<Float>, _ v: SIMD8<Float>, low: SIMD8<Float>, toT: SIMD8<Float>, support: SIMD8<Float>, own: SIMD8<Float>
    ) -> SIMD8<Float> {
        let place = (v - low) * toT - 1
        let side = vmax(place, -place)
        let found = vmin(vmax((support - contradictionSupport * own) / own, SIMD8()), SIMD8(repeating: 1))
        let gap = d - v
        return vmin(side * vmax(gap, -gap) * 0.5 * toT, SIMD8(repeating: 1)) * found
    }

    /// Confidence-weighted joint bilateral refinement at picture resolution, only where the map
    /// steps (the cell's 3 × 3 neighbourhood spans more than `least`). Each pixel takes the mean
    /// of the depths within one cell's size around it (tent in x and y), each weighted by how
    /// close its colour is to the pixel's, `(1 − |Δc|² / 3σ²)³` (0 past that), and by how decided
    /// it is, `(2t − 1)²` with `t` its place between the neighbourhood's farthest (0) and nearest
    /// (1) values (at least `undecidedWeight`): pixels left between the two layers by the guided
    /// model take the depth of the decided pixels of their own colour nearby, so an edge snaps to
    /// the picture's where the colours tell the sides apart. The mean replaces the depth only by
    /// how one-sided the pixel's colour is among those depths: where both sides share the colours
    /// the depth stays as it was, a soft matte. A pixel's own depth loses its vote where it
    /// contradicts the map cell the pixel lies in and other taps hold its colour (`contradiction`).
    /// Clamped to the 2 × 2 map values around the pixel
    /// (raised to their ceilings), then moved `share` of the way from the input to that result.
    ///
    /// In place: only the groups of eight pixels that `scope` lists change (a few per cent of the
    /// picture), so their results are gathered apart and written back once all are computed,
    /// and every other pixel is left untouched rather than copied.
    ///
    /// `scope`, when it holds a buffer, keeps the colour weight of every tap of the groups of
    /// eight pixels refined at once: written by the first pass, read by the second (`recorded`).
    private static func refine(
        _ depths: inout [Float], _ layers: UnsafeMutablePointer<LayerModel>, _ ceilings: UnsafeMutablePointer<Float>,
        _ steps: [Bool], share: Float, _ scope: RefineScope, recorded: Bool, _ p: UnsafeMutablePointer<Float>,
        _ colour: UnsafeMutablePointer<Float>, _ W: Int, _ H: Int, _ w: Int, _ h: Int, threads: Int?
    ) {
        guard scope.pixelStart[H] > 0 else { return }
        let (cols, cellColumn) = (scope.cols, scope.cellColumn)
        let map = Shared(p)
        let reach = refineReach(W, w)
        let stride = refineStride(reach)
        let plane = W * H
        let c = Shared(colour)
        let lay = Shared(layers)
        let ceiling = Shared(ceilings)
        let cut = 1 / (3 * refineColourScale)
        // The tent's weight of the window's rows and columns, `reach + 1 − |Δ|`, in order.
        let perRow = 2 * reach / stride + 1
        let tentBuffer = RawBuffer<Float>(count: perRow, zeroed: false)
        for k in 0..<perRow { tentBuffer[k] = Float(reach + 1 - abs(k * stride - reach)) }
        let tent = Shared(tentBuffer.base)
        defer { withExtendedLifetime(tentBuffer) {} }
        let cache = scope.buffer.map { Shared($0.base) }
        let (rowGroups, taps, groupStart, pixelStart) = (scope.rowGroups, scope.taps, scope.groupStart, scope.pixelStart)
        let refinedGroups = Shared(scope.groupList.base)
        // The refined groups' results, row by row from `pixelStart[y]`, eight slots a group.
        let resultBuffer = RawBuffer<Float>(count: pixelStart[H], zeroed: false)
        let o = Shared(resultBuffer.base)
        defer { withExtendedLifetime((scope, resultBuffer)) {} }
        depths.withUnsafeMutableBufferPointer { depthBuffer in
            let d = Shared(depthBuffer.baseAddress!)
            parallelFor(H, threads: threads) { y in
                let j = min(h - 1, y * h / H)
                let (j0, j1) = bilinearCells(y, H, h)
                let (red, green, blue) = (c.p, c.p + plane, c.p + 2 * plane)
                /// The refined depth of pixel `x` from its window's sums, clamped to the 2 × 2
                /// map values around it, as the guided result is.
                @inline(__always) func finish(_ x: Int, sum: Float, weights: Float, lean: Float) -> Float {
                    let k = y * W + x
                    let (i0, i1) = cols[x]
                    let low = min(min(map.p[j0 * w + i0], map.p[j0 * w + i1]), min(map.p[j1 * w + i0], map.p[j1 * w + i1]))
                    let high = max(
                        max(ceiling.p[j0 * w + i0], ceiling.p[j0 * w + i1]), max(ceiling.p[j1 * w + i0], ceiling.p[j1 * w + i1]))
                    // How one-sided the pixel's colour is among the depths around it: 1 when
                    // it is found on one side only, 0 when on both alike (the soft matte stays).
                    let decided = abs(lean) / weights
                    let refined = min(max(d.p[k] + decided * (sum / weights - d.p[k]), low), high)
                    return share == 1 ? refined : d.p[k] + share * (refined - d.p[k])
                }
                /// One pixel, its window clipped at the picture's edges.
                func pixel(_ x: Int) -> Float {
                    let k = y * W + x
                    let model = lay.p[j * w + cellColumn[x]]
                    let toT = 2 / (model.high - model.low)
                    let own = SIMD3(red[k], green[k], blue[k])
                    var sum: Float = 0
                    var weights: Float = 0
                    var lean: Float = 0
                    var support: Float = 0
                    for yy in Swift.stride(from: y - reach, through: y + reach, by: stride) where yy >= 0 && yy < H {
                        let wy = Float(reach + 1 - abs(yy - y))
                        for xx in Swift.stride(from: x - reach, through: x + reach, by: stride) where xx >= 0 && xx < W {
                            let q = yy * W + xx
                            let diff = SIMD3(red[q], green[q], blue[q]) - own
                            let near = max(1 - (diff.x * diff.x + diff.y * diff.y + diff.z * diff.z) * cut, 0)
                            if near == 0 { continue }
                            let t = (d.p[q] - model.low) * toT - 1
                            let closeness = wy * Float(reach + 1 - abs(xx - x)) * near * near * near
                            let weight = max(t * t, undecidedWeight) * closeness
                            support += closeness
                            sum += weight * d.p[q]
                            weights += weight
                            lean += t > 0 ? weight : -weight
                        }
                    }
                    // The pixel's own vote, cut where its depth contradicts its cell. It always
                    // counts in full (near = 1) unless other taps hold its colour, so weights > 0.
                    let own0 = Float((reach + 1) * (reach + 1))
                    let t0 = (d.p[k] - model.low) * toT - 1
                    let loss = contradiction(d.p[k], map.p[j * w + cellColumn[x]], low: model.low, toT: toT, support: support, own: own0)
                    let w0 = loss * max(t0 * t0, undecidedWeight) * own0
                    return finish(x, sum: sum - w0 * d.p[k], weights: weights - w0, lean: lean - (t0 > 0 ? w0 : -w0))
                }
                // This row's next slot in the cache and in the results.
                var slot = rowGroups[y] * taps
                var out = o.p + pixelStart[y]
                for g in groupStart[j]..<groupStart[j + 1] {
                    let x = 8 * Int(refinedGroups.p[g])
                    let n = min(8, W - x)
                    let k0 = y * W + x
                    if n == 8 && x >= reach && x + 7 + reach < W {
                        // Eight pixels at once, the same operations in the same order per lane
                        // as `pixel`. A tap whose colour is too far weighs exactly 0 there, so
                        // adding it changes no sum (none is ever −0), as skipping it does.
                        var low = SIMD8<Float>()
                        var high = SIMD8<Float>()
                        // The value of the map cell each pixel lies in.
                        var value = SIMD8<Float>()
                        for k in 0..<8 {
                            let model = lay.p[j * w + cellColumn[x + k]]
                            (low[k], high[k]) = (model.low, model.high)
                            value[k] = map.p[j * w + cellColumn[x + k]]
                        }
                        let toT = 2 / (high - low)
                        let own = (load8(red + k0), load8(green + k0), load8(blue + k0))
                        var sum = SIMD8<Float>()
                        var weights = SIMD8<Float>()
                        var lean = SIMD8<Float>()
                        var support = SIMD8<Float>()
                        let floor = SIMD8<Float>(repeating: undecidedWeight)
                        /// The colour closeness of the taps at `q` to the eight pixels.
                        @inline(__always) func closeness(_ q: Int) -> SIMD8<Float> {
                            let dr = load8(red + q) - own.0
                            let dg = load8(green + q) - own.1
                            let db = load8(blue + q) - own.2
                            return vmax(1 - (dr * dr + dg * dg + db * db) * cut, SIMD8())
                        }
                        if !recorded, let cache {
                            // The first pass's colour weights into the cache in a loop of their
                            // own (fused with the sums below, the compiler splits the vectors
                            // into pieces), the same slots the sums then read.
                            var s = slot
                            for row in 0..<perRow {
                                let yy = y &- reach &+ row &* stride
                                guard yy >= 0 && yy < H else { continue }
                                for column in 0..<perRow {
                                    cache.p[s] = closeness(yy &* W &+ x &- reach &+ column &* stride)
                                    s += 1
                                }
                            }
                        }
                        for row in 0..<perRow {
                            let yy = y &- reach &+ row &* stride
                            guard yy >= 0 && yy < H else { continue }
                            let wy = tent.p[row]
                            for column in 0..<perRow {
                                let q = yy &* W &+ x &- reach &+ column &* stride
                                let near = if let cache { cache.p[slot] } else { closeness(q) }
                                slot += 1
                                // Not skipped where no lane's colour is close: the tap then adds
                                // nothing (see above), and the test cost more than it saved.
                                let depth = load8(d.p + q)
                                let t = (depth - low) * toT - 1
                                let closeness = wy * tent.p[column] * near * near * near
                                let weight = vmax(t * t, floor) * closeness
                                support += closeness
                                sum += weight * depth
                                weights += weight
                                lean += signed(weight, where: t)
                            }
                        }
                        // Slots are a whole window's, whatever the rows clipped.
                        slot = (slot + taps - 1) / taps * taps
                        // The pixels' own votes, cut where their depths contradict their cells.
                        let own0 = SIMD8<Float>(repeating: Float((reach + 1) * (reach + 1)))
                        let d0 = load8(d.p + k0)
                        let t0 = (d0 - low) * toT - 1
                        let w0 = contradiction8(d0, value, low: low, toT: toT, support: support, own: own0) * vmax(t0 * t0, floor) * own0
                        (sum, weights, lean) = (sum - w0 * d0, weights - w0, lean - signed(w0, where: t0))
                        for k in 0..<8 {
                            out[k] =
                                steps[j * w + cellColumn[x + k]]
                                ? finish(x + k, sum: sum[k], weights: weights[k], lean: lean[k]) : d.p[k0 + k]
                        }
                    } else {
                        for k in 0..<n { out[k] = steps[j * w + cellColumn[x + k]] ? pixel(x + k) : d.p[k0 + k] }
                    }
                    out += 8
                }
            }
            // Every result computed from the input: now they may replace it.
            parallelFor(H, threads: threads) { y in
                let j = min(h - 1, y * h / H)
                var from = o.p + pixelStart[y]
                for g in groupStart[j]..<groupStart[j + 1] {
                    let x = 8 * Int(refinedGroups.p[g])
                    (d.p + y * W + x).update(from: from, count: min(8, W - x))
                    from += 8
                }
            }
        }
    }

    /// The refinement's window reaches this many pixels either side: one cell's size.
    static func refineReach(_ W: Int, _ w: Int) -> Int { max(1, Int((Float(W) / Float(w)).rounded())) }
    /// Every other pixel of the window once a cell is 3 px or more: the tent still spans the
    /// cell, at a quarter of the taps.
    static func refineStride(_ reach: Int) -> Int { reach >= 3 ? 2 : 1 }

    /// How far beyond its neighbourhood's nearest value (in shares of the neighbourhood's span)
    /// a thin structure's estimated depth must lie before it raises the cell's ceiling: an
    /// ordinary edge's near side lies inside the neighbourhood.
    static let thinBeyond: Float = 0.1
    /// The share of the way from the neighbourhood's farthest value to the cell's value that the
    /// model may give, on average, to the cell's pixels left on the far side: a mixture of two
    /// layers has its far pixels at the far layer's depth, a texture spreads them in between.
    static let thinFarShare: Float = 0.3

    /// The highest depth each cell lets its pixels take (spec/render.md §2 step 7). The cell's own
    /// value, except where the cell holds a structure thinner than itself in front of the far
    /// layer (an area-averaged map's mixed value, with mixed cells at its neighbourhood's nearest
    /// value too): there the depth the structure must have to average to the cell's value over
    /// the pixels the guided model puts on the near side, no nearer than the map's nearest value
    /// anywhere. Raises each layer model's
    /// near depth to the largest ceiling around it.
    private static func ceilings(
        _ coefficients: UnsafeMutablePointer<SIMD4<Float>>, _ layers: UnsafeMutablePointer<LayerModel>, _ p: UnsafeMutablePointer<Float>,
        _ colour: UnsafeMutablePointer<Float>, _ W: Int, _ H: Int, _ w: Int, _ h: Int, least: Float, top: Float, threads: Int?
    ) -> RawBuffer<Float> {
        let plane = W * H
        // First each cell's estimate: NaN where the cell is no mixture of its neighbourhood's
        // farthest value and a nearer one; where it is one, also the depth its pixels' shares of
        // the structure give.
        let estimates = RawBuffer<Float>(count: w * h, zeroed: false)
        let shared = RawBuffer<Float>(count: w * h, zeroed: false)
        let (e, s, c, map, lay, coef) = (
            Shared(estimates.base), Shared(shared.base), Shared(colour), Shared(p), Shared(layers), Shared(coefficients)
        )
        parallelFor(h, threads: threads) { j in
            let ys = (j * H / h)..<((j + 1) * H / h)
            for i in 0..<w {
                let cell = j * w + i
                let v = map.p[cell]
                e.p[cell] = .nan
                let low = lay.p[cell].low
                guard v - low > least else { continue }
                let xs = (i * W / w)..<((i + 1) * W / w)
                let model = coef.p[cell]
                let middle = 0.5 * (low + v)
                var nearer = 0
                var farSum: Float = 0
                for y in ys {
                    if xs.count == 4 {
                        // A quarter-size map's four pixels a row at once, each lane computed as
                        // below, then counted and summed in the same order.
                        let k = y * W + xs.lowerBound
                        let (mx, my, mz, mw) = (
                            SIMD4(repeating: model.x), SIMD4(repeating: model.y), SIMD4(repeating: model.z),
                            SIMD4(repeating: model.w)
                        )
                        let g = mx * load4(c.p + k) + my * load4(c.p + plane + k) + mz * load4(c.p + 2 * plane + k) + mw
                        for t in 0..<4 {
                            if g[t] > middle {
                                nearer += 1
                            } else {
                                farSum += g[t]
                            }
                        }
                        continue
                    }
                    for x in xs {
                        let k = y * W + x
                        let g = modelled(model, c.p, plane, k)
                        if g > middle {
                            nearer += 1
                        } else {
                            farSum += g
                        }
                    }
                }
                let count = ys.count * xs.count
                guard nearer > 0, nearer < count, farSum / Float(count - nearer) < low + thinFarShare * (v - low) else { continue }
                let excess = (v - low) * Float(count) / Float(nearer)
                e.p[cell] = min(low + excess, top)
                // The same depth from the pixels' shares of the structure rather than a count of
                // near pixels: the rims of a strand, partly covered, count in part, the pixel most
                // covered in whole (a count takes the rims as wholly covered, and puts the
                // structure too far back).
                let peak = modelPeak(model, c.p, W, H, xs, ys)
                var shares: Float = 0
                for y in ys {
                    for x in xs { shares += structureShare(modelled(model, c.p, plane, y * W + x), low: low, peak: peak) }
                }
                s.p[cell] = min(low + (v - low) * Float(count) / shares, top)
            }
        }
        let out = RawBuffer<Float>(count: w * h, zeroed: false)
        // Rows holding a raised ceiling (most maps have none: the last pass is then skipped).
        let raisedRows = RawBuffer<Bool>(count: h)
        let (o, raised) = (Shared(out.base), Shared(raisedRows.base))
        parallelFor(h, threads: threads) { j in
            (o.p + j * w).update(from: map.p + j * w, count: w)
            for i in 0..<w {
                let cell = j * w + i
                let estimate = e.p[cell]
                // Most cells hold no mixture (NaN fails the test below): their layers are not read.
                guard !estimate.isNaN else { continue }
                let (low, high) = (lay.p[cell].low, lay.p[cell].high)
                guard estimate > high + thinBeyond * (high - low) else { continue }
                // The neighbourhood's nearest cells must be mixtures too: a pure cell there is the
                // near layer itself (a point sample at an ordinary edge, its neighbour straddling it).
                var mixed = true
                for y in max(0, j - 1)...min(h - 1, j + 1) {
                    for x in max(0, i - 1)...min(w - 1, i + 1) where map.p[y * w + x] >= high - least && e.p[y * w + x].isNaN {
                        mixed = false
                    }
                }
                if mixed {
                    o.p[cell] = max(estimate, s.p[cell])
                    raised.p[j] = true
                }
            }
        }
        // The near layer of every neighbourhood holding a raised ceiling lies there (step 5
        // assigns its colour that depth); elsewhere the ceilings are the map's values, which the
        // neighbourhood's nearest already bounds.
        parallelFor(h, threads: threads) { j in
            guard (max(0, j - 1)...min(h - 1, j + 1)).contains(where: { raised.p[$0] }) else { return }
            for i in 0..<w {
                var near = lay.p[j * w + i].high
                for y in max(0, j - 1)...min(h - 1, j + 1) {
                    for x in max(0, i - 1)...min(w - 1, i + 1) { near = max(near, o.p[y * w + x]) }
                }
                lay.p[j * w + i].high = near
            }
        }
        withExtendedLifetime((estimates, shared, raisedRows)) {}
        return out
    }

    /// The two map cells (along one axis) whose values are interpolated at picture pixel `x` of
    /// `pixels`, for `cells` cells.
    @inline(__always) static func bilinearCells(_ x: Int, _ pixels: Int, _ cells: Int) -> (Int, Int) {
        let u = (Float(x) + 0.5) * Float(cells) / Float(pixels) - 0.5
        let i = min(max(Int(u.rounded(.down)), 0), cells - 1)
        return (i, min(i + 1, cells - 1))
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
        // The confidence and the count of valid values in one pass (a map is usually all valid).
        var valid = 0
        let confidence = [Float](unsafeUninitializedCapacity: values.count) { buffer, initialized in
            values.withUnsafeBufferPointer { v in
                for k in 0..<v.count {
                    let finite = v[k].isFinite
                    buffer[k] = finite ? 1 : 0
                    valid += finite ? 1 : 0
                }
            }
            initialized = values.count
        }
        guard valid > 0 else { return nil }
        if valid == values.count { return (values, confidence) }
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
