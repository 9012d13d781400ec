import CinepackFormat

extension BokehEngine {
    /// Full resolution, tile by tile: the level-0 gathers where small blur circles need them, the
    /// coarse levels upsampled, near composited over far. Tiles with no blur and no near field
    /// reaching them are copied through unchanged.
    func composite() -> LinearImage {
        let count = width * height * 3
        let values = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            composite(into: CompositeTarget(picture: buffer.baseAddress!))
            initialized = count
        }
        return LinearImage(width: width, height: height, values: values)
    }

    func composite(into target: CompositeTarget) {
        parallelFor(tilesY, threads: threads) { ty in self.compositeTileRow(ty, target) }
    }

    private func compositeTileRow(_ ty: Int, _ target: CompositeTarget) {
        let W = width
        let H = height
        // Full-resolution taps reach a pixel beyond the radius (the fine edge profile).
        let r0 = Int((aperture.extent * (max(schedule.r0, nearSchedule.r0) + 1)).rounded(.up))
        let pad = r0 + 1
        let top0 = schedule.top(0)
        let nearTop0 = nearSchedule.top(0)
        let scratch = Planes<FullResolutionPlane>(width: Tile.pixels, height: Tile.pixels, pad: pad)
        let f = FullPointers(scratch)
        // What the previous tile filled (far and near groups), if it filled its scratch.
        var filled: (far: Bool, near: Bool)? = nil
        let groupRows = Tile.pixels + 2 * pad
        let nearGroupMaxBuffer = RawBuffer<Float>(count: groupRows * 2)
        let nearGroupMax = nearGroupMaxBuffer.base
        // The picture and disparity rows the scratch is filled from, copied first (`fillScratch`).
        let stagingBuffer = RawBuffer<Float>(count: groupRows * 4 * (Tile.pixels + 2 * pad + 8), zeroed: false)
        // The tile's own pixels, copied before the tile's rows are composited: its disparity
        // (Tile.pixels² values), then its interleaved colour; then where the early reads of the
        // output leave what they read.
        let ownBuffer = RawBuffer<Float>(count: 4 * Tile.pixels * Tile.pixels + 1, zeroed: false)
        let ownDisparity = ownBuffer.base
        let ownPicture = ownDisparity + Tile.pixels * Tile.pixels
        let outputRead = ownDisparity + 4 * Tile.pixels * Tile.pixels
        let levelCount = levels.count
        defer { withExtendedLifetime((scratch, nearGroupMaxBuffer, stagingBuffer, ownBuffer)) {} }
        let views = levelViews
        let upsampled = TileUpsampling(views)
        let unclipped = aperture.fine
        let blender = LevelBlender(schedule: schedule, levels: levelCount)
        let y0t = ty * Tile.pixels
        let y1t = min(H, y0t + Tile.pixels)
        upsampled.startRow(y0: y0t, count: y1t - y0t)
        let spillBuffer = spills(ty, views)
        let spills = spillBuffer.base
        defer { withExtendedLifetime(spillBuffer) {} }

        // A tile's output rows read once (a value per cache line, not yet written and never
        // used) a tile before they are written: their lines then arrive while the tile before is
        // composited, and its stores find them cached (a store to a line not cached holds its
        // place in the store buffer until the line arrives, and the stores and spills behind it
        // wait).
        @inline(__always) func readOutput(_ tx: Int) {
            guard let out = target.picture, tx < tilesX else { return }
            let x0t = tx * Tile.pixels
            let last = 3 * (min(W, x0t + Tile.pixels) - x0t) - 1
            var bits: UInt32 = 0
            for y in y0t..<y1t {
                let row = out + 3 * (y * W + x0t)
                for o in Swift.stride(from: 0, to: last, by: 16) { bits |= row[o].bitPattern }
                bits |= row[last].bitPattern
            }
            outputRead.pointee = Float(bitPattern: bits)
        }
        readOutput(0)
        for tx in 0..<tilesX {
            readOutput(tx + 1)
            let x0t = tx * Tile.pixels
            let previous = filled
            filled = nil
            let x1t = min(W, x0t + Tile.pixels)
            let stats = tiles[ty * tilesX + tx]
            // Near samples small enough for level 0 in this tile or a neighbour.
            var near0 = false
            for y in max(0, ty - 1)...min(tilesY - 1, ty + 1) {
                for x in max(0, tx - 1)...min(tilesX - 1, tx + 1) where tiles[y * tilesX + x].minNear < nearTop0 { near0 = true }
            }
            let spill = spills[tx]
            if !stats.hasWork && !near0 && spill == 0 {
                for y in y0t..<y1t {
                    if let out = target.picture {
                        let p = (y * W + x0t) * 3
                        (out + p).update(from: picture + p, count: (x1t - x0t) * 3)
                    } else if let layers = target.layers {
                        let plane = W * H
                        for x in x0t..<x1t {
                            let p = y * W + x
                            for c in PreviewLayer.nearRed.rawValue...PreviewLayer.nearCoverage.rawValue { layers[c * plane + p] = 0 }
                            for c in 0..<3 { layers[(PreviewLayer.behindRed.rawValue + c) * plane + p] = picture[3 * p + c] }
                        }
                    }
                }
                continue
            }

            // Level-0 scratch around the tile.
            let needFull = stats.minFar < top0 || stats.minNear < top0 || near0
            if needFull {
                nearGroupMax.update(repeating: 0, count: groupRows * 2)
                // The far group serves the tile's own level-0 far and fill gathers; the near group
                // only matters where a level-0 near sample lies within reach (near0; with no
                // coarse level every near sample is level 0's).
                let far = stats.minFar < top0 || max(stats.minNear, 0.5) < top0
                let near = near0 || schedule.levels == 0
                // The previous tile's scratch holds this one's left 2 · pad columns: moved over,
                // not filled again. Not with a cat's eye: there the near area goes by the zone of
                // each group of eight, and the groups would change.
                let reuse = (previous.map { ($0.far || !far) && ($0.near || !near) } ?? false) && aperture.zones == nil
                if reuse { f.moveOverlap(stride: scratch.stride, rows: groupRows, pad: pad, far: far, near: near) }
                fillScratch(
                    f, stride: scratch.stride, x0t: x0t, y0t: y0t, pad: pad, from: reuse ? pad : -pad, far: far, near: near,
                    nearGroupMax: nearGroupMax, staging: stagingBuffer.base, unclipped: unclipped)
                if reuse && near { nearReach(f, stride: scratch.stride, pad: pad, nearGroupMax: nearGroupMax) }
                filled = (far, near)
            }

            // Coarse levels each field reads in this tile.
            let farLevels = levelRange(stats.minFar, stats.maxFar)
            let fillLevels = levelRange(max(stats.minNear, 0.5), max(stats.maxNear, 0.5), present: stats.maxNear >= 0)
            // The (level, field) slots of the upsampling read here (`TileUpsampling.slot`).
            var slots: UInt64 = 0
            for i in 0..<levelCount {
                if farLevels.contains(i + 1) { slots |= 1 << UInt64(TileUpsampling.slot(i, 0)) }
                if fillLevels.contains(i + 1) { slots |= 1 << UInt64(TileUpsampling.slot(i, 1)) }
                if spill & (1 << UInt32(i)) != 0 { slots |= 1 << UInt64(TileUpsampling.slot(i, 2)) }
            }
            upsampled.begin(x0: x0t, count: x1t - x0t, slots: slots)
            // A whole tile's pixels are copied first (from memory, not yet in cache, where the
            // scratch did not read them): reads issued together rather than as each row's
            // arithmetic reaches them.
            let own = x1t - x0t == Tile.pixels
            if own {
                for y in y0t..<y1t {
                    let p = y * W + x0t
                    let d = ownDisparity + (y - y0t) * Tile.pixels
                    let c = ownPicture + 3 * (y - y0t) * Tile.pixels
                    for o in Swift.stride(from: 0, to: Tile.pixels, by: 8) { store8(d + o, load8(.init(mutating: disparity + p + o))) }
                    for o in Swift.stride(from: 0, to: 3 * Tile.pixels, by: 8) {
                        store8(c + o, load8(.init(mutating: picture + 3 * p + o)))
                    }
                }
            }
            for y in y0t..<y1t {
                upsampled.row(y - y0t, slots: slots)
                let sy = y - y0t
                // Reach of the level-0 near samples in the rows a gather on this row reads (the
                // same for the row's groups).
                var reach: Float = 0
                if needFull {
                    // Both halves of rows sy + pad ± r0 are one run: eight at a time, the last
                    // eight overlapping (a maximum does not depend on the order of its terms).
                    let run = nearGroupMax + (sy + pad - r0) * 2
                    let count = 2 * (2 * r0 + 1)
                    if count >= 8 {
                        var m = load8(run + count - 8)
                        for o in Swift.stride(from: 0, to: count - 8, by: 8) { m = vmax(m, load8(run + o)) }
                        reach = hmax(m)
                    } else {
                        for k in 0..<count where run[k] > reach { reach = run[k] }
                    }
                }
                var x0 = x0t
                while x0 < x1t {
                    let n = min(8, x1t - x0)
                    let p0 = y * W + x0
                    let d: SIMD8<Float>
                    let red: SIMD8<Float>
                    let green: SIMD8<Float>
                    let blue: SIMD8<Float>
                    if own {
                        let o = (y - y0t) * Tile.pixels + x0 - x0t
                        d = load8(ownDisparity + o)
                        (red, green, blue) = loadRGB8(ownPicture + 3 * o)
                    } else {
                        (d, red, green, blue) = loadPixels8(picture, disparity, at: p0, count: n, fill: radius.focus)
                    }
                    let r = radius.signed(d)
                    let a = vabs(r)
                    let mn = BlurRadius.nearShare(r)
                    let mf = 1 - mn
                    let rhoFill = vmax(a, SIMD8<Float>(repeating: 0.5))
                    // Level-0 gathers, only in tiles with level-0 consumers or near samples.
                    var far0 = Accum8()
                    var fill0 = Accum8()
                    var far0Gathered = false
                    var fill0Gathered = false
                    var front = Accum8()
                    if needFull {
                        // Level-0 consumers: near pixels' fill, far pixels with blur, radius under top(0).
                        let fillLane = vpositive(-0.25 - r) * vpositive(top0 - rhoFill)
                        let farLane = vpositive(r + 0.75) * vpositive(a - BokehSchedule.passThrough) * vpositive(top0 - a)
                        let rhoFill0 = fillLane * fineRadius(rhoFill)
                        let rhoFar = farLane * fineRadius(a)
                        // (Whether a lane is positive: a compare and a test of its mask.)
                        let topFill: Float = anyAbove(fillLane, 0) ? hmax(rhoFill0) + 0.5 : -1
                        let topFar: Float = anyAbove(farLane, 0) ? hmax(rhoFar) + 0.5 : -1
                        let zone = self.zone(x0, y, cell: 1, count: n)
                        let idx = scratch.index(x0 - x0t, sy)
                        let base = f.farR
                        if topFar >= 0 {
                            let zone = self.zone(x0, y, cell: 1, count: n, radius: topFar - 0.5)
                            // As at the coarse levels: the unclipped disk on the pixel's side.
                            let ia = DiskArea.inverse(rhoFar, unclipped)
                            far0 = aperture.within(fineReach(topFar), zone: zone) {
                                gatherFar(
                                    base + idx, planeSize: scratch.planeSize, stride: scratch.stride, taps: $0, rho: rhoFar,
                                    inverseArea: ia,
                                    profile: .fine)
                            }
                            far0Gathered = true
                        }
                        if topFill >= 0 {
                            let zone = self.zone(x0, y, cell: 1, count: n, radius: topFill - 0.5)
                            let fineArea = aperture.fine(zone)
                            let ia = DiskArea.inverse(rhoFill0, fineArea)
                            fill0 = aperture.within(fineReach(topFill), zone: zone) {
                                gatherFill(
                                    base + idx, planeSize: scratch.planeSize, stride: scratch.stride, taps: $0, rho: rhoFill0,
                                    inverseArea: ia, profile: .fine)
                            }
                            fill0Gathered = true
                        }
                        if reach > 0 {
                            front = aperture.within(fineReach(reach), zone: zone) {
                                gatherNear(
                                    f.nearR + idx, planeSize: scratch.planeSize, stride: scratch.stride,
                                    taps: $0, profile: .fine)
                            }
                        }
                    }
                    let offset = x0 - x0t
                    var behindR = SIMD8<Float>()
                    var behindG = SIMD8<Float>()
                    var behindB = SIMD8<Float>()
                    if stats.maxFar >= 0 {
                        // Far colour: the normalised gathers of the pixel's level(s); blur circles
                        // under a pixel across keep the picture exactly.
                        let v = blender.blend(
                            farLevels, rho: a, full: far0, gathered: far0Gathered, field: 0, offset: offset, upsampled: upsampled,
                            fallback: (red, green, blue))
                        let keep = 1 - vpositive(a - BokehSchedule.passThrough)
                        behindR = mf * (keep * red + (1 - keep) * v.0)
                        behindG = mf * (keep * green + (1 - keep) * v.1)
                        behindB = mf * (keep * blue + (1 - keep) * v.2)
                    } else {
                        behindR = mf * red
                        behindG = mf * green
                        behindB = mf * blue
                    }
                    if stats.maxNear >= 0 {
                        let v = blender.blend(
                            fillLevels, rho: rhoFill, full: fill0, gathered: fill0Gathered, field: 1, offset: offset,
                            upsampled: upsampled, fallback: (red, green, blue))
                        behindR += mn * v.0
                        behindG += mn * v.1
                        behindB += mn * v.2
                    }
                    if spill != 0 {
                        for i in 0..<levelCount where spill & (1 << UInt32(i)) != 0 {
                            let (r, g, b, alpha) = upsampled.values(TileUpsampling.slot(i, 2), offset: offset)
                            front.r += r
                            front.g += g
                            front.b += b
                            front.a += alpha
                        }
                    }
                    // Near over far: premultiplied front, its coverage as alpha (normalised when
                    // overlapping near samples sum above one).
                    let scale = 1 / vmax(front.a, SIMD8(repeating: 1))
                    let through = vmax(SIMD8(), 1 - front.a)
                    if let out = target.picture {
                        let outR = front.r * scale + through * behindR
                        let outG = front.g * scale + through * behindG
                        let outB = front.b * scale + through * behindB
                        if n == 8 {
                            storeRGB8(out + (y * W + x0) * 3, outR, outG, outB)
                        } else {
                            for k in 0..<n {
                                let p = (y * W + x0 + k) * 3
                                out[p] = outR[k]
                                out[p + 1] = outG[k]
                                out[p + 2] = outB[k]
                            }
                        }
                    } else if let layers = target.layers {
                        let plane = W * H
                        @inline(__always) func put(_ layer: PreviewLayer, _ v: SIMD8<Float>) {
                            let row = layers + layer.rawValue * plane + y * W + x0
                            if n == 8 {
                                store8(row, v)
                            } else {
                                for k in 0..<n { row[k] = v[k] }
                            }
                        }
                        put(.nearRed, front.r * scale)
                        put(.nearGreen, front.g * scale)
                        put(.nearBlue, front.b * scale)
                        put(.nearCoverage, 1 - through)
                        put(.behindRed, behindR)
                        put(.behindGreen, behindG)
                        put(.behindBlue, behindB)
                    }
                    x0 += 8
                }
            }
        }
    }

    /// Per tile of tile row `ty`: the coarse levels whose near field reaches it (bit ℓ − 1 for
    /// level ℓ), from the level's tiles with near samples within a cell of the tile. A level with
    /// none in the tile row's band costs one pass over its tile row.
    private func spills(_ ty: Int, _ views: [LevelView]) -> RawBuffer<UInt32> {
        let spills = RawBuffer<UInt32>(count: tilesX)
        let y0t = ty * Tile.pixels
        let y1t = min(height, y0t + Tile.pixels)
        for (i, level) in views.enumerated() {
            let c0y = max(0, Int(Float(y0t) / level.cell) - 1) / Tile.cells
            let c1y = min(level.height - 1, Int(Float(y1t - 1) / level.cell) + 1) / Tile.cells
            // Per level tile column: some tile of the band has near samples.
            var columns = [Bool](repeating: false, count: level.tilesX)
            var any = false
            for y in c0y...c1y {
                for x in 0..<level.tilesX where level.nearTiles[y * level.tilesX + x] != 0 {
                    columns[x] = true
                    any = true
                }
            }
            guard any else { continue }
            for tx in 0..<tilesX {
                let x0t = tx * Tile.pixels
                let x1t = min(width, x0t + Tile.pixels)
                let c0x = max(0, Int(Float(x0t) / level.cell) - 1) / Tile.cells
                let c1x = min(level.width - 1, Int(Float(x1t - 1) / level.cell) + 1) / Tile.cells
                for x in c0x...c1x where columns[x] {
                    spills[tx] |= 1 << UInt32(i)
                    break
                }
            }
        }
        return spills
    }

    /// The level-0 scratch planes around the tile at (`x0t`, `y0t`), `pad` pixels beyond it on
    /// every side (beyond the frame the picture repeats its edge, as the reference assumes), and
    /// per scratch row and half tile the reach of its near samples. Every cell a gather reads is
    /// written (lanes past the region land in the planes' slack), so the scratch is never cleared;
    /// where a pixel has no level-0 near share its near colour and alpha are zero. Eight pixels at
    /// a time; the level-0 share of a radius is the schedule's weight for level 0,
    /// saturate((r0 − ρ) / (blend · r0)).
    ///
    /// The rows read are first copied to `staging` (disparity, then the interleaved colour, per
    /// row), all of them before any is used: read as it is used, each row's first access waited
    /// on memory with the arithmetic of the previous group in the way, one row at a time.
    private func fillScratch(
        _ f: FullPointers, stride: Int, x0t: Int, y0t: Int, pad: Int, from start: Int, far: Bool, near: Bool,
        nearGroupMax: UnsafeMutablePointer<Float>, staging: UnsafeMutablePointer<Float>, unclipped: DiskArea.Table
    ) {
        let W = width
        let H = height
        let r0f = nearSchedule.r0
        let shareScale = 1 / (BokehSchedule.blend * r0f)
        let onlyLevel0 = schedule.levels == 0
        // Columns the groups of eight read from `start` on, and the part of them inside the frame
        // (groups reaching past it clamp, reading the picture itself).
        let columns = (Tile.pixels + pad - start + 7) & ~7
        let first = max(0, x0t + start)
        let count = min(W, x0t + start + columns) - first
        let rowSize = 4 * columns
        if count > 0 {
            let skip = first - (x0t + start)
            for sy in -pad..<(Tile.pixels + pad) {
                let y = min(max(y0t + sy, 0), H - 1)
                let row = staging + (sy + pad) * rowSize
                let p = y * W + first
                (row + skip).update(from: disparity + p, count: count)
                (row + columns + 3 * skip).update(from: picture + 3 * p, count: 3 * count)
            }
        }
        for sy in -pad..<(Tile.pixels + pad) {
            let y = min(max(y0t + sy, 0), H - 1)
            let row = staging + (sy + pad) * rowSize
            var sx = start
            while sx < Tile.pixels + pad {
                let n = min(8, Tile.pixels + pad - sx)
                let x = x0t + sx
                var d = SIMD8<Float>()
                var red = SIMD8<Float>()
                var green = SIMD8<Float>()
                var blue = SIMD8<Float>()
                if x >= 0 && x + 8 <= W {
                    let k = sx - start
                    d = load8(row + k)
                    (red, green, blue) = loadRGB8(row + columns + 3 * k)
                } else {
                    for k in 0..<8 {
                        let p = y * W + min(max(x + k, 0), W - 1)
                        d[k] = disparity[p]
                        red[k] = picture[3 * p]
                        green[k] = picture[3 * p + 1]
                        blue[k] = picture[3 * p + 2]
                    }
                }
                let r = radius.signed(d)
                let a = vabs(r)
                let c = fineRadius(a)
                let mn = BlurRadius.nearShare(r)
                // Far samples: the unclipped normalisation; near ones: their cat's-eye zone's.
                let ia = DiskArea.inverse(c, unclipped)
                let q = sy * stride + sx
                if far {
                    let mf = 1 - mn
                    store8(f.farR + q, mf * red)
                    store8(f.farG + q, mf * green)
                    store8(f.farB + q, mf * blue)
                    store8(f.farA + q, mf)
                    store8(f.farC + q, c)
                    store8(f.farI + q, ia)
                }
                guard near else {
                    sx += 8
                    continue
                }
                let m = onlyLevel0 ? mn : mn * vsaturate((r0f - a) * shareScale)
                // Where m is 0 the colour and alpha are 0 and the sample adds nothing, whatever its
                // radius and area planes say.
                store8(f.nearR + q, m * red)
                store8(f.nearG + q, m * green)
                store8(f.nearB + q, m * blue)
                store8(f.nearA + q, m)
                store8(f.nearC + q, c)
                if aperture.zones == nil {
                    store8(f.nearI + q, ia)
                } else {
                    let nearArea = aperture.fine(zone(x, y, cell: 1, count: n))
                    store8(f.nearI + q, DiskArea.inverse(c, nearArea))
                }
                if anyAbove(m, 0) {
                    // c + 0.5 of the lanes with a near share, per half tile (scratch columns
                    // before 8, and from 8 on), as mask selects: absent lanes count 0.
                    let column = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) + Float(sx)
                    let reach = SIMD8<Float>().replacing(with: c + 0.5, where: (m .> 0) .& (column .< Float(sx + n)))
                    let left = column .< 8
                    let g = (sy + pad) * 2
                    nearGroupMax[g] = max(nearGroupMax[g], hmax(SIMD8<Float>().replacing(with: reach, where: left)))
                    nearGroupMax[g + 1] = max(nearGroupMax[g + 1], hmax(reach.replacing(with: 0, where: left)))
                }
                sx += 8
            }
        }
    }

    /// Adds the near reach of scratch columns −`pad` ..< `pad` (moved over from the previous
    /// tile) to `nearGroupMax`, as `fillScratch` would: c + 0.5 where the near share is positive.
    private func nearReach(_ f: FullPointers, stride: Int, pad: Int, nearGroupMax: UnsafeMutablePointer<Float>) {
        for sy in -pad..<(Tile.pixels + pad) {
            for sx in -pad..<pad {
                let q = sy * stride + sx
                guard f.nearA[q] > 0 else { continue }
                let g = (sy + pad) * 2 + min(1, max(0, sx / 8))
                nearGroupMax[g] = max(nearGroupMax[g], f.nearC[q] + 0.5)
            }
        }
    }

    /// Tap reach of a full-resolution gather whose largest radius plus half a pixel is `top`: the
    /// fine profile reaches half a pixel further, and the exact pixel overlap of small disks
    /// always takes the 3 × 3 neighbourhood.
    @inline(__always) func fineReach(_ top: Float) -> Float { max(top + 0.5, 1.5) }

    /// The coarse levels (1-based) radii in `low ... high` read.
    func levelRange(_ low: Float, _ high: Float, present: Bool = true) -> Range<Int> {
        guard present, high >= low, high > 0 else { return 1..<1 }
        let first = max(1, schedule.split(low).level)
        let (last, t) = schedule.split(high)
        return first..<max(first, (t > 0 ? last + 1 : last) + 1)
    }
}

