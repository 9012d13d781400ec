/// The full-resolution rows a task's level-1 cells are built from under the tent (`ChildTent`):
/// each pixel's blur radius, near share and colour, worked out once a row and kept for the four
/// rows under a cell row's tent, which overlap from one cell row to the next. A ring of four rows
/// with zeros either side of each (the tent reads a column left of a group and up to 17 right of
/// its first child).
final class FirstLevelRows: @unchecked Sendable {
    enum Plane: Int, CaseIterable {
        /// |signed radius| (pixels).
        case radius
        /// How much of the pixel is near field (`BlurRadius.nearShare`).
        case near
        case red, green, blue
    }

    /// Zeros left of each row.
    static let margin = 8
    let width: Int
    let stride: Int
    private let storage: RawBuffer<Float>
    /// The picture row each ring slot holds (−1: none yet).
    private var held = [Int](repeating: -1, count: 4)

    init(width: Int) {
        self.width = width
        stride = (Self.margin + width + 24 + 7) & ~7
        storage = RawBuffer(count: stride * 4 * Plane.allCases.count)
    }

    /// Column 0 of `plane` in ring slot 0 (row y lies `rowStart(y)` further on).
    @inline(__always) func origin(_ plane: Plane) -> UnsafeMutablePointer<Float> {
        storage.base + plane.rawValue * 4 * stride + Self.margin
    }

    /// Offset of picture row `y`'s slot.
    @inline(__always) func rowStart(_ y: Int) -> Int { (y & 3) * stride }

    /// Works out picture row `y` (unless its slot holds it already) from the interleaved linear
    /// picture and the disparity, `width` pixels a row.
    func fill(_ y: Int, picture: UnsafePointer<Float>, disparity: UnsafePointer<Float>, radius: BlurRadius) {
        guard held[y & 3] != y else { return }
        held[y & 3] = y
        let o = rowStart(y)
        let (ra, ne) = (origin(.radius) + o, origin(.near) + o)
        let (re, gr, bl) = (origin(.red) + o, origin(.green) + o, origin(.blue) + o)
        let p = y * width
        var x = 0
        while x + 8 <= width {
            let r = radius.signed(UnsafeRawPointer(disparity + p + x).loadUnaligned(as: SIMD8<Float>.self))
            let (red, green, blue) = loadRGB8(picture + 3 * (p + x))
            store8(ra + x, vabs(r))
            store8(ne + x, BlurRadius.nearShare(r))
            store8(re + x, red)
            store8(gr + x, green)
            store8(bl + x, blue)
            x += 8
        }
        while x < width {
            let r = radius.signed(disparity[p + x])
            ra[x] = abs(r)
            ne[x] = BlurRadius.nearShare(r)
            re[x] = picture[3 * (p + x)]
            gr[x] = picture[3 * (p + x) + 1]
            bl[x] = picture[3 * (p + x) + 2]
            x += 1
        }
    }
}
