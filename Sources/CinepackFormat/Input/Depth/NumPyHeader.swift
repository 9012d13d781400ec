import Foundation

/// The header of a NumPy `.npy` array (format versions 1–3): element type, byte order and shape,
/// and where the data starts. Arrays are taken in C order only (NumPy's default).
package struct NumPyHeader: Sendable, Equatable {
    package enum Element: String, Sendable {
        case float16 = "f2", float32 = "f4", float64 = "f8"
        case uint8 = "u1", int8 = "i1", uint16 = "u2", int16 = "i2", uint32 = "u4", int32 = "i4"

        package var size: Int { Int(rawValue.dropFirst())! }
        package var isInteger: Bool { !rawValue.hasPrefix("f") }
        /// The largest value of an unsigned integer element (for code-style inputs).
        package var integerMaximum: Float? {
            switch self {
            case .uint8: 255
            case .uint16: 65535
            default: nil
            }
        }
    }

    package var element: Element
    package var littleEndian: Bool
    package var shape: [Int]
    /// Offset of the first data byte from the start of the `.npy` bytes.
    package var dataOffset: Int

    /// Parses the header at the start of `bytes` (the first few KiB of the file are enough).
    package static func parse(_ bytes: [UInt8], name: String) throws(DepthInputError) -> NumPyHeader {
        func bad(_ why: String) -> DepthInputError { DepthInputError(file: name, .malformed("not a NumPy .npy array: \(why)")) }
        guard bytes.count >= 10, bytes[0] == 0x93, Array(bytes[1..<6]) == Array("NUMPY".utf8) else {
            throw bad("no \\x93NUMPY magic")
        }
        let major = bytes[6]
        let lengthSize = major == 1 ? 2 : 4
        guard (1...3).contains(major), bytes.count >= 8 + lengthSize else { throw bad("format version \(major)") }
        var length = 0
        for i in 0..<lengthSize { length |= Int(bytes[8 + i]) << (8 * i) }
        let start = 8 + lengthSize
        guard length <= 1 << 20, bytes.count >= start + length else {
            throw bad("header of \(length) bytes is longer than the file")
        }
        let text = String(decoding: bytes[start..<(start + length)], as: UTF8.self)
        guard let descr = Self.value(of: "descr", in: text), descr.count >= 3 else { throw bad("no 'descr' in the header") }
        let order = descr.first!
        guard let element = Element(rawValue: String(descr.dropFirst())), order == "<" || order == ">" || order == "|" else {
            throw DepthInputError(
                file: name, .unsupported("NumPy element type '\(descr)' is not supported (float16/32/64, uint8/16/32, int8/16/32)"))
        }
        if Self.value(of: "fortran_order", in: text) == "True" {
            throw DepthInputError(file: name, .unsupported("Fortran-order arrays are not supported; save with np.ascontiguousarray"))
        }
        guard let shapeText = Self.value(of: "shape", in: text) else { throw bad("no 'shape' in the header") }
        let dims = shapeText.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " ()")) }.filter {
            !$0.isEmpty
        }
        let shape = dims.compactMap { Int($0) }
        guard shape.count == dims.count, shape.allSatisfy({ $0 >= 0 }) else { throw bad("shape \(shapeText)") }
        return NumPyHeader(element: element, littleEndian: order != ">", shape: shape, dataOffset: start + length)
    }

    /// The array as frames × height × width: (H, W), (N, H, W), and either with a trailing or
    /// (for N) second axis of 1.
    package func frames(name: String) throws(DepthInputError) -> (count: Int, height: Int, width: Int) {
        var dims = shape
        if dims.count == 4, dims[1] == 1 { dims.remove(at: 1) }
        if dims.count >= 3, dims.last == 1 { dims.removeLast() }
        switch dims.count {
        case 2: return (1, dims[0], dims[1])
        case 3: return (dims[0], dims[1], dims[2])
        default:
            throw DepthInputError(file: name, .unsupported("NumPy shape \(shape) is not H×W or N×H×W"))
        }
    }

    /// Decodes `count` elements starting at `bytes[offset]` as floats.
    package func decode(_ bytes: [UInt8], at offset: Int = 0, count: Int) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        let size = element.size
        bytes.withUnsafeBufferPointer { b in
            for i in 0..<count {
                var bits: UInt64 = 0
                let o = offset + i * size
                for k in 0..<size {
                    let byte = UInt64(b[littleEndian ? o + k : o + size - 1 - k])
                    bits |= byte << (8 * UInt64(k))
                }
                switch element {
                case .float16: out[i] = Self.half(UInt16(bits))
                case .float32: out[i] = Float(bitPattern: UInt32(bits))
                case .float64: out[i] = Float(Double(bitPattern: bits))
                case .uint8, .uint16, .uint32: out[i] = Float(bits)
                case .int8: out[i] = Float(Int8(truncatingIfNeeded: bits))
                case .int16: out[i] = Float(Int16(truncatingIfNeeded: bits))
                case .int32: out[i] = Float(Int32(truncatingIfNeeded: bits))
                }
            }
        }
        return out
    }

    /// IEEE 754 binary16 to binary32.
    static func half(_ h: UInt16) -> Float {
        let sign = UInt32(h >> 15) << 31
        let exponent = Int(h >> 10 & 0x1F)
        let mantissa = UInt32(h & 0x3FF)
        if exponent == 0x1F { return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13) }
        if exponent == 0 {
            let value = Float(mantissa) * 0x1p-24
            return sign != 0 ? -value : value
        }
        return Float(bitPattern: sign | UInt32(exponent + 112) << 23 | mantissa << 13)
    }

    /// The Python-literal value of `key` in the header dict (quotes stripped).
    private static func value(of key: String, in text: String) -> String? {
        guard let keyRange = text.range(of: "'\(key)'") else { return nil }
        var rest = text[keyRange.upperBound...].drop { $0 == " " || $0 == ":" }
        if rest.first == "(" {
            guard let close = rest.firstIndex(of: ")") else { return nil }
            return String(rest[...close])
        }
        if rest.first == "'" || rest.first == "\"" {
            let quote = rest.removeFirst()
            guard let end = rest.firstIndex(of: quote) else { return nil }
            return String(rest[..<end])
        }
        return String(rest.prefix { $0 != "," && $0 != "}" }).trimmingCharacters(in: .whitespaces)
    }
}
