/// A four-character code naming a box, a codec or a handler.
public struct FourCC: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// From exactly four bytes of text (MacRoman/Latin-1 code points ≤ 0xFF, e.g. `©nam`).
    public init?(code text: String) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 4, scalars.allSatisfy({ $0.value <= 0xFF }) else { return nil }
        rawValue = scalars.reduce(0) { $0 << 8 | $1.value }
    }

    public init(stringLiteral value: String) {
        guard let code = FourCC(code: value) else { preconditionFailure("not a four-character code: \(value)") }
        self = code
    }

    public var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }

    /// Printable form: the four characters, with anything unprintable shown as `\xNN` so a
    /// hostile file cannot put control characters on the user's terminal.
    public var description: String {
        var out = ""
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else if byte == 0xA9 {
                out += "©"
            } else {
                out += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    public static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
