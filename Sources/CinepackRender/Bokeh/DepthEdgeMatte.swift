/// Mixed pixels at depth edges where a sharp nearer side meets a much more blurred farther side
/// (spec/render.md §1.4): a thin in-focus structure or an anti-aliased silhouette covers part of a
/// pixel and the background the rest. A disparity map gives such a pixel one depth, so the engine
/// would either keep it sharp with the background's sharp colour inside, or blur the structure's
/// colour into the background. Here each such pixel is split, as in matting, into the sharp side's
/// coverage α and colour and the blurred side's colour; the engine is given the blurred side only
/// (its colour at its depth) and the sharp side is put back over the engine's output.
struct DepthEdgeMatte: Sendable {
    /// The engine's input: the picture and disparity with the matted pixels given to the blurred
    /// side (the caller's own when nothing is matted; patched in place when the caller hands them
    /// over, `consume`).
    let picture: LinearImage
    let disparity: [Float]
    private let matted: RawBuffer<MattedPixel>?

    /// Rows per band of the parallel scan.
    static let bandRows = 8
    /// Half the side of the window the two sides' colours are sampled from (5 × 5).
    static let reach = 2
    /// At most this many samples of each side, nearest first.
    static let samples = 8
    /// The step's strength: full while the sharp side's blur radius is at most half a pixel (the
    /// engine passes such pixels through), none from `frontFade` px; and growing from 0 to 1 as
    /// the blurred side's radius exceeds the sharp side's (at least half a pixel) by `gap` to
    /// `gap + gapRamp` px.
    static let frontFade: Float = 0.75
    static let gap: Float = 0.5
    static let gapRamp: Float = 1.5
    /// Colour model (linear light, squared distances summed over the channels): the misfit floor
    /// of the pair cost and how fast it grows with the samples' squared distance in pixels; the
    /// distance at which a pixel its own side does not explain is half trusted to be mixed, and
    /// how much a misfit of the mix lowers that trust.
    static let misfitFloor: Float = 1e-4
    static let pairDistance: Float = 0.1
    static let separation: Float = 4e-3
    static let misfitWeight: Float = 8
    /// Geometry of a blurred-side pixel: the odds that the sharp side covers part of it are
    /// `(n / contactEven)²`, n its 4-neighbours on the sharp side (a pixel touching that side at a
    /// corner only is whole; one in a step or corner of the edge is mostly mixed). Beside a thin
    /// structure (no sharp sample interior) both of its rims lie within 2 px: one side in contact
    /// already gives even odds, `thinContactEven`.
    static let contactEven: Float = 2
    static let thinContactEven: Float = 1
    /// A pixel on the sharp side moves to the blurred side's depth in proportion to the share it
    /// shows of that side, fully from this share.
    static let convertRamp: Float = 0.25
    /// On the blurred side of a thin structure, a sharp sample counts as lying on the mix line
    /// when its squared distance off the line is at most this share of its squared distance along
    /// it (about 13°).
    static let lineTolerance: Float = 0.05

    /// The ring around the window (offsets `reach + 1` away in x or y), nearest first (ties in
    /// reading order): where blurred-side samples are sought when the window holds none.
    static let outerRing: [(dx: Int, dy: Int)] = {
        let r = reach + 1
        var offsets: [(dx: Int, dy: Int)] = []
        for dy in -r...r { for dx in -r...r where max(abs(dx), abs(dy)) == r { offsets.append((dx, dy)) } }
        return nearestFirst(offsets)
    }()

    /// The window offsets, nearest first (ties in a fixed order), without the centre.
    static let ring: [(dx: Int, dy: Int)] = {
        var offsets: [(dx: Int, dy: Int)] = []
        for dy in -reach...reach { for dx in -reach...reach where dx != 0 || dy != 0 { offsets.append((dx, dy)) } }
        return nearestFirst(offsets)
    }()

