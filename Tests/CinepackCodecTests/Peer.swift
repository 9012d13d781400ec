import Foundation
import Testing

/// External "peer" tools (ffmpeg, ffprobe, xmllint, exiftool…) used by interop tests.
///
/// Policy (DESIGN §7): with `CI=true` interop tests always run and a missing tool is a failure;
/// elsewhere they are skipped, saying so, when the tool is absent. Use as
/// `@Test(.enabled(if: Peer.shouldRun("ffmpeg"), Peer.skipNote("ffmpeg")))` and then
/// `let ffmpeg = try Peer.require("ffmpeg")` inside the test.
/// Self-contained (Foundation only) so it can move into shared test support unchanged.
enum Peer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Output {
        let status: Int32
        let stdout: Data
        let stderr: Data
        var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Searches PATH, then the usual install locations (a test runner's PATH can be minimal).
    static func locate(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs =
            path.split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/opt/local/bin"]
        for dir in dirs where !dir.isEmpty {
            let candidate = URL(fileURLWithPath: dir).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Whether an interop test using `name` should run: always on CI, else only if installed.
    static func shouldRun(_ name: String) -> Bool { isCI || locate(name) != nil }

    static func skipNote(_ name: String) -> Comment {
        Comment(rawValue: "\(name) not found and CI != \"true\": interop test skipped")
    }

    /// The tool, or a failure explaining that CI must provide it.
    static func require(_ name: String) throws -> URL {
        if let url = locate(name) { return url }
        throw Failure(description: "peer tool \(name) not found on PATH (required when CI=true)")
    }

    /// Runs a tool to completion. Output goes through temporary files rather than pipes so a
    /// chatty tool can never block on a full pipe while we wait for it.
    static func run(_ tool: URL, _ arguments: [String], stdin: Data? = nil) throws -> Output {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("stdout")
        let errURL = dir.appendingPathComponent("stderr")
        let inURL = dir.appendingPathComponent("stdin")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        try (stdin ?? Data()).write(to: inURL)

        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let inHandle = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = inHandle
        try process.run()
        process.waitUntilExit()
        try? outHandle.close()
        try? errHandle.close()
        try? inHandle.close()
        return Output(
            status: process.terminationStatus,
            stdout: try Data(contentsOf: outURL), stderr: try Data(contentsOf: errURL))
    }

    /// Runs a tool and fails, quoting its stderr, unless it exits with status 0.
    @discardableResult
    static func runChecked(_ tool: URL, _ arguments: [String], stdin: Data? = nil) throws -> Output {
        let output = try run(tool, arguments, stdin: stdin)
        guard output.status == 0 else {
            throw Failure(
                description: """
                    \(tool.lastPathComponent) \(arguments.joined(separator: " ")) exited with \(output.status):
                    \(output.stderrText)
                    """)
        }
        return output
    }

    /// A fresh, uniquely named directory under the system temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cinepack-peer-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
