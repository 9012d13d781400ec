import CinepackFormat

/// A colour space a render can convert its pictures to (`render --colour-space`): the primaries
/// and the YCbCr matrix that goes with them. Names are ffmpeg's `color_primaries` names where it
/// has one; Display P3 is `p3d65` (ffmpeg: `smpte432`, also accepted).
public enum ColourSpace: String, Sendable, CaseIterable, CustomStringConvertible {
    case bt709, bt2020, p3d65

    /// Parses a name: `bt709`, `bt2020`, `p3d65` or ffmpeg's `smpte432`.
    public init?(name: String) {
        if name == "smpte432" {
            self = .p3d65
            return
        }
        self.init(rawValue: name)
    }

    /// The ISO/IEC 23091-2 `ColourPrimaries` code point written into the output.
    public var primariesCode: Int {
        switch self {
        case .bt709: 1
        case .bt2020: 9
        case .p3d65: 12
        }
    }

    /// The `MatrixCoefficients` code point of a YCbCr output: BT.709's for BT.709, BT.2020
    /// non-constant luminance for BT.2020, and BT.709's for Display P3 (what P3 video from Apple
    /// devices carries).
    public var matrixCode: Int {
        switch self {
        case .bt709, .p3d65: 1
        case .bt2020: 9
        }
    }

    package var primaries: RGBPrimaries {
        switch self {
        case .bt709: .bt709
        case .bt2020: .bt2020
        case .p3d65: .p3d65
        }
    }

    public var description: String {
        switch self {
        case .bt709: "BT.709"
        case .bt2020: "BT.2020"
        case .p3d65: "Display P3 (D65)"
        }
    }
}
