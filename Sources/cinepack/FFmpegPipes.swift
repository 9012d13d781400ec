import Cinepack
import Foundation

/// ffmpeg as the encoder for codecs cinepack does not build in (ProRes, DNxHR, H.264, HEVC…);
/// decoding goes through the library's `PictureDecoder`. Frames cross the pipe as raw RGB, 8 or
/// 16 bits per sample.
enum FFmpeg {
    static func require(_ why: String) throws -> String {
        do { return try FFmpegTool.require(why) } catch { throw CLIErrors.failure("\(error)") }
    }
}

/// The program's audio for an encoder: the source file and the filter graph that cuts and
/// retimes it (`ProgramAudio.ffmpegFilter`), or nil for a plain copy of the source's audio.
struct EncoderAudio {
    var path: String
    var filter: String?
}

/// The program's audio alone, cut and retimed by ffmpeg into a temporary MOV (PCM), for outputs
/// cinepack writes itself (PNG) to carry.
enum FFmpegAudio {
    static func render(_ audio: EncoderAudio, to temporary: String) throws {
        let ffmpeg = try FFmpeg.require("cutting and retiming the audio of an edited program")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = [
            "-v", "error", "-nostdin", "-y", "-i", audio.path, "-filter_complex", audio.filter ?? "[0:a:0]anull[aout]", "-map", "[aout]",
            "-c:a", "pcm_s24le", "-f", "mov", temporary,
        ]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CLIErrors.failure(
                "ffmpeg could not cut the audio (\(process.terminationStatus)): \(log.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }
}

/// Encodes raw RGB frames through ffmpeg with the export settings, into a temporary file renamed into
/// place when done (no partial output on failure).
final class FFmpegEncoder {
    private let process = Process()
    private let input = Pipe()
    private let errors: FileHandle
    private let errorsURL: URL
    let temporaryPath: String
    let path: String

    init(path: String, settings: ExportSettings, width: Int, height: Int, rate: FrameRate, audio: EncoderAudio?) throws {
        let ffmpeg = try FFmpeg.require("--codec \(settings.codec.rawValue)")
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporaryPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid()).mov").path
        errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("cinepack-ffmpeg-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)  // FileHandle below reports a failure
        errors = try FileHandle(forWritingTo: errorsURL)
        var arguments = [
            "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", settings.ffmpegInputPixelFormat, "-s", "\(width)x\(height)", "-r",
            "\(rate.frames)/\(rate.seconds)", "-i", "-",
        ]
        switch audio {
        case .some(let audio) where audio.filter != nil:
            // Cut and retimed: PCM keeps every sample where the filter put it.
            arguments += ["-i", audio.path, "-filter_complex", audio.filter!, "-map", "0:v", "-map", "[aout]", "-c:a", "pcm_s24le"]
        case .some(let audio): arguments += ["-i", audio.path, "-map", "0:v", "-map", "1:a?", "-c:a", "copy"]
        case nil: break
        }
        arguments += settings.ffmpegVideoArguments() + ["-f", "mov", temporaryPath]
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
    }

    func write(_ picture: PixelImage) throws {
        let bytes: Data
        switch picture.storage {
        case .uint8(let samples): bytes = Data(samples)
        // rgb48le: native order is little-endian on every platform Swift runs on.
        case .uint16(let samples):
            bytes = samples.withUnsafeBufferPointer { Data(buffer: UnsafeBufferPointer(start: $0.baseAddress, count: $0.count)) }
        }
        do { try input.fileHandleForWriting.write(contentsOf: bytes) } catch {
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
