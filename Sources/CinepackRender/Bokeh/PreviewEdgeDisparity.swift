/// The disparity of each picture pixel in the preview's full-resolution combine when the
/// disparity comes as a map (spec/render.md §3): the cells' disparities bilinearly, moved at depth
/// steps near the focus towards the side whose colours the pixel's colour matches.
///
/// The combine uses a pixel's disparity only through its blur radius, and only while that radius
/// is under about a cell and a half (`PreviewUpsampler`: above it the pixel takes the upsampled
/// layers whatever its exact radius). So the choice is made only in blocks of 2 × 2 cells whose
/// disparities step (not a slope) across a radius range reaching below that — a few percent of a
/// picture —, and everywhere else bilinear interpolation gives the same picture at a fraction of
/// the cost of a guided upsampling of the whole map.
///
/// In such a block, every pixel looks at the picture around it (every other pixel within a cell
/// in x and y): each sample weighs by nearness, by its colour's closeness to the pixel's (√ of
/// linear light) and by how decided the bilinear disparity at its place is (near one end of the
/// block's range, not between). The pixel moves towards the end its colour is found at, by the
/// share `|Σ± weight| / Σ weight` (+ for samples at the near end, − at the far end): fully where
/// its colour is found on one side only, not at all where it is found on both alike (textures
/// on both sides keep the soft, interpolated value).
final class PreviewEdgeDisparity: @unchecked Sendable {
    let cells: Int
    let rows: Int
    /// Per block of 2 × 2 cells (indexed by its top-left cell): its slot in `region` and `moves`,
    /// or −1 where it keeps bilinear interpolation.
    let slots: RawBuffer<Int32>
    /// Per slot: the first pixel column and row of the block's pixels, their count across and
    /// the offset of the block's first pixel in `moves`.
    let region: RawBuffer<SIMD4<Int32>>
    /// Per pixel of every slot's block, row by row: how far it moves (0…1) and where to.
    let moves: RawBuffer<SIMD2<Float>>
    /// Per row of cells: whether some block starting in it has a slot.
    let rowHasBlocks: [Bool]

    /// Colour closeness scale, in squared √-linear units summed over the channels.
    static let closeness: Float = 3e-2

    /// `picture`: the full-resolution picture (interleaved RGB, linear light) of `width × height`;
    /// `cellDisparity`: its cells of `factor × factor` pixels.
    init(
        cellDisparity: UnsafeMutablePointer<Float>, picture: UnsafeMutablePointer<Float>, width W: Int, height H: Int, cells w: Int,
        rows h: Int, factor f: Int, radius: BlurRadius, threads: Int?
    ) {
        cells = w
        rows = h
        let weightBuffer = RawBuffer<Float>(count: w * h, zeroed: false)
        defer { withExtendedLifetime(weightBuffer) {} }
        let d = Shared(cellDisparity)
        let step = Shared(weightBuffer.base)
        // Above this radius a pixel's own value no longer shows and every cell around reaches it.
        let reach = Float(2).squareRoot() * Float(f)
        parallelFor(h, threads: threads) { j in
            for i in 0..<w { step.p[j * w + i] = Self.weight(block: i, j, d.p, w, h, radius: radius, reach: reach) }
        }
        // The picture pixels interpolated from each block: those whose top-left cell it is.
        let columns = Self.spans(pixels: W, cells: w, factor: f)
        let lines = Self.spans(pixels: H, cells: h, factor: f)
        slots = RawBuffer<Int32>(count: w * h, zeroed: false)
        var blocks: [SIMD4<Int32>] = []
        var pixels = 0
        for k in 0..<(w * h) {
            let (i, j) = (k % w, k / w)
            guard weightBuffer[k] > 0, columns[i].count > 0, lines[j].count > 0 else {
                slots[k] = -1
                continue
            }
            slots[k] = Int32(blocks.count)
            blocks.append(SIMD4(Int32(columns[i].lowerBound), Int32(lines[j].lowerBound), Int32(columns[i].count), Int32(pixels)))
            pixels += columns[i].count * lines[j].count
        }
        rowHasBlocks = (0..<h).map { j in (0..<w).contains { weightBuffer[j * w + $0] > 0 && columns[$0].count > 0 && lines[j].count > 0 } }
        region = RawBuffer<SIMD4<Int32>>(count: blocks.count, zeroed: false)
        if !blocks.isEmpty { region.base.update(from: blocks, count: blocks.count) }
        moves = RawBuffer<SIMD2<Float>>(count: pixels, zeroed: false)
        let chunk = 16
        let out = Shared(moves.base)
        let regions = Shared(region.base)
        let count = blocks.count
        let image = Shared(picture)
        parallelFor((count + chunk - 1) / chunk, threads: threads) { c in
            // Every block is computed for itself: the result does not depend on the chunking.
            for s in (c * chunk)..<min(count, (c + 1) * chunk) {
                let r = regions.p[s]
                let rows = lines[Self.position(Int(r.y), h, f)]
                Self.decide(
                    pixels: Int(r.x)..<(Int(r.x) + Int(r.z)), rows, d.p, w, h, f, image.p, W, H, weight: step.p,
                    into: out.p + Int(r.w))
            }
        }
    }

