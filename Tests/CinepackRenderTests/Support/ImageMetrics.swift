import CinepackRender
import Foundation

/// Image comparison in sRGB 8-bit space (what a viewer sees; evaluated in sRGB,
/// overall and on bands around depth edges).
enum ImageMetrics {
    /// The picture as 8-bit sRGB codes (rounded to nearest), interleaved RGB, as Floats 0…255.
    static func srgb8(_ image: LinearImage) -> [Float] {
        image.values.map { (SRGB.fromLinear($0) * 255).rounded() }
    }

    /// Pixels within `radius` px (Euclidean) of a depth discontinuity: a pixel whose 4-neighbour's
    /// disparity differs by more than `jump` diopters (both sides are marked). The default jump is
    /// above the per-row step of the scenes' receding floor (0.0225 D) and far below every layer gap.
    static func edgeBand(disparity: [Float], width: Int, height: Int, radius: Int = 3, jump: Float = 0.05) -> [Bool] {
        var edge = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let d = disparity[y * width + x]
                if x + 1 < width, abs(disparity[y * width + x + 1] - d) > jump {
                    edge[y * width + x] = true
                    edge[y * width + x + 1] = true
                }
                if y + 1 < height, abs(disparity[(y + 1) * width + x] - d) > jump {
                    edge[y * width + x] = true
                    edge[(y + 1) * width + x] = true
                }
            }
        }
        var band = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width where edge[y * width + x] {
                for v in max(0, y - radius)...min(height - 1, y + radius) {
                    for u in max(0, x - radius)...min(width - 1, x + radius)
                    where (u - x) * (u - x) + (v - y) * (v - y) <= radius * radius {
                        band[v * width + u] = true
                    }
                }
            }
        }
        return band
    }

    /// PSNR in dB of 8-bit sRGB codes over the masked pixels (all if `mask` is nil); +∞ when equal.
    static func psnr(_ a: [Float], _ b: [Float], mask: [Bool]? = nil) -> Double {
        var sum: Double = 0
        var count = 0
        for p in 0..<(a.count / 3) where mask?[p] ?? true {
            for c in 0..<3 {
                let e = Double(a[p * 3 + c] - b[p * 3 + c])
                sum += e * e
            }
            count += 3
        }
        precondition(count > 0, "empty mask")
        let mse = sum / Double(count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The SSIM map (Wang et al. 2004: 11×11 Gaussian window, σ = 1.5, K₁ = 0.01, K₂ = 0.03, L = 255)
    /// of 8-bit sRGB codes, averaged over the three channels; the window is cut at the image border
    /// and renormalised.
    static func ssimMap(_ a: [Float], _ b: [Float], width: Int, height: Int) -> [Double] {
        let radius = 5
        let kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        var map = [Double](repeating: 0, count: width * height)
        for channel in 0..<3 {
            // The five moments, blurred separably.
            var planes = [[Double]](repeating: [Double](repeating: 0, count: width * height), count: 5)
            for p in 0..<(width * height) {
                let x = Double(a[p * 3 + channel]), y = Double(b[p * 3 + channel])
                planes[0][p] = x
                planes[1][p] = y
                planes[2][p] = x * x
                planes[3][p] = y * y
                planes[4][p] = x * y
            }
            let blurred = planes.map { blur($0, width: width, height: height, kernel: kernel) }
            for p in 0..<(width * height) {
                let mx = blurred[0][p], my = blurred[1][p]
                let vx = blurred[2][p] - mx * mx, vy = blurred[3][p] - my * my, cxy = blurred[4][p] - mx * my
                let s = ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
                map[p] += s / 3
            }
        }
        return map
    }

    static func mean(_ map: [Double], mask: [Bool]? = nil) -> Double {
        var sum: Double = 0
        var count = 0
        for p in map.indices where mask?[p] ?? true {
            sum += map[p]
            count += 1
        }
        return sum / Double(count)
    }

    /// Normalised separable convolution with the window cut at the border.
    private static func blur(_ plane: [Double], width: Int, height: Int, kernel: [Double]) -> [Double] {
        let radius = kernel.count / 2
        var horizontal = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var s: Double = 0, w: Double = 0
                for k in max(-radius, -x)...min(radius, width - 1 - x) {
                    s += kernel[k + radius] * plane[y * width + x + k]
                    w += kernel[k + radius]
                }
                horizontal[y * width + x] = s / w
            }
        }
        var out = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var s: Double = 0, w: Double = 0
                for k in max(-radius, -y)...min(radius, height - 1 - y) {
                    s += kernel[k + radius] * horizontal[(y + k) * width + x]
                    w += kernel[k + radius]
                }
                out[y * width + x] = s / w
            }
        }
        return out
    }

    /// Mean absolute difference of two images in sRGB units (0…1, not quantised), over all values.
    static func meanAbsoluteSRGB(_ a: LinearImage, _ b: LinearImage) -> Double {
        var sum: Double = 0
        for i in a.values.indices { sum += Double(abs(SRGB.fromLinear(a.values[i]) - SRGB.fromLinear(b.values[i]))) }
        return sum / Double(a.values.count)
    }
}

/// PSNR and SSIM of one rendering against the reference, overall and on the depth-edge band.
struct QualityScores: Sendable {
    var psnr: Double
    var psnrEdge: Double
    var ssim: Double
    var ssimEdge: Double

    /// `ssim: false` leaves SSIM out (NaN): it costs far more than PSNR in debug builds.
    init(_ image: LinearImage, reference: LinearImage, band: [Bool], ssim withSSIM: Bool = true) {
        let a = ImageMetrics.srgb8(image), b = ImageMetrics.srgb8(reference)
        psnr = ImageMetrics.psnr(a, b)
        psnrEdge = ImageMetrics.psnr(a, b, mask: band)
        guard withSSIM else {
            (ssim, ssimEdge) = (.nan, .nan)
            return
        }
        let map = ImageMetrics.ssimMap(a, b, width: image.width, height: image.height)
        ssim = ImageMetrics.mean(map)
        ssimEdge = ImageMetrics.mean(map, mask: band)
    }
}
