import Cinepack
import Foundation

/// ffmpeg as a decoder and encoder for codecs cinepack does not build in (H.264, HEVC, ProRes…).
/// Frames cross the pipe as raw 8-bit RGB, one after another.
enum FFmpeg {
    /// `CINEPACK_FFMPEG` names the ffmpeg to use (and only that one); otherwise the first on the
    /// `PATH` or in the usual places.
    static func find() -> String? { FFmpegLocator.ffmpeg() }

    static func require(_ why: String) throws -> String {
        guard let path = find() else {
            if let chosen = ProcessInfo.processInfo.environment["CINEPACK_FFMPEG"] {
                throw CLIErrors.failure("\(why) needs ffmpeg, but CINEPACK_FFMPEG=\(chosen) is not an executable file")
            }
            throw CLIErrors.failure("\(why) needs ffmpeg, which is not installed (Debian/Ubuntu: apt-get install ffmpeg)")
        }
        return path
    }
}

/// Decodes a movie's video track through ffmpeg, frame by frame in presentation order.
final class FFmpegFrameReader {
    private let process = Process()
    private let pipe = Pipe()
    private let width: Int, height: Int
    private(set) var next = 0
    private var last: (Int, PixelImage)?

    init(path: String, width: Int, height: Int) throws {
        let ffmpeg = try FFmpeg.require("decoding this video codec")
        self.width = width
        self.height = height
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-v", "error", "-nostdin", "-i", path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Frame `n` (frames must be asked for in non-decreasing order; a repeat is served from memory).
    func frame(_ n: Int) throws -> PixelImage {
        if let last, last.0 == n { return last.1 }
        guard n >= next else { throw CLIErrors.failure("internal: frames must be decoded in order (asked \(n) after \(next - 1))") }
        let size = width * height * 3
        while true {
            guard let data = try pipe.fileHandleForReading.read(upToCount: size), data.count == size else {
                throw CLIErrors.failure("ffmpeg ended before frame \(n) of the video track")
            }
            let index = next
            next += 1
            if index == n {
                let image = try PixelImage(width: width, height: height, layout: .rgb, samples: Array(data))
                last = (n, image)
                return image
            }
        }
    }
}

/// Encodes raw RGB frames to H.264 or HEVC through ffmpeg, into a temporary file renamed into
/// place when done (no partial output on failure).
final class FFmpegEncoder {
    private let process = Process()
    private let input = Pipe()
    private let errors: FileHandle
    private let errorsURL: URL
    let temporaryPath: String
    let path: String

    init(path: String, codec: String, width: Int, height: Int, rate: FrameRate, audioFrom: String?) throws {
        let ffmpeg = try FFmpeg.require("--codec \(codec)")
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporaryPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid()).mov").path
        errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("cinepack-ffmpeg-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)  // FileHandle below reports a failure
        errors = try FileHandle(forWritingTo: errorsURL)
        var arguments = [
            "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(width)x\(height)", "-r", "\(rate.frames)/\(rate.seconds)",
            "-i", "-",
        ]
        if let audioFrom { arguments += ["-i", audioFrom, "-map", "0:v", "-map", "1:a?", "-c:a", "copy"] }
        let encoder = codec == "hevc" ? ["-c:v", "libx265", "-tag:v", "hvc1", "-crf", "20"] : ["-c:v", "libx264", "-crf", "18"]
        arguments += encoder + ["-pix_fmt", "yuv420p", "-f", "mov", temporaryPath]
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
    }

    func write(_ picture: PixelImage) throws {
        guard let samples = picture.samples8 else { throw CLIErrors.failure("internal: encoder needs 8-bit RGB") }
        do { try input.fileHandleForWriting.write(contentsOf: Data(samples)) } catch {
            throw CLIErrors.failure("ffmpeg stopped accepting frames: \(log())")
        }
    }

    func finish() throws {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            abandon()
            throw CLIErrors.failure("ffmpeg failed (\(process.terminationStatus)): \(log())")
        }
        guard rename(temporaryPath, path) == 0 else {
            abandon()
            throw CLIErrors.failure("cannot move the finished file to \(path): \(String(cString: strerror(errno)))")
        }
        try? FileManager.default.removeItem(at: errorsURL)
    }

    func abandon() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(atPath: temporaryPath)
        try? FileManager.default.removeItem(at: errorsURL)
    }

    private func log() -> String {
        ((try? String(contentsOf: errorsURL, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