    /// Offsets sorted by distance, ties kept in their given (reading) order.
    private static func nearestFirst(_ offsets: [(dx: Int, dy: Int)]) -> [(dx: Int, dy: Int)] {
        offsets.enumerated().sorted {
            let a = $0.element.dx * $0.element.dx + $0.element.dy * $0.element.dy
            let b = $1.element.dx * $1.element.dx + $1.element.dy * $1.element.dy
            return a != b ? a < b : $0.offset < $1.offset
        }.map(\.element)
    }

    init(picture: consuming LinearImage, disparity: consuming [Float], focusDisparity: Float, lens: LensModel, threads: Int?) {
        let width = picture.width
        let height = picture.height
        let radius = BlurRadius(half: 0.5 * lens.scale(focusDisparity: focusDisparity), focus: focusDisparity, limit: .infinity)
        let bands = stride(from: 0, to: height, by: Self.bandRows).map { $0..<min(height, $0 + Self.bandRows) }
        guard radius.half.isFinite, radius.half > 0, width >= 3, height >= 3 else {
            self.picture = picture
            self.disparity = disparity
            matted = nil
            return
        }
        // Each band writes its pixels from its first row's offset (pages never written cost nothing).
        let buffer = RawBuffer<MattedPixel>(count: width * height, zeroed: false)
        let counts = RawBuffer<Int>(count: bands.count)
        let found = Shared(buffer.base)
        let foundCounts = Shared(counts.base)
        picture.values.withUnsafeBufferPointer { pixels in
            disparity.withUnsafeBufferPointer { depths in
                let scan = Scan(
                    picture: pixels.baseAddress!, disparity: depths.baseAddress!, width: width, height: height, radius: radius)
                parallelFor(bands.count, threads: threads) { b in
                    foundCounts.p[b] = scan.band(bands[b], into: found.p + bands[b].lowerBound * width)
                }
            }
        }
        let total = (0..<bands.count).reduce(0) { $0 + counts[$1] }
        guard total > 0 else {
            self.picture = picture
            self.disparity = disparity
            matted = nil
            return
        }
        // Compact the bands' pixels to the front of the buffer.
        var n = 0
        for b in 0..<bands.count {
            let first = buffer.base + bands[b].lowerBound * width
            for k in 0..<counts[b] {
                buffer[n] = first[k]
                n += 1
            }
        }
        picture.values.withUnsafeBufferPointer { pixels in
            disparity.withUnsafeBufferPointer { depths in
                n = StrandGeometry.refine(
                    buffer, count: n, picture: pixels.baseAddress!, disparity: depths.baseAddress!, width: width, height: height,
                    threads: threads)
            }
        }
        guard n > 0 else {
            self.picture = picture
            self.disparity = disparity
            matted = nil
            return
        }
        // The engine's input: the split pixels replaced, in place (a few per mille of the
        // picture). The caller's picture and disparity are copied first only when the caller
        // still shares them: handed over, they are patched where they lie.
        picture.values.withUnsafeMutableBufferPointer { values in
            disparity.withUnsafeMutableBufferPointer { depths in
                for k in 0..<n {
                    let m = buffer[k]
                    values[3 * m.index] = m.behind.x
                    values[3 * m.index + 1] = m.behind.y
                    values[3 * m.index + 2] = m.behind.z
                    depths[m.index] = m.disparity
                }
            }
        }
        self.picture = picture
        self.disparity = disparity
        matted = buffer
        matteCount = n
    }

    /// The split of pixel `index` of colour `colour` with coverage `alpha` on the mix line from
    /// `back` along `delta` (spec/render.md §1.4 step 4).
    static func split(
        _ index: Int, colour: SIMD3<Float>, back: SIMD3<Float>, delta: SIMD3<Float>, alpha: Float, strength s: Float, isFront: Bool,
        disparity d: Float, backDisparity: Float, line: MattedPixel.Line
    ) -> MattedPixel {
        // What the two colours leave unexplained is shared between the sides in proportion, so a
        // whole pixel of either side keeps its own colour.
        let beta = 1 - alpha
        let residual = colour - back - alpha * delta
        var behind = back + beta * residual
        behind.replace(with: 0, where: behind .< 0)
        var front = colour - beta * behind
        front.replace(with: 0, where: front .< 0)
        // A pixel of the sharp side moves toward the blurred side's depth only by the share it
        // shows of it: the background hidden behind a nearly whole pixel stays unknown, and the
        // engine fills around it from what is seen.
        let convert = isFront ? s * min(beta / convertRamp, 1) : s
        return MattedPixel(
            index: index, behind: colour + convert * (behind - colour), disparity: isFront ? d + convert * (backDisparity - d) : d,
            share: s * alpha, front: s * front, coverage: alpha, line: line)
    }

