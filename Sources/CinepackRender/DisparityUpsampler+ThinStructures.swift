extension DisparityUpsampler {
    /// Colour difference (√linear light, squared, summed over the channels) past which a pixel
    /// stands out from a neighbour two pixels away: twice the refinement's colour scale.
    static let thinContrast: Float = 2 * refineColourScale
    /// Colour difference under which two touching pixels belong to the same structure: where the
    /// refinement's closeness weight reaches 0 (a strand's rim pixels, partly covered, still
    /// join it).
    static let thinContinuity: Float = 3 * refineColourScale
    /// How much nearer than a pixel (in shares of the map's whole range) a touching pixel of its
    /// structure must be to lend it its depth: well above the gradients the guided model leaves.
    static let thinJump: Float = 0.1
    /// How far (in map cells, counted in pixels) a depth is carried along a thin structure from
    /// the pixel the models decided it at.
    static let thinReachCells = 6
    /// How far (in map cells, counted in pixels) a depth is carried one way only along a thin
    /// structure that stands out in depth: a strand's free end beyond its last hit.
    static let thinFreeEndCells = 2
    /// The direction a pixel's thinness is tested in for `across` bit `bit` (1, 2, 4 or 8): the
    /// pixels two such steps away on either side are compared with it. Bit 1 is across a
    /// vertical step, 2 across a horizontal one, 4 and 8 across the two diagonals.
    @inline(__always) static func acrossOffset(_ bit: UInt8) -> (dx: Int, dy: Int) {
        bit == 1 ? (1, 0) : bit == 2 ? (0, 1) : bit == 4 ? (1, 1) : (1, -1)
    }
    /// The `across` bit perpendicular to a step (dx, dy) to a touching pixel: the direction a
    /// structure running along the step is thin in.
    @inline(__always) static func acrossBit(_ dx: Int, _ dy: Int) -> UInt8 {
        dy == 0 ? 2 : dx == 0 ? 1 : dx == dy ? 8 : 4
    }
    /// A sweep's state of a pixel: the steps a carried depth came (0: not carried), whether it
    /// may be taken one way only, and from bit 12 the way it left its decided pixel.
    static let thinHops: UInt16 = 0x7FF
    static let thinOneWay: UInt16 = 0x800
    /// The eight steps to the touching pixels, in turn around the circle.
    static let thinSteps = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
    /// Each step's place in `thinSteps`, at `(dy + 1) · 3 + dx + 1`.
    static let thinStepIndex = [5, 6, 7, 4, -1, 0, 3, 2, 1]
    /// The cells looked at: those within this many cells of one that holds a structure thinner
    /// than a cell (a strand's gap between two hits up to 2 · `thinAround` + 1 cells apart is
    /// bridged).
    static let thinAround = 2

    /// Carries decided depths along thin structures (spec/render.md §2 step 6): a map cell
    /// larger than a wire or a strand one or two pixels wide misses it (point samples) or
    /// dilutes it (averages), so only its pixels near the samples that hit it take its depth
    /// from the models. A pixel takes the depth of a touching pixel that is nearer by more than
    /// `thinJump` of the map's range when
    /// - both are thin across the step between them (a structure followed along its length: the
    ///   pixels two away on both sides, perpendicular to the step, differ from each by more than
    ///   `thinContrast`),
    /// - their colours agree within `thinContinuity`,
    /// - the step turns by at most 45° from the way the depth left the pixel it was decided at
    ///   (a structure is followed, not left for one crossing it), at most `thinReachCells`
    ///   cells' worth of pixels from there,
    /// - and such a depth reaches the pixel both ways along the structure (one raster sweep
    ///   down, one up): a gap between the decided stretches of one strand, not a line of the
    ///   background leading away from where a strand crosses it. The pixel takes the lesser of
    ///   the two.
    ///   A depth that reaches it one way only is taken within `thinFreeEndCells` of where it was
    ///   decided, along a structure that stands out in depth all the way (a strand's free end
    ///   beyond its last hit): the decided pixel it leaves, and one before it within 45° of the
    ///   step (the same colour, thin across that step), both lie at their cell's nearest layer
    ///   and nearer than the pixels two away on both sides across the step, and so does every
    ///   pixel it reaches, as it is carried there, against the depth carried. A line of the
    ///   background leading away from a crossing is not in front of its sides.
    ///
    /// Only the cells within `thinAround` of a cell that holds a structure thinner than a cell in
    /// the map are looked at (most pictures have few: the pass then costs next to nothing).
    /// Deterministic: each sweep runs in a fixed order (the two at once, each on its own state).
    static func carryAlongThinStructures(
        _ depths: inout [Float], _ layers: UnsafeMutablePointer<LayerModel>, _ map: UnsafeMutablePointer<Float>,
        _ colour: UnsafeMutablePointer<Float>,
        _ W: Int, _ H: Int, _ w: Int, _ h: Int, range: Float, threads: Int?
    ) {
        let jump = thinJump * range
        guard W >= 5, H >= 5, w >= 3, h >= 3, jump > 0 else { return }
        // The cells looked at: those within `thinAround` of a cell holding a structure thinner
        // than a cell in the map (its two neighbours along x, along y or along a diagonal both
        // farther by more than `jump`: a point sample that hit a strand, or an average that
        // holds one).
        var looked = [Bool](repeating: false, count: w * h)
        var any = false
        for j in 1..<(h - 1) {
            for i in 1..<(w - 1) {
                let v = map[j * w + i] - jump
                guard layers[j * w + i].high - layers[j * w + i].low > jump else { continue }
                let thin =
                    (map[j * w + i - 1] < v && map[j * w + i + 1] < v) || (map[j * w - w + i] < v && map[j * w + w + i] < v)
                    || (map[j * w - w + i - 1] < v && map[j * w + w + i + 1] < v)
                    || (map[j * w - w + i + 1] < v && map[j * w + w + i - 1] < v)
                guard thin else { continue }
                any = true
                for y in max(0, j - thinAround)...min(h - 1, j + thinAround) {
                    for x in max(0, i - thinAround)...min(w - 1, i + thinAround) { looked[y * w + x] = true }
                }
            }
        }
        guard any else { return }
        // The looked-at cells' pixels are kept apart, a cell's pixels together (`slot` per cell,
        // `area` entries a slot, row by row of the cell): the state of the sweeps then touches
        // memory in proportion to the cells looked at, not to the picture.
        let cellColumn = (0..<W).map { min(w - 1, $0 * w / W) }
        let cellRow = (0..<H).map { min(h - 1, $0 * h / H) }
        let columnStart = (0...w).map { ($0 * W + w - 1) / w }
        let rowStart = (0...h).map { ($0 * H + h - 1) / h }
        let (cellWidth, cellHeight) = ((W + w - 1) / w, (H + h - 1) / h)
        let area = cellWidth * cellHeight
        var slotList = [Int32](repeating: -1, count: w * h)
        var runs = [[Range<Int>]](repeating: [], count: h)
        var slots: Int32 = 0
        for j in 0..<h {
            var i = 0
            while i < w {
                guard looked[j * w + i] else {
                    i += 1
                    continue
                }
                let first = i
                while i < w && looked[j * w + i] {
                    slotList[j * w + i] = slots
                    slots += 1
                    i += 1
                }
                runs[j].append(columnStart[first]..<columnStart[i])
            }
        }
        let slot = slotList
        let cellRuns = runs
        let plane = W * H
        let rgb = Shared(colour)
        let reach = thinReachCells * refineReach(W, w)
        let freeEnd = thinFreeEndCells * refineReach(W, w)
        let (steps, stepIndex) = (thinSteps, thinStepIndex)
        let cellLayers = Shared(layers)
        @Sendable @inline(__always) func difference(_ a: Int, _ b: Int) -> Float {
            let (red, green, blue) = (rgb.p, rgb.p + plane, rgb.p + 2 * plane)
            let (r, g, bl) = (red[a] - red[b], green[a] - green[b], blue[a] - blue[b])
            return r * r + g * g + bl * bl
        }
        /// Where pixel (x, y) is kept, or −1 when its cell is not looked at.
        @Sendable @inline(__always) func kept(_ x: Int, _ y: Int) -> Int {
            let (i, j) = (cellColumn[x], cellRow[y])
            let s = Int(slot[j * w + i])
            return s < 0 ? -1 : s * area + (y - rowStart[j]) * cellWidth + (x - columnStart[i])
        }
        let count = Int(slots) * area
        // Per sweep (the two run at once): the steps a carried depth came (bits 0…10; 0: not
        // carried), whether it may be taken one way only (bit 11) and the way (1…8, bits 12…15)
        // it left its decided pixel; the carried depth,
        // read only where carried; the `across` directions, worked out when first asked.
        let buffers = (
            state: (RawBuffer<UInt16>(count: count), RawBuffer<UInt16>(count: count)),
            carried: (RawBuffer<Float>(count: count, zeroed: false), RawBuffer<Float>(count: count, zeroed: false)),
            thinness: (RawBuffer<UInt8>(count: count), RawBuffer<UInt8>(count: count))
        )
        defer { withExtendedLifetime(buffers) {} }
        /// The directions (bits 0…3: across x, across y, across the diagonal, across the
        /// anti-diagonal) across which pixel (x, y) is thin in the picture (its neighbours two
        /// away on both sides differ from it), worked out once (bit 7: known).
        @Sendable @inline(__always) func across(_ x: Int, _ y: Int, _ s: Int, _ thinness: UnsafeMutablePointer<UInt8>) -> UInt8 {
            if thinness[s] != 0 { return thinness[s] }
            let k = y * W + x
            var mask: UInt8 = 0x80
            @inline(__always) func test(_ dx: Int, _ dy: Int, _ bit: UInt8) {
                let (ax, ay, bx, by) = (x + 2 * dx, y + 2 * dy, x - 2 * dx, y - 2 * dy)
                guard ax >= 0, ax < W, ay >= 0, ay < H, bx >= 0, bx < W, by >= 0, by < H else { return }
                if difference(k, ay * W + ax) > thinContrast && difference(k, by * W + bx) > thinContrast { mask |= bit }
            }
            for bit in [UInt8(1), 2, 4, 8] {
                let (dx, dy) = acrossOffset(bit)
                test(dx, dy, bit)
            }
            thinness[s] = mask
            return mask
        }
        depths.withUnsafeMutableBufferPointer { buffer in
            let decided = Shared(buffer.baseAddress!)
            /// One raster sweep, down (each pixel reads its neighbours above and to the left) or
            /// up; it reads the decided depths only.
            @Sendable func sweep(
                forward: Bool, _ state: UnsafeMutablePointer<UInt16>, _ carried: UnsafeMutablePointer<Float>,
                _ thinness: UnsafeMutablePointer<UInt8>
            ) {
                let d = decided.p
                let sign = forward ? -1 : 1
                for n in 0..<H {
                    let y = forward ? n : H - 1 - n
                    let j = cellRow[y]
                    let rowRuns = cellRuns[j]
                    for r in 0..<rowRuns.count {
                        let run = rowRuns[forward ? r : rowRuns.count - 1 - r]
                        for m in 0..<run.count {
                            let x = forward ? run.lowerBound + m : run.upperBound - 1 - m
                            let k = y * W + x
                            let own = kept(x, y)
                            var best = d[k] + jump
                            var from = -1
                            var fromKept = -1
                            var way = 0
                            var chosen: (dx: Int, dy: Int, bit: UInt8, state: UInt16) = (0, 0, 0, 0)
                            /// Neighbour (x + dx, y + dy) and the step's way from it (1…8 around
                            /// the circle).
                            @inline(__always) func consider(_ dx: Int, _ dy: Int, _ step: Int) {
                                let (xx, yy) = (x + dx, y + dy)
                                guard xx >= 0, xx < W, yy >= 0, yy < H else { return }
                                let q = yy * W + xx
                                let s = kept(xx, yy)
                                let st = s >= 0 ? state[s] : 0
                                let hops = Int(st & Self.thinHops)
                                let depth = hops > 0 ? carried[s] : d[q]
                                guard depth > best, hops < reach, s >= 0, difference(k, q) < thinContinuity else { return }
                                if hops > 0 {
                                    let turn = (step - Int(st >> 12) + 8) % 8
                                    guard turn <= 1 || turn == 7 else { return }
                                }
                                let bit = acrossBit(dx, dy)
                                guard across(x, y, own, thinness) & bit != 0, across(xx, yy, s, thinness) & bit != 0 else { return }
                                (best, from, fromKept, way, chosen) = (depth, q, s, step, (dx, dy, bit, st))
                            }
                            // Down: left, up-left, up, up-right (steps east, south-east, south,
                            // south-west); up: the mirror image.
                            consider(sign, 0, forward ? 1 : 5)
                            consider(sign, sign, forward ? 2 : 6)
                            consider(0, sign, forward ? 3 : 7)
                            consider(-sign, sign, forward ? 4 : 8)
                            guard from >= 0 else { continue }
                            /// Whether (px, py) lies nearer, by more than `jump`, than the two
                            /// pixels two away from it on both sides across `bit`'s step.
                            @inline(__always) func standsOut(_ px: Int, _ py: Int, _ bit: UInt8) -> Bool {
                                let (ox, oy) = acrossOffset(bit)
                                let (ax, ay, cx, cy) = (px + 2 * ox, py + 2 * oy, px - 2 * ox, py - 2 * oy)
                                guard ax >= 0, ax < W, ay >= 0, ay < H, cx >= 0, cx < W, cy >= 0, cy < H else { return false }
                                return d[ay * W + ax] + jump < best && d[cy * W + cx] + jump < best
                            }
                            /// Whether pixel (px, py)'s decided depth is its structure's: within
                            /// `jump` of its cell's near layer.
                            @inline(__always) func atLayer(_ px: Int, _ py: Int) -> Bool {
                                d[py * W + px] >= cellLayers.p[cellRow[py] * w + cellColumn[px]].high - jump
                            }
                            // One way only, the depth goes on while the structure stands out in
                            // depth, from a decided stretch that stands out (see `freeEnd`).
                            let (dx, dy, bit) = (chosen.dx, chosen.dy, chosen.bit)
                            var onward = chosen.state & Self.thinHops > 0 ? chosen.state & Self.thinOneWay != 0 : true
                            if chosen.state & Self.thinHops == 0 {
                                let (xx, yy) = (x + dx, y + dy)
                                onward = standsOut(xx, yy, bit) && atLayer(xx, yy)
                                // The decided stretch goes on behind the neighbour, within 45° of
                                // the step, as one thin structure standing out in depth.
                                var behind = false
                                let at = stepIndex[(dy + 1) * 3 + dx + 1]
                                for turn in 0..<3 where onward && !behind {
                                    let (ex, ey) = steps[(at + (turn == 2 ? 7 : turn)) % 8]
                                    let (bx, by) = (xx + ex, yy + ey)
                                    guard bx >= 0, bx < W, by >= 0, by < H else { continue }
                                    let (bq, bs) = (by * W + bx, kept(bx, by))
                                    let b = acrossBit(ex, ey)
                                    behind =
                                        bs >= 0 && d[bq] > d[k] + jump && atLayer(bx, by) && difference(from, bq) < thinContinuity
                                        && across(bx, by, bs, thinness) & b != 0 && standsOut(bx, by, b)
                                }
                                onward = onward && behind
                            }
                            if onward && !standsOut(x, y, bit) { onward = false }
                            let previous = state[fromKept]
                            carried[own] = best
                            let heading = previous & Self.thinHops > 0 ? previous >> 12 : UInt16(way)
                            state[own] = (previous & Self.thinHops + 1) | heading << 12 | (onward ? Self.thinOneWay : 0)
                        }
                    }
                }
            }
            let (down, up) = (buffers.state.0.base, buffers.state.1.base)
            let (downDepth, upDepth) = (buffers.carried.0.base, buffers.carried.1.base)
            let sweeps = (
                down: (Shared(down), Shared(downDepth), Shared(buffers.thinness.0.base)),
                up: (Shared(up), Shared(upDepth), Shared(buffers.thinness.1.base))
            )
            parallelFor(2, threads: threads) { k in
                let (state, carried, thinness) = k == 0 ? sweeps.down : sweeps.up
                sweep(forward: k == 0, state.p, carried.p, thinness.p)
            }
            let d = decided.p
            // A pixel takes a carried depth only where one reaches it both ways.
            for y in 0..<H {
                for run in cellRuns[cellRow[y]] {
                    for x in run {
                        let s = kept(x, y)
                        let (a, b) = (Int(down[s] & Self.thinHops), Int(up[s] & Self.thinHops))
                        if a > 0 && b > 0 {
                            d[y * W + x] = min(downDepth[s], upDepth[s])
                        } else if a > 0 && a <= freeEnd && down[s] & Self.thinOneWay != 0 {
                            d[y * W + x] = downDepth[s]
                        } else if b > 0 && b <= freeEnd && up[s] & Self.thinOneWay != 0 {
                            d[y * W + x] = upDepth[s]
                        }
                    }
                }
            }
        }
    }
}

