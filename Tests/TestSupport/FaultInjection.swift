import Foundation

/// The LD_PRELOAD library of `Tests/FaultInjection/faultinject.c`, compiled once per test run with
/// the system C compiler. Run the real binary with `environment(...)` added to make chosen
/// `write`/`pwrite`/`fsync`/`rename`/`link` calls fail (see the C file for the variables).
public enum FaultInjection {
    nonisolated(unsafe) private static var built: String?
    private static let lock = NSLock()

    /// Path of the compiled library; throws when no C compiler is found (CI must have one).
    public static func library() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let built { return built }
        let source = Paths.root.appendingPathComponent("Tests/FaultInjection/faultinject.c").path
        let compiler = try Peers.find("cc") ?? Peers.find("clang") ?? Peers.require("cc")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cinepack-faultinject-\(getpid()).so").path
        try Peers.run(compiler, ["-shared", "-fPIC", "-O1", "-o", output, source, "-ldl"])
        built = output
        return output
    }

    /// Variables that preload the library with the given faults, e.g. `["FAULT_WRITE": "3+"]`.
    public static func environment(_ faults: [String: String], errno: String = "ENOSPC") throws -> [String: String] {
        var variables = faults
        variables["LD_PRELOAD"] = try library()
        variables["FAULT_ERRNO"] = errno
        return variables
    }
}
