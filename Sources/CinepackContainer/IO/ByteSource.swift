#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random access to the bytes of a movie. The box layer reads through this and nothing else,
/// so the number of bytes it touches can be counted (inspect must read about the moov, not mdat).
public protocol ByteSource: AnyObject, Sendable {
    var size: Int64 { get }
    /// Reads exactly `count` bytes at `offset`, or throws if they are not all there.
    func read(at offset: Int64, count: Int) throws(ContainerError) -> [UInt8]
    /// Bytes handed out so far.
    var bytesRead: Int64 { get }
    var name: String { get }
}

/// A file read with `pread`: no mapping, no buffering of anything we did not ask for.
public final class FileByteSource: ByteSource, @unchecked Sendable {
    public let size: Int64
    public let name: String
    private let descriptor: Int32
    private var counter: Int64 = 0  // only touched under `lock`
    private let lock = Mutex()

    public init(path: String) throws(ContainerError) {
        name = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ContainerError.io("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw ContainerError.io("cannot stat \(path): \(String(cString: strerror(errno)))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw ContainerError.io("\(path) is a directory, not a movie file")
        }
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    public var bytesRead: Int64 { lock.withLock { counter } }

    public func read(at offset: Int64, count: Int) throws(ContainerError) -> [UInt8] {
        guard count >= 0, offset >= 0, offset <= size, Int64(count) <= size - offset else {
            throw ContainerError.truncated(offset: offset, wanted: Int64(count), fileSize: size)
        }
        if count == 0 { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset + Int64(done)))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw ContainerError.io("read error at byte \(offset + Int64(done)) of \(name): \(String(cString: strerror(errno)))")
            }
            if got == 0 { throw ContainerError.truncated(offset: offset, wanted: Int64(count), fileSize: size) }
            done += got
        }
        lock.withLock { counter += Int64(count) }
        return buffer
    }
}

/// Bytes already in memory (a decompressed `cmov`, a test fixture, a payload being rewritten).
public final class MemoryByteSource: ByteSource, @unchecked Sendable {
    public let bytes: [UInt8]
    public let name: String
    private var counter: Int64 = 0
    private let lock = Mutex()

    public init(_ bytes: [UInt8], name: String = "<memory>") {
        self.bytes = bytes
        self.name = name
    }

    public var size: Int64 { Int64(bytes.count) }
    public var bytesRead: Int64 { lock.withLock { counter } }

    public func read(at offset: Int64, count: Int) throws(ContainerError) -> [UInt8] {
        guard count >= 0, offset >= 0, offset <= size, Int64(count) <= size - offset else {
            throw ContainerError.truncated(offset: offset, wanted: Int64(count), fileSize: size)
        }
        lock.withLock { counter += Int64(count) }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

/// A minimal lock; Synchronization.Mutex needs newer deployment targets on macOS.
final class Mutex: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
