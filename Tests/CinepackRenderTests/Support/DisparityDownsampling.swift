import CinepackFormat

/// How the tests make a low-resolution disparity map from a full-resolution one, as the tools
/// that deliver such maps do.
enum DisparityDownsampling: String, Sendable, CaseIterable {
    /// The value at the pixel nearest each cell's centre (a depth sensor's sample; with an even
    /// cell, the lower right of the middle four).
    case point
    /// The mean over each cell (a depth model's or a phone's soft map).
    case area

    /// `values` (`width × height`, row by row) at 1/`factor` of that size: cells of
    /// `factor × factor` pixels, the last row and column clipped to the picture.
    func map(_ values: [Float], width: Int, height: Int, factor: Int) -> DisparityMap {
        let w = (width + factor - 1) / factor, h = (height + factor - 1) / factor
        var cells = [Float](repeating: 0, count: w * h)
        for j in 0..<h {
            for i in 0..<w {
                switch self {
                case .point:
                    let x = min(width - 1, i * factor + factor / 2), y = min(height - 1, j * factor + factor / 2)
                    cells[j * w + i] = values[y * width + x]
                case .area:
                    var sum: Float = 0, count: Float = 0
                    for y in (j * factor)..<min(height, (j + 1) * factor) {
                        for x in (i * factor)..<min(width, (i + 1) * factor) {
                            sum += values[y * width + x]
                            count += 1
                        }
                    }
                    cells[j * w + i] = sum / count
                }
            }
        }
        return DisparityMap(width: w, height: h, values: cells)
    }
}
