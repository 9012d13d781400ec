import Foundation

/// Finds ffmpeg (and ffprobe beside it). `CINEPACK_FFMPEG` names the ffmpeg to use, and only
/// that one; otherwise the first on the `PATH` or in the usual places.
package enum FFmpegLocator {
    package static func ffmpeg() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment["CINEPACK_FFMPEG"] {
            return FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil
        }
        return search("ffmpeg")
    }

    /// ffprobe from the same directory as the chosen ffmpeg, else from the `PATH`.
    package static func ffprobe() -> String? {
        if let ffmpeg = ffmpeg() {
            let sibling = ((ffmpeg as NSString).deletingLastPathComponent as NSString).appendingPathComponent("ffprobe")
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        return search("ffprobe")
    }

    static func search(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
            let candidate = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
