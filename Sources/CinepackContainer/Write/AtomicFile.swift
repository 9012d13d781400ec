#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where written bytes go.
public protocol ByteSink {
    mutating func write(_ bytes: some Collection<UInt8>) throws(ContainerError)
    var bytesWritten: Int64 { get }
}

/// Bytes collected in memory (tests, small boxes).
public struct MemorySink: ByteSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public var bytesWritten: Int64 { Int64(bytes.count) }
    public mutating func write(_ data: some Collection<UInt8>) throws(ContainerError) { bytes.append(contentsOf: data) }
}

/// A new file written through a temporary file in the same directory and placed under its name
/// only when complete and synced (spec/format.md §8 describes the same rename for an EDL rewrite):
/// a failed or interrupted write never leaves a partial file under the final name, and never
/// touches an existing file of that name until then. The temporary file is registered with
/// `PartialFiles`, so SIGINT, SIGTERM and SIGHUP remove it too.
public final class AtomicFileWriter: ByteSink {
    public let path: String
    public let target: OutputTarget
    public let temporaryPath: String
    private var descriptor: Int32
    public private(set) var bytesWritten: Int64 = 0
    private var finished = false
    private var buffer: [UInt8] = []
    private let registration: Int?
    private static let bufferSize = 1 << 20

    /// A file replacing whatever `path` holds, with no check of the output rules (the EDL rewrite
    /// of a movie onto itself, tests). Commands use `init(target:)`.
    public convenience init(path: String) throws(ContainerError) {
        try self.init(checked: OutputTarget(path: path, overwrite: true))
    }

    /// Checks `target` (not an input, not an existing file unless overwriting, writable) and
    /// starts the temporary file. A refusal throws `ContainerError` with `output` set.
    public convenience init(target: OutputTarget) throws(ContainerError) {
        do { try target.validate() } catch { throw .output(error) }
        try self.init(checked: target)
    }

    private init(checked target: OutputTarget) throws(ContainerError) {
        let path = target.path
        self.path = path
        self.target = target
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty else { throw .output(.notAFile(path: path)) }
        let prefix = (dir == "." && slash == nil ? "" : dir + "/") + ".\(name).partial-\(getpid())-"
        // Registered before it is created, so a signal at any moment finds it (removing a name
        // that does not exist yet is harmless).
        var attempt = 0
        var fd: Int32 = -1
        var candidate = ""
        var token: Int?
        var code: Int32 = 0
        repeat {
            candidate = prefix + "\(attempt)"
            token = PartialFiles.add(candidate)
            fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            code = errno
            if fd < 0 { PartialFiles.remove(token) }
            attempt += 1
        } while fd < 0 && code == EEXIST && attempt < 100
        guard fd >= 0 else {
            if code == ENOENT || code == ENOTDIR { throw .output(.noDirectory(path: path, directory: target.directory)) }
            throw .output(
                .io(path: path, operation: "creating a file beside it", reason: String(cString: strerror(code)), completed: false))
        }
        descriptor = fd
        temporaryPath = candidate
        registration = token
    }

    deinit {
        if !finished { abandon() }
    }

