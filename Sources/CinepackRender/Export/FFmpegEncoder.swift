import CinepackContainer
import CinepackFormat
import CinepackTime
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Encodes raw RGB frames through ffmpeg with the export settings (ProRes, DNxHR, H.264, HEVC…),
/// into a temporary file placed under its name only when ffmpeg succeeded and the file checks out
/// as a complete movie with every frame (ffmpeg can exit 0 on a full disk without writing its
/// `moov`). Any failure — no folder, an encoder error, ffmpeg killed, disk full — ends in an
/// `EncoderError` quoting ffmpeg's last stderr lines, and no file is left. The partial file and
/// ffmpeg are registered with `PartialFiles`, so SIGINT, SIGTERM and SIGHUP clean them up too.
/// Frames cross the pipe as raw RGB, 8 or 16 bits per sample. (A process that does not ignore
/// SIGPIPE dies when ffmpeg does; the command line ignores it, so a dead ffmpeg shows up as EPIPE.)
package final class FFmpegEncoder {
    private let process = Process()
    private let input = Pipe()
    private let log = FFmpegLog()
    package let temporaryPath: String
    package let target: OutputTarget
    package var path: String { target.path }
    private let rate: FrameRate
    private var framesWritten = 0
    private var fileToken: Int?
    private var processToken: Int?

    /// Called with the temporary file once ffmpeg has finished it, before the rename.
    private let finishing: ((String) throws -> Void)?

    /// `syncInterval`: a sync frame every that many frames (farm segments, `ShardPlan`).
    package init(
        target: OutputTarget, settings: ExportSettings, syncInterval: Int, width: Int, height: Int, rate: FrameRate,
        audio: EncoderAudio?, finishing: ((String) throws -> Void)? = nil
    ) throws(EncoderError) {
        self.finishing = finishing
        let ffmpeg: String
        do { ffmpeg = try FFmpegTool.require("codec \(settings.codec.rawValue)") } catch {
            throw .ffmpegUnavailable(error, codec: settings.codec)
        }
        self.target = target
        self.rate = rate
        let url = URL(fileURLWithPath: target.path)
        temporaryPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid()).mov").path
        // A missing folder is our clear message, not ffmpeg's. The file itself is created by ffmpeg,
        // which is registered (with the file) before it can get that far: an interruption then
        // stops it and waits for it before removing the file, so it cannot create it again.
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target.directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .output(.noDirectory(path: target.path, directory: target.directory))
        }
        fileToken = PartialFiles.add(temporaryPath)
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
        arguments += settings.ffmpegVideoArguments(syncInterval: syncInterval) + ["-f", "mov", temporaryPath]
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = log.pipe
        // Not started with the signals held back: ffmpeg would inherit them blocked.
        do { try process.run() } catch {
            abandon()
            throw .cannotStart(ffmpeg: ffmpeg, reason: error.localizedDescription)
        }
        processToken = PartialFiles.add(process: process.processIdentifier)
        log.startReading()
    }

    package func write(_ picture: PixelImage) throws(EncoderError) {
        // rgb24, or rgb48le for 16-bit pictures (native order is little-endian wherever Swift runs).
        let bytes: [UInt8]
        switch picture.storage {
        case .uint8(let samples): bytes = samples
        case .uint16(let samples): bytes = samples.withUnsafeBytes { Array($0) }
        }
        let fd = input.fileHandleForWriting.fileDescriptor
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in systemWrite(fd, raw.baseAddress! + done, raw.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = n < 0 ? String(cString: strerror(errno)) : "no progress"
                throw failure(.stoppedAcceptingFrames(after: framesWritten, reason: reason))
            }
            done += n
        }
        framesWritten += 1
    }

    package func finish() throws(EncoderError) {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        PartialFiles.remove(process: processToken)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw failure(.failed)
        }
        do {
            try EncodedMovieCheck.verify(path: temporaryPath, frames: framesWritten, rate: rate)
        } catch {
            abandon()
            throw .incomplete(path: path, reason: "\(error)", log: log.lastLines())
        }
        do { try finishing?(temporaryPath) } catch {
            abandon()
            throw .finishing(path: path, cause: "\(error)")
        }
        do { try target.install(temporary: temporaryPath) } catch {
            PartialFiles.remove(fileToken)
            throw .output(error)
        }
        PartialFiles.remove(fileToken)
    }

    /// Stops ffmpeg and removes the partial file; the destination is untouched.
    package func abandon() {
        try? input.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        PartialFiles.remove(process: processToken)
        unlink(temporaryPath)
        PartialFiles.remove(fileToken)
    }

    /// Cleans up and describes how ffmpeg ended, with its last stderr lines.
    private func failure(_ what: EncoderError.Failure) -> EncoderError {
        try? input.fileHandleForWriting.close()
        // Give ffmpeg a moment to report and exit on its own before stopping it.
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
        abandon()
        let ending: EncoderError.Ending =
            process.terminationReason == .uncaughtSignal
            ? .killed(signal: process.terminationStatus) : .exited(status: process.terminationStatus)
        return .encoder(what, ending: ending, path: path, log: log.lastLines())
    }
}
