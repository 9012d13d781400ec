extension DisparityUpsampler {
    /// How much closer a pixel's colour must lie to one side's decided pixels than to the other's
    /// (squared distances, the two closest of each side averaged) before it takes that side.
    static let sideRatio: Float = 5
    /// Added to each squared colour distance before the sides are compared, so that colours
    /// closer than a fiftieth of the refinement's colour scale count as the same: the same
    /// stripes on both sides, differing by their grain only, stay a soft matte rather than take
    /// the side of the grain closest by chance.
    static let sameColour: Float = 0.02 * refineColourScale
    /// A pixel or a tap counts as decided within this share of its 2 × 2 map range from either end.
    static let decidedShare: Float = 0.15

    /// Pixels the refinement leaves between the two depths of a step take the side whose decided
    /// pixels hold their colour (spec/render.md §2 step 6). The refinement's mean weighs every
    /// tap of a similar colour, so a colour found on both sides, even rarely on one, leaves the
    /// pixel in between; here only the closest colours of each side count: a pixel whose two
    /// closest colours among the near side's decided pixels (within the refinement's reach) lie
    /// `sideRatio` times closer than the far side's takes their depth, and the reverse. Only where
    /// the pixel's own 2 × 2 map values step (span more than half of its cell neighbourhood's): on
    /// a slope the decided pixels lie at other depths than the pixel's.
    static func settleUndecided(
        _ depths: inout [Float], _ steps: [Bool], _ scope: RefineScope, _ p: UnsafeMutablePointer<Float>,
        _ ceilings: UnsafeMutablePointer<Float>, _ colour: UnsafeMutablePointer<Float>,
        _ W: Int, _ H: Int, _ w: Int, _ h: Int, threads: Int?
    ) {
        guard scope.pixelStart[H] > 0 else { return }
        let reach = refineReach(W, w)
        let plane = W * H
        let (map, c, ceiling) = (Shared(p), Shared(colour), Shared(ceilings))
        let (cols, cellColumn, groupStart) = (scope.cols, scope.cellColumn, scope.groupStart)
        let groups = Shared(scope.groupList.base)
        // Each row's settled pixels (index, depth), written back once every row has read the
        // refinement's depths: a few per cent of the refined pixels, not a copy of the picture.
        var changes = [[(Int, Float)]](repeating: [], count: H)
        changes.withUnsafeMutableBufferPointer { rowChanges in
            let settled = Shared(rowChanges.baseAddress!)
            depths.withUnsafeMutableBufferPointer { depthBuffer in
                let d = Shared(depthBuffer.baseAddress!)
                parallelFor(H, threads: threads) { y in
                    let j = min(h - 1, y * h / H)
                    let (j0, j1) = bilinearCells(y, H, h)
                    // The cell row's neighbourhood rows (the span the refinement's step test saw).
                    let rows = max(0, j - 1)...min(h - 1, j + 1)
                    var found: [(Int, Float)] = []
                    for g in groupStart[j]..<groupStart[j + 1] {
                        let first = 8 * Int(groups.p[g])
                        for x in first..<min(W, first + 8) {
                            let i = cellColumn[x]
                            guard steps[j * w + i] else { continue }
                            let (i0, i1) = cols[x]
                            let values = (map.p[j0 * w + i0], map.p[j0 * w + i1], map.p[j1 * w + i0], map.p[j1 * w + i1])
                            let low = min(min(values.0, values.1), min(values.2, values.3))
                            let high = max(max(values.0, values.1), max(values.2, values.3))
                            let span = high - low
                            let k = y * W + x
                            let t = (d.p[k] - low) / span
                            guard t > decidedShare && t < 1 - decidedShare else { continue }
                            var (nearest, farthest) = (-Float.infinity, Float.infinity)
                            for yy in rows {
                                for xx in max(0, i - 1)...min(w - 1, i + 1) {
                                    nearest = max(nearest, map.p[yy * w + xx])
                                    farthest = min(farthest, map.p[yy * w + xx])
                                }
                            }
                            guard span > 0.5 * (nearest - farthest) else { continue }
                            let top = max(
                                max(ceiling.p[j0 * w + i0], ceiling.p[j0 * w + i1]),
                                max(ceiling.p[j1 * w + i0], ceiling.p[j1 * w + i1]))
                            // A raised ceiling holds a structure thinner than a cell (step 7): its
                            // pixels' depths between the layers are that structure's mixture.
                            guard top <= high else { continue }
                            let own = SIMD3(c.p[k], c.p[plane + k], c.p[2 * plane + k])
                            // The two closest colours of each side: squared distance and depth.
                            var near = Closest()
                            var far = Closest()
                            for yy in max(0, y - reach)...min(H - 1, y + reach) {
                                for xx in max(0, x - reach)...min(W - 1, x + reach) {
                                    let q = yy * W + xx
                                    let tq = (d.p[q] - low) / span
                                    let isNear = tq > 1 - decidedShare
                                    guard isNear || tq < decidedShare else { continue }
                                    let diff = SIMD3(c.p[q], c.p[plane + q], c.p[2 * plane + q]) - own
                                    if isNear {
                                        near.add((diff * diff).sum(), d.p[q])
                                    } else {
                                        far.add((diff * diff).sum(), d.p[q])
                                    }
                                }
                            }
                            guard near.count >= 2 && far.count >= 2 else { continue }
                            let (a, b) = (near.distances + 2 * sameColour, far.distances + 2 * sameColour)
                            // Clamped as every result is (step 7).
                            if sideRatio * a < b {
                                found.append((k, min(max(near.depth, low), top)))
                            } else if sideRatio * b < a {
                                found.append((k, min(max(far.depth, low), top)))
                            }
                        }
                    }
                    settled.p[y] = found
                }
            }
        }
        for row in changes {
            for (k, depth) in row { depths[k] = depth }
        }
    }

    /// The two taps of one side whose colours lie closest to a pixel's (the first found on a tie),
    /// and how many taps that side holds.
    struct Closest {
        var first: (distance: Float, depth: Float) = (.infinity, 0)
        var second: (distance: Float, depth: Float) = (.infinity, 0)
        var count = 0

        @inline(__always) mutating func add(_ distance: Float, _ depth: Float) {
            count += 1
            if distance < first.distance {
                (second, first) = (first, (distance, depth))
            } else if distance < second.distance {
                second = (distance, depth)
            }
        }

        /// The two squared distances summed, and the two depths' mean.
        var distances: Float { first.distance + second.distance }
        var depth: Float { 0.5 * (first.depth + second.depth) }
    }
}
