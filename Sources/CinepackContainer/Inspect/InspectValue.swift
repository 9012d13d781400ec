/// A value in an inspection report. The same values feed the text and the JSON output.
public indirect enum InspectValue: Sendable, Equatable {
    case int(Int64)
    case double(Double)
    case string(String)
    case bool(Bool)
    case list([InspectValue])
    case object([(String, InspectValue)])
    case null

    public static func == (lhs: InspectValue, rhs: InspectValue) -> Bool {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.null, .null): true
        default: false
        }
    }

    public static func int<T: BinaryInteger>(_ value: T) -> InspectValue { .int(Int64(clamping: value)) }
    public static func fourCC(_ code: FourCC) -> InspectValue { .string(code.description) }

    /// The value as `inspect` prints it on a text line.
    public var text: String {
        switch self {
        case .int(let v): String(v)
        case .double(let v): InspectValue.format(v)
        case .string(let s): s.contains(" ") || s.isEmpty ? "\"\(s)\"" : s
        case .bool(let b): b ? "yes" : "no"
        case .list(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let pairs): "{" + pairs.map { "\($0.0)=\($0.1.text)" }.joined(separator: " ") + "}"
        case .null: "-"
        }
    }

    /// Shortest round-tripping decimal, without a trailing ".0" for whole numbers.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
