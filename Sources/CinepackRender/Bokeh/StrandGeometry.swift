/// The coverage of a blurred-side pixel beside a thin in-focus structure (a strand or wire at most
/// 2 px across) from the structure's geometry (spec/render.md §1.4 step 5). Summed across the
/// strand, its coverage is its width, nearly constant along it, around a centre line that bends
/// slowly; so the cross-sections of the lines before and after the pixel along the strand tell
/// where the strand's band passes through the pixel's own line, and how much of the pixel it
/// covers. Where the colours leave the pixel's coverage uncertain (a dark strand beside a darker
/// stripe of the background: the background's own samples spread along the mix line), that
/// coverage counts in their place.
struct StrandGeometry: @unchecked Sendable {
    let disparity: UnsafePointer<Float>
    let width: Int
    let height: Int
    /// The split pixels (index order), their count, and where each row's begin among them: the
    /// colours' coverage of the pixels.
    let matted: UnsafePointer<MattedPixel>
    let rowStart: UnsafePointer<Int>

    /// Lines along the strand on either side of the pixel whose cross-sections are read.
    static let reach = 2
    /// Offsets across the strand, nearest first, where a line's sharp pixel is sought.
    static let nearestAcross = [0, -1, 1, -2, 2]
    /// A cross-section holds at most this many sharp-side pixels (else the structure is not thin
    /// there: a crossing, or a wider part).
    static let widest = 3
    /// The lines must agree on one straight band: each line's sum within this of their mean width,
    /// its centre within this of their least-squares centre line (px).
    static let widthTolerance: Float = 0.5
    static let centreTolerance: Float = 0.5
    /// How uncertain the geometry's coverage is taken to be (its standard deviation): the colours'
    /// coverage is weighed against it by the blurred side's spread along the mix line.
    static let uncertainty: Float = 0.05
    /// Four lines evenly across a pixel, the band's position on each (offsets from its middle).
    static let subLines: [Float] = [-0.375, -0.125, 0.125, 0.375]

    /// The colours' coverage of pixel (u, v) (the label's, 1 or 0, where it was not split).
    @inline(__always) func colourCoverage(_ u: Int, _ v: Int, middle: Float) -> Float {
        let q = v * width + u
        var lo = rowStart[v]
        var hi = rowStart[v + 1]
        while lo < hi {
            let mid = (lo + hi) >> 1
            if matted[mid].index < q { lo = mid + 1 } else { hi = mid }
        }
        if lo < rowStart[v + 1] && matted[lo].index == q { return matted[lo].coverage }
        return disparity[q] > middle ? 1 : 0
    }

    @inline(__always) func isSharp(_ u: Int, _ v: Int, _ middle: Float) -> Bool { disparity[v * width + u] > middle }

    /// The structure's coverage of pixel (x, y), nil where its geometry does not tell it.
    func coverage(_ x: Int, _ y: Int, middle: Float) -> Float? {
        // The strand's direction: its sharp pixels of the 5 × 5 window spread more along it than
        // across it.
        var n: Float = 0
        var sx: Float = 0
        var sy: Float = 0
        var sxx: Float = 0
        var syy: Float = 0
        for dy in -2...2 {
            for dx in -2...2 {
                let u = x + dx
                let v = y + dy
                guard u >= 0, u < width, v >= 0, v < height, isSharp(u, v, middle) else { continue }
                n += 1
                sx += Float(dx)
                sy += Float(dy)
                sxx += Float(dx * dx)
                syy += Float(dy * dy)
            }
        }
        guard n >= 2 else { return nil }
        let acrossX = syy - sy * sy / n >= sxx - sx * sx / n
        // Steps across the strand and along it.
        let (ax, ay) = acrossX ? (1, 0) : (0, 1)
        let (lx, ly) = acrossX ? (0, 1) : (1, 0)
        func inside(_ r: Int, _ t: Int) -> Bool {
            let u = x + r * lx + t * ax
            let v = y + r * ly + t * ay
            return u >= 0 && u < width && v >= 0 && v < height
        }
        // Each line's sum and first moment across (offsets from the pixel's own place).
        var sums = SIMD4<Float>()
        var moments = SIMD4<Float>()
        var rows = SIMD4<Float>()
        var lines = 0
        var before = false
        var after = false
        for r in -Self.reach...Self.reach where r != 0 {
            // The sharp pixel of this line nearest the pixel's own place across.
            var t0: Int?
            for t in Self.nearestAcross where inside(r, t) && isSharp(x + r * lx + t * ax, y + r * ly + t * ay, middle) {
                t0 = t
                break
            }
            guard let t0 else { continue }
            // Its run of sharp pixels across, and the pixel past each end.
            var lo = t0
            var hi = t0
            while hi - lo < Self.widest, inside(r, lo - 1), isSharp(x + r * lx + (lo - 1) * ax, y + r * ly + (lo - 1) * ay, middle) {
                lo -= 1
            }
            while hi - lo < Self.widest, inside(r, hi + 1), isSharp(x + r * lx + (hi + 1) * ax, y + r * ly + (hi + 1) * ay, middle) {
                hi += 1
            }
            guard hi - lo < Self.widest, inside(r, lo - 1), inside(r, hi + 1) else { continue }
            var s: Float = 0
            var m: Float = 0
            for t in (lo - 1)...(hi + 1) {
                let a = colourCoverage(x + r * lx + t * ax, y + r * ly + t * ay, middle: middle)
                s += a
                m += Float(t) * a
            }
            guard s > 0.25 else { continue }
            sums[lines] = s
            moments[lines] = m
            rows[lines] = Float(r)
            lines += 1
            if r < 0 { before = true } else { after = true }
        }
        guard before, after else { return nil }
        // Width: the mean cross-section. The least-squares line through the lines' centroids
        // gives the strand's slope; each line's centre is then the one whose band gives the line
        // its moment, and their least-squares line the band's centre on the pixel's own line.
        let k = Float(lines)
        let w = sums.sum() / k
        let sr = rows.sum()
        let srr = (rows * rows).sum()
        let det = k * srr - sr * sr
        guard det > 1e-6 else { return nil }
        var raw = SIMD4<Float>()
        for i in 0..<lines { raw[i] = moments[i] / sums[i] }
        var slope = min(max((k * (rows * raw).sum() - sr * raw.sum()) / det, -1.5), 1.5)
        var centres = SIMD4<Float>()
        for i in 0..<lines { centres[i] = Self.centre(moment: moments[i], width: w, slope: slope) }
        slope = min(max((k * (rows * centres).sum() - sr * centres.sum()) / det, -1.5), 1.5)
        let centre = (centres.sum() - slope * sr) / k
        // One straight band of one width must explain every line: else the lines hold something
        // else (a crossing, a junction, the structure's end, another structure).
        for i in 0..<lines
        where abs(sums[i] - w) > Self.widthTolerance || abs(centres[i] - centre - slope * rows[i]) > Self.centreTolerance {
            return nil
        }
        // The band's area inside the pixel.
        var area: Float = 0
        for tau in Self.subLines {
            let c = centre + slope * tau
            area += max(0, min(0.5, c + 0.5 * w) - max(-0.5, c - 0.5 * w))
        }
        return area / Float(Self.subLines.count)
    }

