import Cinepack
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    private let log = FFmpegLog()
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
        process.standardError = log.pipe
        do { try process.run() } catch {
            throw CLIErrors.failure("cannot start ffmpeg (\(ffmpeg)) to decode \(path): \(error.localizedDescription)")
        }
        log.startReading()
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
                throw CLIErrors.failure("ffmpeg ended before frame \(n) of the video track. ffmpeg said:\n\(log.lastLines())")
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

/// Encodes raw RGB frames to H.264 or HEVC through ffmpeg, into a temporary file placed under
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

    /// `video` holds the encoder arguments (`FarmCodec.ffmpegArguments`).
    init(
        target: OutputTarget, codec: String, video: [String], width: Int, height: Int, rate: FrameRate, audioFrom: String?,
        finishing: ((String) throws -> Void)? = nil
    ) throws {
        self.finishing = finishing
        let ffmpeg = try FFmpeg.require("--codec \(codec)")
        self.target = target
        self.rate = rate
        let url = URL(fileURLWithPath: target.path)
        temporaryPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid()).mov").path
        // Created here (exclusively) so a missing folder is our clear message, not ffmpeg's.
        // Registered before it is created, so a signal at any moment finds it.
        let token = PartialFiles.add(temporaryPath)
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        let code = errno
        if fd < 0 { PartialFiles.remove(token) }
        guard fd >= 0 else {
            if code == ENOENT || code == ENOTDIR { throw OutputError.noDirectory(path: target.path, directory: target.directory) }
            throw OutputError.io(
                path: target.path, operation: "creating a file beside it", reason: String(cString: strerror(code)), completed: false)
        }
        close(fd)
        fileToken = token
        var arguments = [
            "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(width)x\(height)", "-r", "\(rate.frames)/\(rate.seconds)",
            "-i", "-",
        ]
        if let audioFrom { arguments += ["-i", audioFrom, "-map", "0:v", "-map", "1:a?", "-c:a", "copy"] }
        arguments += video + ["-pix_fmt", "yuv420p", "-f", "mov", temporaryPath]
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
        guard let samples = picture.samples8 else { throw CLIErrors.failure("internal: encoder needs 8-bit RGB") }
        let fd = input.fileHandleForWriting.fileDescriptor
        var done = 0
        while done < samples.count {
            let n = samples.withUnsafeBytes { raw in posixWrite(fd, raw.baseAddress! + done, raw.count - done) }
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
