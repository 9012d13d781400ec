/// What went wrong reading or writing a container, where, and which rule it breaks.
/// A struct with static constructors (not an enum) so new kinds do not break callers.
public struct ContainerError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        case io, truncated, malformed, limit, unsupported
    }
    public var kind: Kind
    public var message: String
    /// Absolute byte offset in the file (or in the decompressed `cmov` payload, see `path`).
    public var offset: Int64?
    /// Box path such as `moov/trak[2]/mdia/minf/stbl/stsz`.
    public var path: String?
    /// The spec clause broken, e.g. `ISO/IEC 14496-12 §8.7.3`.
    public var clause: String?
    /// Set when an output rule refused the write or placing the output failed (typed payload).
    public var output: OutputError?

    public init(_ kind: Kind, _ message: String, offset: Int64? = nil, path: String? = nil, clause: String? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
        self.path = path
        self.clause = clause
    }

    /// One line: what, where, why.
    public var description: String { Self.line(message, offset: offset, path: path, clause: clause) }

    /// The one-line form every located error of the project uses: "what at byte N in box/path (clause)".
    public static func line(_ message: String, offset: Int64?, path: String?, clause: String?) -> String {
        var line = message
        if let offset { line += " at byte \(offset)" }
        if let path, !path.isEmpty { line += " in \(path)" }
        if let clause { line += " (\(clause))" }
        return line
    }

    public func located(offset: Int64? = nil, path: String? = nil) -> ContainerError {
        var copy = self
        if copy.offset == nil { copy.offset = offset }
        if copy.path == nil { copy.path = path }
        return copy
    }

    public static func io(_ message: String) -> ContainerError { ContainerError(.io, message) }

    public static func output(_ error: OutputError) -> ContainerError {
        var wrapped = ContainerError(.io, error.description)
        wrapped.output = error
        return wrapped
    }

    public static func truncated(offset: Int64, wanted: Int64, fileSize: Int64) -> ContainerError {
        ContainerError(.truncated, "needed \(wanted) bytes but the data ends at byte \(fileSize)", offset: offset)
    }

    public static func malformed(
        _ message: String, offset: Int64? = nil, path: String? = nil, clause: String? = nil
    )
        -> ContainerError
    {
        ContainerError(.malformed, message, offset: offset, path: path, clause: clause)
    }

    public static func limit(_ message: String, offset: Int64? = nil, path: String? = nil) -> ContainerError {
        ContainerError(.limit, message, offset: offset, path: path)
    }
}

/// A problem the reader could work around. `--strict` turns these into errors.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public var error: ContainerError
    public init(_ error: ContainerError) { self.error = error }
    public var description: String { "warning: \(error)" }
}

/// Spec clauses cited in messages, in one place.
public enum Clause {
    public static let boxHeader = "ISO/IEC 14496-12 §4.2"
    public static let fileType = "ISO/IEC 14496-12 §4.3"
    public static let movie = "ISO/IEC 14496-12 §8.2.1"
    public static let decodingTime = "ISO/IEC 14496-12 §8.6.1.2"
    public static let compositionOffset = "ISO/IEC 14496-12 §8.6.1.3"
    public static let syncSample = "ISO/IEC 14496-12 §8.6.2"
    public static let editList = "ISO/IEC 14496-12 §8.6.6"
    public static let sampleDescription = "ISO/IEC 14496-12 §8.5.2"
    public static let sampleSize = "ISO/IEC 14496-12 §8.7.3"
    public static let sampleToChunk = "ISO/IEC 14496-12 §8.7.4"
    public static let chunkOffset = "ISO/IEC 14496-12 §8.7.5"
    public static let trackFragment = "ISO/IEC 14496-12 §8.8.7"
    public static let trackRun = "ISO/IEC 14496-12 §8.8.8"
    public static let compressedMovie = "QTFF, Compressed movie resources"
    public static let metadataKeys = "QTFF, Metadata item keys atom"
    public static let timedMetadata = "QTFF, Timed metadata sample descriptions"
}