    /// The centre (across, in px from the pixel's own place) of a band `w` across and `slope`
    /// steep (px across per line) whose coverage of the pixels of a line has the first moment
    /// `moment` (Σ offset · coverage). Pixel t spans [t − ½, t + ½]; a band [L, R] on one sub-line
    /// gives ∫ round(ξ) dξ over it, `w·(L + R)/2 + F(R) − F(L)` with F(ξ) = −(ξ − round ξ)²/2,
    /// which never decreases with the centre: found by bisection.
    static func centre(moment: Float, width w: Float, slope: Float) -> Float {
        @inline(__always) func f(_ xi: Float) -> Float {
            let e = xi - xi.rounded()
            return -0.5 * e * e
        }
        // The correction F(R) − F(L) lies within ±¼: the centre within ¼ / w of moment / w.
        var lo = (moment - 0.25) / w
        var hi = (moment + 0.25) / w
        for _ in 0..<12 {
            let c = 0.5 * (lo + hi)
            var m = w * c
            for tau in subLines {
                let ct = c + slope * tau
                m += (f(ct + 0.5 * w) - f(ct - 0.5 * w)) / Float(subLines.count)
            }
            if m < moment { lo = c } else { hi = c }
        }
        return 0.5 * (lo + hi)
    }

    /// Splits the blurred-side pixels of `buffer[0..<count]` beside thin structures again with
    /// the coverage their geometry and their colours give, and drops the pixels left whole;
    /// returns the new count.
    static func refine(
        _ buffer: RawBuffer<MattedPixel>, count: Int, picture: UnsafePointer<Float>, disparity: UnsafePointer<Float>, width: Int,
        height: Int, threads: Int?
    ) -> Int {
        let rowStart = RawBuffer<Int>(count: height + 1)
        var k = 0
        for v in 0...height {
            while k < count && buffer[k].index < v * width { k += 1 }
            rowStart[v] = k
        }
        let geometry = StrandGeometry(disparity: disparity, width: width, height: height, matted: buffer.base, rowStart: rowStart.base)
        // The new coverages, NaN where the colours' stays; read from the colours' coverages only,
        // so the result does not depend on the order.
        let alphas = RawBuffer<Float>(count: max(count, 1))
        let chunk = 1024
        let found = Shared(alphas.base)
        parallelFor((count + chunk - 1) / chunk, threads: threads) { c in
            for k in (c * chunk)..<min(count, (c + 1) * chunk) {
                let m = geometry.matted[k]
                found.p[k] = .nan
                guard m.line.isThin,
                    let g = geometry.coverage(m.index % width, m.index / width, middle: m.line.middle)
                else { continue }
                let u = Self.uncertainty * Self.uncertainty
                let trust = u / (u + m.line.spread)
                found.p[k] = min(trust * m.coverage + (1 - trust) * g, 0.5)
            }
        }
        var n = 0
        for k in 0..<count {
            var m = buffer[k]
            if m.line.isThin {
                let alpha = alphas[k].isNaN ? m.coverage : alphas[k]
                guard alpha > 0, alpha < 1 else { continue }
                if !alphas[k].isNaN {
                    let p = m.index
                    let line = m.line
                    m = DepthEdgeMatte.split(
                        p, colour: SIMD3(picture[3 * p], picture[3 * p + 1], picture[3 * p + 2]), back: line.back, delta: line.delta,
                        alpha: alpha, strength: line.strength, isFront: false, disparity: disparity[p],
                        backDisparity: line.backDisparity, line: line)
                }
            }
            buffer[n] = m
            n += 1
        }
        return n
    }
}
