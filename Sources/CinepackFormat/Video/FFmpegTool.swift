import Foundation

/// The ffmpeg that decodes and encodes the codecs cinepack does not build in (H.264, HEVC,
/// ProRes, DNxHR…). `CINEPACK_FFMPEG` names the one to use (and only that one); otherwise the
/// first on the `PATH` or in the usual places.
public enum FFmpegTool {
    public static func find(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let chosen = environment["CINEPACK_FFMPEG"] {
            return FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil
        }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
            let candidate = "\(dir)/ffmpeg"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The ffmpeg to run for `why` ("decoding this video codec", "--codec prores"), or an error
    /// saying how to get one.
    public static func require(
        _ why: String, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        throws(FFmpegError) -> String
    {
        guard let path = find(environment: environment) else {
            throw .notInstalled(why: why, chosen: environment["CINEPACK_FFMPEG"])
        }
        return path
    }

    /// Runs ffmpeg to completion and returns its standard error (where it logs); stdout is dropped.
    package static func run(_ ffmpeg: String, _ arguments: [String]) throws(FFmpegError) -> (status: Int32, log: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do { try process.run() } catch { throw .cannotStart(ffmpeg: ffmpeg, reason: "\(error)") }
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The last few lines of a log: enough to say why, short enough for one error message.
    package static func tail(_ log: String, lines: Int = 3) -> String {
        log.split(separator: "\n").suffix(lines).joined(separator: " / ").trimmingCharacters(in: .whitespaces)
    }
}

/// Why ffmpeg could not do its part.
public enum FFmpegError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No ffmpeg (or `CINEPACK_FFMPEG` names something that is not an executable).
    case notInstalled(why: String, chosen: String?)
    case cannotStart(ffmpeg: String, reason: String)
    /// ffmpeg could not read the file's video stream.
    case probeFailed(path: String, log: String)
    /// The decoder ended before frame `frame`.
    case decodeEnded(path: String, frame: Int, log: String)
    case decodeFailed(path: String, frame: Int, reason: String)

    public var description: String {
        switch self {
        case .notInstalled(let why, let chosen?):
            "\(why) needs ffmpeg, but CINEPACK_FFMPEG=\(chosen) is not an executable file"
        case .notInstalled(let why, nil):
            "\(why) needs ffmpeg, which is not installed (Debian/Ubuntu: apt-get install ffmpeg)"
        case .cannotStart(let ffmpeg, let reason): "cannot run \(ffmpeg): \(reason)"
        case .probeFailed(let path, let log): "\(path): ffmpeg cannot read its video stream: \(log)"
        case .decodeEnded(let path, let frame, let log):
            "\(path): ffmpeg ended before video frame \(frame)" + (log.isEmpty ? "" : ": \(log)")
        case .decodeFailed(let path, let frame, let reason): "\(path): video frame \(frame): \(reason)"
        }
    }
}
