import CinepackFormat

/// Linear RGB in the source's primaries to linear RGB in another colour space's (spec/colour.md
/// §5): one 3×3 matrix, `NPM(target)⁻¹ · NPM(source)`, each NPM derived from the primaries'
/// chromaticities. Both white points must be D65 (no chromatic adaptation). Applied in linear
/// light after the bokeh; what falls outside the target gamut (a negative component, or one above
/// 1) is clipped per component when the picture is encoded.
package struct GamutConversion: Sendable, Equatable {
    package let sourcePrimaries: Int
    package let target: ColourSpace
    /// Row-major, target RGB = matrix · source RGB.
    package let matrix: Matrix3

    /// The conversion from the primaries of code point `source` to `target`; nil when they are
    /// the same primaries (nothing to do).
    package init?(sourcePrimaries source: Int, to target: ColourSpace) throws(ColourModelError) {
        guard let from = RGBPrimaries(code: source) else { throw .unsupportedPrimaries(code: source) }
        guard from.white == RGBPrimaries.d65 else { throw .whitePointNotD65(code: source) }
        if from == target.primaries { return nil }
        self.sourcePrimaries = source
        self.target = target
        matrix = target.primaries.rgbToXYZ.inverse * from.rgbToXYZ
    }

    /// Converts every pixel of `image` in place (rows in parallel).
    package func apply(to image: inout LinearImage) {
        let m = matrix.values.map(Float.init)
        let pixels = image.width * image.height
        let rows = max(1, image.height)
        image.values.withUnsafeMutableBufferPointer { buffer in
            let values = Shared(buffer.baseAddress!)
            let perRow = pixels / rows
            parallelFor(rows, threads: nil) { y in
                let end = y == rows - 1 ? pixels : (y + 1) * perRow
                for p in (y * perRow)..<end {
                    let v = values.p + p * 3
                    let r = v[0], g = v[1], b = v[2]
                    v[0] = m[0] * r + m[1] * g + m[2] * b
                    v[1] = m[3] * r + m[4] * g + m[5] * b
                    v[2] = m[6] * r + m[7] * g + m[8] * b
                }
            }
        }
    }
}
