import ArgumentParser
import Cinepack

/// `--force` / `-y`, shared by every command that writes a file. The rules themselves live in
/// `OutputTarget`: never one of the inputs, never an existing file without this flag, never a
/// file whose permission bits forbid writing.
struct OverwriteOption: ParsableArguments {
    @Flag(
        name: [.customLong("force"), .customShort("y")],
        help: "Replace an existing output file (never one of the inputs; a read-only file stays refused).")
    var force = false

    /// The output checked at once, before any work: refusals come first.
    func target(_ path: String, inputs: [String]) throws -> OutputTarget {
        let target = OutputTarget(path: path, inputs: inputs, overwrite: force)
        try target.validate()
        return target
    }
}

extension OutputTarget {
    /// Writes `bytes` as the whole file, atomically.
    func write(_ bytes: [UInt8]) throws {
        let writer = try AtomicFileWriter(target: self)
        try writer.write(bytes)
        try writer.commit()
    }
}
