/// The chromaticities (CIE 1931 xy) of an RGB colour space's red, green and blue primaries and of
/// its white point, and the matrix from its linear RGB to CIE XYZ derived from them
/// (spec/colour.md §5): the conversions between colour spaces are computed, not tabulated.
package struct RGBPrimaries: Sendable, Equatable {
    package typealias XY = (x: Double, y: Double)
    package let red: XY, green: XY, blue: XY, white: XY

    package init(red: XY, green: XY, blue: XY, white: XY) {
        self.red = red
        self.green = green
        self.blue = blue
        self.white = white
    }

    package static func == (a: RGBPrimaries, b: RGBPrimaries) -> Bool {
        [a.red, a.green, a.blue, a.white].elementsEqual([b.red, b.green, b.blue, b.white]) { $0.x == $1.x && $0.y == $1.y }
    }

    /// CIE standard illuminant D65, as ITU-R BT.709/BT.2020 and SMPTE EG 432 write it.
    package static let d65: XY = (0.3127, 0.3290)
    /// ITU-R BT.709 (also sRGB's primaries).
    package static let bt709 = RGBPrimaries(red: (0.640, 0.330), green: (0.300, 0.600), blue: (0.150, 0.060), white: d65)
    /// ITU-R BT.2020 (and BT.2100).
    package static let bt2020 = RGBPrimaries(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046), white: d65)
    /// SMPTE EG 432-1 Display P3 (P3 primaries, D65 white).
    package static let p3d65 = RGBPrimaries(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: d65)
    /// ITU-R BT.601 625 lines (EBU).
    package static let bt470bg = RGBPrimaries(red: (0.640, 0.330), green: (0.290, 0.600), blue: (0.150, 0.060), white: d65)
    /// SMPTE 170M / BT.601 525 lines (also SMPTE 240M).
    package static let smpte170m = RGBPrimaries(red: (0.630, 0.340), green: (0.310, 0.595), blue: (0.155, 0.070), white: d65)
    /// SMPTE RP 431-2 DCI-P3: P3 primaries with the DCI white point; refused as a conversion
    /// source (a white point other than D65 needs chromatic adaptation, which cinepack does not do).
    package static let dciP3 = RGBPrimaries(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: (0.314, 0.351))

    /// The primaries of an ISO/IEC 23091-2 `ColourPrimaries` code point, nil for codes without
    /// RGB primaries cinepack knows. Unspecified (2) is BT.709: an untagged picture is rendered
    /// as sRGB, whose primaries are BT.709's.
    package init?(code: Int) {
        switch code {
        case 1, 2: self = .bt709
        case 5: self = .bt470bg
        case 6, 7: self = .smpte170m
        case 9: self = .bt2020
        case 11: self = .dciP3
        case 12: self = .p3d65
        default: return nil
        }
    }

    /// The 3×3 matrix (row-major) from linear RGB in these primaries to CIE XYZ, with the white
    /// point at Y = 1 (SMPTE RP 177): the columns are the primaries' XYZ scaled so that RGB = 1, 1, 1
    /// is the white point.
    package var rgbToXYZ: Matrix3 {
        func xyz(_ c: XY) -> [Double] { [c.x / c.y, 1, (1 - c.x - c.y) / c.y] }
        let r = xyz(red), g = xyz(green), b = xyz(blue), w = xyz(white)
        let p = Matrix3(rows: [[r[0], g[0], b[0]], [r[1], g[1], b[1]], [r[2], g[2], b[2]]])
        // Scale of each primary: P · S = W.
        let s = p.inverse * w
        return Matrix3(rows: (0..<3).map { i in (0..<3).map { j in p[i, j] * s[j] } })
    }
}

/// A 3×3 matrix of doubles, row-major: the little linear algebra a colour conversion needs.
package struct Matrix3: Sendable, Equatable {
    package var values: [Double]

    package init(rows: [[Double]]) {
        precondition(rows.count == 3 && rows.allSatisfy { $0.count == 3 }, "a 3×3 matrix needs three rows of three")
        values = rows.flatMap { $0 }
    }

    package subscript(i: Int, j: Int) -> Double { values[i * 3 + j] }

    package static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i, $1] * b[$1, j] } } })
    }

    package static func * (a: Matrix3, v: [Double]) -> [Double] {
        (0..<3).map { i in a[i, 0] * v[0] + a[i, 1] * v[1] + a[i, 2] * v[2] }
    }

    /// The inverse, by cofactors (the matrices here are far from singular).
    package var inverse: Matrix3 {
        let m = self
        func c(_ i: Int, _ j: Int) -> Double {
            let r = [0, 1, 2].filter { $0 != i }, k = [0, 1, 2].filter { $0 != j }
            let minor = m[r[0], k[0]] * m[r[1], k[1]] - m[r[0], k[1]] * m[r[1], k[0]]
            return (i + j) % 2 == 0 ? minor : -minor
        }
        let det = (0..<3).reduce(0) { $0 + m[0, $1] * c(0, $1) }
        // The inverse is the transposed cofactor matrix over the determinant.
        return Matrix3(rows: (0..<3).map { i in (0..<3).map { j in c(j, i) / det } })
    }
}
