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
}
