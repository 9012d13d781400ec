/// Why an EDL was refused: what, where (`source:line:column`) and, where it applies, which clause
/// of spec/edl.md. One error per failure; reading stops at the first (spec/edl.md §13).
public struct EDLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The class of failure, for callers that branch on it. A struct rather than an enum so that
    /// new kinds can be added without breaking anyone's `switch`.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Larger than the input limit; refused before parsing.
        public static let tooLarge = Kind(rawValue: "too-large")
        /// Not UTF-8, or declares another encoding.
        public static let encoding = Kind(rawValue: "encoding")
        /// Not well-formed XML (libxml2's diagnostic), including namespace errors.
        public static let notWellFormed = Kind(rawValue: "not-well-formed")
        /// Has a document type declaration (the way to entity expansion and external loads).
        public static let doctype = Kind(rawValue: "doctype")
        /// Elements nested deeper than the limit.
        public static let tooDeep = Kind(rawValue: "too-deep")
        /// An element with more attributes (namespace declarations included) than the limit.
        public static let tooManyAttributes = Kind(rawValue: "too-many-attributes")
        /// The root is not `<edl>` in namespace `urn:cinepack:edl:1`.
        public static let notAnEDL = Kind(rawValue: "not-an-edl")
        /// An EDL version this reader does not know.
        public static let unsupportedVersion = Kind(rawValue: "unsupported-version")
        /// Breaks the RELAX NG schema spec/edl.rng (element, attribute or value syntax).
        public static let schema = Kind(rawValue: "schema")
        /// Valid against the schema but breaks a rule of spec/edl.md §11.
        public static let invalid = Kind(rawValue: "invalid")
        /// A failure inside libxml2 that no input should cause (out of memory, a schema that does not load).
        public static let `internal` = Kind(rawValue: "internal")
    }

    public var kind: Kind
    /// The file name (or other label) given to the reader.
    public var source: String
    /// 1-based line and column (Unicode scalars) in the source, when known.
    public var line: Int?
    public var column: Int?
    /// What is wrong, without the place.
    public var message: String

    public init(_ kind: Kind, source: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.kind = kind
        self.source = source
        self.line = line
        self.column = column
        self.message = message
    }

    /// `source:line:column: message`, like a compiler, so editors can jump to the place.
    public var description: String {
        var place = source
        if let line {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        return "\(place): \(message)"
    }

    // MARK: Constructors, one per kind

    public static func tooLarge(source: String, size: Int, limit: Int) -> EDLError {
        EDLError(
            .tooLarge, source: source,
            message: "\(size) bytes is larger than the \(limit)-byte limit for an EDL (spec/edl.md §2)")
    }

    public static func encoding(source: String, line: Int? = nil, column: Int? = nil, _ detail: String) -> EDLError {
        EDLError(
            .encoding, source: source, line: line, column: column,
            message: "\(detail); an EDL is UTF-8 (spec/edl.md §2)")
    }

    public static func notWellFormed(source: String, line: Int?, column: Int?, _ detail: String) -> EDLError {
        EDLError(.notWellFormed, source: source, line: line, column: column, message: "not well-formed XML: \(detail)")
    }

    public static func doctype(source: String, line: Int?, column: Int?) -> EDLError {
        EDLError(
            .doctype, source: source, line: line, column: column,
            message: "a DOCTYPE is not allowed in an EDL (no DTDs, no entities; spec/edl.md §2)")
    }

    public static func tooDeep(source: String, line: Int?, column: Int?, limit: Int) -> EDLError {
        EDLError(
            .tooDeep, source: source, line: line, column: column,
            message: "elements are nested more than \(limit) deep (spec/edl.md §2)")
    }

    public static func tooManyAttributes(source: String, line: Int?, column: Int?, limit: Int) -> EDLError {
        EDLError(
            .tooManyAttributes, source: source, line: line, column: column,
            message: "an element has more than \(limit) attributes (namespace declarations included; spec/edl.md §2)")
    }

    public static func notAnEDL(source: String, line: Int?, column: Int?, _ detail: String) -> EDLError {
        EDLError(.notAnEDL, source: source, line: line, column: column, message: "not an EDL: \(detail)")
    }

    public static func unsupportedVersion(source: String, line: Int?, column: Int?, _ version: String) -> EDLError {
        EDLError(
            .unsupportedVersion, source: source, line: line, column: column,
            message:
                "EDL version \"\(version)\" is not supported; this cinepack reads version \(EditDecisionList.currentVersion) (spec/edl.md §2)"
        )
    }

    public static func schema(source: String, line: Int?, column: Int?, _ detail: String) -> EDLError {
        EDLError(.schema, source: source, line: line, column: column, message: detail)
    }

    public static func invalid(source: String, line: Int?, column: Int?, _ detail: String) -> EDLError {
        EDLError(.invalid, source: source, line: line, column: column, message: detail)
    }

    public static func `internal`(source: String, _ detail: String) -> EDLError {
        EDLError(.internal, source: source, message: "internal error: \(detail)")
    }
}
