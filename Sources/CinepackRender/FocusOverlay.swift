import CinepackFormat

/// Focus aids drawn over a rendered picture, so users can see where focus and depth are
/// (`render --overlay`; spec/render.md §4).
///
/// - `peaking`: picture edges inside the depth of field (blur circle under one output pixel
///   across) painted pure green: what is sharp in the render;
/// - `disparity`: the disparity the renderer used (at the picture's size), in false colour over
///   the movie's disparity range (near warm, far cool), half over the render;
/// - `matte`: the near field (in front of the depth of field) tinted red, the depth of field green,
///   the far field blue, half over the render.
public enum FocusOverlay: String, Sendable, CaseIterable {
    case peaking, disparity, matte

    /// Blur circles under this diameter (output pixels) count as in focus.
    public static let inFocusDiameter: Float = 1
    /// Share of the overlay colour in the disparity and matte overlays.
    public static let opacity: Float = 0.5
    /// Peaking marks pixels whose sRGB luma gradient (central differences, 0…1 per pixel) is
    /// at least this.
    public static let peakingThreshold: Float = 0.08

    /// Which part of the depth a pixel belongs to.
    public enum Zone: Sendable, Equatable {
        case near, inFocus, far
    }

    /// The zone of disparity `d` with focus at `focus` through `lens` (NaN counts as in focus).
    public static func zone(disparity d: Float, focus: Float, lens: LensModel) -> Zone {
        let c = lens.signedDiameter(disparity: d, focusDisparity: focus)
        if c.isNaN || abs(c) < inFocusDiameter { return .inFocus }
        return c < 0 ? .near : .far
    }

    /// `picture` (the 8-bit sRGB render) with the overlay drawn over it; `disparity` has one value
    /// per picture pixel (the renderer's), `range` scales the false colour.
    public func draw(
        on picture: PixelImage, disparity: [Float], focus: Float, lens: LensModel, range: DisparityQuantization
    ) -> PixelImage {
        let width = picture.width, height = picture.height
        precondition(disparity.count == width * height, "one disparity per picture pixel")
        switch picture.storage {
        case .uint8(let samples):
            let out = draw(samples, channels: picture.channels, width: width, height: height, disparity, focus, lens, range)
            // The size and layout always match, so this cannot fail.
            return try! PixelImage(width: width, height: height, layout: .rgb, samples: out)
        case .uint16(let samples):
            let out = draw(samples, channels: picture.channels, width: width, height: height, disparity, focus, lens, range)
            return try! PixelImage(width: width, height: height, layout: .rgb, samples: out)
        }
    }

    /// A sample's value `v` (0…1) mixed with an overlay colour channel of 8 bits (k / 255), on the
    /// scale of samples whose largest is `scale`, rounded to nearest.
    @inline(__always) private static func mixed(_ v: Float, _ k: UInt8, scale: Float) -> Float {
        ((v * (1 - opacity) + Float(k) / 255 * opacity) * scale).rounded()
    }

    /// Every mix of an 8-bit sample (low byte of the index) with an 8-bit colour channel (high byte).
    private static let mixes8: [UInt8] = (0..<(256 * 256)).map { i in UInt8(mixed(Float(i % 256) / 255, UInt8(i / 256), scale: 255)) }

    /// The overlay over RGB(A) or grey `samples`, as RGB samples of the same depth. Values are
    /// 0…1 per channel where the overlay mixes colours; pixels it leaves alone keep their samples.
    private func draw<Sample: FixedWidthInteger & UnsignedInteger>(
        _ samples: [Sample], channels: Int, width: Int, height: Int, _ disparity: [Float], _ focus: Float, _ lens: LensModel,
        _ range: DisparityQuantization
    ) -> [Sample] {
        let scale = Float(Sample.max)
        let count = width * height
        var out = [Sample](repeating: 0, count: count * 3)
        for p in 0..<count {
            for c in 0..<3 { out[p * 3 + c] = samples[p * channels + min(c, channels - 1)] }
        }
        @inline(__always) func value(_ p: Int, _ c: Int) -> Float { Float(samples[p * channels + min(c, channels - 1)]) / scale }
        // 8-bit pictures take every mix from a table: 256 × 256 values instead of three per pixel.
        let table = Sample.bitWidth == 8 ? Self.mixes8 : []
        func blend(_ p: Int, _ colour: SIMD3<UInt8>) {
            for c in 0..<3 {
                let sample = samples[p * channels + min(c, channels - 1)]
                out[p * 3 + c] =
                    table.isEmpty
                    ? Sample(Self.mixed(value(p, c), colour[c], scale: scale)) : Sample(table[Int(colour[c]) << 8 | Int(sample)])
            }
        }
        switch self {
        case .disparity:
            let span = range.maximum - range.minimum
            for p in 0..<count where !disparity[p].isNaN {
                let (r, g, b) = FalseColour.colour(span > 0 ? (disparity[p] - range.minimum) / span : 0.5)
                blend(p, SIMD3(r, g, b))
            }
        case .matte:
            for p in 0..<count {
                switch Self.zone(disparity: disparity[p], focus: focus, lens: lens) {
                case .near: blend(p, SIMD3(255, 0, 0))
                case .inFocus: blend(p, SIMD3(0, 255, 0))
                case .far: blend(p, SIMD3(0, 0, 255))
                }
            }
        case .peaking:
            let lumas = (0..<count).map { p in 0.2126 * value(p, 0) + 0.7152 * value(p, 1) + 0.0722 * value(p, 2) }
            func luma(_ x: Int, _ y: Int) -> Float { lumas[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)] }
            for y in 0..<height {
                for x in 0..<width where Self.zone(disparity: disparity[y * width + x], focus: focus, lens: lens) == .inFocus {
                    let gx = (luma(x + 1, y) - luma(x - 1, y)) / 2
                    let gy = (luma(x, y + 1) - luma(x, y - 1)) / 2
                    if (gx * gx + gy * gy).squareRoot() >= Self.peakingThreshold {
                        let p = (y * width + x) * 3
                        (out[p], out[p + 1], out[p + 2]) = (0, Sample.max, 0)
                    }
                }
            }
        }
        return out
    }
}
