/// The lens model (spec/render.md §1, a contract outside tests rely on): the blur-circle diameter in
/// output pixels of a pixel at disparity `d` when focus is at `d_f`, for f-number `N`,
/// 35 mm-equivalent focal length `F` (metres) and output width `W` (pixels):
///
///     c = F² · W / (N · 0.036 · (1 − F · d_f)) · |d − d_f|
///
/// (thin lens, 36 mm-wide equivalent sensor). The signed form is negative in front of the
/// focus plane (nearer, d > d_f) and positive behind it.
public struct LensModel: Sendable, Equatable {
    /// 35 mm-equivalent focal length, millimetres.
    public var focalLength35mm: Float
    public var fNumber: Float
    /// Output width in pixels.
    public var width: Int

    public init(focalLength35mm: Float, fNumber: Float, width: Int) {
        self.focalLength35mm = focalLength35mm
        self.fNumber = fNumber
        self.width = width
    }

    /// Pixels of blur-circle diameter per diopter of |d − d_f|, for focus at `d_f`.
    public func scale(focusDisparity df: Float) -> Float {
        let f = focalLength35mm / 1000
        let denominator = fNumber * 0.036 * (1 - f * df)
        guard denominator > 0 else { return .infinity }
        return f * f * Float(width) / denominator
    }

    /// Signed blur-circle diameter in pixels: negative in front of the focus plane.
    public func signedDiameter(disparity d: Float, focusDisparity df: Float) -> Float {
        scale(focusDisparity: df) * (df - d)
    }

    /// Unsigned blur-circle diameter in pixels.
    public func diameter(disparity d: Float, focusDisparity df: Float) -> Float {
        abs(signedDiameter(disparity: d, focusDisparity: df))
    }
}
