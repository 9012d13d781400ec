import Cinepack
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

/// Encodes raw RGB frames through ffmpeg with the export settings (ProRes, DNxHR, H.264, HEVC…), into a temporary file placed under
/// its name only when ffmpeg succeeded and the file checks out as a complete movie with every
/// frame (ffmpeg can exit 0 on a full disk without writing its `moov`). Any failure — no folder,
/// an encoder error, ffmpeg killed, disk full — ends in a message quoting ffmpeg's last stderr
/// lines, and no file is left. The partial file and ffmpeg are registered with `PartialFiles`, so
/// SIGINT, SIGTERM and SIGHUP clean them up too. (SIGPIPE is ignored process-wide by `main`, so a
/// dead ffmpeg shows up here as EPIPE, not as a silent death.)
final class FFmpegEncoder {
    private let process = Process()
    private let input = Pipe()
    private let log = FFmpegLog()
    let temporaryPath: String
    let target: OutputTarget
    var path: String { target.path }
    private let rate: FrameRate
    private var framesWritten = 0
    private var fileToken: Int?
    private var processToken: Int?

    /// Called with the temporary file once ffmpeg has finished it, before the rename.
    private let finishing: ((String) throws -> Void)?

    /// `syncInterval`: a sync frame every that many frames (farm segments, `ShardPlan`).
    init(
        target: OutputTarget, settings: ExportSettings, syncInterval: Int, width: Int, height: Int, rate: FrameRate,
        audio: EncoderAudio?, finishing: ((String) throws -> Void)? = nil
    ) throws {
        self.finishing = finishing
        let ffmpeg = try FFmpeg.require("--codec \(settings.codec.rawValue)")
        self.target = target
        self.rate = rate
        let url = URL(fileURLWithPath: target.path)
        temporaryPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid()).mov").path
        // A missing folder is our clear message, not ffmpeg's. The file itself is created by ffmpeg,
        // which is registered (with the file) before it can get that far: an interruption then
        // stops it and waits for it before removing the file, so it cannot create it again.
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target.directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw OutputError.noDirectory(path: target.path, directory: target.directory)
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
            throw CLIErrors.failure("cannot start ffmpeg (\(ffmpeg)): \(error.localizedDescription)")
        }
        processToken = PartialFiles.add(process: process.processIdentifier)
        log.startReading()
    }

    func write(_ picture: PixelImage) throws {
        // rgb24, or rgb48le for 16-bit pictures (native order is little-endian wherever Swift runs).
        let bytes: [UInt8]
        switch picture.storage {
        case .uint8(let samples): bytes = samples
        case .uint16(let samples): bytes = samples.withUnsafeBytes { Array($0) }
        }
        let fd = input.fileHandleForWriting.fileDescriptor
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in posixWrite(fd, raw.baseAddress! + done, raw.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = n < 0 ? String(cString: strerror(errno)) : "no progress"
                throw failure("ffmpeg stopped accepting frames after \(framesWritten) (\(reason))")
            }
            done += n
        }
        framesWritten += 1
    }

    func finish() throws {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        PartialFiles.remove(process: processToken)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw failure("ffmpeg failed")
        }
        do {
            try EncodedMovieCheck.verify(path: temporaryPath, frames: framesWritten, rate: rate)
        } catch {
            abandon()
            throw CLIErrors.failure(
                "ffmpeg exited normally but \(path) would be incomplete (\(error)); nothing written. ffmpeg said:\n\(log.lastLines())")
        }
        do { try finishing?(temporaryPath) } catch {
            abandon()
            throw error
        }
        do { try target.install(temporary: temporaryPath) } catch {
            PartialFiles.remove(fileToken)
            throw error
        }
        PartialFiles.remove(fileToken)
    }

    /// Stops ffmpeg and removes the partial file; the destination is untouched.
    func abandon() {
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
    private func failure(_ what: String) -> CLIErrors.Failure {
        try? input.fileHandleForWriting.close()
        // Give ffmpeg a moment to report and exit on its own before stopping it.
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
        abandon()
        let how: String
        switch process.terminationReason {
        case .uncaughtSignal: how = "ffmpeg was killed by signal \(process.terminationStatus)"
        default: how = "ffmpeg exited with status \(process.terminationStatus)"
        }
        return CLIErrors.failure("\(what); \(how); nothing written to \(path). ffmpeg said:\n\(log.lastLines())")
    }
}

/// `write(2)`: inside a type with a `write` method the bare name means the method.
private func posixWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        return Glibc.write(fd, pointer, count)
    #else
        return Darwin.write(fd, pointer, count)
    #endif
}
