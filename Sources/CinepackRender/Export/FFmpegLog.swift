import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The end of what ffmpeg prints on stderr, kept in memory (no log file to create, fail on or
/// leave behind) and quoted when ffmpeg fails.
package final class FFmpegLog: @unchecked Sendable {
    package let pipe = Pipe()
    private var tail: [UInt8] = []
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)
    private static let limit = 4096

    /// Starts reading; call after the process that writes into `pipe` has been launched.
    package func startReading() {
        let fd = pipe.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                lock.lock()
                tail += chunk[0..<n]
                if tail.count > Self.limit { tail.removeFirst(tail.count - Self.limit) }
                lock.unlock()
            }
            finished.signal()
        }
    }

    /// The last `lines` lines ffmpeg printed (waiting briefly for the pipe to drain).
    package func lastLines(_ lines: Int = 6) -> String {
        _ = finished.wait(timeout: .now() + 2)
        lock.lock()
        let text = String(decoding: tail, as: UTF8.self)
        lock.unlock()
        let kept = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(lines)
        return kept.isEmpty ? "(ffmpeg printed nothing)" : kept.joined(separator: "\n")
    }
}
