/// Deflicker for relative maps (spec/depth-input.md §4). Works on small proxies of every frame
/// (block means): each frame gets the scale and shift that best map it, robustly, onto a
/// temporal median of its aligned neighbours, so pixels that do not move agree from frame to
/// frame while moving subjects (outliers to the fit) do not drag the correction.
package enum DepthStabilizer {
    /// Frames on each side of the temporal reference window.
    package static let halfWindow = 10
    static let iterations = 3

    /// Per-frame (scale, shift) taking proxy values to a common relative scale.
    package static func corrections(_ proxies: [[Float]]) -> [(scale: Float, shift: Float)] {
        let n = proxies.count
        guard n > 1, let k = proxies.first?.count, k > 0 else { return Array(repeating: (1, 0), count: n) }
        // Start: frame 0 normalised by its median and interquartile range, then each frame fitted
        // to the aligned frame before it (a chain: right for a steady shot, a start otherwise).
        var fits: [(scale: Float, shift: Float)] = []
        let first = proxies[0].filter { !$0.isNaN }.sorted()
        if first.count >= 4, first[first.count * 3 / 4] > first[first.count / 4] {
            let scale = 1 / (first[first.count * 3 / 4] - first[first.count / 4])
            fits.append((scale, -first[first.count / 2] * scale))
        } else {
            fits.append((1, 0))
        }
        for t in 1..<n {
            let previous = proxies[t - 1].map { fits[t - 1].scale * $0 + fits[t - 1].shift }
            let fit = robustFit(proxies[t], to: previous, from: fits[t - 1])
            fits.append(fit.flatMap { $0.scale > 0 ? $0 : nil } ?? fits[t - 1])
        }
        for _ in 0..<iterations {
            let aligned = (0..<n).map { t in proxies[t].map { fits[t].scale * $0 + fits[t].shift } }
            var next = fits
            var window: [Float] = []
            window.reserveCapacity(2 * halfWindow + 1)
            var reference = [Float](repeating: .nan, count: k)
            for t in 0..<n {
                let lo = max(0, t - halfWindow)
                let hi = min(n - 1, t + halfWindow)
                for i in 0..<k {
                    window.removeAll(keepingCapacity: true)
                    for j in lo...hi where !aligned[j][i].isNaN { window.append(aligned[j][i]) }
                    if window.isEmpty {
                        reference[i] = .nan
                    } else {
                        window.sort()
                        reference[i] = window[window.count / 2]
                    }
                }
                if let fit = robustFit(proxies[t], to: reference, from: fits[t]), fit.scale > 0 { next[t] = fit }
            }
            fits = next
        }
        return fits
    }

    /// Scale and shift minimising the Tukey-biweighted residual of `scale·x + shift − y`:
    /// iteratively reweighted least squares from `start` (a plain least-squares start would be
    /// dragged far by a large moving subject, further than reweighting can recover).
    static func robustFit(_ x: [Float], to y: [Float], from start: (scale: Float, shift: Float)) -> (scale: Float, shift: Float)? {
        var pairs: [(Double, Double)] = []
        for i in 0..<x.count where !x[i].isNaN && !y[i].isNaN { pairs.append((Double(x[i]), Double(y[i]))) }
        guard pairs.count >= 4 else { return nil }
        var weights = [Double](repeating: 1, count: pairs.count)
        var fit: (a: Double, b: Double)? = (Double(start.scale), Double(start.shift))
        for iteration in 0..<10 {
            let f: (a: Double, b: Double)
            if iteration == 0, let fit {
                f = fit
            } else {
                guard let line = weightedLine(pairs, weights) else { break }
                f = line
            }
            fit = f
            let residuals = pairs.map { abs(f.a * $0.0 + f.b - $0.1) }
            let sorted = residuals.sorted()
            let sigma = max(1.4826 * sorted[sorted.count / 2], 1e-9)
            let c = 4.685 * sigma
            weights = residuals.map { r in r < c ? (1 - (r / c) * (r / c)) * (1 - (r / c) * (r / c)) : 0 }
        }
        guard let fit, fit.a.isFinite, fit.b.isFinite else { return nil }
        return (Float(fit.a), Float(fit.b))
    }

    /// Weighted least-squares line y = a·x + b.
    static func weightedLine(_ pairs: [(Double, Double)], _ w: [Double]) -> (a: Double, b: Double)? {
        var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for (i, p) in pairs.enumerated() {
            sw += w[i]
            sx += w[i] * p.0
            sy += w[i] * p.1
            sxx += w[i] * p.0 * p.0
            sxy += w[i] * p.0 * p.1
        }
        let det = sw * sxx - sx * sx
        guard sw > 0, abs(det) > 1e-12 * max(1, sw * sxx) else { return nil }
        let a = (sw * sxy - sx * sy) / det
        return (a, (sy - a * sx) / sw)
    }

    /// Block means of the valid values on a grid of at most `cells`×`cells` blocks: the small
    /// picture of a frame the stabilizer works on (a few KiB per frame).
    package static func proxy(_ values: [Float], width: Int, height: Int, cells: Int = 48) -> [Float] {
        let bw = max(1, (width + cells - 1) / cells)
        let bh = max(1, (height + cells - 1) / cells)
        let gw = (width + bw - 1) / bw
        let gh = (height + bh - 1) / bh
        var sums = [Float](repeating: 0, count: gw * gh)
        var counts = [Int](repeating: 0, count: gw * gh)
        for y in 0..<height {
            let row = (y / bh) * gw
            for x in 0..<width {
                let v = values[y * width + x]
                if v.isNaN { continue }
                sums[row + x / bw] += v
                counts[row + x / bw] += 1
            }
        }
        return (0..<sums.count).map { counts[$0] > 0 ? sums[$0] / Float(counts[$0]) : .nan }
    }
}
