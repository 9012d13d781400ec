import CinepackContainer

/// Why reading or writing the EDL slots of a movie failed: what, where (byte offset, box path) and
/// which clause. A struct with static members so new kinds do not break callers.
public struct EDLStorageError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The operating system refused (permissions, disk full, I/O error).
        case io
        /// The movie or its `cpED` breaks spec/format.md §8.
        case malformed
        /// A valid movie this code will not edit (compressed `moov`, fragments after `moov`).
        case unsupported
        /// Another process holds the file's edit lock.
        case busy
        /// The file is not the one that was opened (replaced or resized meanwhile).
        case changed
        /// The EDL or the resulting `moov` exceeds what a reader accepts.
        case tooLarge
    }

    public var kind: Kind
    public var message: String
    public var offset: Int64?
    public var path: String?
    public var clause: String?

    public init(_ kind: Kind, _ message: String, offset: Int64? = nil, path: String? = nil, clause: String? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
        self.path = path
        self.clause = clause
    }

    public var description: String { ContainerError.line(message, offset: offset, path: path, clause: clause) }

    static let storageClause = "spec/format.md §8"

    public static func io(_ message: String) -> EDLStorageError { EDLStorageError(.io, message) }

    public static func malformed(_ message: String, offset: Int64? = nil, path: String? = nil) -> EDLStorageError {
        EDLStorageError(.malformed, message, offset: offset, path: path, clause: storageClause)
    }

    public static func unsupported(_ message: String, offset: Int64? = nil, path: String? = nil) -> EDLStorageError {
        EDLStorageError(.unsupported, message, offset: offset, path: path)
    }

    public static func container(_ error: ContainerError, file: String) -> EDLStorageError {
        let kind: Kind
        switch error.kind {
        case .io: kind = .io
        case .limit: kind = .tooLarge
        case .unsupported: kind = .unsupported
        case .truncated, .malformed: kind = .malformed
        }
        return EDLStorageError(kind, "\(file): \(error.message)", offset: error.offset, path: error.path, clause: error.clause)
    }
}
