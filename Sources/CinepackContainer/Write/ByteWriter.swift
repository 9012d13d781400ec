/// Big-endian byte builder for box payloads, with size back-patching for nested boxes.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    public var count: Int { bytes.count }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { append(v) }
    public mutating func u24(_ v: UInt32) { bytes += [UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    public mutating func u32(_ v: UInt32) { append(v) }
    public mutating func u64(_ v: UInt64) { append(v) }
    public mutating func i16(_ v: Int16) { append(UInt16(bitPattern: v)) }
    public mutating func i32(_ v: Int32) { append(UInt32(bitPattern: v)) }
    public mutating func i64(_ v: Int64) { append(UInt64(bitPattern: v)) }
    public mutating func f32(_ v: Float) { append(v.bitPattern) }
    public mutating func f64(_ v: Double) { append(v.bitPattern) }
    public mutating func fourCC(_ code: FourCC) { append(code.rawValue) }
    public mutating func bytes(_ data: some Sequence<UInt8>) { bytes.append(contentsOf: data) }
    public mutating func zeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }
    public mutating func fixed16_16(_ v: Double) { i32(Int32(clamping: Int64((v * 65536).rounded()))) }
    public mutating func fixed8_8(_ v: Double) { i16(Int16(clamping: Int64((v * 256).rounded()))) }
    public mutating func fullBoxHeader(version: UInt8, flags: UInt32) { u32(UInt32(version) << 24 | flags & 0xFF_FFFF) }
    public mutating func cString(_ s: String) { bytes(s.utf8); u8(0) }

    /// Writes a box whose payload `body` produces; picks a 64-bit size only when it must.
    public mutating func box(_ type: FourCC, _ body: (inout ByteWriter) throws -> Void) rethrows {
        let start = bytes.count
        u32(0)
        fourCC(type)
        try body(&self)
        let size = bytes.count - start
        if size <= Int(UInt32.max) {
            patch(UInt32(size), at: start)
        } else {
            // Re-emit the header as size=1 + largesize, shifting the payload by 8 bytes.
            bytes.insert(contentsOf: [UInt8](repeating: 0, count: 8), at: start + 8)
            patch(UInt32(1), at: start)
            let large = UInt64(size + 8)
            for i in 0..<8 { bytes[start + 8 + i] = UInt8(large >> (56 - 8 * UInt64(i)) & 0xFF) }
        }
    }

    public mutating func patch(_ v: UInt32, at offset: Int) {
        bytes[offset] = UInt8(v >> 24)
        bytes[offset + 1] = UInt8(v >> 16 & 0xFF)
        bytes[offset + 2] = UInt8(v >> 8 & 0xFF)
        bytes[offset + 3] = UInt8(v & 0xFF)
    }

    private mutating func append<T: FixedWidthInteger>(_ v: T) {
        var big = v.bigEndian
        withUnsafeBytes(of: &big) { bytes.append(contentsOf: $0) }
    }
}

/// A box content that can be written back. `write` emits the payload only (no header).
public protocol SerializableBox: BoxContent {
    static var boxType: FourCC { get }
    func writePayload(to writer: inout ByteWriter)
}

extension SerializableBox {
    /// The whole box, header included.
    public func serialized() -> [UInt8] {
        var writer = ByteWriter()
        writer.box(Self.boxType) { writePayload(to: &$0) }
        return writer.bytes
    }
}
