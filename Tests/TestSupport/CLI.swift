import Foundation

/// Runs the real `cinepack` binary, as a user would (golden tests, error paths).
public enum CLI {
    public struct Output {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// `environment` adds to (or overrides) the test process's own variables.
    public static func run(_ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.cinepackBinary)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        // Files, not pipes: large outputs cannot block the child.
        let dir = FileManager.default.temporaryDirectory
        let outURL = dir.appendingPathComponent("cinepack-cli-\(UUID().uuidString).out")
        let errURL = dir.appendingPathComponent("cinepack-cli-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}

/// Golden files under corpus/golden. `CINEPACK_UPDATE_GOLDEN=1 swift test` rewrites them; review
/// the diff before committing.
public enum Golden {
    public static var updating: Bool { ProcessInfo.processInfo.environment["CINEPACK_UPDATE_GOLDEN"] == "1" }

    /// The golden text, or (when updating) `actual` after writing it.
    public static func expected(_ name: String, actual: String) throws -> String {
        let path = Paths.corpus("golden/\(name)")
        if updating {
            try FileManager.default.createDirectory(atPath: Paths.corpus("golden"), withIntermediateDirectories: true)
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            return actual
        }
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
