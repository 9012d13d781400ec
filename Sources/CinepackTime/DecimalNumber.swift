/// Numbers typed by people or written in text formats (options, CSV columns): decimal only, as
/// `12`, `-0.5`, `2.8`, `.5`, `1e-05`. Swift's `Double(_:)` also takes `0x10`, `0x1p3`, `nan`, `inf`
/// and `infinity`, which no user means as an f-number or an id; those are refused here, so every
/// command and reader reads numbers the same way.
package enum DecimalNumber {
    /// Why a text is not a decimal number.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package enum Reason: Sendable, Equatable {
            /// Not `[+-]digits[.digits][e[+-]digits]`.
            case notDecimal
            /// Decimal, but beyond what the type holds (`1e400` for binary64, `1e39` for binary32).
            case outOfRange
        }
        package var text: String
        package var reason: Reason
        package init(text: String, reason: Reason) {
            self.text = text
            self.reason = reason
        }
        package var description: String {
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            switch reason {
            case .notDecimal: return "\"\(shown)\" is not a decimal number (e.g. 2.8, -0.5, 1e-3)"
            case .outOfRange: return "\(shown) is too large a number"
            }
        }
    }

    /// Whether `text` is `[+-]?(digits[.digits*] | .digits)([eE][+-]?digits)?`, nothing around it.
    package static func isDecimal(_ text: Substring) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            var n = 0
            while let c = bytes.first, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
                bytes.removeFirst()
                n += 1
            }
            return n
        }
        if let c = bytes.first, c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { bytes.removeFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let c = bytes.first, c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            bytes.removeFirst()
            if let s = bytes.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { bytes.removeFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// The nearest binary64 of a decimal text; refuses hex, `nan`, `inf` and values too large.
    package static func double<S: StringProtocol>(_ text: S) throws(ParseError) -> Double {
        let s = Substring(text)
        guard isDecimal(s), let value = Double(String(s)) else { throw ParseError(text: String(s), reason: .notDecimal) }
        guard value.isFinite else { throw ParseError(text: String(s), reason: .outOfRange) }
        return value
    }

    /// The nearest binary32 of a decimal text (as EDL numbers are read, spec/edl.md §10): a value whose
    /// nearest binary32 is infinite (`1e39`) is out of range.
    package static func float<S: StringProtocol>(_ text: S) throws(ParseError) -> Float {
        let value = try double(text)
        guard Float(value).isFinite else { throw ParseError(text: String(Substring(text)), reason: .outOfRange) }
        return Float(value)
    }
}