extension DisparityUpsampler {
    /// The cell's guided model (spec/render.md §2 step 3) applied to picture pixel `k`, unclamped.
    @inline(__always) static func modelled(_ model: SIMD4<Float>, _ colour: UnsafeMutablePointer<Float>, _ plane: Int, _ k: Int) -> Float {
        model.x * colour[k] + model.y * colour[plane + k] + model.z * colour[2 * plane + k] + model.w
    }

    /// The largest value the cell's model gives a pixel of the cell's rectangle `xs × ys`: the
    /// pixel most covered by the structure a mixture cell holds, taken as wholly covered.
    static func modelPeak(
        _ model: SIMD4<Float>, _ colour: UnsafeMutablePointer<Float>, _ W: Int, _ H: Int, _ xs: Range<Int>, _ ys: Range<Int>
    ) -> Float {
        var peak = -Float.infinity
        for y in ys {
            for x in xs { peak = max(peak, modelled(model, colour, W * H, y * W + x)) }
        }
        return peak
    }

    /// How much of a pixel the structure of a mixture cell covers, read from the cell's model:
    /// 0 at the far layer's depth `low`, 1 at the cell's `peak` (the model is affine in colour, and
    /// a pixel's colour mixes the two layers' in proportion to the structure's coverage).
    @inline(__always) static func structureShare(_ modelled: Float, low: Float, peak: Float) -> Float {
        min(max((modelled - low) / (peak - low), 0), 1)
    }

