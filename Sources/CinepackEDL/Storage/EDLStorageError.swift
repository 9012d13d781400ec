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
        /// Another process held the file's edit lock for longer than the bounded wait; nothing
        /// was written. Trying again later may succeed.
        case busy
        /// Another writer stored an edit after this one read the EDL (the slot sequence moved on);
        /// nothing was written. Read the file again and redo the edit.
        case changedByAnotherWriter
        /// The file's permission bits forbid writing (root included); nothing was written.
        case readOnly
        /// The EDL or the resulting `moov` exceeds what a reader accepts.
        case tooLarge
    }

    public var kind: Kind
    public var message: String
    public var offset: Int64?
    public var path: String?
    public var clause: String?
    /// The movie concerned, for the kinds a caller acts on (`busy`, `changedByAnotherWriter`,
    /// `readOnly`).
    public var file: String?

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

    /// `path` was changed by another process since it was read; nothing written.
    public static func changedByAnotherWriter(path: String) -> EDLStorageError {
        var error = EDLStorageError(
            .changedByAnotherWriter,
            "\(path) was changed by another process since it was read; nothing written — run the command again",
            clause: storageClause)
        error.file = path
        return error
    }

    /// Another process kept `path` locked for `waited` seconds; nothing written.
    public static func busy(path: String, waited: Double) -> EDLStorageError {
        var error = EDLStorageError(
            .busy,
            "\(path) is busy: another process has held its edit lock for over \(Int(waited.rounded(.up))) s; nothing written — try again when it has finished",
            clause: storageClause)
        error.file = path
        return error
    }

    /// No permission bit lets this process write `path`.
    public static func readOnly(path: String, mode: UInt32) -> EDLStorageError {
        var error = EDLStorageError(
            .readOnly, "\(path) is not writable (mode \(OutputError.modeString(mode))); nothing written (change its permissions to edit it)"
        )
        error.file = path
        return error
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
