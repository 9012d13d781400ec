import CinepackContainer

/// How a picture's code values map to colour: the code points of ISO/IEC 23091-2 (ITU-T H.273),
/// the same numbers the container's `colr` box (`nclx`/`nclc`), the codecs' VUI and ffmpeg use.
/// `spec/colour.md` says how the renderer uses them.
public struct ColourDescription: Sendable, Equatable, CustomStringConvertible {
    /// Colour primaries: 1 BT.709, 9 BT.2020, 12 Display P3 (SMPTE EG 432), 2 unspecified.
    public var primaries: Int
    /// Transfer characteristics: 1/6/14/15 BT.709 family, 13 sRGB, 16 PQ, 18 HLG, 8 linear, 2 unspecified.
    public var transfer: Int
    /// Matrix coefficients: 0 identity (RGB), 1 BT.709, 5/6 BT.601, 9 BT.2020 non-constant, 2 unspecified.
    public var matrix: Int
    /// Full range (0…2ⁿ−1) or limited ("video", 16…235 at 8 bits).
    public var fullRange: Bool

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    /// Nothing said: the renderer then assumes sRGB, as it always has for PNG sources.
    public static let unspecified = ColourDescription(primaries: 2, transfer: 2, matrix: 2, fullRange: true)

    /// BT.709 high definition, limited range.
    public static let bt709 = ColourDescription(primaries: 1, transfer: 1, matrix: 1, fullRange: false)

    public var isSpecified: Bool { primaries != 2 || transfer != 2 || matrix != 2 }

    public var description: String {
        "\(Self.name(Self.primariesNames, primaries))/\(Self.name(Self.transferNames, transfer))/\(Self.name(Self.matrixNames, matrix))/\(fullRange ? "full" : "limited")"
    }

    // MARK: - ffmpeg names

    /// ffmpeg's names (`-color_primaries`, ffprobe's `color_primaries`) for the code points it knows.
    static let primariesNames: [Int: String] = [
        1: "bt709", 2: "unknown", 4: "bt470m", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m", 8: "film", 9: "bt2020",
        10: "smpte428", 11: "smpte431", 12: "smpte432", 22: "jedec-p22",
    ]
    static let transferNames: [Int: String] = [
        1: "bt709", 2: "unknown", 4: "gamma22", 5: "gamma28", 6: "smpte170m", 7: "smpte240m", 8: "linear", 9: "log100",
        10: "log316", 11: "iec61966-2-4", 12: "bt1361e", 13: "iec61966-2-1", 14: "bt2020-10", 15: "bt2020-12", 16: "smpte2084",
        17: "smpte428", 18: "arib-std-b67",
    ]
    static let matrixNames: [Int: String] = [
        0: "gbr", 1: "bt709", 2: "unknown", 4: "fcc", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m", 8: "ycgco", 9: "bt2020nc",
        10: "bt2020c", 11: "smpte2085", 12: "chroma-derived-nc", 13: "chroma-derived-c", 14: "ictcp",
    ]

    static func name(_ table: [Int: String], _ code: Int) -> String { table[code] ?? "\(code)" }

    public var primariesName: String { Self.name(Self.primariesNames, primaries) }
    public var transferName: String { Self.name(Self.transferNames, transfer) }
    public var matrixName: String { Self.name(Self.matrixNames, matrix) }
    /// ffmpeg's `-color_range` value.
    public var rangeName: String { fullRange ? "pc" : "tv" }

    /// From ffprobe's `color_primaries`, `color_transfer`, `color_space` and `color_range`; names
    /// ffmpeg reports that are not code points ("unknown", "reserved", absent) count as unspecified.
    public init(ffprobe primaries: String?, transfer: String?, matrix: String?, range: String?) {
        func code(_ table: [Int: String], _ name: String?) -> Int {
            // ffprobe says "bt470bg" both for primaries 5 and matrix 5, and "smpte170m" for 6: the table decides.
            guard let name else { return 2 }
            return table.first { $0.value == name }?.key ?? 2
        }
        self.init(
            primaries: code(Self.primariesNames, primaries), transfer: code(Self.transferNames, transfer),
            matrix: code(Self.matrixNames, matrix), fullRange: range == "pc")
    }

    // MARK: - colr box

    /// The payload of a `colr` box (ISO/IEC 14496-12 §12.1.5, QuickTime `nclc`): nil for an ICC
    /// profile (`prof`, `rICC`), which describes colour another way.
    public static func parse(colr payload: [UInt8], at offset: Int64, path: String) throws(ColourError) -> ColourDescription? {
        guard payload.count >= 4 else { throw .truncated(path: path, offset: offset, count: payload.count, needed: 4) }
        let type = FourCC(rawValue: UInt32(payload[0]) << 24 | UInt32(payload[1]) << 16 | UInt32(payload[2]) << 8 | UInt32(payload[3]))
        func u16(_ i: Int) -> Int { Int(payload[i]) << 8 | Int(payload[i + 1]) }
        switch type {
        case "nclx":
            guard payload.count >= 11 else { throw .truncated(path: path, offset: offset, count: payload.count, needed: 11) }
            return ColourDescription(primaries: u16(4), transfer: u16(6), matrix: u16(8), fullRange: payload[10] & 0x80 != 0)
        case "nclc":
            // QuickTime's older form has no range flag: video range is its convention.
            guard payload.count >= 10 else { throw .truncated(path: path, offset: offset, count: payload.count, needed: 10) }
            return ColourDescription(primaries: u16(4), transfer: u16(6), matrix: u16(8), fullRange: false)
        case "prof", "rICC":
            return nil
        default:
            throw .unknownType(path: path, offset: offset, type: type.description)
        }
    }

    /// A `colr` box of type `nclx` carrying this description (what ffmpeg's mov muxer writes too).
    public func colrBox() -> [UInt8] {
        var w = ByteWriter()
        w.box("colr") { b in
            b.bytes(Array("nclx".utf8))
            b.u16(UInt16(clamping: primaries))
            b.u16(UInt16(clamping: transfer))
            b.u16(UInt16(clamping: matrix))
            b.u8(fullRange ? 0x80 : 0)
        }
        return w.bytes
    }
}

/// Why a colour description could not be read.
public enum ColourError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated(path: String, offset: Int64, count: Int, needed: Int)
    case unknownType(path: String, offset: Int64, type: String)

    public var description: String {
        switch self {
        case .truncated(let path, let offset, let count, let needed):
            "\(path): colr box at byte \(offset) holds \(count) bytes, its colour type needs \(needed) (ISO/IEC 14496-12 §12.1.5)"
        case .unknownType(let path, let offset, let type):
            "\(path): colr box at byte \(offset) has colour type '\(type)', not nclx, nclc, prof or rICC (ISO/IEC 14496-12 §12.1.5)"
        }
    }
}
