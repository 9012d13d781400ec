extension BokehEngine {
    // MARK: - Level 1 from full resolution

    func buildFirstLevel() {
        let level = levels[0]
        let w1 = level.width
        let h1 = level.height
        let W = width
        let H = height
        let pic = Shared(UnsafeMutablePointer(mutating: picture))
        let disp = Shared(UnsafeMutablePointer(mutating: disparity))
        let radius = self.radius
        let planes = level.planes
        let mask = Shared(level.mask.base)
        let active = Shared(level.active.base)
        let area = self.area
        let zoned = aperture.zones != nil
        let tilesX = level.tilesX
        // Level 2 is built in the same pass, each of its rows as soon as the level-1 rows under
        // its tent are, which are then still cached (read back from memory once level 1 is
        // done, they cost more than the arithmetic); a task takes two level-1 tile rows, one of
        // level 2. A level-2 row whose tent reaches into another task's rows waits for a second
        // pass.
        let second = levels.count > 1 ? levels[1] : nil
        let perTask = second == nil ? 1 : 2
        let tasks = (level.tilesY + perTask - 1) / perTask
        let rowsPerTask = perTask * Tile.cells
        /// The first and last level-1 rows under level-2 row `k`'s tent.
        @Sendable @inline(__always) func under(_ k: Int) -> (Int, Int) { (max(2 * k - 1, 0), min(2 * k + 2, h1 - 1)) }
        /// Whether level-2 row `k` is built by `task`'s first pass: its tent within the task's rows.
        @Sendable @inline(__always) func inTask(_ k: Int, _ task: Int) -> Bool {
            let (lo, hi) = under(k)
            return lo >= task * rowsPerTask && hi < min(h1, (task + 1) * rowsPerTask)
        }
        let tented = tentedFirstLevel
        parallelFor(tasks, threads: threads) { task in
            let o = LevelPointers(planes)
            let coarse = second.map { LevelPointers($0.planes) }
            let edges = BokehLevel.RowEdges(level)
            let coarseEdges = second.map { BokehLevel.RowEdges($0) }
            let rows = tented ? FirstLevelRows(width: W) : nil
            // Row by row across the tiles: each row of the picture and of every plane is then
            // read or written in order, which the hardware prefetches (tile by tile, every group
            // starts a row of its own).
            for cy in (task * rowsPerTask)..<min(h1, (task + 1) * rowsPerTask) {
                let ty = cy / Tile.cells
                if let rows {
                    for y in max(2 * cy - 1, 0)...min(2 * cy + 2, H - 1) {
                        rows.fill(y, picture: pic.p, disparity: disp.p, radius: radius)
                    }
                }
                for tx in 0..<tilesX where active.p[ty * tilesX + tx] != 0 {
                    let cx0 = tx * Tile.cells
                    if let rows {
                        self.buildFirstTentGroup(
                            cx0, cy, rows, o, mask.p, w1, area: area, zoned: zoned, fill: level.fill[ty * tilesX + tx] != 0)
                        continue
                    }
                    if 2 * cx0 + 16 <= W && 2 * cy + 1 < H {
                        self.buildFirstGroup(
                            cx0, cy, o, pic.p, disp.p, mask.p, w1, area: area, zoned: zoned, fill: level.fill[ty * tilesX + tx] != 0)
                        continue
                    }
                    // Right or bottom border: cell by cell, children may be missing.
                    let nearArea = self.zoneArea(cx0, cy, cell: 2, count: min(8, w1 - cx0))
                    let y0 = cy * 2
                    let dy = y0 + 1 < H ? W : 0
                    for cx in cx0..<min(w1, cx0 + Tile.cells) {
                        let x0 = cx * 2
                        let dx = x0 + 1 < W ? 1 : 0
                        let p = y0 * W + x0
                        let valid = SIMD4<Float>(1, Float(dx), dy != 0 ? 1 : 0, dy != 0 ? Float(dx) : 0)
                        let index = SIMD4<Int>(p, p + dx, p + dy, p + dy + dx)
                        let d = SIMD4(disp.p[index[0]], disp.p[index[1]], disp.p[index[2]], disp.p[index[3]])
                        let red = SIMD4(pic.p[3 * index[0]], pic.p[3 * index[1]], pic.p[3 * index[2]], pic.p[3 * index[3]])
                        let green = SIMD4(
                            pic.p[3 * index[0] + 1], pic.p[3 * index[1] + 1], pic.p[3 * index[2] + 1], pic.p[3 * index[3] + 1])
                        let blue = SIMD4(
                            pic.p[3 * index[0] + 2], pic.p[3 * index[1] + 2], pic.p[3 * index[2] + 2], pic.p[3 * index[3] + 2])
                        let r = radius.signed(d)
                        let a = vabs(r)
                        let c = vmax(a, SIMD4(repeating: 0.5))
                        let mnRaw = BlurRadius.nearShare(r)
                        let mn = mnRaw * valid
                        let mf = (1 - mnRaw) * valid
                        let cmax = hmax(c * vpositive(mf))
                        let e = mf * vsaturate(c - 0.5) * vsaturate((c / max(cmax, 1e-6) - 0.3) * 2.5)
                        let inv = 1 / valid.sum()
                        let q = planes.index(cx, cy)
                        let farA = e.sum()
                        let farC = farA > 0 ? max((e * c).sum() / farA / 2, 0.5) : 0.5
                        o.farR[q] = (e * red).sum() * inv
                        o.farG[q] = (e * green).sum() * inv
                        o.farB[q] = (e * blue).sum() * inv
                        o.farA[q] = farA * inv
                        o.farC[q] = farC
                        o.farI[q] = DiskArea.inverse(farC, area)
                        o.allR[q] = (mf * red).sum() * inv
                        o.allG[q] = (mf * green).sum() * inv
                        o.allB[q] = (mf * blue).sum() * inv
                        o.allA[q] = mf.sum() * inv
                        let nearA = mn.sum()
                        var bits: UInt32 = 0
                        if nearA > 0 {
                            let cbar = (mn * c).sum() / nearA
                            let nearC = max(cbar / 2, 0.5)
                            o.nearR[q] = (mn * red).sum() * inv
                            o.nearG[q] = (mn * green).sum() * inv
                            o.nearB[q] = (mn * blue).sum() * inv
                            o.nearA[q] = nearA * inv
                            o.nearC[q] = nearC
                            o.nearI[q] = DiskArea.inverse(nearC, nearArea) * nearSchedule.weight(cbar, level: 1)
                            o.maxNear[q] = hmax(a * vpositive(mn))
                            for k in 0..<4 where mn[k] > 0 {
                                bits |= self.levelBits(max(a[k], BokehSchedule.passThrough)) << MaskBit.fillShift
                            }
                        } else {
                            o.clearNear(q, count: 1)
                        }
                        let farConsumer = vpositive(mf) * vpositive(a - BokehSchedule.passThrough)
                        let maxFar = hmax(a * farConsumer)
                        o.maxFar[q] = 0
                        if maxFar > 0 {
                            o.maxFar[q] = maxFar
                            for k in 0..<4 where farConsumer[k] > 0 { bits |= self.levelBits(a[k]) }
                        }
                        mask.p[cy * w1 + cx] = bits
                    }
                }
                edges.replicate(cy)
                // The level-2 rows whose last level-1 row this was.
                if let second, let coarse, let coarseEdges {
                    for k in max(0, (cy - 2) / 2)...min(second.height - 1, cy / 2) where under(k).1 == cy && inTask(k, task) {
                        self.buildRow(k, of: second, from: level, o, coarse, area: area, zoned: zoned)
                        coarseEdges.replicate(k)
                    }
                }
            }
        }
        guard let second else { return }
        parallelFor(tasks, threads: threads) { task in
            let s = LevelPointers(planes)
            let o = LevelPointers(second.planes)
            let edges = BokehLevel.RowEdges(second)
            for k in (task * rowsPerTask / 2)..<min(second.height, (task + 1) * rowsPerTask / 2) where !inTask(k, task) {
                self.buildRow(k, of: second, from: level, s, o, area: area, zoned: zoned)
                edges.replicate(k)
            }
        }
    }

    /// Eight level-1 cells from 16 × 2 full-resolution pixels, all present. `area` is the
    /// frame's area table and `zoned` whether a cat's eye gives each group its own: fetched once
    /// per task, as a table fetched per group costs a retain and a release. The lane helpers it
    /// calls are `@inline(always)`: with `@inline(__always)` the optimiser, at its size limit
    /// here, left them calls passing lanes through memory.
    @inline(__always)
    private func buildFirstGroup(
        _ cx0: Int, _ cy: Int, _ o: LevelPointers, _ pic: UnsafeMutablePointer<Float>, _ disp: UnsafeMutablePointer<Float>,
        _ mask: UnsafeMutablePointer<UInt32>, _ maskWidth: Int, area: DiskArea.Table, zoned: Bool, fill: Bool
    ) {
        let half = SIMD8<Float>(repeating: 0.5)
        let top = FirstLevelChildren(radius: radius, pic, disp, at: 2 * cy * width + 2 * cx0)
        let bottom = FirstLevelChildren(radius: radius, pic, disp, at: (2 * cy + 1) * width + 2 * cx0)
        let (k0, k1, k2, k3) = (top.left, top.right, bottom.left, bottom.right)
        let q = o.index(cx0, cy)
        // The blurriest far child decides which children are too sharp for the level.
        let cmax = vmax(vmax(k0.c * vpositive(k0.mf), k1.c * vpositive(k1.mf)), vmax(k2.c * vpositive(k2.mf), k3.c * vpositive(k3.mf)))
        let invMax = 1 / vmax(cmax, SIMD8(repeating: 1e-6))
        let e0 = k0.farShare(invMax)
        let e1 = k1.farShare(invMax)
        let e2 = k2.farShare(invMax)
        let e3 = k3.farShare(invMax)
        let farA = e0 + e1 + e2 + e3
        let farC = vmax((e0 * k0.c + e1 * k1.c + e2 * k2.c + e3 * k3.c) / vmax(farA, SIMD8(repeating: 1e-30)) * 0.5, half)
        store8(o.farR + q, 0.25 * (e0 * k0.red + e1 * k1.red + e2 * k2.red + e3 * k3.red))
        store8(o.farG + q, 0.25 * (e0 * k0.green + e1 * k1.green + e2 * k2.green + e3 * k3.green))
        store8(o.farB + q, 0.25 * (e0 * k0.blue + e1 * k1.blue + e2 * k2.blue + e3 * k3.blue))
        store8(o.farA + q, 0.25 * farA)
        store8(o.farC + q, farC)
        // Far samples keep the unclipped normalisation: the far field is normalised per pixel,
        // over the pixel's own (cat's-eye) footprint. Near samples spread with their zone's.
        store8(o.farI + q, DiskArea.inverse(farC, area))
        if fill {
            store8(o.allR + q, 0.25 * (k0.mf * k0.red + k1.mf * k1.red + k2.mf * k2.red + k3.mf * k3.red))
            store8(o.allG + q, 0.25 * (k0.mf * k0.green + k1.mf * k1.green + k2.mf * k2.green + k3.mf * k3.green))
            store8(o.allB + q, 0.25 * (k0.mf * k0.blue + k1.mf * k1.blue + k2.mf * k2.blue + k3.mf * k3.blue))
            store8(o.allA + q, 0.25 * (k0.mf + k1.mf + k2.mf + k3.mf))
        }
        let nearA = k0.mn + k1.mn + k2.mn + k3.mn
        let big = SIMD8<Float>(repeating: 1e30)
        var fillBits = SIMD8<Float>()
        if anyAbove(nearA, 0) {
            let cbar = (k0.mn * k0.c + k1.mn * k1.c + k2.mn * k2.c + k3.mn * k3.c) / vmax(nearA, SIMD8(repeating: 1e-30))
            let nearC = vmax(cbar * 0.5, half)
            store8(o.nearR + q, 0.25 * (k0.mn * k0.red + k1.mn * k1.red + k2.mn * k2.red + k3.mn * k3.red))
            store8(o.nearG + q, 0.25 * (k0.mn * k0.green + k1.mn * k1.green + k2.mn * k2.green + k3.mn * k3.green))
            store8(o.nearB + q, 0.25 * (k0.mn * k0.blue + k1.mn * k1.blue + k2.mn * k2.blue + k3.mn * k3.blue))
            store8(o.nearA + q, 0.25 * nearA)
            store8(o.nearC + q, nearC)
            let levelShare = nearSchedule.weight(cbar, level: 1)
            let inverseArea = nearInverseArea(nearC, cx0, cy, cell: 2, area: area, zoned: zoned)
            store8(o.nearI + q, inverseArea * levelShare * vpositive(nearA))
            // Fill consumers: every near child, with radius max(a, 0.5).
            let n0 = vpositive(k0.mn)
            let n1 = vpositive(k1.mn)
            let n2 = vpositive(k2.mn)
            let n3 = vpositive(k3.mn)
            let hi = vmax(vmax(k0.c * n0, k1.c * n1), vmax(k2.c * n2, k3.c * n3))
            let lo = vmin(vmin(k0.c + (1 - n0) * big, k1.c + (1 - n1) * big), vmin(k2.c + (1 - n2) * big, k3.c + (1 - n3) * big))
            store8(o.maxNear + q, vmax(vmax(k0.a * n0, k1.a * n1), vmax(k2.a * n2, k3.a * n3)))
            if anyAbove(hi, 0) { fillBits = schedule.rangeBits(lo, hi) * vpositive(hi) }
        } else {
            o.clearNear(q, count: 8)
        }
        // Far consumers: far children with a blur circle over a pixel across.
        let f0 = k0.farConsumer
        let f1 = k1.farConsumer
        let f2 = k2.farConsumer
        let f3 = k3.farConsumer
        let hi = vmax(vmax(k0.a * f0, k1.a * f1), vmax(k2.a * f2, k3.a * f3))
        var farBits = SIMD8<Float>()
        if anyAbove(hi, 0) {
            let lo = vmin(vmin(k0.a + (1 - f0) * big, k1.a + (1 - f1) * big), vmin(k2.a + (1 - f2) * big, k3.a + (1 - f3) * big))
            store8(o.maxFar + q, hi)
            farBits = schedule.rangeBits(lo, hi) * vpositive(hi)
        } else {
            store8(o.maxFar + q, SIMD8())
        }
        // The bit sums as integers without a checked conversion per lane: a whole number below
        // 2^23 plus 2^23 is exact, and its mantissa is that number.
        @inline(__always) func integer(_ v: SIMD8<Float>) -> SIMD8<UInt32> {
            unsafeBitCast(v + 8_388_608, to: SIMD8<UInt32>.self) & 0x7F_FFFF
        }
        let bits = integer(farBits) | integer(fillBits) &<< MaskBit.fillShift
        UnsafeMutableRawPointer(mask + cy * maskWidth + cx0).storeBytes(of: bits, as: SIMD8<UInt32>.self)
    }

    /// Eight level-1 cells whose far field comes from the full-resolution rows under their tent
    /// (`ChildTent`: 4 × 4 pixels a cell, pixels outside the picture weighing nothing), so that a
    /// background light's spot lies where the light is and not at its cell's centre. Each child
    /// counts as in `buildFirstGroup`. The near field, the consumers below each cell and the
    /// blurriest far child that decides which children are too sharp for the level come from its
    /// own 2 × 2, as there.
    @inline(never)
    private func buildFirstTentGroup(
        _ cx0: Int, _ cy: Int, _ rows: FirstLevelRows, _ o: LevelPointers, _ mask: UnsafeMutablePointer<UInt32>,
        _ maskWidth: Int, area: DiskArea.Table, zoned: Bool, fill: Bool
    ) {
        let half = SIMD8<Float>(repeating: 0.5)
        let big = SIMD8<Float>(repeating: 1e30)
        let tent = ChildTent(cx0: cx0, cy: cy, fineWidth: width, fineHeight: height, rowStart: rows.rowStart)
        let inv = tent.inverse
        let q = o.index(cx0, cy)
        let (radiusPlane, nearPlane) = (rows.origin(.radius), rows.origin(.near))
        let (redPlane, greenPlane, bluePlane) = (rows.origin(.red), rows.origin(.green), rows.origin(.blue))
        // The own 2 × 2 (0 outside the picture: no radius, no near share, so no consumer).
        let ownA = tent.own(radiusPlane)
        let ownN = tent.own(nearPlane)
        /// `body` for each own child (top left, top right, bottom left, bottom right) by index.
        @inline(__always) func eachOwn(_ body: (Int, SIMD8<Float>, SIMD8<Float>) -> Void) {
            body(0, ownA.0, ownN.0)
            body(1, ownA.1, ownN.1)
            body(2, ownA.2, ownN.2)
            body(3, ownA.3, ownN.3)
        }
        var cmax = SIMD8<Float>()
        eachOwn { _, a, mn in cmax = vmax(cmax, vmax(a, half) * vpositive(1 - mn)) }
        let invMax = 1 / vmax(cmax, SIMD8(repeating: 1e-6))
        var (farA, farAC, farR, farG, farB) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        var (allA, allR, allG, allB) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        var (nearA, nearAC, nearR, nearG, nearB) = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        for k in 0..<4 where tent.rowWeights[k] > 0 {
            let c = tent.row(radiusPlane, k).map { vmax($0, half) }
            let mn = tent.row(nearPlane, k)
            let mf = mn.map { 1 - $0 }
            let (red, green, blue) = (tent.row(redPlane, k), tent.row(greenPlane, k), tent.row(bluePlane, k))
            // The far share: none below a pixel's blur, fading out as it gets much sharper than
            // the blurriest of the cell's own children.
            let e = tent.weights(k, mf * c.map { vsaturate($0 - 0.5) * vsaturate(($0 * invMax - 0.3) * 2.5) })
            farA += e.total
            farAC += (e * c).total
            farR += (e * red).total
            farG += (e * green).total
            farB += (e * blue).total
            if fill {
                let w = tent.weights(k, mf)
                allA += w.total
                allR += (w * red).total
                allG += (w * green).total
                allB += (w * blue).total
            }
        }
        // The near field keeps its own 2 × 2: a near sample spills over sharp pixels, and under the
        // tent it would reach a cell further than its blur.
        let (ownR, ownG, ownB) = (tent.own(redPlane), tent.own(greenPlane), tent.own(bluePlane))
        eachOwn { k, a, mn in
            @inline(__always) func pick(_ v: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)) -> SIMD8<Float> {
                k == 0 ? v.0 : k == 1 ? v.1 : k == 2 ? v.2 : v.3
            }
            nearA += mn
            nearAC += mn * vmax(a, half)
            nearR += mn * pick(ownR)
            nearG += mn * pick(ownG)
            nearB += mn * pick(ownB)
        }
        let ownInverse = 1 / vmax(tent.ownCount, SIMD8(repeating: 1))
        let farC = vmax(farAC / vmax(farA, SIMD8(repeating: 1e-30)) * 0.5, half)
        o.storeFar(q, red: farR, green: farG, blue: farB, alpha: farA, scale: inv, radius: farC, area: area)
        if fill { o.storeFill(q, red: allR, green: allG, blue: allB, alpha: allA, scale: inv) }
        let count = min(8, maskWidth - cx0)
        if anyAbove(nearA, 0) {
            let cbar = nearAC / vmax(nearA, SIMD8(repeating: 1e-30))
            let nearC = vmax(cbar * 0.5, half)
            store8(o.nearR + q, ownInverse * nearR)
            store8(o.nearG + q, ownInverse * nearG)
            store8(o.nearB + q, ownInverse * nearB)
            store8(o.nearA + q, ownInverse * nearA)
            store8(o.nearC + q, nearC)
            let inverseArea = nearInverseArea(nearC, cx0, cy, cell: 2, count: count, area: area, zoned: zoned)
            store8(o.nearI + q, inverseArea * nearSchedule.weight(cbar, level: 1) * vpositive(nearA))
        } else {
            o.clearNear(q, count: count)
        }
        // The consumers below each cell, from its own 2 × 2 as `buildFirstGroup`'s.
        var (nearHi, nearLo, maxNear) = (SIMD8<Float>(), big, SIMD8<Float>())
        var (farHi, farLo) = (SIMD8<Float>(), big)
        eachOwn { _, a, mn in
            let n = vpositive(mn)
            let c = vmax(a, half)
            nearHi = vmax(nearHi, c * n)
            nearLo = vmin(nearLo, c + (1 - n) * big)
            maxNear = vmax(maxNear, a * n)
            let f = vpositive(1 - mn) * vpositive(a - 0.5)
            farHi = vmax(farHi, a * f)
            farLo = vmin(farLo, a + (1 - f) * big)
        }
        store8(o.maxNear + q, maxNear)
        store8(o.maxFar + q, farHi)
        let fillBits = anyAbove(nearHi, 0) ? schedule.rangeBits(nearLo, nearHi) * vpositive(nearHi) : SIMD8()
        let farBits = anyAbove(farHi, 0) ? schedule.rangeBits(farLo, farHi) * vpositive(farHi) : SIMD8()
        for i in 0..<count {
            mask[cy * maskWidth + cx0 + i] = UInt32(farBits[i]) | UInt32(fillBits[i]) << MaskBit.fillShift
        }
    }

    /// 1 / area of near samples of radii `c` (cells) from the group of `count` cells of size
    /// `cell` at (x, y): the frame's table `area`, or with a cat's eye (`zoned`) their zone's.
    @inline(always) func nearInverseArea(
        _ c: SIMD8<Float>, _ x: Int, _ y: Int, cell: Float, count: Int = 8, area: DiskArea.Table, zoned: Bool
    ) -> SIMD8<Float> {
        guard zoned else { return DiskArea.inverse(c, area) }
        let table = zoneArea(x, y, cell: cell, count: count)
        return DiskArea.inverse(c, table)
    }

    // MARK: - Coarser levels, each from the one below

    /// Level 3 and coarser (level 2 is built with level 1).
    func buildLevel(_ level: BokehLevel, from fine: BokehLevel) {
        let h = level.height
        let area = self.area
        let zoned = aperture.zones != nil
        parallelFor(level.tilesY, threads: threads) { ty in
            let s = LevelPointers(fine.planes)
            let o = LevelPointers(level.planes)
            let edges = BokehLevel.RowEdges(level)
            // Row by row across the tiles, as level 1.
            for cy in (ty * Tile.cells)..<min(h, ty * Tile.cells + Tile.cells) {
                self.buildRow(cy, of: level, from: fine, s, o, area: area, zoned: zoned)
                edges.replicate(cy)
            }
        }
    }

    /// Row `cy` of `level`'s active tiles from `fine` (its planes `s`, the level's `o`).
    @inline(__always)
    private func buildRow(
        _ cy: Int, of level: BokehLevel, from fine: BokehLevel, _ s: LevelPointers, _ o: LevelPointers, area: DiskArea.Table,
        zoned: Bool
    ) {
        let tilesX = level.tilesX
        let ty = cy / Tile.cells
        for tx in 0..<tilesX where level.active[ty * tilesX + tx] != 0 {
            let fill = level.fill[ty * tilesX + tx] != 0
            buildGroup(level, fine, tx * Tile.cells, cy, s, o, area: area, zoned: zoned, fill: fill)
        }
    }

    /// Eight cells of `level` from their children in `fine`: the planes gathered from under the
    /// tent of `ChildTent` (4 × 4 children a cell; children outside `fine` weigh nothing), the
    /// consumers' largest radii and bits (what the pixels below a cell need) from its own 2 × 2.
    /// `area` and `zoned` as for `buildFirstGroup`. Not inlined into the tile loop (measured
    /// faster: there the optimiser reaches its size limit and leaves the lane helpers as calls).
    @inline(never)
    private func buildGroup(
        _ level: BokehLevel, _ fine: BokehLevel, _ cx0: Int, _ cy: Int, _ s: LevelPointers, _ o: LevelPointers,
        area: DiskArea.Table, zoned: Bool, fill: Bool
    ) {
        let fw = fine.width
        let fh = fine.height
        let cell = level.cell
        let fineCell = fine.cell
        let half = SIMD8<Float>(repeating: 0.5)
        let stride = s.stride
        let tent = ChildTent(cx0: cx0, cy: cy, fineWidth: fw, fineHeight: fh, stride: stride)
        let inv = tent.inverse
        let q = o.index(cx0, cy)
        let invCell = 1 / cell
        /// A far child's share at this level: none below a quarter of a cell, fading out as it
        /// gets much sharper than the blurriest of its cell's own 2 × 2 (1 / its radius in
        /// `invMax`).
        @inline(__always) func share(_ c: SIMD8<Float>, _ invMax: SIMD8<Float>) -> SIMD8<Float> {
            vsaturate((c * invCell - 0.25) * 2) * vsaturate((c * invMax - 0.3) * 2.5)
        }
        var sumA = SIMD8<Float>()
        var sumAC = SIMD8<Float>()
        var red = SIMD8<Float>()
        var green = SIMD8<Float>()
        var blue = SIMD8<Float>()
        if tent.interior {
            // Each column's cell's blurriest far child of its own 2 × 2, in both its columns.
            var top = (SIMD8<Float>(), SIMD8<Float>())
            for k in 1...2 {
                let p = tent.offset(k)
                top.0 = vmax(top.0, load8(s.farC + p) * vpositive(load8(s.farA + p)))
                top.1 = vmax(top.1, load8(s.farC + p + 8) * vpositive(load8(s.farA + p + 8)))
            }
            let least = SIMD8<Float>(repeating: 1e-6)
            let invMax = (1 / vmax(ChildTent.pairMax(top.0) * fineCell, least), 1 / vmax(ChildTent.pairMax(top.1) * fineCell, least))
            typealias Sums = (a: SIMD8<Float>, ac: SIMD8<Float>, r: SIMD8<Float>, g: SIMD8<Float>, b: SIMD8<Float>)
            var lo: Sums = (SIMD8(), SIMD8(), SIMD8(), SIMD8(), SIMD8())
            var hi = lo
            @inline(__always) func add(_ p: Int, _ w: Float, _ invMax: SIMD8<Float>, _ sums: inout Sums) {
                let c = load8(s.farC + p) * fineCell
                let e = w * share(c, invMax)
                let ea = e * load8(s.farA + p)
                sums.a += ea
                sums.ac += ea * c
                sums.r += e * load8(s.farR + p)
                sums.g += e * load8(s.farG + p)
                sums.b += e * load8(s.farB + p)
            }
            for k in 0..<4 {
                let w: Float = k == 0 || k == 3 ? 1 : 3
                let p = tent.offset(k)
                add(p - 1, w, invMax.0, &lo)
                add(p, 2 * w, invMax.0, &lo)
                add(p + 1, w, invMax.0, &lo)
                add(p + 7, w, invMax.1, &hi)
                add(p + 8, 2 * w, invMax.1, &hi)
                add(p + 9, w, invMax.1, &hi)
            }
            sumA = ChildTent.cells(lo.a, hi.a)
            sumAC = ChildTent.cells(lo.ac, hi.ac)
            red = ChildTent.cells(lo.r, hi.r)
            green = ChildTent.cells(lo.g, hi.g)
            blue = ChildTent.cells(lo.b, hi.b)
        } else {
            var cmax = SIMD8<Float>()
            for k in 1...2 {
                let a = tent.row(s.farA, k)
                let c = tent.row(s.farC, k)
                cmax = vmax(cmax, vmax(c.left * vpositive(a.left), c.right * vpositive(a.right)))
            }
            let invMax = 1 / vmax(cmax * fineCell, SIMD8(repeating: 1e-6))
            for k in 0..<4 where tent.rowWeights[k] > 0 {
                let c = tent.row(s.farC, k).map { $0 * fineCell }
                let w = tent.weights(k, c.map { share($0, invMax) })
                let wa = w * tent.row(s.farA, k)
                sumA += wa.total
                sumAC += (wa * c).total
                red += (w * tent.row(s.farR, k)).total
                green += (w * tent.row(s.farG, k)).total
                blue += (w * tent.row(s.farB, k)).total
            }
        }
        let farC = vmax(sumAC / vmax(sumA, SIMD8(repeating: 1e-30)) * invCell, half)
        o.storeFar(q, red: red, green: green, blue: blue, alpha: sumA, scale: inv, radius: farC, area: area)
        if fill {
            o.storeFill(q, red: tent.sum(s.allR), green: tent.sum(s.allG), blue: tent.sum(s.allB), alpha: tent.sum(s.allA), scale: inv)
        }
        let sumNear = tent.sum(s.nearA)
        if anyAbove(sumNear, 0) {
            var sumNC = SIMD8<Float>()
            if tent.interior {
                var (lo, hi) = (SIMD8<Float>(), SIMD8<Float>())
                for k in 0..<4 {
                    let w: Float = k == 0 || k == 3 ? 1 : 3
                    let p = tent.offset(k)
                    @inline(__always) func product(_ d: Int) -> SIMD8<Float> { load8(s.nearA + p + d) * load8(s.nearC + p + d) }
                    lo += w * (product(-1) + 2 * product(0) + product(1))
                    hi += w * (product(7) + 2 * product(8) + product(9))
                }
                sumNC = ChildTent.cells(lo, hi)
            } else {
                for k in 0..<4 where tent.rowWeights[k] > 0 {
                    sumNC += (tent.weights(k, tent.row(s.nearA, k)) * tent.row(s.nearC, k)).total
                }
            }
            let cbar = sumNC * fineCell / vmax(sumNear, SIMD8(repeating: 1e-30))
            let nearC = vmax(cbar * invCell, half)
            store8(o.nearR + q, inv * tent.sum(s.nearR))
            store8(o.nearG + q, inv * tent.sum(s.nearG))
            store8(o.nearB + q, inv * tent.sum(s.nearB))
            store8(o.nearA + q, inv * sumNear)
            store8(o.nearC + q, nearC)
            let share = nearSchedule.weight(cbar, level: level.level)
            let count = min(8, level.width - cx0)
            let inverseArea = nearInverseArea(nearC, cx0, cy, cell: cell, count: count, area: area, zoned: zoned)
            store8(o.nearI + q, inverseArea * share * vpositive(sumNear))
        } else {
            // Only the cells in the level: the padding past them is left as a fresh level's.
            o.clearNear(q, count: min(8, level.width - cx0))
        }
        // The consumers below each cell: its own 2 × 2 children.
        @inline(__always) func quad(_ plane: UnsafeMutablePointer<Float>) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
            tent.own(plane)
        }
        let maxFar = quad(s.maxFar)
        store8(o.maxFar + q, vmax(vmax(maxFar.0, maxFar.1), vmax(maxFar.2, maxFar.3)))
        let maxNear = quad(s.maxNear)
        store8(o.maxNear + q, vmax(vmax(maxNear.0, maxNear.1), vmax(maxNear.2, maxNear.3)))
        let w = level.width
        let fineMask = fine.mask.base + 2 * cy * fw + 2 * cx0
        let mask = level.mask.base + cy * w + cx0
        if 2 * cx0 + 16 <= fw && 2 * cy + 1 < fh {
            // All 16 × 2 children present: the two rows ORed, then each even column with the odd.
            @inline(__always) func row(_ p: UnsafeMutablePointer<UInt32>) -> SIMD16<UInt32> {
                UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt32>.self)
            }
            let both = row(fineMask) | row(fineMask + fw)
            UnsafeMutableRawPointer(mask).storeBytes(of: both.evenHalf | both.oddHalf, as: SIMD8<UInt32>.self)
            return
        }
        for i in 0..<min(8, w - cx0) {
            let x = 2 * (cx0 + i)
            let m = 2 * i
            var bits = fineMask[m]
            if x + 1 < fw { bits |= fineMask[m + 1] }
            if 2 * cy + 1 < fh {
                bits |= fineMask[m + fw]
                if x + 1 < fw { bits |= fineMask[m + fw + 1] }
            }
            mask[i] = bits
        }
    }
}

