import CinepackFormat
import CinepackRender

/// Small deterministic scenes for the bokeh renderer tests and benchmark.
enum RendererTestScene {
    /// A textured picture in linear light with a few bright highlights, and its exact disparity:
    /// a far background (0.2 D), a receding floor in the bottom third (0.3 → 2.5 D), a subject
    /// ellipse at `subject` D and a near bar at 3 D on the left.
    static func make(width: Int, height: Int, subject: Float = 1, floor: Bool = true) -> (picture: LinearImage, disparity: [Float]) {
        var values = [Float](repeating: 0, count: width * height * 3)
        var disparity = [Float](repeating: 0, count: width * height)
        let w = Float(width)
        let h = Float(height)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Float(x) / w
                let fy = Float(y) / h
                var c = SIMD3<Float>(
                    0.25 + 0.2 * sinf(fx * 37 + fy * 11), 0.3 + 0.2 * sinf(fy * 23 - fx * 5),
                    0.35 + 0.25 * sinf((fx + fy) * 17))
                var d: Float = 0.2
                if floor && fy > 2.0 / 3 {
                    d = 0.3 + (fy - 2.0 / 3) * 3 * 2.2
                    c = SIMD3(0.4, 0.3, 0.2) * (0.8 + 0.2 * sinf(fx * 90) * sinf(fy * 60))
                }
                let ex = (fx - 0.5) / 0.18
                let ey = (fy - 0.45) / 0.3
                if ex * ex + ey * ey < 1 {
                    d = subject
                    c = SIMD3(0.7, 0.45, 0.35) * (0.85 + 0.15 * sinf(fx * 200) * sinf(fy * 150))
                }
                if fx > 0.08 && fx < 0.2 && fy > 0.3 {
                    d = 3
                    c = SIMD3(0.1, 0.35, 0.12) * (0.9 + 0.1 * sinf(fy * 120))
                }
                values[(y * width + x) * 3] = c.x
                values[(y * width + x) * 3 + 1] = c.y
                values[(y * width + x) * 3 + 2] = c.z
                disparity[y * width + x] = d
            }
        }
        // Highlights in the background (point lights).
        for k in 0..<12 {
            let x = (k * 7919 + 13) % width
            let y = (k * 104_729 + 7) % max(1, height / 3)
            let i = (y * width + x) * 3
            values[i] = 40
            values[i + 1] = 35
            values[i + 2] = 30
        }
        return (LinearImage(width: width, height: height, values: values), disparity)
    }

    static func lens(width: Int, fNumber: Float = 2) -> LensModel {
        LensModel(focalLength35mm: 50, fNumber: fNumber, width: width)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
