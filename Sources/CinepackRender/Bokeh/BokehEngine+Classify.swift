extension BokehEngine {
    // MARK: - Classification: which tiles have any blur, and which coarse tiles to build

    func classify() {
        let W = width
        let H = height
        let tx = tilesX
        let disp = Shared(UnsafeMutablePointer(mutating: disparity))
        let stats = Shared(tiles.base)
        let radius = self.radius
        parallelFor(tilesY, threads: threads) { ty in
            for y in (ty * Tile.pixels)..<min(H, ty * Tile.pixels + Tile.pixels) {
                var x = 0
                while x < W {
                    let n = min(8, W - x)
                    var d = SIMD8<Float>(repeating: radius.focus)
                    if n == 8 {
                        d = load8(disp.p + y * W + x)
                    } else {
                        for k in 0..<n { d[k] = disp.p[y * W + x + k] }
                    }
                    let r = radius.signed(d)
                    // Lanes with blur (|r| > 0.5) or in the near field (r < −0.25).
                    if anyAbove(r, BokehSchedule.passThrough) || anyBelow(r, -0.25) {
                        var s = stats.p[ty * tx + x / Tile.pixels]
                        for k in 0..<n {
                            let v = r[k]
                            let a = abs(v)
                            if v > -0.75 && a > BokehSchedule.passThrough {
                                s.minFar = min(s.minFar, a)
                                s.maxFar = max(s.maxFar, a)
                            }
                            if v < -0.25 {
                                s.minNear = min(s.minNear, a)
                                s.maxNear = max(s.maxNear, a)
                            }
                        }
                        stats.p[ty * tx + x / Tile.pixels] = s
                    }
                    x += 8
                }
            }
        }
        guard !levels.isEmpty else { return }
        // Level-1 tiles coincide with picture tiles. Active: any blur or near pixel, or within
        // reach of the fill gathered around near pixels (which reads sharp pixels too).
        let first = levels[0]
        for ty in 0..<tilesY {
            for tx in 0..<tilesX {
                let s = tiles[ty * tilesX + tx]
                if s.hasWork { first.active[ty * first.tilesX + tx] = 1 }
                if s.maxNear >= 0 {
                    let reach = Int(((1.25 * s.maxNear * aperture.extent + 2) / Float(Tile.pixels)).rounded(.up)) + 1
                    for y in max(0, ty - reach)...min(tilesY - 1, ty + reach) {
                        for x in max(0, tx - reach)...min(tilesX - 1, tx + reach) {
                            first.active[y * first.tilesX + x] = 1
                            first.fill[y * first.tilesX + x] = 1
                        }
                    }
                }
            }
        }
        for l in 1..<levels.count {
            let fine = levels[l - 1]
            let level = levels[l]
            for ty in 0..<level.tilesY {
                for tx in 0..<level.tilesX {
                    var on: UInt8 = 0
                    var fill: UInt8 = 0
                    for y in (2 * ty)..<min(fine.tilesY, 2 * ty + 2) {
                        for x in (2 * tx)..<min(fine.tilesX, 2 * tx + 2) {
                            on |= fine.active[y * fine.tilesX + x]
                            fill |= fine.fill[y * fine.tilesX + x]
                        }
                    }
                    level.active[ty * level.tilesX + tx] = on
                    level.fill[ty * level.tilesX + tx] = fill
                }
            }
        }
    }

}
