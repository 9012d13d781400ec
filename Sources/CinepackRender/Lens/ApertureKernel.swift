import CinepackFormat
import Foundation

/// A custom aperture from an image (spec/render.md §5), e.g. a photographed out-of-focus point:
/// the outline of its bright part (pixels at half the image's white or more, alpha included) seen
/// from its centroid, as the boundary radius at every degree, the farthest point at 1. The outline
/// stands for the shape (a star-shaped region: a ring's hole is filled).
public struct ApertureKernel: Sendable, Equatable {
    /// Boundary radius at each whole degree of image angle (y down), 0…359, the largest 1.
    public let radii: [Float]

    /// The kernel of a decoded image; `source` names it in messages.
    public init(image: PixelImage, source: String) throws(LensLookError) {
        let w = image.width
        let h = image.height
        let colours = image.layout.hasAlpha ? image.channels - 1 : image.channels
        let white = Float(image.maxValue)
        var mask = [Float](repeating: 0, count: w * h)
        var sum: Float = 0
        var cx: Float = 0
        var cy: Float = 0
        for y in 0..<h {
            for x in 0..<w {
                var v: Float = 0
                for c in 0..<colours { v += Float(image.sample(x: x, y: y, channel: c)) }
                v /= Float(colours) * white
                if image.layout.hasAlpha { v *= Float(image.sample(x: x, y: y, channel: colours)) / white }
                let m: Float = v >= 0.5 ? 1 : 0
                mask[y * w + x] = m
                sum += m
                cx += m * Float(x)
                cy += m * Float(y)
            }
        }
        guard sum > 0 else { throw LensLookError("kernel \(source): no pixel is at half of white or brighter") }
        cx /= sum
        cy /= sum
        let reach = Float(w + h)
        var radii: [Float] = []
        for k in 0..<360 {
            let a = Float(k) * .pi / 180
            let (dx, dy) = (cos(a), sin(a))
            var last: Float = 0.5
            var t: Float = 0
            while t < reach {
                let x = Int((cx + t * dx).rounded())
                let y = Int((cy + t * dy).rounded())
                if x >= 0, y >= 0, x < w, y < h, mask[y * w + x] > 0 { last = t + 0.5 }
                t += 0.25
            }
            radii.append(last)
        }
        let top = radii.max() ?? 1
        self.radii = radii.map { $0 / top }
    }

    /// The kernel of the PNG at `path`.
    public static func load(path: String) throws(LensLookError) -> ApertureKernel {
        guard let data = FileManager.default.contents(atPath: path) else {
            // Say why, as the movie readers do: a typo and a folder need different fixes.
            var isFolder: ObjCBool = false
            let why =
                !FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
                ? "no such file" : isFolder.boolValue ? "a folder, not a PNG file" : "cannot be read (permission?)"
            throw LensLookError("kernel \(path): \(why)")
        }
        let image: PixelImage
        do { image = try PNGDecoder.decode(data) } catch { throw LensLookError("kernel \(path): not a PNG image (\(error))") }
        return try ApertureKernel(image: image, source: path)
    }

    /// Boundary radius at image angle `theta` (radians), interpolated between degrees.
    func radius(_ theta: Float) -> Float {
        var d = theta * 180 / .pi
        d = d.truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        let i = Int(d) % 360
        let t = d - Float(Int(d))
        return radii[i] * (1 - t) + radii[(i + 1) % 360] * t
    }
}
