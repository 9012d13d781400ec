/// The inspection visitor (Bento4's atom-inspector pattern): the walkers in `MovieInspection`
/// call it once, and the text and JSON forms are two implementations of it, so they never disagree.
public protocol Inspector {
    /// Opens an object. `label` is the text heading; `oneLine` asks the text form to put the
    /// object's fields on its heading line (the `--boxes` style). JSON uses `key` only.
    mutating func beginObject(key: String?, label: String, oneLine: Bool)
    mutating func endObject()
    mutating func beginArray(key: String, label: String)
    mutating func endArray()
    /// A field: `key` is the stable JSON name, `label` the text label (an empty label keeps the
    /// field out of the text form), `text` the human form of the value (JSON always uses `value`).
    mutating func field(_ key: String, _ value: InspectValue, label: String?, text: String?)
}

extension Inspector {
    public mutating func field(_ key: String, _ value: InspectValue, label: String? = nil, text: String? = nil) {
        field(key, value, label: label, text: text)
    }
    public mutating func object(key: String?, label: String, oneLine: Bool = false, _ body: (inout Self) -> Void) {
        beginObject(key: key, label: label, oneLine: oneLine)
        body(&self)
        endObject()
    }
    public mutating func array(key: String, label: String, _ body: (inout Self) -> Void) {
        beginArray(key: key, label: label)
        body(&self)
        endArray()
    }
}

/// Human-readable form: indented blocks, `label: value` lines, or one line per object.
public struct TextInspector: Inspector {
    public private(set) var output = ""
    /// Per open object or array: whether it printed a heading (and so indents), whether it is one line.
    private var frames: [(indents: Bool, oneLine: Bool)] = []
    private var pendingLine: String?

    public init() {}

    private var indent: String { String(repeating: "  ", count: frames.filter(\.indents).count) }

    private mutating func flushLine() {
        if let line = pendingLine { output += line + "\n"; pendingLine = nil }
    }

    private mutating func open(label: String, oneLine: Bool) {
        flushLine()
        if oneLine { pendingLine = indent + label } else if !label.isEmpty { output += indent + label + "\n" }
        frames.append((indents: !label.isEmpty, oneLine: oneLine))
    }

    private mutating func close() {
        flushLine()
        _ = frames.popLast()
    }

    public mutating func beginObject(key: String?, label: String, oneLine: Bool) { open(label: label, oneLine: oneLine) }
    public mutating func endObject() { close() }
    public mutating func beginArray(key: String, label: String) { open(label: label, oneLine: false) }
    public mutating func endArray() { close() }

    public mutating func field(_ key: String, _ value: InspectValue, label: String?, text: String?) {
        if label == "" { return }  // JSON-only field: the text heading already shows it
        let shown = text ?? value.text
        if frames.last?.oneLine == true, let line = pendingLine {
            pendingLine = line + " \(label ?? key)=\(shown)"
        } else {
            output += indent + "\(label ?? key): \(shown)\n"
        }
    }
}

/// Machine-readable form: the same calls build one JSON document with stable field names.
public struct JSONInspector: Inspector {
    private enum Frame { case object(key: String?, [(String, InspectValue)]), array(key: String, [InspectValue]) }
    private var stack: [Frame] = [.object(key: nil, [])]

    public init() {}

    public mutating func beginObject(key: String?, label: String, oneLine: Bool) { stack.append(.object(key: key, [])) }
    public mutating func beginArray(key: String, label: String) { stack.append(.array(key: key, [])) }

    public mutating func endObject() { close() }
    public mutating func endArray() { close() }

    private mutating func close() {
        guard stack.count > 1, let top = stack.popLast() else { return }
        switch top {
        case .object(let key, let fields): add(key, .object(fields))
        case .array(let key, let items): add(key, .list(items))
        }
    }

    private mutating func add(_ key: String?, _ value: InspectValue) {
        switch stack.removeLast() {
        case .object(let k, var fields):
            fields.append((key ?? "", value))
            stack.append(.object(key: k, fields))
        case .array(let k, var items):
            items.append(value)
            stack.append(.array(key: k, items))
        }
    }

    public mutating func field(_ key: String, _ value: InspectValue, label: String?, text: String?) { add(key, value) }

    /// The finished document.
    public var value: InspectValue {
        guard case .object(_, let fields) = stack.first else { return .null }
        return .object(fields)
    }

    public var output: String { JSONText.encode(value, pretty: true) + "\n" }
}

/// JSON serialisation of `InspectValue` with keys in the order given (stable output for scripts
/// and golden tests).
public enum JSONText {
    public static func encode(_ value: InspectValue, pretty: Bool, indent: Int = 0) -> String {
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let close = pretty ? String(repeating: "  ", count: indent) : ""
        let newline = pretty ? "\n" : ""
        switch value {
        case .int(let v): return String(v)
        case .double(let v): return v.isFinite ? InspectValue.format(v) : "null"
        case .string(let s): return quote(s)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .list(let items):
            if items.isEmpty { return "[]" }
            if items.allSatisfy({ if case .object = $0 { false } else if case .list = $0 { false } else { true } }) {
                return "[" + items.map { encode($0, pretty: false) }.joined(separator: pretty ? ", " : ",") + "]"
            }
            return "[" + newline + items.map { pad + encode($0, pretty: pretty, indent: indent + 1) }.joined(separator: "," + newline)
                + newline + close + "]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            return "{" + newline
                + fields.map { pad + quote($0.0) + (pretty ? ": " : ":") + encode($0.1, pretty: pretty, indent: indent + 1) }
                .joined(separator: "," + newline) + newline + close + "}"
        }
    }

    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
