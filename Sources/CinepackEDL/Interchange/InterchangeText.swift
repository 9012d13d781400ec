import CinepackContainer
import CinepackFormat
import CinepackTime

/// Text helpers shared by the OTIO and FCPXML writers.
enum InterchangeText {
    /// A `Float` as the shortest decimal that reads back to it (`2.8`, not `2.799999952316284`):
    /// EDL and metadata values are binary32, and tools should see the number the user typed.
    static func decimal(_ value: Float) -> Double {
        guard value.isFinite else { return Double(value) }
        return Double("\(value)") ?? Double(value)
    }

    /// `decimal` as text, without a trailing `.0` (`2.8`, `16`).
    static func decimalText(_ value: Float) -> String {
        let d = decimal(value)
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    /// The file name without directory or extension: the default clip and project name.
    static func fileStem(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters.
    static func percentEncoded(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    /// Rational form of a media time for the metadata dictionaries: exact integers, no floating point.
    static func rational(_ t: MediaTime) -> InspectValue {
        .object([("value", .integer(t.value)), ("timescale", .integer(t.timescale))])
    }

    /// A focus target as a metadata dictionary: `kind` plus the fields of that kind.
    static func target(_ target: FocusTarget) -> InspectValue {
        switch target {
        case .none: .object([("kind", .string("none"))])
        case .detection(let id): .object([("kind", .string("detection")), ("id", .integer(id))])
        case .group(let id): .object([("kind", .string("group")), ("id", .integer(id))])
        case .fixedDisparity(let d): .object([("kind", .string("fixed")), ("disparity", number(d))])
        case .point(let x, let y): .object([("kind", .string("point")), ("x", number(x)), ("y", number(y))])
        }
    }

    /// A binary32 as a JSON number (null when not finite, which JSON cannot hold).
    static func number(_ value: Float) -> InspectValue {
        value.isFinite ? .double(decimal(value)) : .null
    }
}

extension InspectValue {
    /// An integer value. (`.int` is both a case taking `Int64` and a generic factory, which makes
    /// `.int(x)` ambiguous for `Int64` arguments inside literals.)
    static func integer<T: BinaryInteger>(_ value: T) -> InspectValue {
        InspectValue.int(Int(clamping: value))  // Int, not Int64: only the generic factory takes it
    }
}
