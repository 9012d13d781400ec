import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the real `cinepack` binary and measures what that one process cost: its peak resident memory
/// (from `wait4`, which reports the child's own `ru_maxrss`, unlike a process-wide `getrusage`) and its
/// wall time. Used by the hostile-input tests, whose contract is "bounded time and memory".
public enum MeasuredRun {
    public struct Result {
        public var status: Int32
        /// True when the process was killed by a signal (a crash: SIGILL for a Swift trap, SIGABRT, …).
        public var signalled: Bool
        public var stdout: String
        public var stderr: String
        /// Peak resident set size in bytes.
        public var peakMemory: Int
        public var seconds: Double
    }

    /// Runs `cinepack arguments…`; a process still alive after `timeLimit` seconds is killed (and the
    /// result says so through `signalled` with `seconds ≥ timeLimit`).
    public static func cinepack(_ arguments: [String], timeLimit: Double = 60) throws -> Result {
        try run(Paths.cinepackBinary, arguments, timeLimit: timeLimit)
    }

    public static func run(_ executable: String, _ arguments: [String], timeLimit: Double = 60) throws -> Result {
        let scratch = try Paths.temporaryDirectory("measured-run")
        let out = scratch.file("out"), err = scratch.file("err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = Date()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }

        var status: Int32 = 0
        var usage = rusage()
        // Poll so a hang is bounded: the test fails on time instead of never ending.
        while true {
            let r = wait4(pid, &status, WNOHANG, &usage)
            if r == pid { break }
            if r < 0 && errno != EINTR { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECHILD) }
            if Date().timeIntervalSince(started) > timeLimit {
                kill(pid, SIGKILL)
                _ = wait4(pid, &status, 0, &usage)
                break
            }
            usleep(2000)
        }
        let seconds = Date().timeIntervalSince(started)
        let signalled = (status & 0x7f) != 0
        // Linux reports ru_maxrss in KiB, macOS in bytes.
        #if os(Linux)
            let peak = Int(usage.ru_maxrss) * 1024
        #else
            let peak = Int(usage.ru_maxrss)
        #endif
        return Result(
            status: signalled ? -(status & 0x7f) : (status >> 8) & 0xff, signalled: signalled,
            stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "", peakMemory: peak, seconds: seconds)
    }
}
