import CinepackContainer

/// An error about cinematic content: a bad input frame, a file that breaks spec/format.md, a
/// request the file cannot satisfy. Messages say what, where (file, frame, byte) and why.
public struct FormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// Set when an output rule refused the write or placing the output failed (typed payload).
    public var output: OutputError?
    /// Set when a depth input was refused (typed payload).
    public var depthInput: DepthInputError?
    /// Set when an input of a pack is not what it was given as (typed payload).
    public var packInput: PackInputError?
    public init(_ message: String) { self.message = message }
    /// Long work (pack) stopped because its task was cancelled; nothing was written.
    public static var cancelled: FormatError {
        var error = FormatError("cancelled; nothing written")
        error.isCancellation = true
        return error
    }
    /// Set by `cancelled`.
    public var isCancellation = false
    public var description: String { message }

    public static func container(_ error: ContainerError, file: String? = nil) -> FormatError {
        if let output = error.output { return .output(output) }
        return FormatError(file.map { "\($0): \(error)" } ?? error.description)
    }

    public static func output(_ error: OutputError) -> FormatError {
        var wrapped = FormatError(error.description)
        wrapped.output = error
        return wrapped
    }

    public static func packInput(_ error: PackInputError) -> FormatError {
        var wrapped = FormatError(error.description)
        wrapped.packInput = error
        return wrapped
    }

    public static func depthInput(_ error: DepthInputError) -> FormatError {
        var wrapped = FormatError(error.description)
        wrapped.depthInput = error
        return wrapped
    }

    /// Any error met while handling `file`, as a FormatError: container errors name the file, a
    /// FormatError passes unchanged.
    public static func from(_ error: any Error, file: String? = nil) -> FormatError {
        switch error {
        case let error as FormatError: error
        case let error as ContainerError: .container(error, file: file)
        default: FormatError("\(error)")
        }
    }

    public static func spec(_ message: String, clause: String) -> FormatError {
        FormatError("\(message) (spec/format.md \(clause))")
    }
}
