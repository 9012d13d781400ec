import Foundation

/// Peer tools (ffmpeg, ffprobe, exiftool, mediainfo, xmllint, python3 + opentimelineio) that
/// interop tests compare against. In CI (`CI=true`) a missing peer is a failure, never a skip;
/// on a user's machine without it the test is skipped and says so.
public enum Peers {
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Absolute path of a tool on PATH, or nil.
    public static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether a peer-based test should run: true when the tool exists. In CI a missing tool throws.
    public static func available(_ tool: String) throws -> Bool {
        if find(tool) != nil { return true }
        if isCI { throw PeerError(message: "peer tool '\(tool)' is missing in CI; .ci/run must install it") }
        print("note: skipping interop test: '\(tool)' is not installed on this machine")
        return false
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

    /// Runs a tool to completion and captures its output.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil, allowFailure: Bool = false) throws -> Result {
        guard let executable = tool.hasPrefix("/") ? tool : find(tool) else {
            throw PeerError(message: "cannot find '\(tool)' on PATH")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        // Read both pipes concurrently so a chatty tool cannot block on a full pipe.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let result = Result(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
        if result.status != 0 && !allowFailure {
            throw PeerError(message: "\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr.suffix(2000))")
        }
        return result
    }
}
