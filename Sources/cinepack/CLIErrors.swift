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
            throw failure("\(file): \(error)")
        }
    }
}

extension CLIErrors {
    /// A line for the user that is not the command's output (stderr), so pipes stay clean.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
