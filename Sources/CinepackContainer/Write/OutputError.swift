/// Why a command refused to write (or could not finish writing) an output file. Each case names
/// the paths involved so the message says what to change.
public enum OutputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// How an output turned out to be one of the inputs.
    public enum Identity: String, Sendable {
        /// The same path.
        case samePath = ""
        /// A symbolic link (on either side) leads to the same file.
        case symbolicLink = " (through a symbolic link)"
        /// Another name for the same file (same device and inode).
        case hardLink = " (through a hard link: same device and inode)"
    }

    /// The output is, or resolves to, an input. Refused whatever the flags.
    case isInput(output: String, input: String, identity: Identity)
    /// The output exists and the caller did not ask to replace it.
    case exists(path: String)
    /// No write permission bit allows writing the file (checked on the mode bits, so root is
    /// refused too, as `cp` and `rsync` users expect). Replacing it is refused even when forced.
    case notWritable(path: String, mode: UInt32)
    /// The output names a directory or something else that is not a regular file.
    case notAFile(path: String)
    /// The folder the output goes into does not exist (or is not a folder).
    case noDirectory(path: String, directory: String)
    /// The system refused (open, write, sync, rename) while writing; nothing is left under `path`
    /// except where `completed` says the file is in place but its folder could not be synced.
    case io(path: String, operation: String, reason: String, completed: Bool)

    public var description: String {
        switch self {
        case .isInput(let output, let input, let identity):
            let what = output == input ? "is also an input" : "is the same file as the input \(input)\(identity.rawValue)"
            return "refusing to write \(output): it \(what); nothing written (choose another output name)"
        case .exists(let path):
            return "\(path) already exists; nothing written (replacing it was not asked for)"
        case .notWritable(let path, let mode):
            return "\(path) is not writable (mode \(Self.modeString(mode))); nothing written (permissions are never overridden)"
        case .notAFile(let path):
            return "cannot write \(path): it is a directory or not a regular file"
        case .noDirectory(let path, let directory):
            return "cannot write \(path): the folder \(directory) does not exist"
        case .io(let path, let operation, let reason, let completed):
            if completed {
                return "wrote \(path), but \(operation) failed: \(reason); the file may not survive a power cut"
            }
            return "cannot write \(path): \(operation) failed: \(reason); nothing written"
        }
    }

    /// `rw-r--r--` for 0o644.
    public static func modeString(_ mode: UInt32) -> String {
        var text = ""
        for shift in [6, 3, 0] {
            let bits = (mode >> UInt32(shift)) & 7
            text += (bits & 4 != 0 ? "r" : "-") + (bits & 2 != 0 ? "w" : "-") + (bits & 1 != 0 ? "x" : "-")
        }
        return text
    }
}
