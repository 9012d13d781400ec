import CinepackContainer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file operations an EDL update performs, and nothing else, so tests can put a fault (a power
/// cut after k bytes, a write error, a failed fsync) at every step of the protocol.
package protocol EDLStorageIO: Sendable {
    /// Opens an existing regular file for positional reads and writes, holding an exclusive
    /// advisory lock so two editors cannot both write the same slot.
    func openForUpdate(path: String) throws(EDLStorageError) -> any EDLUpdateHandle
    /// Starts a complete replacement of `path`: written beside it, renamed over it on commit.
    func beginReplacement(of path: String) throws(EDLStorageError) -> any EDLReplacementHandle
}

/// An open movie being updated in place.
package protocol EDLUpdateHandle: AnyObject {
    var size: Int64 { get }
    func read(at offset: Int64, count: Int) throws(EDLStorageError) -> [UInt8]
    /// Writes all of `bytes` at `offset`: one positional write (repeated only after a short write).
    func write(_ bytes: [UInt8], at offset: Int64) throws(EDLStorageError)
    /// Makes everything written durable (`fsync`; `F_FULLFSYNC` on Darwin, where `fsync` leaves
    /// data in the drive's cache).
    func sync() throws(EDLStorageError)
    func close()
}

/// A new file that replaces a movie atomically.
package protocol EDLReplacementHandle: AnyObject {
    var bytesWritten: Int64 { get }
    func write(_ bytes: [UInt8]) throws(EDLStorageError)
    /// Syncs the new file, renames it over the original and syncs the directory.
    func commit() throws(EDLStorageError)
    /// Removes the new file; the original is untouched.
    func abandon()
}

/// The real thing: `pread`/`pwrite`/`fsync` and `AtomicFileWriter`.
package struct POSIXStorageIO: EDLStorageIO {
    /// How long an update waits for another process's edit lock before it gives up with `busy`.
    package var lockWait: Double

    /// `lockWait` defaults to `defaultLockWait`.
    package init(lockWait: Double = POSIXStorageIO.defaultLockWait) {
        self.lockWait = lockWait
    }

    /// 10 seconds, or the `CINEPACK_LOCK_WAIT` environment variable (seconds).
    package static var defaultLockWait: Double {
        if let text = getenv("CINEPACK_LOCK_WAIT"), let value = Double(String(cString: text)), value >= 0, value.isFinite {
            return value
        }
        return 10
    }

    package func openForUpdate(path: String) throws(EDLStorageError) -> any EDLUpdateHandle {
        try POSIXUpdateHandle(path: path, lockWait: lockWait)
    }

    package func beginReplacement(of path: String) throws(EDLStorageError) -> any EDLReplacementHandle {
        try AtomicReplacement(path: path)
    }
}

private func errnoText() -> String { String(cString: strerror(errno)) }

final class POSIXUpdateHandle: EDLUpdateHandle {
    let path: String
    let size: Int64
    private var descriptor: Int32

    init(path: String, lockWait: Double) throws(EDLStorageError) {
        self.path = path
        var waited = 0.0
        while true {
            let fd = open(path, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else {
                let code = errno
                var info = stat()
                if code == EACCES || code == EROFS, stat(path, &info) == 0 {
                    throw .readOnly(path: path, mode: UInt32(info.st_mode & 0o7777))
                }
                throw .io("cannot open \(path) for writing: \(String(cString: strerror(code)))")
            }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let reason = errnoText()
                Glibc_close(fd)
                throw .io("cannot stat \(path): \(reason)")
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                Glibc_close(fd)
                throw .io("\(path) is not a regular file")
            }
            // The mode bits decide, for root too: a read-only movie is not edited.
            guard OutputTarget.permitsWriting(info) else {
                Glibc_close(fd)
                throw .readOnly(path: path, mode: UInt32(info.st_mode & 0o7777))
            }
            // Wait a bounded time for another editor, polling: flock has no timeout of its own.
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                if code == EINTR { continue }
                guard code == EWOULDBLOCK else {
                    Glibc_close(fd)
                    throw .io("cannot lock \(path): \(String(cString: strerror(code)))")
                }
                guard waited < lockWait else {
                    Glibc_close(fd)
                    throw .busy(path: path, waited: lockWait)
                }
                usleep(10_000)
                waited += 0.01
            }
            // A writer that rewrote the whole file renamed a new one over the path while we waited:
            // the lock we hold is on the old file. Start again on the new one.
            var current = stat()
            if stat(path, &current) == 0, current.st_dev == info.st_dev, current.st_ino == info.st_ino {
                descriptor = fd
                size = Int64(current.st_size)
                return
            }
            Glibc_close(fd)
        }
    }

    deinit { close() }

    func read(at offset: Int64, count: Int) throws(EDLStorageError) -> [UInt8] {
        guard descriptor >= 0 else { throw .io("internal: \(path) is closed") }
        guard offset >= 0, count >= 0, Int64(count) <= size - offset else {
            throw EDLStorageError(.malformed, "\(path): needed \(count) bytes but the file ends at byte \(size)", offset: offset)
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset + Int64(done)))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw EDLStorageError(
                    .io, "cannot read \(path): \(n == 0 ? "unexpected end of file" : errnoText())",
                    offset: offset + Int64(done))
            }
            done += n
        }
        return buffer
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws(EDLStorageError) {
        guard descriptor >= 0 else { throw .io("internal: \(path) is closed") }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset + Int64(done)))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw EDLStorageError(.io, "cannot write \(path): \(n == 0 ? "no progress" : errnoText())", offset: offset + Int64(done))
            }
            done += n
        }
    }

    func sync() throws(EDLStorageError) {
        guard descriptor >= 0 else { throw .io("internal: \(path) is closed") }
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        while fsync(descriptor) != 0 {
            if errno == EINTR { continue }
            throw .io("cannot sync \(path): \(errnoText())")
        }
    }

    func close() {
        if descriptor >= 0 {
            Glibc_close(descriptor)  // also releases the lock
            descriptor = -1
        }
    }
}

