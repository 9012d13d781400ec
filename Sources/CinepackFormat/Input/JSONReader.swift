import Foundation

/// A strict JSON (RFC 8259) reader for the detections file, in one pass over the bytes. Values come
/// out as JSONSerialization gives them (`[String: Any]`, `[Any]`, `String`, `NSNumber`, `NSNull`) but
/// the caller pulls the top level apart itself, so a file's frame entries are checked one at a time
/// and memory follows one entry, not the file (JSONSerialization held 170 bytes per input byte). No
/// field of the format needs a long string, a deep nest or a huge array, so those are refused as soon
/// as they pass the limits below, which keeps time linear and memory bounded whatever the input.
struct JSONReader {
    /// Longest string (bytes of the JSON text): type names and keys are short.
    static let maxStringBytes = 4096
    /// Most elements in one array other than the streamed one: a frame's detections (65 535), and one
    /// more so the format's own message says there are too many.
    static let maxArrayCount = FocusMetadataCodec.maxDetections + 1
    /// Most members in one object: every object of the format has fewer than 16 fields.
    static let maxObjectMembers = 64
    static let maxDepth = 32

    struct Failure: Error {
        var message: String
        var offset: Int
    }

    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func fail(_ message: String) -> Failure { Failure(message: message, offset: offset) }

    var atEnd: Bool { offset >= bytes.count }

    mutating func skipSpace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    /// The next byte after white space, not consumed.
    mutating func peek() -> UInt8? {
        skipSpace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek() == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'\(found)") }
        offset += 1
    }

    /// Consumes `byte` if it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        offset += 1
        return true
    }

    private var found: String {
        offset < bytes.count ? ", found '\(Character(Unicode.Scalar(bytes[offset])))'" : ", found the end of the file"
    }

    /// After `[` or `{` has been consumed: whether another element follows (consuming the `,`), or the
    /// closing byte (consumed).
    mutating func another(_ close: UInt8, first: Bool) throws(Failure) -> Bool {
        if take(close) { return false }
        if !first { try expect(UInt8(ascii: ",")) }
        return true
    }

    mutating func value(depth: Int = 0) throws(Failure) -> Any {
        guard depth < Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth) levels") }
        guard let c = peek() else { throw fail("expected a value, found the end of the file") }
        switch c {
        case UInt8(ascii: "{"):
            offset += 1
            var object: [String: Any] = [:]
            var first = true
            while try another(UInt8(ascii: "}"), first: first) {
                first = false
                guard object.count < Self.maxObjectMembers else { throw fail("an object with more than \(Self.maxObjectMembers) members") }
                let key = try string()
                try expect(UInt8(ascii: ":"))
                object[key] = try value(depth: depth + 1)
            }
            return object
        case UInt8(ascii: "["):
            offset += 1
            var array: [Any] = []
            var first = true
            while try another(UInt8(ascii: "]"), first: first) {
                first = false
                guard array.count < Self.maxArrayCount else { throw fail("an array with more than \(Self.maxArrayCount) elements") }
                array.append(try value(depth: depth + 1))
            }
            return array
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"): return try literal("true", NSNumber(value: true))
        case UInt8(ascii: "f"): return try literal("false", NSNumber(value: false))
        case UInt8(ascii: "n"): return try literal("null", NSNull())
        default: return try number()
        }
    }

    private mutating func literal(_ word: String, _ result: Any) throws(Failure) -> Any {
        for b in word.utf8 {
            guard offset < bytes.count, bytes[offset] == b else { throw fail("expected \(word)") }
            offset += 1
        }
        return result
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, finite.
    mutating func number() throws(Failure) -> NSNumber {
        skipSpace()
        let start = offset
        func digits() -> Int {
            let from = offset
            while offset < bytes.count, bytes[offset] >= 0x30, bytes[offset] <= 0x39 { offset += 1 }
            return offset - from
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let intStart = offset
        let whole = digits()
        guard whole > 0 else { throw fail("expected a value\(found)") }
        guard whole == 1 || bytes[intStart] != 0x30 else { throw fail("a number with a leading zero") }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw fail("expected a digit after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw fail("expected a digit in the exponent") }
        }
        guard offset - start <= 400 else { throw fail("a number of more than 400 characters") }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            throw Failure(message: "the number \(text.prefix(40)) is out of range", offset: start)
        }
        return NSNumber(value: v)
    }

    mutating func string() throws(Failure) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string\(found)") }
        let start = offset
        offset += 1
        var out: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw Failure(message: "a string that never ends", offset: start) }
            guard offset - start <= Self.maxStringBytes else {
                throw Failure(
                    message: "a string longer than \(Self.maxStringBytes) bytes; no field of this format is that long", offset: start)
            }
            let b = bytes[offset]
            offset += 1
            switch b {
            case UInt8(ascii: "\""):
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw Failure(message: "a string that is not UTF-8", offset: start)
                }
                return s
            case UInt8(ascii: "\\"):
                guard offset < bytes.count else { throw fail("a string that never ends") }
                let e = bytes[offset]
                offset += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                            throw fail("a lone UTF-16 surrogate")
                        }
                        offset += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone UTF-16 surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("a lone UTF-16 surrogate") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw fail("an unknown escape '\\\(Character(Unicode.Scalar(e)))'")
                }
            case 0..<0x20: throw fail("a control character inside a string")
            default: out.append(b)
            }
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw fail("a \\u escape needs 4 hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = Character(Unicode.Scalar(bytes[offset])).hexDigitValue else { throw fail("a \\u escape needs 4 hex digits") }
            v = v << 4 | UInt32(d)
            offset += 1
        }
        return v
    }
}
