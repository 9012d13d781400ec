extension BokehEngine {
    // MARK: - Classification: which tiles have any blur, and which coarse tiles to build

    func classify() {
        let W = width
        let H = height
        let tx = tilesX
        let disp = Shared(UnsafeMutablePointer(mutating: disparity))
        let stats = Shared(tiles.base)
        let radius = self.radius
        let passThrough = SIMD8<Float>(repeating: BokehSchedule.passThrough)
        // Sentinel of an empty minimum (radii never come near it); an empty maximum is −1.
        let none = SIMD8<Float>(repeating: 1e30)
        let empty = SIMD8<Float>(repeating: -1)
        let farBelow = SIMD8<Float>(repeating: -0.75)
        let nearAbove = SIMD8<Float>(repeating: -0.25)
        parallelFor(tilesY, threads: threads) { ty in
            let rows = (ty * Tile.pixels)..<min(H, ty * Tile.pixels + Tile.pixels)
            for t in 0..<tx {
                // Per tile, its lanes kept apart until the end (one reduction per tile), in
                // registers: minimum and maximum far, then near radius. Every lane is taken, with
                // or without blur: a lane that is neither far nor near adds the sentinels, which
                // leave the extremes as they are (min and max are exact, in any order).
                var minFar = none
                var maxFar = empty
                var minNear = none
                var maxNear = empty
                for y in rows {
                    var x = t * Tile.pixels
                    while x < min(W, t * Tile.pixels + Tile.pixels) {
                        let n = min(8, W - x)
                        var d = SIMD8<Float>(repeating: radius.focus)
                        if n == 8 {
                            d = load8(disp.p + y * W + x)
                        } else {
                            for k in 0..<n { d[k] = disp.p[y * W + x + k] }
                        }
                        let r = radius.signed(d)
                        let a = vabs(r)
                        // Far: r > −0.75 with blur (|r| over the pass-through radius); near:
                        // r < −0.25. Each lane takes its radius where it is one, else the
                        // sentinel (a comparison and a blend: the float arithmetic that gave 1 or
                        // 0 and mixed took twice the instructions).
                        let far = (r .> farBelow) .& (a .> passThrough)
                        let near = r .< nearAbove
                        minFar = vmin(minFar, none.replacing(with: a, where: far))
                        maxFar = vmax(maxFar, empty.replacing(with: a, where: far))
                        minNear = vmin(minNear, none.replacing(with: a, where: near))
                        maxNear = vmax(maxNear, empty.replacing(with: a, where: near))
                        x += 8
                    }
                }
                var s = stats.p[ty * tx + t]
                let lowFar = -hmax(-minFar)
                let lowNear = -hmax(-minNear)
                if lowFar < none[0] { s.minFar = min(s.minFar, lowFar) }
                s.maxFar = max(s.maxFar, hmax(maxFar))
                if lowNear < none[0] { s.minNear = min(s.minNear, lowNear) }
                s.maxNear = max(s.maxNear, hmax(maxNear))
                stats.p[ty * tx + t] = s
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
