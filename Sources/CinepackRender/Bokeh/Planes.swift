/// A set of planes named by an enum whose cases, in order, are the planes in memory; `count`
/// is `allCases.count`, kept as a constant.
protocol PlaneSet: CaseIterable, RawRepresentable where RawValue == Int {
    static var count: Int { get }
}

/// The planes of `Plane`, Float over a `width × height` grid with `pad` cells of zeros on every
/// side (the right side padded further so a SIMD8 read starting in the picture never leaves the
/// buffer). One zeroed allocation (pages never written cost nothing); the planes are
/// consecutive.
final class Planes<Plane: PlaneSet>: @unchecked Sendable {
    let width: Int
    let height: Int
    let pad: Int
    let stride: Int
    let rows: Int
    let storage: RawBuffer<Float>
    let base: UnsafeMutablePointer<Float>

    init(width: Int, height: Int, pad: Int) {
        self.width = width
        self.height = height
        self.pad = pad
        stride = (pad + ((width + 7) & ~7) + pad + 8 + 7) & ~7
        rows = height + 2 * pad
        storage = RawBuffer(count: stride * rows * Plane.count, largePages: true)
        base = storage.base
    }

    var planeSize: Int { stride * rows }

    /// Pointer to cell (0, 0) of `plane`.
    @inline(__always) func origin(_ plane: Plane) -> UnsafeMutablePointer<Float> { origin(plane.rawValue) }

    /// Pointer to cell (0, 0) of the plane numbered `k` (`Plane`'s raw value).
    @inline(__always) func origin(_ k: Int) -> UnsafeMutablePointer<Float> {
        base + k * planeSize + pad * stride + pad
    }

    @inline(__always) func index(_ x: Int, _ y: Int) -> Int { y * stride + x }
}