    /// The pixels of a mixture cell whose ceiling holds its structure's depth (spec/render.md §2
    /// step 7) take at least their share of that depth: `low + share · (ceiling − low)`, `low` the
    /// neighbourhood's farthest value. The steps before see the structure's colour in cell means
    /// mixed with what is behind it and leave its pixels between the two depths; with its far
    /// pixels at `low` the cell's pixels then average to the map's value, as the ceiling assumes.
    /// Pixels the steps before put nearer keep their depth. Only the cells whose ceiling was raised
    /// are visited (most maps have none).
    static func settleMixtures(
        _ depths: inout [Float], _ coefficients: UnsafeMutablePointer<SIMD4<Float>>, _ layers: UnsafeMutablePointer<LayerModel>,
        _ ceilings: UnsafeMutablePointer<Float>, _ map: UnsafeMutablePointer<Float>, _ colour: UnsafeMutablePointer<Float>,
        _ W: Int, _ H: Int, _ w: Int, _ h: Int, threads: Int?
    ) {
        let raisedRows = (0..<h).filter { j in (0..<w).contains { ceilings[j * w + $0] > map[j * w + $0] } }
        guard !raisedRows.isEmpty else { return }
        let (coef, lay, tops, values, c) = (Shared(coefficients), Shared(layers), Shared(ceilings), Shared(map), Shared(colour))
        depths.withUnsafeMutableBufferPointer { buffer in
            let d = Shared(buffer.baseAddress!)
            // Each cell writes the pixels of its own rectangle only.
            parallelFor(raisedRows.count, threads: threads) { r in
                let j = raisedRows[r]
                let ys = (j * H / h)..<((j + 1) * H / h)
                for i in 0..<w where tops.p[j * w + i] > values.p[j * w + i] {
                    let cell = j * w + i
                    let (model, low, ceiling) = (coef.p[cell], lay.p[cell].low, tops.p[cell])
                    let xs = (i * W / w)..<((i + 1) * W / w)
                    let peak = modelPeak(model, c.p, W, H, xs, ys)
                    guard peak > low else { continue }
                    for y in ys {
                        for x in xs {
                            let k = y * W + x
                            let share = structureShare(modelled(model, c.p, W * H, k), low: low, peak: peak)
                            d.p[k] = max(d.p[k], low + share * (ceiling - low))
                        }
                    }
                }
            }
        }
    }
}