    /// Pixel `(x, y)`'s disparity, whose bilinear value is `bilinear`, in block `block` (index of
    /// its top-left cell).
    @inline(__always) func disparity(block: Int, x: Int, y: Int, bilinear: Float) -> Float {
        let s = Int(slots[block])
        guard s >= 0 else { return bilinear }
        let r = region[s]
        let move = moves[Int(r.w) + (y - Int(r.y)) * Int(r.z) + (x - Int(r.x))]
        return bilinear + move.x * (move.y - bilinear)
    }

    /// How far block `(i, j)`'s pixels may leave bilinear interpolation, 0…1: 0 unless its 2 × 2
    /// cells span radii reaching below `reach` over more than half a pixel (full from 1.5 px)
    /// and step rather than slope.
    static func weight(
        block i: Int, _ j: Int, _ d: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int, radius: BlurRadius, reach: Float
    ) -> Float {
        let (low, high) = range(block: i, j, d, w, h)
        guard high > low else { return 0 }
        let near = radius.signed(low)
        let far = radius.signed(high)
        let largest = max(abs(near), abs(far))
        let least = near * far <= 0 ? 0 : min(abs(near), abs(far))
        let span = min(max(largest - least - 0.5, 0), 1)
        guard least < reach, span > 0 else { return 0 }
        // Steps, not slopes: a 3 × 3 neighbourhood leaves its least-squares plane by a third of
        // its span at a step between two cells, by nothing on a slope.
        var stepness: Float = 0
        for y in j...min(j + 1, h - 1) { for x in i...min(i + 1, w - 1) { stepness = max(stepness, stepShare(d, x, y, w, h)) } }
        return span * min(max((stepness - 0.15) / 0.15, 0), 1)
    }

    /// The smallest and largest of block `(i, j)`'s 2 × 2 cells.
    @inline(__always) static func range(block i: Int, _ j: Int, _ d: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int) -> (Float, Float) {
        let i1 = min(i + 1, w - 1)
        let j1 = min(j + 1, h - 1)
        let corners = SIMD4(d[j * w + i], d[j * w + i1], d[j1 * w + i], d[j1 * w + i1])
        return (corners.min(), corners.max())
    }

    /// For each of `cells` cells along an axis of `pixels`, the pixels whose bilinear
    /// interpolation starts from it (`PreviewUpsampler.position`).
    static func spans(pixels: Int, cells: Int, factor: Int) -> [Range<Int>] {
        var first = [Int](repeating: pixels, count: cells)
        var last = [Int](repeating: -1, count: cells)
        for x in 0..<pixels {
            let c = PreviewUpsampler.position(x, count: cells, factor: factor).0
            first[c] = min(first[c], x)
            last[c] = max(last[c], x)
        }
        return (0..<cells).map { last[$0] >= first[$0] ? first[$0]..<(last[$0] + 1) : 0..<0 }
    }