    public func write(_ bytes: some Collection<UInt8>) throws(ContainerError) {
        buffer.append(contentsOf: bytes)
        bytesWritten += Int64(bytes.count)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    private func flush() throws(ContainerError) {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { raw in systemWrite(descriptor, raw.baseAddress! + done, raw.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                throw ContainerError.output(.io(path: path, operation: "write", reason: reason, completed: false))
            }
            done += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Overwrites bytes already written (a box size learnt at the end, such as the `mdat` header).
    public func overwrite(_ bytes: [UInt8], at offset: Int64) throws(ContainerError) {
        guard offset >= 0, offset + Int64(bytes.count) <= bytesWritten else {
            throw ContainerError.io("internal: overwrite at \(offset) outside the \(bytesWritten) bytes written")
        }
        try flush()
        let n = bytes.withUnsafeBytes { raw in pwrite(descriptor, raw.baseAddress!, raw.count, off_t(offset)) }
        guard n == bytes.count else {
            let reason = n < 0 ? String(cString: strerror(errno)) : "short write"
            throw ContainerError.output(.io(path: path, operation: "write", reason: reason, completed: false))
        }
    }

    /// Appends `count` bytes of the file at `sourcePath` starting at `offset`, copied by the kernel
    /// (`copy_file_range`: no byte passes through this process; a server-side copy on NFS 4.2, shared
    /// extents on file systems with reflinks), else by reads and writes. Returns the bytes this
    /// process read to do it (0 when the kernel copied everything).
    @discardableResult
    public func appendCopy(of sourcePath: String, offset: Int64, count: Int64) throws(ContainerError) -> Int64 {
        guard offset >= 0, count >= 0 else { throw ContainerError.io("internal: copy of \(count) bytes at \(offset)") }
        try flush()
        let input = open(sourcePath, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw ContainerError.io("cannot open \(sourcePath): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        var position = offset
        let end = offset + count
        var readHere: Int64 = 0
        while position < end {
            let want = Int(min(end - position, 1 << 30))
            if let kernelCopy = KernelCopy.function {
                var from = position
                let n = kernelCopy(input, &from, descriptor, nil, want, 0)
                if n > 0 {
                    position += Int64(n)
                    continue
                }
                if n == 0 {
                    throw ContainerError.truncated(offset: position, wanted: end - position, fileSize: position)
                }
                if errno == EINTR { continue }
                if ![EXDEV, ENOSYS, EOPNOTSUPP, EINVAL, EBADF].contains(errno) {
                    throw ContainerError.io("cannot copy from \(sourcePath) at byte \(position): \(String(cString: strerror(errno)))")
                }
            }
            // Fallback: through this process, 4 MiB at a time.
            var chunk = [UInt8](repeating: 0, count: min(want, 4 << 20))
            let got = chunk.withUnsafeMutableBytes { pread(input, $0.baseAddress!, $0.count, off_t(position)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                if got == 0 { throw ContainerError.truncated(offset: position, wanted: end - position, fileSize: position) }
                throw ContainerError.io("read error at byte \(position) of \(sourcePath): \(String(cString: strerror(errno)))")
            }
            chunk.removeSubrange(got...)
            buffer = chunk
            try flush()
            position += Int64(got)
            readHere += Int64(got)
        }
        bytesWritten += count
        return readHere
    }

    /// Flushes, syncs and puts the file in place (`OutputTarget.install`). After this the file is
    /// complete under `path`. A failed folder sync is reported (with `completed: true`) although
    /// the file is already in place.
    public func commit() throws(ContainerError) {
        do throws(ContainerError) {
            try flush()
            while fsync(descriptor) != 0 {
                if errno == EINTR { continue }
                throw ContainerError.output(.io(path: path, operation: "sync", reason: String(cString: strerror(errno)), completed: false))
            }
            close(descriptor)
            descriptor = -1
        } catch {
            abandon()
            throw error
        }
        finished = true
        defer { PartialFiles.remove(registration) }
        do { try target.install(temporary: temporaryPath) } catch { throw .output(error) }
    }

    /// Removes the temporary file; the destination is untouched.
    public func abandon() {
        if descriptor >= 0 { close(descriptor); descriptor = -1 }
        if !finished { unlink(temporaryPath) }
        finished = true
        PartialFiles.remove(registration)
    }
}

/// `copy_file_range(2)`, looked up at run time: the C library declares it only for GNU sources,
/// and systems without it (macOS) use the read/write fallback.
private enum KernelCopy {
    typealias Function = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
    static let function: Function? = {
        #if os(Linux)
            guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "copy_file_range") else { return nil }
            return unsafeBitCast(symbol, to: Function.self)
        #else
            return nil
        #endif
    }()
}

/// `write(2)`, under a name no `write` method hides.
package func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        return Glibc.write(fd, pointer, count)
    #else
        return Darwin.write(fd, pointer, count)
    #endif
}
