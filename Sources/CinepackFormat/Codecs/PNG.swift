import CinepackCompression

// Shared pieces of the PNG codec (ISO/IEC 15948, "PNG spec" below; clause numbers are the
// W3C PNG Third Edition's). Decoder and encoder live in PNGDecoder.swift / PNGEncoder.swift.

/// A PNG decode or encode failure. A struct with static members so new cases do not break callers;
/// `code` identifies the kind for programs, `message` says what and where for people.
public struct PNGError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure, stable across message wording changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        public static let badSignature = Code("badSignature")
        public static let truncated = Code("truncated")
        public static let badChunk = Code("badChunk")
        public static let crcMismatch = Code("crcMismatch")
        public static let chunkOrder = Code("chunkOrder")
        public static let badHeader = Code("badHeader")
        public static let tooLarge = Code("tooLarge")
        public static let badPalette = Code("badPalette")
        public static let unknownCriticalChunk = Code("unknownCriticalChunk")
        public static let missingChunk = Code("missingChunk")
        public static let compression = Code("compression")
        public static let imageDataSize = Code("imageDataSize")
        public static let badFilter = Code("badFilter")
        public static let badPixel = Code("badPixel")
        public static let unsupported = Code("unsupported")
    }

    public let code: Code
    public let message: String
    /// Byte offset in the PNG stream the error refers to, when there is one.
    public let offset: Int?

    public init(_ code: Code, _ message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String { message }

    static func at(_ chunk: String, _ offset: Int) -> String { "PNG chunk \(chunk) at byte \(offset)" }

    public static func badSignature(found: [UInt8]) -> PNGError {
        let hex = found.map { hex2($0) }.joined(separator: " ")
        return PNGError(
            .badSignature, "PNG signature missing at byte 0 (found \(hex.isEmpty ? "no bytes" : hex))",
            offset: 0)
    }
    public static func truncated(_ what: String, offset: Int, needed: Int, available: Int) -> PNGError {
        PNGError(
            .truncated, "PNG truncated at byte \(offset): \(what) needs \(needed) bytes, \(available) left",
            offset: offset)
    }
    public static func chunkPastEnd(_ chunk: String, offset: Int, length: UInt32, available: Int) -> PNGError {
        PNGError(
            .truncated,
            "\(at(chunk, offset)): length \(length) runs past the end of the data (\(available) bytes left)",
            offset: offset)
    }
    public static func badChunk(_ chunk: String, offset: Int, _ detail: String) -> PNGError {
        PNGError(.badChunk, "\(at(chunk, offset)): \(detail)", offset: offset)
    }
    public static func crcMismatch(_ chunk: String, offset: Int, stored: UInt32, computed: UInt32) -> PNGError {
        PNGError(
            .crcMismatch,
            "\(at(chunk, offset)): CRC mismatch (stored 0x\(hex8(stored)), computed 0x\(hex8(computed)))",
            offset: offset)
    }
    public static func chunkOrder(_ chunk: String, offset: Int, _ rule: String) -> PNGError {
        PNGError(.chunkOrder, "\(at(chunk, offset)): \(rule) (PNG spec 5.6)", offset: offset)
    }
    public static func badHeader(offset: Int, _ detail: String) -> PNGError {
        PNGError(.badHeader, "\(at("IHDR", offset)): \(detail) (PNG spec 11.2.1)", offset: offset)
    }
    public static func tooLarge(offset: Int, _ detail: String) -> PNGError {
        PNGError(.tooLarge, "\(at("IHDR", offset)): \(detail)", offset: offset)
    }
    public static func badPalette(_ chunk: String, offset: Int, _ detail: String) -> PNGError {
        PNGError(.badPalette, "\(at(chunk, offset)): \(detail)", offset: offset)
    }
    public static func unknownCriticalChunk(_ chunk: String, offset: Int) -> PNGError {
        PNGError(
            .unknownCriticalChunk,
            "\(at(chunk, offset)): unknown critical chunk, cannot decode safely (PNG spec 5.4)",
            offset: offset)
    }
    public static func missingChunk(_ chunk: String, offset: Int, _ detail: String) -> PNGError {
        PNGError(.missingChunk, "PNG chunk \(chunk) missing at byte \(offset): \(detail)", offset: offset)
    }
    public static func compression(offset: Int, _ detail: String) -> PNGError {
        PNGError(.compression, "\(at("IDAT", offset)): zlib data \(detail)", offset: offset)
    }
    public static func imageDataSize(offset: Int, expected: Int, actual: String) -> PNGError {
        PNGError(
            .imageDataSize,
            "\(at("IDAT", offset)): image data inflates to \(actual) bytes, "
                + "the header implies exactly \(expected)",
            offset: offset)
    }
    public static func badFilter(offset: Int, pass: Int?, row: Int, filter: UInt8) -> PNGError {
        let passText = pass.map { " of Adam7 pass \($0)" } ?? ""
        return PNGError(
            .badFilter,
            "\(at("IDAT", offset)): row \(row)\(passText) has unknown filter type \(filter) (PNG spec 7.3)",
            offset: offset)
    }
    public static func badPixel(offset: Int, pass: Int?, row: Int, _ detail: String) -> PNGError {
        let passText = pass.map { " of Adam7 pass \($0)" } ?? ""
        return PNGError(.badPixel, "\(at("IDAT", offset)): row \(row)\(passText): \(detail)", offset: offset)
    }
    public static func unsupported(_ detail: String) -> PNGError {
        PNGError(.unsupported, "PNG encode: \(detail)")
    }
}

