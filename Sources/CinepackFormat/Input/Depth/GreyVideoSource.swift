import Foundation

/// A depth video (8, 10, 12 or 16-bit grey or the luma of YUV), decoded by ffmpeg and read frame
/// by frame from its pipe in presentation order. Sequential: reading frame 0 starts ffmpeg over.
package final class GreyVideoSource: DepthFrameSource {
    package let name: String
    package let frameCount: Int
    package let width: Int
    package let height: Int
    package let isRandomAccess = false
    /// The raw pixel format asked of ffmpeg and its largest code.
    let pixelFormat: String
    let maximum: Float
    private var process: Process?
    private var pipe: Pipe?
    private var next = 0

    package init(path: String) throws(DepthInputError) {
        name = path
        guard FileManager.default.isReadableFile(atPath: path) else { throw DepthInputError(file: path, .unreadable) }
        guard let ffprobe = FFmpegLocator.ffprobe(), FFmpegLocator.ffmpeg() != nil else {
            throw DepthInputError(
                file: path,
                .decoder("a depth video needs ffmpeg and ffprobe, which are not installed (Debian/Ubuntu: apt-get install ffmpeg)"))
        }
        let output = try Self.run(
            ffprobe,
            [
                "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=width,height,pix_fmt,nb_read_packets",
                "-of", "default=nw=1", path,
            ],
            file: path)
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let w = fields["width"].flatMap(Int.init), let h = fields["height"].flatMap(Int.init),
            let n = fields["nb_read_packets"].flatMap(Int.init),
            w > 0, h > 0, n > 0
        else {
            throw DepthInputError(file: path, .malformed("ffprobe finds no video stream with frames"))
        }
        width = w
        height = h
        frameCount = n
        let format = fields["pix_fmt"] ?? ""
        // Keep the source's precision: 16-bit stays 16-bit, 10/12-bit stays 10/12-bit.
        if format.contains("16") {
            (pixelFormat, maximum) = ("gray16le", 65535)
        } else if format.contains("12") {
            (pixelFormat, maximum) = ("gray12le", 4095)
        } else if format.contains("10") {
            (pixelFormat, maximum) = ("gray10le", 1023)
        } else {
            (pixelFormat, maximum) = ("gray", 255)
        }
    }

    deinit { stop() }

    package func file(_ index: Int) -> String { name }

    package func read(_ index: Int) throws(DepthInputError) -> RawDepthFrame {
        if index == 0 || process == nil { try start() }
        guard index == next, let pipe else { throw DepthInputError(file: name, frame: index, .malformed("internal: frames out of order")) }
        let bytesPerSample = maximum > 255 ? 2 : 1
        let size = width * height * bytesPerSample
        guard let data = try? pipe.fileHandleForReading.read(upToCount: size), data.count == size else {
            throw DepthInputError(file: name, frame: index, .decoder("ffmpeg ended before frame \(index) of \(frameCount)"))
        }
        next += 1
        var values = [Float](repeating: 0, count: width * height)
        data.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            for i in 0..<values.count {
                values[i] = bytesPerSample == 1 ? Float(b[i]) : Float(UInt16(b[2 * i]) | UInt16(b[2 * i + 1]) << 8)
            }
        }
        return RawDepthFrame(width: width, height: height, values: values, integerMaximum: maximum)
    }

    private func start() throws(DepthInputError) {
        stop()
        guard let ffmpeg = FFmpegLocator.ffmpeg() else { throw DepthInputError(file: name, .decoder("ffmpeg is not installed")) }
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = [
            "-v", "error", "-nostdin", "-i", name, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", pixelFormat,
            "-",
        ]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw DepthInputError(file: name, .decoder("cannot start ffmpeg: \(error.localizedDescription)")) }
        self.process = process
        self.pipe = pipe
        next = 0
    }

    private func stop() {
        if let process, process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        process = nil
        pipe = nil
    }

    static func run(_ tool: String, _ arguments: [String], file: String) throws(DepthInputError) -> String {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw DepthInputError(file: file, .decoder("cannot start \(tool)")) }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DepthInputError(file: file, .malformed("ffprobe cannot read this file as video"))
        }
        return String(decoding: data, as: UTF8.self)
    }
}