/// One row of the 16 full-resolution pixels below eight level-1 cells, as their left (even) and
/// right (odd) children.
private struct FirstLevelChildren {
    struct Child {
        var r, a, c, mn, mf, red, green, blue: SIMD8<Float>

        @inline(always) init(_ radius: BlurRadius, _ d: SIMD8<Float>, _ red: SIMD8<Float>, _ green: SIMD8<Float>, _ blue: SIMD8<Float>) {
            r = radius.signed(d)
            a = vabs(r)
            c = vmax(a, SIMD8(repeating: 0.5))
            mn = BlurRadius.nearShare(r)
            mf = 1 - mn
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// The far child's share at its level: none below a pixel's blur, fading out as it gets
        /// much sharper than the blurriest child (1 / its radius in `invMax`).
        @inline(always) func farShare(_ invMax: SIMD8<Float>) -> SIMD8<Float> {
            mf * vsaturate(c - 0.5) * vsaturate((c * invMax - 0.3) * 2.5)
        }

        /// 1 for a far child with a blur circle over a pixel across: it renders from some level.
        @inline(always) var farConsumer: SIMD8<Float> { vpositive(mf) * vpositive(a - 0.5) }
    }

    let left: Child
    let right: Child

    /// The 16 pixels from index `p` of the picture and its disparity.
    @inline(always) init(radius: BlurRadius, _ pic: UnsafeMutablePointer<Float>, _ disp: UnsafeMutablePointer<Float>, at p: Int) {
        @inline(__always) func pair(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>) -> (SIMD8<Float>, SIMD8<Float>) {
            (SIMD8(lowHalf: v0.evenHalf, highHalf: v1.evenHalf), SIMD8(lowHalf: v0.oddHalf, highHalf: v1.oddHalf))
        }
        let (d0, d1) = pair(load8(disp + p), load8(disp + p + 8))
        let (first, second) = (loadRGB8(pic + 3 * p), loadRGB8(pic + 3 * p + 24))
        let (r0, r1) = pair(first.0, second.0)
        let (g0, g1) = pair(first.1, second.1)
        let (b0, b1) = pair(first.2, second.2)
        left = Child(radius, d0, r0, g0, b0)
        right = Child(radius, d1, r1, g1, b1)
    }
}
