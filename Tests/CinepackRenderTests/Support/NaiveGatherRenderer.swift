import CinepackRender
import Foundation

/// The baseline to beat: the classic naive depth-of-field gather. Each output pixel is a Gaussian
/// average of its neighbourhood (linear light), the Gaussian's size set by the pixel's *own* blur
/// circle (σ = c/4, the standard deviation per axis of a uniform disk of diameter c), and every
/// neighbour weighted only by distance. It ignores which neighbours are in front, so it shows the
/// well-known failure modes: a sharp foreground bleeds into the blurred background
/// around it (halos), and a blurred foreground cannot spill over a sharp subject (its hard edge stays).
struct NaiveGatherRenderer: Sendable {
    func render(picture: LinearImage, disparity: [Float], focusDisparity df: Float, lens: LensModel) -> LinearImage {
        let width = picture.width, height = picture.height
        precondition(disparity.count == width * height)
        var out = picture.values
        let input = picture.values
        forEachRowInParallel(height, output: &out) { y, output in
            for x in 0..<width {
                let sigma = lens.diameter(disparity: disparity[y * width + x], focusDisparity: df) / 4
                guard sigma >= 0.2 else { continue }
                let radius = Int((3 * sigma).rounded(.up))
                let inverse = -1 / (2 * sigma * sigma)
                var r: Float = 0, g: Float = 0, b: Float = 0, total: Float = 0
                for v in max(0, y - radius)...min(height - 1, y + radius) {
                    let dy = Float(v - y)
                    for u in max(0, x - radius)...min(width - 1, x + radius) {
                        let dx = Float(u - x)
                        let w = exp((dx * dx + dy * dy) * inverse)
                        let o = (v * width + u) * 3
                        r += w * input[o]
                        g += w * input[o + 1]
                        b += w * input[o + 2]
                        total += w
                    }
                }
                let o = (y * width + x) * 3
                output[o] = r / total
                output[o + 1] = g / total
                output[o + 2] = b / total
            }
        }
        return LinearImage(width: width, height: height, values: out)
    }
}
