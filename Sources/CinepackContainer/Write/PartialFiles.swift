#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process-wide list of files being written that are not finished yet (the hidden
/// `.NAME.partial-PID-N` files of `AtomicFileWriter`, an encoder's output) and of helper processes
/// writing them. On SIGINT, SIGTERM or SIGHUP the handler removes those files, stops those
/// processes and then dies of the same signal, so an interrupted command leaves nothing behind.
/// SIGKILL cannot be caught: after one, a `.NAME.partial-PID-N` file can remain beside the output.
///
/// The handler only calls `unlink`, `kill`, `signal` and `raise`, which are async-signal-safe, and
/// reads a fixed table: strings put in it are never freed, so it never sees freed memory.
package enum PartialFiles {
    static let capacity = 256
    private nonisolated(unsafe) static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }()
    private nonisolated(unsafe) static let processes: UnsafeMutablePointer<pid_t> = {
        let table = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
        table.initialize(repeating: 0, count: capacity)
        return table
    }()
    private nonisolated(unsafe) static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()
    private nonisolated(unsafe) static var installed = false
    /// The signals after which partial files are removed.
    package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Registers a file to remove if the process is interrupted. Returns a token for `remove`.
    @discardableResult
    package static func add(_ path: String) -> Int? {
        withLock {
            installHandlers()
            for i in 0..<capacity where paths[i] == nil {
                paths[i] = strdup(path)
                return i
            }
            return nil
        }
    }

    /// The file is finished (renamed into place) or already removed: forget it.
    package static func remove(_ token: Int?) {
        guard let token else { return }
        // Not freed: a handler running on another thread may be reading it right now.
        withLock { paths[token] = nil }
    }

    /// Registers a helper process (an encoder) to stop if the process is interrupted.
    @discardableResult
    package static func add(process: Int32) -> Int? {
        withLock {
            installHandlers()
            for i in 0..<capacity where processes[i] == 0 {
                processes[i] = process
                return i
            }
            return nil
        }
    }

    package static func remove(process token: Int?) {
        guard let token else { return }
        withLock { processes[token] = 0 }
    }

    /// The files registered now (for tests and diagnostics).
    package static var registered: [String] {
        withLock { (0..<capacity).compactMap { paths[$0].map { String(cString: $0) } } }
    }

    private static func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Installs the handler for each signal whose disposition is still the default, so an
    /// application's own handlers (or an ignored SIGHUP under `nohup`) are left alone.
    private static func installHandlers() {
        guard !installed else { return }
        installed = true
        for signalNumber in signals {
            var current = sigaction()
            guard sigaction(signalNumber, nil, &current) == 0, Self.isDefault(current) else { continue }
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = partialFilesSignalHandler
            #else
                action.__sigaction_u.__sa_handler = partialFilesSignalHandler
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signalNumber, &action, nil)
        }
    }

    private static func isDefault(_ action: sigaction) -> Bool {
        #if canImport(Glibc)
            let handler = action.__sigaction_handler.sa_handler
        #else
            let handler = action.__sigaction_u.__sa_handler
        #endif
        return handler == nil || unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_DFL, to: Int.self)
    }

    /// Called from the signal handler: no allocation, no locks.
    fileprivate static func cleanUp() {
        // Writers first, and waited for (up to 3 s, then killed), so none of them can create its
        // file again after it is removed: ffmpeg only notes a SIGTERM and may still be opening
        // its output. waitpid and nanosleep are async-signal-safe.
        for i in 0..<capacity where processes[i] > 0 { kill(processes[i], SIGTERM) }
        var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
        for round in 0...300 {
            var running = false
            for i in 0..<capacity where processes[i] > 0 {
                var status: Int32 = 0
                let reaped = waitpid(processes[i], &status, WNOHANG)
                if reaped == 0 {
                    running = true
                    if round == 300 { kill(processes[i], SIGKILL) }
                } else {
                    processes[i] = 0  // exited (or not our child any more)
                }
            }
            guard running else { break }
            nanosleep(&pause, nil)
        }
        for i in 0..<capacity {
            if let path = paths[i] { unlink(path) }
        }
    }
}

private func partialFilesSignalHandler(_ signalNumber: Int32) {
    PartialFiles.cleanUp()
    // Die of the same signal, as the shell expects (exit status 128 + n).
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}
