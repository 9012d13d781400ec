import Foundation

/// Decodes a movie's first video stream through ffmpeg, frame by frame in presentation order,
/// as RGB: 8 bits per sample (`rgb24`) for 8-bit sources, 16 (`rgb48le`) for deeper ones, so a
/// 10- or 12-bit picture keeps every bit. The YCbCr matrix and range of the source's colour
/// description are passed to the scaler explicitly rather than left to its defaults.
package final class FFmpegFrameDecoder {
    package let path: String
    package let width: Int
    package let height: Int
    package let format: SourcePictureFormat
    private let ffmpeg: String
    private var process: Process?
    private var pipe = Pipe()
    private var errorsURL: URL?
    /// The frame the pipe delivers next.
    private var next = 0
    private var last: (Int, PixelImage)?

    package init(path: String, width: Int, height: Int, format: SourcePictureFormat, ffmpeg: String) {
        self.path = path
        self.width = width
        self.height = height
        self.format = format
        self.ffmpeg = ffmpeg
    }

    deinit { stop() }

    /// The bytes per frame on the pipe.
    var frameBytes: Int { width * height * 3 * (format.isHighPrecision ? 2 : 1) }

    /// ffmpeg's arguments to decode from frame `first` on (earlier frames are decoded and dropped
    /// inside ffmpeg, never converted).
    package func arguments(from first: Int) -> [String] {
        var filters: [String] = []
        if first > 0 { filters.append("select=gte(n\\,\(first))") }
        filters.append(
            Self.scaleFilter(
                colour: format.colour, direction: "in", deepRGB: format.isHighPrecision && Self.isYCbCr(pixelFormat: format.pixelFormat)))
        return [
            "-v", "error", "-nostdin", "-ignore_editlist", "1", "-i", path, "-map", "0:v:0", "-vf", filters.joined(separator: ","),
            "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", format.isHighPrecision ? "rgb48le" : "rgb24", "-",
        ]
    }

    /// The filter converting between the source's YCbCr and RGB, matrix and range spelled out
    /// rather than left to defaults (spec/colour.md §3). `deepRGB`: the RGB side is 16-bit and
    /// the other side YCbCr — swscale's high-bit-depth path is then about 0.4 % off (limited-range
    /// white decodes to 65283 of 65535), so zimg (`zscale`), which computes the standard's
    /// conversion and rounds to nearest, does it. Other conversions (8-bit RGB) keep swscale, exact
    /// there: accurate rounding, chroma interpolated at full resolution.
    package static func scaleFilter(colour: ColourDescription, direction: String, deepRGB: Bool = false) -> String {
        if deepRGB, let matrix = zimgMatrix(colour.matrix) {
            let range = colour.fullRange ? "full" : "limited"
            // zimg takes planar RGB only; the repacking to and from rgb48le is exact.
            return direction == "in"
                ? "zscale=matrixin=\(matrix):rangein=\(range):matrix=gbr:range=full:dither=none,format=gbrp16le"
                : "format=gbrp16le,zscale=matrixin=gbr:rangein=full:matrix=\(matrix):range=\(range):dither=none"
        }
        var options = ["flags=accurate_rnd+full_chroma_int+full_chroma_inp"]
        if let matrix = scalerMatrix(colour.matrix) { options.append("\(direction)_color_matrix=\(matrix)") }
        if colour.isSpecified || !colour.fullRange { options.append("\(direction)_range=\(colour.fullRange ? "full" : "limited")") }
        return "scale=" + options.joined(separator: ":")
    }

    /// zimg's name for a matrix code point. Unspecified (and reserved) is BT.601, as swscale
    /// takes it; BT.2020 constant luminance and the rest go to swscale.
    static func zimgMatrix(_ code: Int) -> String? {
        switch code {
        case 1: "709"
        case 2, 3: "170m"
        case 4: "fcc"
        case 5: "470bg"
        case 6: "170m"
        case 7: "smpte2400m"
        case 9: "2020_ncl"
        default: nil
        }
    }

    /// Whether an ffmpeg pixel format is YCbCr (not RGB, planar GBR or grey).
    package static func isYCbCr(pixelFormat name: String) -> Bool {
        !["rgb", "bgr", "gbr", "argb", "abgr", "rgba", "bgra", "x2rgb", "x2bgr", "gray", "ya", "0rgb", "0bgr", "pal8", "mono"]
            .contains { name.hasPrefix($0) }
    }

    /// swscale's name for a matrix code point, when it has one.
    static func scalerMatrix(_ code: Int) -> String? {
        switch code {
        case 1: "bt709"
        case 4: "fcc"
        case 5, 6: "bt601"
        case 7: "smpte240m"
        case 9, 10: "bt2020"
        default: nil
        }
    }

    /// Frame `n`. Frames asked in increasing order stream from one ffmpeg process; a repeat is
    /// served from memory; an earlier frame starts a new process.
    package func frame(_ n: Int) throws(FFmpegError) -> PixelImage {
        if let last, last.0 == n { return last.1 }
        if process == nil || n < next { try start(at: n) }
        while true {
            let data: Data?
            do { data = try pipe.fileHandleForReading.read(upToCount: frameBytes) } catch {
                throw .decodeFailed(path: path, frame: n, reason: "\(error)")
            }
            guard let data, data.count == frameBytes else {
                process?.waitUntilExit()
                throw .decodeEnded(path: path, frame: n, log: log())
            }
            let index = next
            next += 1
            guard index == n else { continue }
            let image = try picture(data, frame: n)
            last = (n, image)
            return image
        }
    }

    private func picture(_ data: Data, frame n: Int) throws(FFmpegError) -> PixelImage {
        do {
            if format.isHighPrecision {
                let samples = [UInt16](unsafeUninitializedCapacity: data.count / 2) { buffer, count in
                    data.withUnsafeBytes { raw in
                        for i in 0..<(data.count / 2) {
                            buffer[i] = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))
                        }
                    }
                    count = data.count / 2
                }
                return try PixelImage(width: width, height: height, layout: .rgb, samples: samples)
            }
            return try PixelImage(width: width, height: height, layout: .rgb, samples: [UInt8](data))
        } catch {
            throw .decodeFailed(path: path, frame: n, reason: "\(error)")
        }
    }

    private func start(at first: Int) throws(FFmpegError) {
        stop()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = arguments(from: first)
        pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cinepack-decode-\(UUID().uuidString).log")
        if FileManager.default.createFile(atPath: url.path, contents: nil), let handle = try? FileHandle(forWritingTo: url) {
            process.standardError = handle
            errorsURL = url
        } else {
            process.standardError = FileHandle.nullDevice
        }
        do { try process.run() } catch { throw .cannotStart(ffmpeg: ffmpeg, reason: "\(error)") }
        self.process = process
        next = first
    }

    private func stop() {
        if let process, process.isRunning {
            // Closing our end first: an ffmpeg blocked writing a frame nobody reads then fails
            // its write and exits, instead of waiting on the pipe through its SIGTERM handling.
            try? pipe.fileHandleForReading.close()
            process.terminate()
            process.waitUntilExit()
        }
        process = nil
        if let errorsURL { try? FileManager.default.removeItem(at: errorsURL) }
        errorsURL = nil
    }

    private func log() -> String {
        guard let errorsURL, let text = try? String(contentsOf: errorsURL, encoding: .utf8) else { return "" }
        return FFmpegTool.tail(text)
    }

    // MARK: - Probe

    /// What ffmpeg decodes the first video stream of `path` to: pixel format and the colour
    /// description the codec carries (VUI), from the first frame.
    package static func probe(path: String, ffmpeg: String) throws(FFmpegError) -> SourcePictureFormat {
        let (status, log) = try FFmpegTool.run(
            ffmpeg, ["-v", "info", "-nostdin", "-i", path, "-map", "0:v:0", "-frames:v", "1", "-vf", "showinfo", "-f", "null", "-"])
        guard status == 0, let parsed = parseShowinfo(log) else { throw .probeFailed(path: path, log: FFmpegTool.tail(log)) }
        return parsed
    }

    /// The pixel format (`fmt:`) and colour (`color_range:… color_space:… color_primaries:…
    /// color_trc:…`) of showinfo's first frame.
    static func parseShowinfo(_ log: String) -> SourcePictureFormat? {
        var pixelFormat: String?
        var values: [String: String] = [:]
        for line in log.split(separator: "\n") where line.contains("Parsed_showinfo") {
            for field in line.split(separator: " ") {
                let parts = field.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                if parts[0] == "fmt", pixelFormat == nil { pixelFormat = parts[1] }
                if parts[0].hasPrefix("color_"), values[parts[0]] == nil { values[parts[0]] = parts[1] }
            }
        }
        guard let pixelFormat else { return nil }
        let colour = ColourDescription(
            ffprobe: values["color_primaries"], transfer: values["color_trc"], matrix: values["color_space"], range: values["color_range"])
        return SourcePictureFormat(
            bitDepth: SourcePictureFormat.bitDepth(ofPixelFormat: pixelFormat), colour: colour, pixelFormat: pixelFormat)
    }
}
