import ArgumentParser
import Cinepack
import Foundation

/// One way to report a failure: `Error: FILE: what, where, why` on stderr, exit status 1
/// (ArgumentParser prints any thrown error that way).
enum CLIErrors {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func failure(_ message: String) -> Failure { Failure(description: message) }

    /// Runs `body`, turning a container error into a one-line failure naming the file.
    static func reporting<T>(file: String, _ body: () throws(ContainerError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw failure(CLIWording.rewrite("\(file): \(error)", for: error))
        }
    }
}

extension CLIErrors {
    /// Runs `body`, turning a render plan's refusal into the command line's wording (`--range`).
    static func reporting<T>(_ body: () throws(RenderPlanError) -> T) throws -> T {
        do { return try body() } catch { throw failure(message(for: error)) }
    }

    static func message(for error: RenderPlanError) -> String {
        switch error {
        case .badRange(_, let cause): "--range: \(cause)"
        case .emptyRange(let range, let duration):
            "--range \(range) holds no frames of the program (0s…\(duration.formattedSeconds()))"
        case .format, .outOfRange, .colourSpace: CLIWording.rewrite("\(error)", for: error)
        }
    }
}

extension CLIErrors {
    /// A line for the user that is not the command's output (stderr), so pipes stay clean.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Exit statuses other than 0 (success) and 1 (error), listed in the README.
enum ExitCodes {
    /// An in-place edit found the file changed by another process since it was read; nothing written.
    static let changedByAnotherWriter: Int32 = 3
    /// Another process held the file's edit lock past the bounded wait; nothing written.
    static let busy: Int32 = 4
}
