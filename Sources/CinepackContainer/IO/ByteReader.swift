/// A cursor over a box payload. Every read is bounded by the payload; running past it throws
/// with the absolute offset, never traps.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    /// Absolute offset of `bytes[0]` in the source, for messages.
    public let baseOffset: Int64
    public private(set) var position: Int = 0
    public var path: String

    public init(_ bytes: [UInt8], baseOffset: Int64 = 0, path: String = "") {
        self.bytes = bytes
        self.baseOffset = baseOffset
        self.path = path
    }

    public var remaining: Int { bytes.count - position }
    public var isAtEnd: Bool { position >= bytes.count }
    public var absolutePosition: Int64 { baseOffset + Int64(position) }

    public func error(_ message: String, clause: String? = nil) -> ContainerError {
        .malformed(message, offset: absolutePosition, path: path, clause: clause)
    }

    private mutating func take(_ count: Int, _ what: String) throws(ContainerError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw error("\(what) needs \(count) bytes but only \(remaining) remain in the box")
        }
        defer { position += count }
        return bytes[position..<position + count]
    }

    public mutating func skip(_ count: Int, _ what: String = "field") throws(ContainerError) {
        _ = try take(count, what)
    }

    public mutating func seek(to offset: Int) throws(ContainerError) {
        guard offset >= 0, offset <= bytes.count else { throw error("seek to \(offset) outside the box") }
        position = offset
    }

    public mutating func u8(_ what: String = "u8") throws(ContainerError) -> UInt8 {
        try take(1, what).first!
    }

    public mutating func u16(_ what: String = "u16") throws(ContainerError) -> UInt16 {
        try bigEndian(take(2, what))
    }

    public mutating func u24(_ what: String = "u24") throws(ContainerError) -> UInt32 {
        try bigEndian(take(3, what))
    }

    public mutating func u32(_ what: String = "u32") throws(ContainerError) -> UInt32 {
        try bigEndian(take(4, what))
    }

    public mutating func u64(_ what: String = "u64") throws(ContainerError) -> UInt64 {
        try bigEndian(take(8, what))
    }

    public mutating func i16(_ what: String = "i16") throws(ContainerError) -> Int16 { Int16(bitPattern: try u16(what)) }
    public mutating func i32(_ what: String = "i32") throws(ContainerError) -> Int32 { Int32(bitPattern: try u32(what)) }
    public mutating func i64(_ what: String = "i64") throws(ContainerError) -> Int64 { Int64(bitPattern: try u64(what)) }

    public mutating func f32(_ what: String = "f32") throws(ContainerError) -> Float {
        Float(bitPattern: try u32(what))
    }

    public mutating func f64(_ what: String = "f64") throws(ContainerError) -> Double {
        Double(bitPattern: try u64(what))
    }

    public mutating func fourCC(_ what: String = "four-character code") throws(ContainerError) -> FourCC {
        FourCC(rawValue: try u32(what))
    }

    /// 16.16 fixed point.
    public mutating func fixed16_16(_ what: String = "fixed 16.16") throws(ContainerError) -> Double {
        Double(Int32(bitPattern: try u32(what))) / 65536
    }

    /// 8.8 fixed point.
    public mutating func fixed8_8(_ what: String = "fixed 8.8") throws(ContainerError) -> Double {
        Double(Int16(bitPattern: try u16(what))) / 256
    }

    public mutating func bytes(_ count: Int, _ what: String = "bytes") throws(ContainerError) -> [UInt8] {
        Array(try take(count, what))
    }

    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[position...])
    }

    /// Version and flags of a full box (ISO/IEC 14496-12 §4.2).
    public mutating func fullBoxHeader() throws(ContainerError) -> (version: UInt8, flags: UInt32) {
        let word = try u32("version and flags")
        return (UInt8(word >> 24), word & 0xFF_FFFF)
    }

    /// A NUL-terminated UTF-8 string that may also end at the end of the box (common in `hdlr`).
    public mutating func cString(_ what: String = "string") -> String {
        let end = bytes[position...].firstIndex(of: 0) ?? bytes.count
        defer { position = min(bytes.count, end + 1) }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    /// A Pascal string (length byte then text) inside a fixed-width field, as in `compressorname`.
    public mutating func pascalString(fieldWidth: Int, _ what: String = "name") throws(ContainerError) -> String {
        let field = try take(fieldWidth, what)
        guard let length = field.first else { return "" }
        let text = field.dropFirst().prefix(Int(length))
        return String(decoding: text, as: UTF8.self)
    }

    private func bigEndian<T: FixedWidthInteger>(_ slice: ArraySlice<UInt8>) -> T {
        slice.reduce(T.zero) { $0 << 8 | T($1) }
    }
}
