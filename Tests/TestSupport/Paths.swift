import Foundation

/// Where the repository, its corpus and the built binary are, and scratch directories for tests.
public enum Paths {
    /// The package root, found from this source file's location.
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    public static func corpus(_ relative: String) -> String { root.appendingPathComponent("corpus/\(relative)").path }

    public static func corpusFiles(_ folder: String) -> [String] {
        let dir = root.appendingPathComponent("corpus/\(folder)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") && !$0.hasSuffix(".txt") }.sorted()
            .map { dir.appendingPathComponent($0).path }
    }

    /// The `cinepack` executable built next to the test bundle.
    public static var cinepackBinary: String {
        // macOS: bundleURL is the .xctest bundle; Linux: the folder holding the test executable
        // (e.g. .build/x86_64-unknown-linux-gnu/debug, or under a custom --scratch-path).
        let main = Bundle.main.bundleURL
        let bundle = main.deletingLastPathComponent()
        for candidate in [
            main.appendingPathComponent("cinepack"), bundle.appendingPathComponent("cinepack"),
            bundle.deletingLastPathComponent().appendingPathComponent("cinepack"),
        ] {
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
        }
        // swift test builds products into the same directory as the .xctest bundle.
        let build = root.appendingPathComponent(".build/debug/cinepack").path
        return build
    }

    /// A fresh directory removed when the returned object goes away.
    public static func temporaryDirectory(_ name: String = #function) throws -> TemporaryDirectory {
        try TemporaryDirectory(prefix: name)
    }
}

public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    init(prefix: String) throws {
        let clean = prefix.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cinepack-\(clean)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