@inline(__always) private func hex2(_ b: UInt8) -> String {
    let s = String(b, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}
@inline(__always) private func hex8(_ v: UInt32) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 8 - s.count)) + s
}

/// Caps applied before anything is allocated, so a hostile header cannot make the decoder reserve
/// memory the file could never fill.
public struct PNGLimits: Sendable, Equatable {
    public var maxWidth: Int
    public var maxHeight: Int
    /// Cap on decoded samples (`width * height * output channels`).
    public var maxSamples: Int

    public init(maxWidth: Int, maxHeight: Int, maxSamples: Int) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxSamples = maxSamples
    }

    /// 16384 × 16384 pixels and 2^28 samples (a 16-bit RGBA 8K frame is 2^27): enough for any
    /// cinema frame or disparity map, small enough that a bogus header fails fast.
    public static let `default` = PNGLimits(maxWidth: 16384, maxHeight: 16384, maxSamples: 1 << 28)
}

/// Row filter selection for the encoder (PNG spec 7.3, 9).
public enum PNGFilterStrategy: Sendable, Equatable, CaseIterable {
    case none, sub, up, average, paeth
    /// Per row, the filter whose output has the smallest sum of absolute values (bytes read as
    /// signed): the heuristic the PNG spec (12.8) recommends and libpng uses.
    case adaptive
}

/// Constants and helpers shared by decoder and encoder.
enum PNGFormat {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    // Chunk type codes as big-endian UInt32.
    static let IHDR: UInt32 = 0x4948_4452
    static let PLTE: UInt32 = 0x504C_5445
    static let IDAT: UInt32 = 0x4944_4154
    static let IEND: UInt32 = 0x4945_4E44
    static let tRNS: UInt32 = 0x7452_4E53

    /// Largest chunk length the spec allows (2^31 - 1, clause 5.3).
    static let maxChunkLength: UInt32 = 0x7FFF_FFFF

    static func chunkName(_ type: UInt32) -> String {
        // Chunk types are ASCII letters when valid; print anything else as escaped bytes so a
        // corrupt name still reads sensibly in an error message.
        var s = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let b = UInt8(truncatingIfNeeded: type >> UInt32(shift))
            if (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) {
                s.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                s += "\\x" + hex2(b)
            }
        }
        return s
    }

    /// Adam7 passes (PNG spec 8.2): (x start, y start, x step, y step).
    static let adam7: [(x0: Int, y0: Int, dx: Int, dy: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    /// Pixels in a pass along one axis: ceil((size - start) / step), 0 if the pass misses the image.
    @inline(__always)
    static func passExtent(_ size: Int, start: Int, step: Int) -> Int {
        size > start ? (size - start + step - 1) / step : 0
    }

    /// Bytes in a scanline of `width` pixels (without the filter byte), overflow-checked.
    static func rowBytes(width: Int, bitsPerPixel: Int) -> Int? {
        let (bits, o) = width.multipliedReportingOverflow(by: bitsPerPixel)
        if o { return nil }
        let (padded, o2) = bits.addingReportingOverflow(7)
        return o2 ? nil : padded / 8
    }

    /// Paeth predictor (PNG spec 9.4), computed exactly as the spec's pseudo-code.
    @inline(__always)
    static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let ia = Int(a), ib = Int(b), ic = Int(c)
        let p = ia + ib - ic
        let pa = abs(p - ia), pb = abs(p - ib), pc = abs(p - ic)
        if pa <= pb && pa <= pc { return a }
        if pb <= pc { return b }
        return c
    }

    /// Writes one chunk (length, type, data, CRC over type and data).
    static func appendChunk(_ type: UInt32, _ data: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        appendUInt32(UInt32(data.count), to: &out)
        let typeBytes = bigEndianBytes(type)
        out.append(contentsOf: typeBytes)
        out.append(contentsOf: data)
        var crc = Zlib.crc32(typeBytes)
        crc = Zlib.crc32(data, continuing: crc)
        appendUInt32(crc, to: &out)
    }

    @inline(__always)
    static func bigEndianBytes(_ v: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16),
            UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v),
        ]
    }

    @inline(__always)
    static func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
        out.append(contentsOf: bigEndianBytes(v))
    }
}