    /// The moves of the pixels `xs × ys` of one block (row by row into `out`): the samples around
    /// them (every other pixel for cells of 3 pixels or more) are gathered once, eight at a time.
    static func decide(
        pixels xs: Range<Int>, _ ys: Range<Int>, _ d: UnsafeMutablePointer<Float>, _ w: Int, _ h: Int, _ f: Int,
        _ picture: UnsafeMutablePointer<Float>, _ W: Int, _ H: Int, weight: UnsafeMutablePointer<Float>,
        into out: UnsafeMutablePointer<SIMD2<Float>>
    ) {
        let (i, j) = (position(xs.lowerBound, w, f), position(ys.lowerBound, h, f))
        let blockWeight = weight[j * w + i]
        let (low, high) = range(block: i, j, d, w, h)
        let middle = (low + high) / 2
        let R = f
        let stepBy = f >= 3 ? 2 : 1
        // Samples on a lattice fixed in the picture, so neighbouring blocks see the same ones.
        func lattice(_ range: Range<Int>, _ size: Int) -> (StrideThrough<Int>, count: Int) {
            let start = (max(0, range.lowerBound - R) + stepBy - 1) / stepBy * stepBy
            let end = min(size - 1, range.upperBound - 1 + R)
            return (Swift.stride(from: start, through: end, by: stepBy), (end - start) / stepBy + 1)
        }
        let (sampleColumns, across) = lattice(xs, W)
        let (sampleRows, down) = lattice(ys, H)
        let count = (across * down + 7) / 8 * 8
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 7 * count) { scratch in
            let s = scratch.baseAddress!
            // Planes: √ red, green, blue; x; y; decidedness; its sign times decidedness.
            s.update(repeating: 0, count: 7 * count)
            var n = 0
            for y in sampleRows {
                let (j0, j1, fy, _) = PreviewUpsampler.position(y, count: h, factor: f)
                for x in sampleColumns {
                    let (i0, i1, fx, _) = PreviewUpsampler.position(x, count: w, factor: f)
                    let p = picture + 3 * (y * W + x)
                    (s[n], s[count + n], s[2 * count + n]) = (p[0], p[1], p[2])
                    s[3 * count + n] = Float(x)
                    s[4 * count + n] = Float(y)
                    // The cells' disparity interpolated bilinearly, as the combine does.
                    let top = d[j0 * w + i0] + fx * (d[j0 * w + i1] - d[j0 * w + i0])
                    let bottom = d[j1 * w + i0] + fx * (d[j1 * w + i1] - d[j1 * w + i0])
                    let v = min(max(top + fy * (bottom - top), low), high)
                    let t = 2 * (v - low) / (high - low) - 1
                    let decided = max(t * t, 0.02)
                    s[5 * count + n] = decided
                    s[6 * count + n] = v > middle ? decided : -decided
                    n += 1
                }
            }
            for c in Swift.stride(from: 0, to: 3 * count, by: 8) { store8(s + c, vsqrt(vmax(load8(s + c), SIMD8()))) }
            let edge = SIMD8<Float>(repeating: Float(R + 1))
            let scale = SIMD8<Float>(repeating: 1 / closeness)
            var k = 0
            for y in ys {
                for x in xs {
                    let p = picture + 3 * (y * W + x)
                    let own = (
                        SIMD8<Float>(repeating: max(0, p[0]).squareRoot()), SIMD8<Float>(repeating: max(0, p[1]).squareRoot()),
                        SIMD8<Float>(repeating: max(0, p[2]).squareRoot())
                    )
                    let (px, py) = (SIMD8<Float>(repeating: Float(x)), SIMD8<Float>(repeating: Float(y)))
                    var total = SIMD8<Float>()
                    var signed = SIMD8<Float>()
                    for c in Swift.stride(from: 0, to: count, by: 8) {
                        let dr = load8(s + c) - own.0
                        let dg = load8(s + count + c) - own.1
                        let db = load8(s + 2 * count + c) - own.2
                        let close = vmax(SIMD8(), 1 - (dr * dr + dg * dg + db * db) * scale)
                        let near =
                            vmax(SIMD8(), edge - vabs(load8(s + 3 * count + c) - px))
                            * vmax(SIMD8(), edge - vabs(load8(s + 4 * count + c) - py))
                        let weight = near * close * close * close
                        total += weight * load8(s + 5 * count + c)
                        signed += weight * load8(s + 6 * count + c)
                    }
                    let sum = total.sum()
                    let lean = signed.sum()
                    out[k] = sum > 0 ? SIMD2(blockWeight * abs(lean) / sum, lean > 0 ? high : low) : SIMD2(0, low)
                    k += 1
                }
            }
        }
    }

    /// The first cell of pixel `x`'s bilinear interpolation.
    @inline(__always) static func position(_ x: Int, _ cells: Int, _ f: Int) -> Int {
        PreviewUpsampler.position(x, count: cells, factor: f).0
    }

    /// How far the 3 × 3 neighbourhood of cell `(i, j)` (clipped at the borders) leaves the
    /// least-squares plane through its values, as a share of its span (0 for a plane or a flat
    /// neighbourhood).
    static func stepShare(_ p: UnsafeMutablePointer<Float>, _ i: Int, _ j: Int, _ w: Int, _ h: Int) -> Float {
        let rows = max(0, j - 1)...min(h - 1, j + 1)
        let columns = max(0, i - 1)...min(w - 1, i + 1)
        var (low, high) = (Float.infinity, -Float.infinity)
        for y in rows {
            for x in columns { (low, high) = (min(low, p[y * w + x]), max(high, p[y * w + x])) }
        }
        let span = high - low
        guard span > 0 && span.isFinite else { return 0 }
        return MapPlaneFit.residual(p, width: w, rows: rows, columns: columns) / span
    }
}