/// The scratch planes of the full-resolution gathers.
private struct FullPointers {
    let farR, farG, farB, farA, farC, farI: UnsafeMutablePointer<Float>
    let nearR, nearG, nearB, nearA, nearC, nearI: UnsafeMutablePointer<Float>

    init(_ p: Planes<FullResolutionPlane>) {
        farR = p.origin(.farRed)
        farG = p.origin(.farGreen)
        farB = p.origin(.farBlue)
        farA = p.origin(.farAlpha)
        farC = p.origin(.farRadius)
        farI = p.origin(.farInverseArea)
        nearR = p.origin(.nearRed)
        nearG = p.origin(.nearGreen)
        nearB = p.origin(.nearBlue)
        nearA = p.origin(.nearAlpha)
        nearC = p.origin(.nearRadius)
        nearI = p.origin(.nearInverseArea)
    }

    /// Moves the last 2 · `pad` columns of the far and/or near group to the first: the next
    /// tile's scratch starts 16 pixels on (per pixel the values do not depend on the tile).
    /// Eight columns at a time, inline (a library copy per plane row cost more than its few
    /// values): up to seven columns past them are copied too, into the columns the fill writes
    /// next, read from the row's slack.
    func moveOverlap(stride: Int, rows: Int, pad: Int, far: Bool, near: Bool) {
        @inline(__always) func move(_ plane: UnsafeMutablePointer<Float>) {
            for sy in -pad..<(rows - pad) {
                let row = plane + sy * stride
                for o in Swift.stride(from: 0, to: 2 * pad, by: 8) { store8(row - pad + o, load8(row + Tile.pixels - pad + o)) }
            }
        }
        if far {
            move(farR)
            move(farG)
            move(farB)
            move(farA)
            move(farC)
            move(farI)
        }
        if near {
            move(nearR)
            move(nearG)
            move(nearB)
            move(nearA)
            move(nearC)
            move(nearI)
        }
    }
}
