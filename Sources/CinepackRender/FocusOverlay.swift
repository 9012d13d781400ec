import CinepackFormat

/// Focus aids drawn over a rendered picture, so users can see where focus and depth are
/// (`render --overlay`; spec/render.md §4).
///
/// - `peaking`: picture edges inside the depth of field (blur circle under one output pixel
///   across) painted pure green: what is sharp in the render;
/// - `disparity`: the disparity the renderer used (upsampled to the picture), in false colour over
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
        // Work in 0…1 per channel; written back at the picture's bit depth (as RGB).
        let scale = Float(picture.maxValue)
        var rgb = [Float](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    rgb[(y * width + x) * 3 + c] = Float(picture.sample(x: x, y: y, channel: min(c, picture.channels - 1))) / scale
                }
            }
        }
        var out = rgb
        func blend(_ p: Int, _ colour: SIMD3<Float>) {
            for c in 0..<3 { out[p * 3 + c] = rgb[p * 3 + c] * (1 - Self.opacity) + colour[c] * Self.opacity }
        }
        switch self {
        case .disparity:
            let span = range.maximum - range.minimum
            for p in 0..<(width * height) where !disparity[p].isNaN {
                let (r, g, b) = FalseColour.colour(span > 0 ? (disparity[p] - range.minimum) / span : 0.5)
                blend(p, SIMD3(Float(r), Float(g), Float(b)) / 255)
            }
        case .matte:
            for p in 0..<(width * height) {
                switch Self.zone(disparity: disparity[p], focus: focus, lens: lens) {
                case .near: blend(p, SIMD3(1, 0, 0))
                case .inFocus: blend(p, SIMD3(0, 1, 0))
                case .far: blend(p, SIMD3(0, 0, 1))
                }
            }
        case .peaking:
            func luma(_ x: Int, _ y: Int) -> Float {
                let p = (min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)) * 3
                return 0.2126 * rgb[p] + 0.7152 * rgb[p + 1] + 0.0722 * rgb[p + 2]
            }
            for y in 0..<height {
                for x in 0..<width where Self.zone(disparity: disparity[y * width + x], focus: focus, lens: lens) == .inFocus {
                    let gx = (luma(x + 1, y) - luma(x - 1, y)) / 2
                    let gy = (luma(x, y + 1) - luma(x, y - 1)) / 2
                    if (gx * gx + gy * gy).squareRoot() >= Self.peakingThreshold {
                        let p = (y * width + x) * 3
                        (out[p], out[p + 1], out[p + 2]) = (0, 1, 0)
                    }
                }
            }
        }
        // The size and layout always match, so this cannot fail.
        if picture.bitDepth == 16 {
            return try! PixelImage(width: width, height: height, layout: .rgb, samples: out.map { UInt16(($0 * 65535).rounded()) })
        }
        return try! PixelImage(width: width, height: height, layout: .rgb, samples: out.map { UInt8(($0 * 255).rounded()) })
    }
}
