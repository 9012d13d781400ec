extension BokehEngine {
    /// The far, fill and near gathers of one coarse level, on the active tiles and their
    /// neighbours, where its pixels need them.
    func gather(_ level: BokehLevel) {
        let w = level.width
        let h = level.height
        let l = level.level
        let cell = level.cell
        let lo = schedule.low(l) / cell
        let hi = schedule.top(l) / cell
        let planes = level.planes
        let mask = Shared(level.mask.base)
        let farBit: UInt32 = 1 << UInt32(l)
        let fillBit: UInt32 = 1 << (MaskBit.fillShift + UInt32(l))
        let tw = level.tilesX
        let th = level.tilesY
        let area = self.area

        // How far the samples of each row of a tile reach (`SampleReach`), then of that row of
        // the tile and the tiles around it (within `span`, whose near samples can reach it: one
        // for the round aperture); and per tile, the largest near radius (cells) within it.
        let span = level.gatherSpan
        let own = RawBuffer<Float>(count: SampleReach.count * h * tw)
        let around = RawBuffer<Float>(count: SampleReach.count * h * tw, zeroed: false)
        let tileMax = RawBuffer<Float>(count: tw * th)
        let nearTables = RawBuffer<Int32>(count: h * tw, zeroed: false)
        defer { withExtendedLifetime((own, around, tileMax, nearTables)) {} }
        let nearTablesShared = Shared(nearTables.base)
        let ownShared = Shared(own.base)
        let aroundShared = Shared(around.base)
        let tileMaxShared = Shared(tileMax.base)
        parallelFor(th, threads: threads) { ty in
            let o = LevelPointers(planes)
            for y in (ty * Tile.cells)..<min(h, ty * Tile.cells + Tile.cells) {
                let fill = ownShared.p + (SampleReach.fill.rawValue * h + y) * tw
                let near = ownShared.p + (SampleReach.near.rawValue * h + y) * tw
                for tx in 0..<tw where level.active[ty * tw + tx] != 0 {
                    let x0 = tx * Tile.cells
                    let q = planes.index(x0, y)
                    if x0 + 8 <= w {
                        fill[tx] = SampleReach.fill(load8(o.allR + q), load8(o.allG + q), load8(o.allB + q), load8(o.allA + q))
                        near[tx] = SampleReach.near(load8(o.nearC + q), weight: load8(o.nearI + q))
                        continue
                    }
                    for k in 0..<(w - x0) {
                        if o.allR[q + k] != 0 || o.allG[q + k] != 0 || o.allB[q + k] != 0 || o.allA[q + k] != 0 { fill[tx] = 1 }
                        if o.nearI[q + k] != 0 { near[tx] = max(near[tx], o.nearC[q + k]) }
                    }
                }
                for field in 0..<SampleReach.count {
                    let row = ownShared.p + (field * h + y) * tw
                    let out = aroundShared.p + (field * h + y) * tw
                    for tx in 0..<tw {
                        var m: Float = 0
                        for x in max(0, tx - span)...min(tw - 1, tx + span) { m = max(m, row[x]) }
                        out[tx] = m
                    }
                }
                for tx in 0..<tw { tileMaxShared.p[ty * tw + tx] = max(tileMaxShared.p[ty * tw + tx], near[tx]) }
                let nearAround = aroundShared.p + (SampleReach.near.rawValue * h + y) * tw
                for tx in 0..<tw {
                    let c = nearAround[tx]
                    nearTablesShared.p[y * tw + tx] = c > 0 ? Int32(TapRows.table(c + 0.5)) : -1
                }
            }
        }
        /// The reach of `field` around tile column `tx` from row `y`.
        @Sendable @inline(__always) func reaching(_ field: SampleReach, _ tx: Int, _ y: Int) -> RowReach {
            RowReach(p: aroundShared.p + field.rawValue * h * tw + tx, stride: tw, y: y, height: h)
        }

        let results = level.results
        let nearTiles = Shared(level.nearTiles.base)
        let ps = planes.planeSize
        let stride = planes.stride
        // The farthest gauge whose taps stay within the padding (a squeezed shape reaches
        // `extent` times its gauge).
        let tapLimit = Float(planes.pad - 1) / aperture.extent + 0.5
        let zoned = aperture.zones != nil
        // The tap tables row by row (not with a cat's eye): the fill and near gathers then visit
        // only the rows whose samples reach.
        let tapRows = TapRows.of(aperture)
        parallelFor(th, threads: threads) { ty in
            let o = LevelPointers(planes)
            // Per tile of the row: −1 when the gathers do not visit it, else the largest near
            // radius around it; and whether its near gather is non-zero somewhere.
            let tileState = RawBuffer<Float>(count: tw, zeroed: false)
            let nearFound = RawBuffer<UInt8>(count: tw)
            defer { withExtendedLifetime((tileState, nearFound)) {} }
            let tileReach = tileState.base
            for tx in 0..<tw {
                // Touched: the tile or a neighbour within reach is active.
                var touched = false
                var reach: Float = 0
                for y in max(0, ty - span)...min(th - 1, ty + span) {
                    for x in max(0, tx - span)...min(tw - 1, tx + span) {
                        if level.active[y * tw + x] != 0 { touched = true }
                        reach = max(reach, tileMaxShared.p[y * tw + x])
                    }
                }
                tileReach[tx] = touched ? reach : -1
            }
            // Row by row across the tiles: each row of every plane is then read in order, which
            // the hardware prefetches, and the rows a gather reads stay cached for the next row.
            for y in (ty * Tile.cells)..<min(h, ty * Tile.cells + Tile.cells) {
                for tx in 0..<tw where tileReach[tx] >= 0 {
                    let reach = tileReach[tx]
                    let x0 = tx * Tile.cells
                    let n = min(8, w - x0)
                    let idx = planes.index(x0, y)
                    // A field not gathered in a row is zero there (a reused level is not cleared
                    // where the gathers write).
                    @inline(__always) func clear(field: Int) {
                        let q = results.origin(GatherPlane.red(field: field)) + results.index(x0, y)
                        for c in 0..<4 {
                            if n == 8 {
                                store8(q + c * results.planeSize, SIMD8())
                            } else {
                                (q + c * results.planeSize).update(repeating: 0, count: n)
                            }
                        }
                    }
                    /// Mask row `y` of the tile's cells dilated by one cell horizontally; a cell's
                    /// 3 × 3 neighbourhood is three of them.
                    @inline(always) func dilatedRow(_ y: Int) -> SIMD8<UInt32> {
                        guard y >= 0, y < h else { return SIMD8() }
                        let row = mask.p + y * w
                        if x0 >= 1 && x0 + 9 <= w {
                            @inline(__always) func at(_ x: Int) -> SIMD8<UInt32> {
                                UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<UInt32>.self)
                            }
                            return at(x0 - 1) | at(x0) | at(x0 + 1)
                        }
                        return edgeDilated(row, x0, count: n, width: w)
                    }
                    // Far / fill cells: a pixel of this level below the cell or a neighbour (the
                    // bilinear upsampling reads the neighbours).
                    var rhoF = SIMD8<Float>(repeating: lo)
                    var rhoN = SIMD8<Float>(repeating: lo)
                    var topF: Float = -1
                    var topN: Float = -1
                    let m = dilatedRow(y - 1) | dilatedRow(y) | dilatedRow(y + 1)
                    let any = m.lowHalf | m.highHalf
                    if (any[0] | any[1] | any[2] | any[3]) & (farBit | fillBit) != 0 {
                        /// 1 where a lane's mask has `bit`, else 0: 1.0's bit pattern masked by
                        /// the lane's bit spread over the word (no branch per lane).
                        @inline(__always) func flags(_ bit: UInt32) -> SIMD8<Float> {
                            let on = (m & bit) &>> UInt32(bit.trailingZeroBitCount)
                            return unsafeBitCast((0 &- on) & 0x3F80_0000, to: SIMD8<Float>.self)
                        }
                        let low = SIMD8<Float>(repeating: lo)
                        let high = SIMD8<Float>(repeating: hi)
                        let far = flags(farBit)
                        if anyAbove(far, 0) {
                            rhoF = low + far * (vmin(vmax(load8(o.maxFar + idx) * (1 / cell), low), high) - low)
                            topF = hmax(rhoF * far)
                        }
                        let fill = flags(fillBit)
                        if anyAbove(fill, 0) {
                            rhoN = low + fill * (vmin(vmax(load8(o.maxNear + idx) * (1 / cell), low), high) - low)
                            topN = hmax(rhoN * fill)
                        }
                    }
                    if topF >= 0 {
                        let zone = self.zone(x0, y, cell: cell, count: n, radius: topF * cell)
                        // Unclipped normalisation, as the far samples': the far field is
                        // normalised over the pixel's own (cat's-eye) footprint.
                        let ia = DiskArea.inverse(rhoF, area)
                        let acc = aperture.within(min(topF + 0.5, tapLimit), zone: zone) {
                            gatherFar(o.farR + idx, planeSize: ps, stride: stride, taps: $0, rho: rhoF, inverseArea: ia)
                        }
                        acc.store(into: results, field: 0, x0, y, count: n)
                    } else {
                        clear(field: 0)
                    }
                    if topN >= 0 {
                        let zone = self.zone(x0, y, cell: cell, count: n, radius: topN * cell)
                        // The zone's table; without a cat's eye the frame's, already at hand (a
                        // table fetched per row costs a retain and a release).
                        let ia: SIMD8<Float>
                        if zoned {
                            let zoneArea = aperture.coarse(zone)
                            ia = DiskArea.inverse(rhoN, zoneArea)
                        } else {
                            ia = DiskArea.inverse(rhoN, area)
                        }
                        let acc: Accum8
                        if let tapRows {
                            let k = TapRows.table(min(topN + 0.5, tapLimit))
                            acc = gatherFill(
                                o.allR + idx, planeSize: ps, stride: stride, rows: tapRows, table: k, reach: reaching(.fill, tx, y),
                                rho: rhoN,
                                inverseArea: ia)
                        } else {
                            acc = aperture.within(min(topN + 0.5, tapLimit), zone: zone) {
                                gatherFill(o.allR + idx, planeSize: ps, stride: stride, taps: $0, rho: rhoN, inverseArea: ia)
                            }
                        }
                        acc.store(into: results, field: 1, x0, y, count: n)
                    } else {
                        clear(field: 1)
                    }
                    // A near sample of radius c reaches c + 0.5 (its gauge), so at most
                    // `extent · (c + 0.5)` rows away: the rows within the tile's reach bound the
                    // taps with weight here, and rows beyond every sample's reach are zero.
                    var acc: Accum8? = nil
                    if reach > 0, let tapRows {
                        // Row by row, each row through the table of the reach there: a table for
                        // the tile's reach takes the same taps with weight as one for the largest
                        // reach of the rows within it (each row's table is within both; the rows
                        // beyond hold no sample that reaches here), without a pass over the rows
                        // to find that largest reach; with none, every row is left out.
                        let k = TapRows.table(min(reach + 0.5, tapLimit))
                        var rowTables = reaching(.near, tx, y)
                        rowTables.tables = UnsafePointer(nearTablesShared.p + tx)
                        acc = gatherNear(o.nearR + idx, planeSize: ps, stride: stride, rows: tapRows, table: k, reach: rowTables)
                    } else if reach > 0 {
                        let rows = Int((aperture.extent * (reach + 0.5)).rounded(.up))
                        let near = reaching(.near, tx, y)
                        // Two chains, half as long (the largest of the rows, in any order).
                        var rowReach: Float = 0
                        var other: Float = 0
                        var dy = -rows
                        while dy < rows {
                            rowReach = max(rowReach, near[dy])
                            other = max(other, near[dy + 1])
                            dy += 2
                        }
                        rowReach = max(max(rowReach, near[rows]), other)
                        if rowReach > 0 {
                            let zone = self.zone(x0, y, cell: cell, count: n)
                            acc = aperture.within(min(rowReach + 0.5, tapLimit), zone: zone) {
                                gatherNear(o.nearR + idx, planeSize: ps, stride: stride, taps: $0)
                            }
                        }
                    }
                    if let acc {
                        acc.store(into: results, field: 2, x0, y, count: n)
                        if nearFound[tx] == 0 { for k in 0..<n where acc.a[k] > 0 { nearFound[tx] = 1 } }
                    } else {
                        clear(field: 2)
                    }
                }
            }
            for tx in 0..<tw where nearFound[tx] != 0 { nearTiles.p[ty * tw + tx] = 1 }
        }
    }
}

/// Row `row` of a level's consumer mask dilated by one cell horizontally, for the `count` cells
/// from `x0` at the left or right edge of a level `width` cells wide (cells past it are empty):
/// lane by lane in scalars (a lane updated in place goes through memory, one store-to-load stall
/// per cell), and out of line, so the gathers' loop keeps the common case inlined.
@inline(never)
private func edgeDilated(_ row: UnsafeMutablePointer<UInt32>, _ x0: Int, count n: Int, width w: Int) -> SIMD8<UInt32> {
    @inline(__always) func cell(_ x: Int) -> UInt32 { x >= 0 && x < w ? row[x] : 0 }
    @inline(__always) func lane(_ k: Int) -> UInt32 { k < n ? cell(x0 + k - 1) | cell(x0 + k) | cell(x0 + k + 1) : 0 }
    return SIMD8(lane(0), lane(1), lane(2), lane(3), lane(4), lane(5), lane(6), lane(7))
}
