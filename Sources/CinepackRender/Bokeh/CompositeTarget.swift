/// Where the composite goes: the finished picture (interleaved RGB), or the layers the preview
/// upsamples (`PreviewLayer`).
struct CompositeTarget: @unchecked Sendable {
    var picture: UnsafeMutablePointer<Float>? = nil
    var layers: UnsafeMutablePointer<Float>? = nil
}
