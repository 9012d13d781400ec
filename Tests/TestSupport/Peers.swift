import Foundation
import Testing

/// Peer tools (ffmpeg, ffprobe, exiftool, mediainfo, xmllint, python3 + opentimelineio) that
/// interop tests compare against.
///
/// Policy (README, Testing): with `CI=true` interop tests always run and a missing peer is a failure,
/// never a skip; on a machine without the tool the test is skipped and says so. Two ways to apply it:
///
/// - inside a test: `guard try Peers.available("ffprobe") else { return }` (prints a note when
///   skipping, throws in CI);
/// - on a suite or test: `@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))`,
///   which Swift Testing reports as skipped; in CI it always runs, and `Peers.run` (or
///   `Peers.require`) then fails for a missing tool.
public enum Peers {
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Absolute path of a tool on PATH or in the usual install locations (a test runner's PATH can
    /// be minimal), or nil.
    public static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/opt/local/bin"]
        for dir in dirs where !dir.isEmpty {
            let candidate = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether a peer-based test should run: true when the tool exists. In CI a missing tool throws;
    /// elsewhere a note is printed and the answer is false.
    public static func available(_ tool: String) throws -> Bool {
        if find(tool) != nil { return true }
        if isCI { throw missing(tool) }
        print("note: skipping interop test: '\(tool)' is not installed on this machine")
        return false
    }

    /// For `.enabled(if:)`: always true in CI (where a missing tool must fail, not skip), else
    /// whether the tool is installed.
    public static func shouldRun(_ tool: String) -> Bool { isCI || find(tool) != nil }

    /// The comment Swift Testing shows when `.enabled(if: shouldRun(tool))` skips a test.
    public static func skipNote(_ tool: String) -> Comment {
        Comment(rawValue: "skipping interop test: '\(tool)' is not installed on this machine (CI != \"true\")")
    }

    /// The tool's absolute path, or an error saying CI must provide it.
    public static func require(_ tool: String) throws -> String {
        if let path = find(tool) { return path }
        throw missing(tool)
    }

    private static func missing(_ tool: String) -> PeerError {
        PeerError(message: "peer tool '\(tool)' is missing\(isCI ? " in CI; .ci/run must install it" : "")")
    }

    public struct PeerError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public struct Result {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        public var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs a tool (a name looked up with `find`, or an absolute path) to completion and captures
    /// its output. Unless `allowFailure`, a non-zero exit throws, quoting the end of stderr.
    ///
    /// Standard input, output and error go through temporary files rather than pipes, so a chatty
    /// tool can never block on a full pipe while we wait for it.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil, allowFailure: Bool = false) throws -> Result {
        let executable = tool.hasPrefix("/") ? tool : try require(tool)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cinepack-peer-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("stdout")
        let errURL = dir.appendingPathComponent("stderr")
        let inURL = dir.appendingPathComponent("stdin")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        try (stdin ?? Data()).write(to: inURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let inHandle = try FileHandle(forReadingFrom: inURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
            try? inHandle.close()
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = inHandle
        try process.run()
        process.waitUntilExit()

        let result = Result(
            status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
        if result.status != 0 && !allowFailure {
            throw PeerError(message: "\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr.suffix(2000))")
        }
        return result
    }
}
