import CinepackFormat

/// Brings a disparity map of any size to the cells of the preview's reduced render: each cell
/// takes the mean of the map over the picture rectangle it covers, every map cell weighted by its
/// overlap with it (map cell `(a, b)` of a `m × n` map covers `[a·W/m, (a+1)·W/m) × [b·H/n, (b+1)·H/n)`,
/// spec/render.md §2). Invalid values are filled first as the upsampler fills them
/// (push-pull); a map with none valid gives NaN, which the renderer treats as in focus.
enum PreviewMapResampler {
    /// The cells of `factor × factor` picture pixels (`(W + factor − 1) / factor` across) covered by
    /// `map`, written to `cells` (row-major).
    static func resample(
        _ map: DisparityMap, pictureWidth W: Int, pictureHeight H: Int, factor: Int, into cells: UnsafeMutablePointer<Float>
    ) {
        let w = (W + factor - 1) / factor
        let h = (H + factor - 1) / factor
        let values = DisparityUpsampler.filled(map.values, width: map.width, height: map.height)
        let columns = overlaps(pixels: W, mapCells: map.width, factor: factor, cells: w)
        let rows = overlaps(pixels: H, mapCells: map.height, factor: factor, cells: h)
        // Along x for every map row, then along y.
        var across = [Float](repeating: 0, count: map.height * w)
        for b in 0..<map.height {
            for i in 0..<w {
                var sum: Float = 0
                for (a, weight) in columns[i] { sum += weight * values[b * map.width + a] }
                across[b * w + i] = sum
            }
        }
        for j in 0..<h {
            for i in 0..<w {
                var sum: Float = 0
                for (b, weight) in rows[j] { sum += weight * across[b * w + i] }
                cells[j * w + i] = sum
            }
        }
    }

    /// For each of `cells` cells of `factor` pixels along an axis of `pixels`, the map cells it
    /// overlaps and their shares of it (summing to 1).
    static func overlaps(pixels: Int, mapCells m: Int, factor: Int, cells: Int) -> [[(Int, Float)]] {
        let size = Double(pixels) / Double(m)
        return (0..<cells).map { i in
            let x0 = Double(i * factor)
            let x1 = Double(min(pixels, (i + 1) * factor))
            let first = min(m - 1, Int(x0 / size))
            let last = min(m - 1, max(first, Int((x1 / size).rounded(.up)) - 1))
            var shares: [(Int, Float)] = []
            for a in first...last {
                let overlap = min(x1, Double(a + 1) * size) - max(x0, Double(a) * size)
                if overlap > 0 { shares.append((a, Float(overlap / (x1 - x0)))) }
            }
            return shares.isEmpty ? [(first, Float(1))] : shares
        }
    }
}