    private(set) var matteCount = 0

    /// The sharp sides put back over the engine's output, in place.
    func composite(over image: inout LinearImage) {
        guard let matted, matteCount > 0 else { return }
        image.values.withUnsafeMutableBufferPointer { v in
            for k in 0..<matteCount {
                let m = matted[k]
                let keep = 1 - m.share
                v[3 * m.index] = keep * v[3 * m.index] + m.front.x
                v[3 * m.index + 1] = keep * v[3 * m.index + 1] + m.front.y
                v[3 * m.index + 2] = keep * v[3 * m.index + 2] + m.front.z
            }
        }
    }
}

/// The per-band work of `DepthEdgeMatte`: finds the pixels at qualifying depth edges and splits
/// them.
private struct Scan: @unchecked Sendable {
    let picture: UnsafePointer<Float>
    let disparity: UnsafePointer<Float>
    let width: Int
    let height: Int
    let radius: BlurRadius

    typealias Matte = DepthEdgeMatte

    /// The 4-neighbour offsets.
    static let sides: [(dx: Int, dy: Int)] = [(-1, 0), (1, 0), (0, -1), (0, 1)]

    /// The band's matted pixels, written from `out`; returns their count.
    func band(_ rows: Range<Int>, into out: UnsafeMutablePointer<MattedPixel>) -> Int {
        var n = 0
        // Disparity spans under this, or a nearest side blurred more than this, cannot give the
        // step any strength.
        let gate = Matte.gap / radius.half
        let sharpGate = SIMD8<Float>(repeating: Matte.frontFade / radius.half)
        let focus = SIMD8<Float>(repeating: radius.focus)
        for y in rows {
            var x = 0
            while x < width {
                // Eight pixels at a time where their 3 × 3 windows lie inside the frame.
                if y > 0 && y < height - 1 && x > 0 && x + 9 <= width {
                    var hi = SIMD8<Float>(repeating: -.infinity)
                    var lo = SIMD8<Float>(repeating: .infinity)
                    for dy in -1...1 {
                        let row = UnsafeMutablePointer(mutating: disparity + (y + dy) * width + x)
                        for dx in -1...1 {
                            let v = load8(row + dx)
                            hi = vmax(hi, v)
                            lo = vmin(lo, v)
                        }
                    }
                    // NaN values are passed over by vmax / vmin, as `split` passes them over.
                    // Lanes pass where the window spans enough depth and its nearest side is
                    // sharp enough for any strength (both necessary, see `split`).
                    let pass = vmin(hi - lo - gate, sharpGate - vabs(focus - hi))
                    if !anyAbove(pass, 0) {
                        x += 8
                        continue
                    }
                    for k in 0..<8 where pass[k] > 0 {
                        if let m = split(x + k, y) {
                            out[n] = m
                            n += 1
                        }
                    }
                    x += 8
                    continue
                }
                if let m = split(x, y) {
                    out[n] = m
                    n += 1
                }
                x += 1
            }
        }
        return n
    }

    @inline(__always) func colour(_ p: Int) -> SIMD3<Float> { SIMD3(picture[3 * p], picture[3 * p + 1], picture[3 * p + 2]) }

