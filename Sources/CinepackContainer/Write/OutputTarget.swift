#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file a command is about to write, and the rules it must obey before the first byte: never one
/// of the command's inputs (same path, through a symbolic link, or a hard link: same device and
/// inode), never an existing file unless `overwrite`, never a file whose mode bits forbid writing.
/// Writers (`AtomicFileWriter`, `CinematicWriter`, the packer, encoders) check it when they start
/// and place the finished file with `install(temporary:)`.
public struct OutputTarget: Sendable, Equatable {
    public var path: String
    /// Every file the command reads.
    public var inputs: [String]
    /// Replace an existing file (`--force` / `-y`).
    public var overwrite: Bool

    public init(path: String, inputs: [String] = [], overwrite: Bool = false) {
        self.path = path
        self.inputs = inputs
        self.overwrite = overwrite
    }

    /// The folder the output goes into ("." for a bare name).
    public var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// Checks every rule; throws the first one broken. Nothing is written.
    public func validate() throws(OutputError) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        guard !name.isEmpty, name != ".", name != ".." else { throw .notAFile(path: path) }
        for input in inputs {
            if let identity = Self.identity(of: path, and: input) {
                throw .isInput(output: path, input: input, identity: identity)
            }
        }
        var dirInfo = stat()
        guard stat(directory, &dirInfo) == 0, (dirInfo.st_mode & S_IFMT) == S_IFDIR else {
            throw .noDirectory(path: path, directory: directory)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            // A link to nowhere is replaced like a file; a link to something is judged by its target.
            var target = stat()
            if stat(path, &target) == 0 { info = target }
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFLNK else { throw .notAFile(path: path) }
        guard overwrite else { throw .exists(path: path) }
        guard type == S_IFLNK || Self.permitsWriting(info) else {
            throw .notWritable(path: path, mode: UInt32(info.st_mode & 0o7777))
        }
    }

    /// How `a` and `b` name the same file, or nil when they do not.
    public static func identity(of a: String, and b: String) -> OutputError.Identity? {
        if a == b { return .samePath }
        var sa = stat(), sb = stat()
        if stat(a, &sa) == 0, stat(b, &sb) == 0, sa.st_dev == sb.st_dev, sa.st_ino == sb.st_ino {
            var la = stat(), lb = stat()
            let linked =
                (lstat(a, &la) == 0 && (la.st_mode & S_IFMT) == S_IFLNK) || (lstat(b, &lb) == 0 && (lb.st_mode & S_IFMT) == S_IFLNK)
            return linked || resolved(a) == resolved(b) ? (linked ? .symbolicLink : .samePath) : .hardLink
        }
        // The output does not exist yet, but a dangling link or a path through a linked folder
        // may still lead to an input.
        if let ra = resolved(a), let rb = resolved(b), ra == rb { return .symbolicLink }
        return nil
    }

    /// The path with every symbolic link and `..` resolved; for a file that does not exist yet,
    /// its resolved folder plus its name (following a dangling link once).
    static func resolved(_ path: String) -> String? {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        var target = path
        if n > 0 {
            let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let dir = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            target = link.hasPrefix("/") ? link : dir + "/" + link
        }
        let slash = target.lastIndex(of: "/")
        let dir = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        guard let real = realpath(dir.isEmpty ? "/" : dir, nil) else { return nil }
        defer { free(real) }
        let base = String(cString: real)
        return (base == "/" ? "" : base) + "/" + name
    }

    /// Whether the mode bits let this process write the file. Root is not exempt: a file with no
    /// write bit at all is refused, as `cp` and `rsync` refuse to write into it.
    public static func permitsWriting(_ info: stat) -> Bool {
        let mode = UInt32(info.st_mode)
        let uid = geteuid()
        if uid == 0 { return mode & 0o222 != 0 }
        if info.st_uid == uid { return mode & 0o200 != 0 }
        if info.st_gid == getegid() || groups().contains(info.st_gid) { return mode & 0o020 != 0 }
        return mode & 0o002 != 0
    }

    private static func groups() -> [gid_t] {
        let count = getgroups(0, nil)
        guard count > 0 else { return [] }
        var list = [gid_t](repeating: 0, count: Int(count))
        let n = getgroups(count, &list)
        return n > 0 ? Array(list[0..<Int(n)]) : []
    }

    /// Puts a finished, synced temporary file in place under `path` and syncs the folder. Without
    /// `overwrite` the file is linked in place, which fails rather than replace a file that
    /// appeared meanwhile; otherwise it is renamed over the old one atomically. On failure the
    /// temporary file is removed and nothing else changes, except when only the folder sync
    /// failed: the file is then in place and the error says so (`completed: true`).
    public func install(temporary: String) throws(OutputError) {
        if overwrite {
            guard rename(temporary, path) == 0 else {
                let reason = Self.errnoText()
                unlink(temporary)
                throw .io(path: path, operation: "rename", reason: reason, completed: false)
            }
        } else {
            if link(temporary, path) == 0 {
                unlink(temporary)
            } else {
                let code = errno
                guard code != EEXIST else {
                    unlink(temporary)
                    throw .exists(path: path)
                }
                // File systems without hard links (some FUSE and network mounts): check, then rename.
                var info = stat()
                guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EXDEV, lstat(path, &info) != 0,
                    rename(temporary, path) == 0
                else {
                    let reason = String(cString: strerror(code))
                    unlink(temporary)
                    throw .io(path: path, operation: "link", reason: reason, completed: false)
                }
            }
        }
        try syncDirectory()
    }

    /// `fsync` of the output's folder, so the new name survives a power cut.
    public func syncDirectory() throws(OutputError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .io(path: path, operation: "opening its folder to sync it", reason: Self.errnoText(), completed: true)
        }
        defer { close(fd) }
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            // Some file systems cannot sync a directory at all; that is not a failure of this write.
            if errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP { return }
            throw .io(path: path, operation: "syncing its folder", reason: Self.errnoText(), completed: true)
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
