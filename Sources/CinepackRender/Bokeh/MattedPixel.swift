/// One pixel split by `DepthEdgeMatte` into its sharp and blurred sides: what the engine is given
/// there, and what is put back over the engine's output, `out = (1 − share) · engine + front`.
struct MattedPixel {
    /// Index of the pixel in the picture (row-major).
    var index: Int
    /// The engine's input at the pixel: its colour (linear light) and disparity.
    var behind: SIMD3<Float>
    var disparity: Float
    /// The sharp side's coverage times the step's strength.
    var share: Float
    /// The sharp side's premultiplied colour times the step's strength.
    var front: SIMD3<Float>
    /// The sharp side's coverage α, before the step's strength.
    var coverage: Float
    /// On the blurred side beside a thin structure: the mix the coverage was measured on, to
    /// split the pixel again with the coverage the structure's geometry gives.
    var line: Line

    /// The two sides' colours the coverage moves between, and what the split needs besides.
    struct Line {
        /// Whether the pixel lies on the blurred side beside a thin structure (none of its sharp
        /// samples interior); the other fields are set only then.
        var isThin: Bool
        /// The blurred side's colour, and the sharp side's minus it (linear light).
        var back: SIMD3<Float>
        var delta: SIMD3<Float>
        /// The step's strength, the middle of the window's disparity span, and the disparity of
        /// the blurred-side sample.
        var strength: Float
        var middle: Float
        var backDisparity: Float
        /// The blurred side's samples' mean squared spread along the mix line (units of coverage).
        var spread: Float

        static let none = Line(isThin: false, back: .zero, delta: .zero, strength: 0, middle: 0, backDisparity: 0, spread: 0)
    }
}