/// `close` is shadowed by the handle's own method; this names the system call.
private func Glibc_close(_ fd: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(fd)
    #else
        _ = Darwin.close(fd)
    #endif
}

/// `AtomicFileWriter` plus what a replacement owes the file it replaces: its permission bits
/// (and owner, where allowed), so an edit does not quietly make a file world-readable.
final class AtomicReplacement: EDLReplacementHandle {
    private let writer: AtomicFileWriter
    private let original: stat?

    init(path: String) throws(EDLStorageError) {
        var info = stat()
        original = stat(path, &info) == 0 ? info : nil
        do { writer = try AtomicFileWriter(path: path) } catch { throw .container(error, file: path) }
    }

    var bytesWritten: Int64 { writer.bytesWritten }

    func write(_ bytes: [UInt8]) throws(EDLStorageError) {
        do { try writer.write(bytes) } catch { throw .container(error, file: writer.path) }
    }

    func commit() throws(EDLStorageError) {
        if let original {
            _ = chmod(writer.temporaryPath, original.st_mode & 0o7777)
            _ = chown(writer.temporaryPath, original.st_uid, original.st_gid)  // best effort: only root may
        }
        do { try writer.commit() } catch { throw .container(error, file: writer.path) }
    }

    func abandon() { writer.abandon() }
}

/// A `ByteSource` over an update handle, so the box layer parses the very file being written
/// (not another one renamed over the path since it was opened).
final class UpdateHandleSource: ByteSource, @unchecked Sendable {
    let handle: any EDLUpdateHandle
    let name: String
    private(set) var bytesRead: Int64 = 0

    init(_ handle: any EDLUpdateHandle, name: String) {
        self.handle = handle
        self.name = name
    }

    var size: Int64 { handle.size }

    func read(at offset: Int64, count: Int) throws(ContainerError) -> [UInt8] {
        guard count >= 0, offset >= 0, offset <= size, Int64(count) <= size - offset else {
            throw ContainerError.truncated(offset: offset, wanted: Int64(count), fileSize: size)
        }
        do {
            let bytes = try handle.read(at: offset, count: count)
            bytesRead += Int64(count)
            return bytes
        } catch {
            throw ContainerError.io(error.description)
        }
    }
}
