/// Disparity as a picture people can read: near is warm, far is cool (a perceptually ordered
/// ramp through dark blue, cyan, green, yellow, red), invalid pixels black.
package enum FalseColour {
    /// Control points of the ramp, evenly spaced from far (0) to near (1).
    private static let ramp: [(Float, Float, Float)] = [
        (0.19, 0.07, 0.23), (0.27, 0.51, 0.97), (0.10, 0.89, 0.71), (0.64, 0.99, 0.24), (0.98, 0.73, 0.22), (0.84, 0.21, 0.02),
        (0.48, 0.02, 0.01),
    ]

    package static func colour(_ t: Float) -> (UInt8, UInt8, UInt8) {
        let x = min(max(t, 0), 1) * Float(ramp.count - 1)
        let i = min(Int(x), ramp.count - 2)
        let f = x - Float(i)
        let a = ramp[i], b = ramp[i + 1]
        func c(_ p: Float, _ q: Float) -> UInt8 { UInt8(min(255, max(0, ((p + (q - p) * f) * 255).rounded()))) }
        return (c(a.0, b.0), c(a.1, b.1), c(a.2, b.2))
    }

    /// An 8-bit RGB picture of `map`, scaled over `range` (the file's quantization range).
    package static func image(_ map: DisparityMap, range: DisparityQuantization) -> PixelImage {
        var samples = [UInt8](repeating: 0, count: map.width * map.height * 3)
        let span = range.maximum - range.minimum
        for (i, d) in map.values.enumerated() where !d.isNaN {
            let (r, g, b) = colour((d - range.minimum) / span)
            samples[i * 3] = r
            samples[i * 3 + 1] = g
            samples[i * 3 + 2] = b
        }
        // The size and layout always match, so this cannot fail.
        return try! PixelImage(width: map.width, height: map.height, layout: .rgb, samples: samples)
    }
}
