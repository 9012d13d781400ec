/// A dense `width × height` array of SIMD4<Float> (unpadded), zeroed.
final class Quads: @unchecked Sendable {
    let width: Int
    let height: Int
    let storage: RawBuffer<SIMD4<Float>>
    let p: UnsafeMutablePointer<SIMD4<Float>>

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        storage = RawBuffer(count: width * height)
        p = storage.base
    }
}