    /// The split of pixel (x, y), nil when it is left as it is.
    func split(_ x: Int, _ y: Int) -> MattedPixel? {
        let p = y * width + x
        let d = disparity[p]
        guard !d.isNaN else { return nil }
        // The two sides: the nearest and farthest disparity of the 3 × 3 window.
        var hi = d
        var lo = d
        for v in max(0, y - 1)...min(height - 1, y + 1) {
            for u in max(0, x - 1)...min(width - 1, x + 1) {
                let q = disparity[v * width + u]
                if q > hi { hi = q }
                if q < lo { lo = q }
            }
        }
        let rF = radius.signed(hi)
        let rB = radius.signed(lo)
        let aF = abs(rF)
        let sharp = min(max((Matte.frontFade - aF) / (Matte.frontFade - 0.5), 0), 1)
        let apart = min(max((rB - max(aF, 0.5) - Matte.gap) / Matte.gapRamp, 0), 1)
        let s = sharp * apart
        guard s > 0 else { return nil }
        let middle = 0.5 * (hi + lo)
        let isFront = d > middle
        // A blurred-side pixel's contact with the sharp side (its 4-neighbours there), for its
        // prior odds of being partly covered.
        var contact: Float = 0
        // Where the contact is one side, the pixel two steps that way, across the sharp
        // neighbour, when it is on the blurred side again (the structure one pixel across there).
        var across: Int?
        if !isFront {
            for (dx, dy) in Self.sides {
                let u = x + dx
                let v = y + dy
                guard u >= 0, u < width, v >= 0, v < height, disparity[v * width + u] > middle else { continue }
                contact += 1
                let r = (v + dy) * width + u + dx
                across = u + dx >= 0 && u + dx < width && v + dy >= 0 && v + dy < height && !(disparity[r] > middle) ? r : nil
            }
            if contact != 1 { across = nil }
        }

        // Samples of each side nearest first: the sharp side's pixels, and the blurred side's
        // pixels with no sharp-side pixel next to them (pure). Colour and squared distance; the
        // blurred side's disparity apart.
        return withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: 2 * Matte.samples) { samples in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: Matte.samples) { backDisparity in
                let fronts = samples.baseAddress!
                let backs = fronts + Matte.samples
                var frontCount = 0
                var backCount = 0
                // Whether a sharp-side sample lies inside that side (its 3 × 3 window wholly there).
                var interior = false
                for (dx, dy) in Matte.ring {
                    guard let (u, v, q, dq) = neighbour(x + dx, y + dy) else { continue }
                    let sample = SIMD4(colour(q), Float(dx * dx + dy * dy))
                    if dq > middle {
                        if frontCount < Matte.samples {
                            fronts[frontCount] = sample
                            frontCount += 1
                            if !interior { interior = isWhole(u, v, middle, near: true) }
                        }
                    } else if backCount < Matte.samples && isWhole(u, v, middle, near: false) {
                        backs[backCount] = sample
                        backDisparity[backCount] = dq
                        backCount += 1
                    }
                    if frontCount == Matte.samples && backCount == Matte.samples { break }
                }
                // Between thin structures close together (2 px apart or less) or where they cross,
                // the window may hold no pure pixel of the blurred side: they are sought one ring
                // further. (Beside a wider sharp side that lack rather tells a gradual depth ramp.)
                if backCount == 0 && frontCount > 0 && !interior {
                    for (dx, dy) in Matte.outerRing {
                        guard let (u, v, q, dq) = neighbour(x + dx, y + dy), !(dq > middle), abs(radius.signed(dq) - rB) <= 0.5,
                            isWhole(u, v, middle, near: false)
                        else { continue }
                        backs[backCount] = SIMD4(colour(q), Float(dx * dx + dy * dy))
                        backDisparity[backCount] = dq
                        backCount += 1
                        if backCount == Matte.samples { break }
                    }
                }
                guard frontCount > 0, backCount > 0 else { return nil }
                return mix(
                    p, d: d, middle: middle, isFront: isFront, strength: s, contact: contact, interior: interior, fronts: fronts,
                    frontCount: frontCount,
                    backs: backs, backCount: backCount, backDisparity: backDisparity.baseAddress!, across: across)
            }
        }
    }

    /// The split of pixel `p` between the best pair of samples (`contact`: a blurred-side pixel's
    /// 4-neighbours on the sharp side; `interior`: whether a sharp-side sample lies inside that side;
    /// `across`: the blurred-side pixel facing it across a sharp side one pixel wide).
    private func mix(
        _ p: Int, d: Float, middle: Float, isFront: Bool, strength s: Float, contact: Float, interior: Bool,
        fronts: UnsafePointer<SIMD4<Float>>,
        frontCount: Int, backs: UnsafePointer<SIMD4<Float>>, backCount: Int, backDisparity: UnsafePointer<Float>, across: Int?
    ) -> MattedPixel? {
        let c = SIMD4(colour(p), 0)
        // How close a whole pixel of either side comes (squared distance to the nearest sample).
        var pureFront = Float.infinity
        for i in 0..<frontCount { pureFront = min(pureFront, squaredDistance(c, fronts[i])) }
        var pureBack = Float.infinity
        for j in 0..<backCount { pureBack = min(pureBack, squaredDistance(c, backs[j])) }
        // The pair that best explains the pixel as a mix of the two: least distance to the
        // segment between them, nearer samples preferred.
        var best = (cost: Float.infinity, alpha: Float(0), misfit: Float(0), front: 0, back: 0)
        for i in 0..<frontCount {
            let f = fronts[i]
            for j in 0..<backCount {
                let b = backs[j]
                guard let (a, misfit) = project(c, from: b, to: f) else { continue }
                let cost = (misfit + Matte.misfitFloor) * (1 + Matte.pairDistance * (f.w + b.w))
                if cost < best.cost { best = (cost, a, misfit, i, j) }
            }
        }
        guard best.cost.isFinite else { return nil }
        let f = fronts[best.front]
        let b = backs[best.back]
        // The mix line's direction in colour, from the blurred sample to the sharp one.
        var axis = f - b
        axis.w = 0
        // Beside or on a thin structure (no sharp sample interior), the nearest sharp samples are
        // its rims, themselves mixed with the background: measured from one of them, the pixel's
        // coverage comes out as a share of the rim's (on the blurred side often above ½, against
        // the label; on the sharp side near 1, a rim taken for whole). The structure's own colour
        // is the one farthest along the mix line from the background: the most covered sample
        // that lies on that line.
        var stretch: Float = 1
        if !interior {
            let l = (axis * axis).sum()
            for k in 0..<frontCount {
                var o = fronts[k] - b
                o.w = 0
                let along = (o * axis).sum() / l
                guard along > stretch else { continue }
                if (o * o).sum() - along * along * l <= Matte.lineTolerance * along * along * l { stretch = along }
            }
            if stretch > 1, let (a, misfit) = project(c, from: b, to: b + stretch * axis) {
                best.alpha = a
                best.misfit = misfit
            }
        }
        // The label says which side covers most of the pixel (its coverage is at least ½ on the
        // sharp side, under ½ on the other). The mix moves the coverage from the label's whole
        // pixel only as far as it explains the pixel better than that side alone does, and not
        // at all when it contradicts the label (a coincidence of colours, not evidence). A sharp
        // side's texture varies between its samples: a whole pixel there is explained alone as
        // well by a blend of two of them as by one. But where no sample lies inside the sharp side
        // (a strand or wire at most 2 px across), every sample is itself a rim pixel, mixed: they
        // tell no texture, and the mix is trusted. On the blurred side the evidence is weighed
        // with the pixel's contact with the sharp side.
        let label: Float = isFront ? 1 : 0
        let trust: Float
        if isFront && !interior {
            trust = 1
        } else {
            let ratio = contact / (interior ? Matte.contactEven : Matte.thinContactEven)
            let alone = isFront ? blendDistance(c, fronts, frontCount, nearest: pureFront) : ratio * ratio * pureBack
            trust = alone / (alone + Matte.misfitWeight * best.misfit + Matte.separation)
        }
        let agreement = min(max(2 * (isFront ? best.alpha : 1 - best.alpha), 0), 1)
        let bounded = isFront ? max(best.alpha, 0.5) : min(best.alpha, 0.5)
        var alpha = label + agreement * trust * (bounded - label)
        // A thin structure one pixel wide between two blurred-side pixels mostly overlaps the one
        // it leans toward: of the two, the one the colours show less covered (its projection on
        // the mix line under the other's) keeps the square of that ratio of its coverage.
        if !isFront && !interior, alpha > 0, let across {
            if let (facing, _) = project(SIMD4(colour(across), 0), from: b, to: b + stretch * axis), facing > best.alpha {
                let ratio = best.alpha / facing
                alpha *= ratio * ratio
            }
        }
        let back = SIMD3(b.x, b.y, b.z)
        let delta = stretch * (SIMD3(f.x, f.y, f.z) - back)
        // A blurred-side pixel beside a thin structure is kept even whole: the structure's
        // geometry (`StrandGeometry`) may yet give it a share.
        let thin = !interior && !isFront
        var spread: Float = 0
        if thin {
            // How far the blurred side's own samples spread along the mix line, in units of
            // coverage: the colours' coverage is uncertain by about as much.
            let l = (delta * delta).sum()
            for j in 0..<backCount {
                var o = backs[j] - b
                o.w = 0
                let t = (SIMD3(o.x, o.y, o.z) * delta).sum() / l
                spread += t * t
            }
            spread /= Float(backCount)
        }
        let line =
            !thin
            ? MattedPixel.Line.none
            : MattedPixel.Line(
                isThin: true, back: back, delta: delta, strength: s, middle: middle,
                backDisparity: backDisparity[best.back], spread: spread)
        guard line.isThin || (alpha > 0 && alpha < 1) else { return nil }
        return DepthEdgeMatte.split(
            p, colour: SIMD3(c.x, c.y, c.z), back: back, delta: delta, alpha: alpha, strength: s, isFront: isFront, disparity: d,
            backDisparity: backDisparity[best.back], line: line)
    }

    /// The least squared distance from `c` to a sample or to the segment between two samples
    /// (`nearest`: the samples' own least distance).
    private func blendDistance(_ c: SIMD4<Float>, _ samples: UnsafePointer<SIMD4<Float>>, _ count: Int, nearest: Float) -> Float {
        var least = nearest
        for i in 0..<count {
            for j in (i + 1)..<count {
                if let (_, misfit) = project(c, from: samples[j], to: samples[i]) { least = min(least, misfit) }
            }
        }
        return least
    }

    /// The position of `c`'s projection on the segment from `b` (0) to `f` (1), clamped to it, and
    /// the squared distance from `c` to that point; nil when the two colours are alike.
    @inline(__always) private func project(_ c: SIMD4<Float>, from b: SIMD4<Float>, to f: SIMD4<Float>) -> (Float, Float)? {
        var delta = f - b
        delta.w = 0
        let l = (delta * delta).sum()
        guard l > 1e-8 else { return nil }
        let a = min(max(((c - b) * delta).sum() / l, 0), 1)
        return (a, squaredDistance(c, b + a * delta))
    }

    @inline(__always) private func squaredDistance(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float {
        var e = a - b
        e.w = 0
        return (e * e).sum()
    }

    /// The pixel (u, v): its index and disparity; nil outside the frame or where the disparity is
    /// NaN.
    @inline(__always) func neighbour(_ u: Int, _ v: Int) -> (u: Int, v: Int, index: Int, disparity: Float)? {
        guard u >= 0, u < width, v >= 0, v < height else { return nil }
        let q = v * width + u
        let d = disparity[q]
        return d.isNaN ? nil : (u, v, q, d)
    }

    /// Whether every pixel of the 3 × 3 window of (x, y) lies on one side of `middle`: the near
    /// side (`near`, NaN not counted there) or the far side (NaN passed over).
    @inline(__always) func isWhole(_ x: Int, _ y: Int, _ middle: Float, near: Bool) -> Bool {
        for v in max(0, y - 1)...min(height - 1, y + 1) {
            for u in max(0, x - 1)...min(width - 1, x + 1) where (disparity[v * width + u] > middle) != near { return false }
        }
        return true
    }
}
