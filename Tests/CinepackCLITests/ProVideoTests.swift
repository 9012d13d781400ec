import Cinepack
import Foundation
import TestSupport
import Testing

/// Pro video through the real binary, against ffmpeg/ffprobe: 10-bit HLG/PQ HEVC, ProRes 422 HQ
/// and 4444, 8-bit BT.709 H.264 sources made by ffmpeg here; colour tags and pixels kept, PQ
/// highlights keep their energy, audio follows trims and speed changes, extract decodes them all.
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct ProVideoTests {
    /// A source ffmpeg makes: codec arguments, pixel format and colour tags.
    struct Source {
        var name: String
        var codec: [String]
        var pixelFormat: String
        var primaries: String, transfer: String, matrix: String
        var bits: Int
        var picture = "gradients=size=128x72:rate=24:speed=0.02:c0=0x204060:c1=0xc0a080:seed=3"

        static let hlg = Source(
            name: "hlg", codec: ["-c:v", "libx265", "-x265-params", "log-level=error:lossless=1", "-tag:v", "hvc1"],
            pixelFormat: "yuv420p10le", primaries: "bt2020", transfer: "arib-std-b67", matrix: "bt2020nc", bits: 10)
        static let pq = Source(
            name: "pq", codec: ["-c:v", "libx265", "-x265-params", "log-level=error:lossless=1", "-tag:v", "hvc1"],
            pixelFormat: "yuv420p10le", primaries: "bt2020", transfer: "smpte2084", matrix: "bt2020nc", bits: 10)
        static let proresHQ = Source(
            name: "proreshq", codec: ["-c:v", "prores_ks", "-profile:v", "3"], pixelFormat: "yuv422p10le", primaries: "bt709",
            transfer: "bt709", matrix: "bt709", bits: 10)
        static let prores4444 = Source(
            name: "prores4444", codec: ["-c:v", "prores_ks", "-profile:v", "4"], pixelFormat: "yuv444p10le", primaries: "bt709",
            transfer: "bt709", matrix: "bt709", bits: 10)
        static let h264 = Source(
            name: "h264", codec: ["-c:v", "libx264", "-qp", "0"], pixelFormat: "yuv420p", primaries: "bt709", transfer: "bt709",
            matrix: "bt709", bits: 8)

        var tags: [String] { ["-color_primaries", primaries, "-color_trc", transfer, "-colorspace", matrix, "-color_range", "tv"] }
    }

    /// The source as a plain movie and as a cinematic movie (flat disparity, 6 frames at 24 fps).
    static func make(
        _ source: Source, in dir: TemporaryDirectory, frames: Int = 6, audio: String? = nil
    ) throws -> (plain: String, cinematic: String) {
        let plain = dir.file("\(source.name).mov")
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", source.picture, "-frames:v", "\(frames)",
                "-vf", "setparams=color_primaries=\(source.primaries):color_trc=\(source.transfer):colorspace=\(source.matrix):range=tv",
            ]
                + ["-pix_fmt", source.pixelFormat] + source.codec + source.tags + [plain])
        return (plain, try pack(plain, name: source.name, in: dir, frames: frames, audio: audio))
    }

    /// A plain movie packed as a cinematic movie (flat disparity, 24 fps).
    static func pack(_ plain: String, name: String, in dir: TemporaryDirectory, frames: Int, audio: String? = nil) throws -> String {
        try FileManager.default.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: true)
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:size=32x18:rate=24", "-frames:v", "\(frames)", "-pix_fmt",
                "gray16be",
                dir.file("d/%04d.png"),
            ])
        let cinematic = dir.file("\(name)-cinematic.mov")
        var pack = [
            "pack", "-o", cinematic, "--video", plain, "--disparity", dir.file("d/%04d.png"), "--disparity-range", "0:4", "--fps", "24",
            "--disparity-fit", "stretch",
        ]
        if let audio { pack += ["--audio", audio] }
        let packed = try CLI.run(pack)
        #expect(packed.status == 0, "\(packed.stderr)")
        return cinematic
    }

    /// Focus on the plane every pixel is on (the disparity at the centre), so nothing blurs.
    static func focusEverywhere(_ path: String) throws {
        let result = try CLI.run(["refocus", path, "--at", "0f", "--fixed", "--point", "0.5,0.5"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// ffprobe's view of the first video stream.
    static func probe(_ path: String) throws -> [String: String] {
        let out = try Peers.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,pix_fmt,color_space,color_transfer,color_primaries",
                "-of", "default=nw=1", path,
            ])
        var fields: [String: String] = [:]
        for line in out.text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// The frames of a movie as ffmpeg decodes them to `pixelFormat` (16-bit samples for >8-bit
    /// formats), converting from RGB with `matrix` and limited range when needed: by zimg, which
    /// computes the standard's conversion (swscale's from 16-bit RGB is 0.4 % off).
    static func decode(_ path: String, pixelFormat: String, matrix: String) throws -> [Int] {
        let scale = "zscale=matrix=\(matrix):range=limited:dither=none"
        let out = try Peers.run(
            "ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-vf", scale, "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"]
        ).stdout
        if pixelFormat.contains("10") || pixelFormat.contains("48") {
            return stride(from: 0, to: out.count - 1, by: 2).map { Int(out[$0]) | Int(out[$0 + 1]) << 8 }
        }
        return out.map { Int($0) }
    }

    func assertPixelsKept(_ source: Source, output: String, plain: String) throws {
        let a = try Self.decode(plain, pixelFormat: source.pixelFormat, matrix: source.matrix)
        let b = try Self.decode(output, pixelFormat: source.pixelFormat, matrix: source.matrix)
        #expect(a.count == b.count && !a.isEmpty)
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? .max
        #expect(worst <= 1, "\(source.name) → \(output): a sample differs by \(worst) code values at \(source.bits) bits")
    }

    func assertTagsKept(_ source: Source, output: String, matrix: Bool = true) throws {
        let probe = try Self.probe(output)
        #expect(probe["color_primaries"] == source.primaries, "\(probe)")
        #expect(probe["color_transfer"] == source.transfer, "\(probe)")
        if matrix { #expect(probe["color_space"] == source.matrix, "\(probe)") }
    }

    @Test(arguments: [Source.hlg, Source.pq, Source.proresHQ, Source.prores4444, Source.h264])
    func inFocusRenderKeepsPixelsTagsAndDepth(_ source: Source) throws {
        let dir = try Paths.temporaryDirectory("pro-\(source.name)")
        let (plain, cinematic) = try Self.make(source, in: dir)
        try Self.focusEverywhere(cinematic)

        // Lossless output: every sample within one code value of the source at its own depth.
        let lossless = dir.file("lossless.mov")
        let codec = source.bits > 8 ? "png16" : "png"
        let r1 = try CLI.run(["render", cinematic, "-o", lossless, "--codec", codec])
        #expect(r1.status == 0, "\(r1.stderr)")
        try assertPixelsKept(source, output: lossless, plain: plain)
        try assertTagsKept(source, output: lossless, matrix: false)
        #expect(try Self.probe(lossless)["color_space"] == "gbr")  // RGB: identity matrix

        // The default codec: same bit depth, the source's tags in the container and the codec.
        let out = dir.file("out.mov")
        let r2 = try CLI.run(["render", cinematic, "-o", out])
        #expect(r2.status == 0, "\(r2.stderr)")
        let probe = try Self.probe(out)
        if source.bits > 8 {
            #expect(r2.stderr.contains("codec prores"), "\(r2.stderr)")
            #expect(probe["codec_name"] == "prores")
            // ProRes 4444 decodes as 12-bit: at least the source's depth.
            #expect(probe["pix_fmt"]?.contains("p10") == true || probe["pix_fmt"]?.contains("p12") == true, "\(probe)")
            try assertTagsKept(source, output: out)
        } else {
            #expect(probe["codec_name"] == "png" && probe["pix_fmt"] == "rgb24", "\(probe)")
        }
    }

    @Test func losslessHEVCMain10OutputKeepsTheSourceExactly() throws {
        let dir = try Paths.temporaryDirectory()
        let (plain, cinematic) = try Self.make(.hlg, in: dir)
        try Self.focusEverywhere(cinematic)
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", cinematic, "-o", out, "--codec", "hevc", "--crf", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try Self.probe(out)
        #expect(probe["codec_name"] == "hevc" && probe["pix_fmt"] == "yuv420p10le", "\(probe)")
        try assertTagsKept(.hlg, output: out)
        try assertPixelsKept(.hlg, output: out, plain: plain)
    }

    @Test func eightBitH264OutputCarriesBT709Tags() throws {
        let dir = try Paths.temporaryDirectory()
        let (plain, cinematic) = try Self.make(.h264, in: dir)
        try Self.focusEverywhere(cinematic)
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", cinematic, "-o", out, "--codec", "h264", "--crf", "0", "--preset", "veryfast"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try Self.probe(out)
        #expect(probe["codec_name"] == "h264" && probe["pix_fmt"] == "yuv420p", "\(probe)")
        try assertTagsKept(.h264, output: out)
        try assertPixelsKept(.h264, output: out, plain: plain)
    }

    /// PQ inverse EOTF → nits, written here from SMPTE ST 2084 independently of the library.
    static func pqNits(_ code: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let e = pow(code, 1 / m2)
        return 10000 * pow(max(e - c1, 0) / (c2 - c3 * e), 1 / m1)
    }

    @Test func pqHighlightKeepsItsEnergyUnderBlur() throws {
        let dir = try Paths.temporaryDirectory()
        var source = Source.pq
        source.name = "pq-highlight"
        source.pixelFormat = "yuv444p10le"
        // A 6×6 highlight (about 1 000 nits) on a dim background (about 5 nits).
        source.picture = "color=c=0x303030:size=96x64:rate=24,drawbox=x=45:y=29:w=6:h=6:color=0xC0C0C0:t=fill"
        let (plain, cinematic) = try Self.make(source, in: dir, frames: 2)
        // Focus far behind the flat plane: the whole picture blurs (a circle of about 13 px).
        let refocus = try CLI.run(["refocus", cinematic, "--at", "0f", "--disparity", "0.3"])
        #expect(refocus.status == 0, "\(refocus.stderr)")
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", cinematic, "-o", out, "--codec", "png16", "--f-number", "2", "--focal-length", "80"])
        #expect(result.status == 0, "\(result.stderr)")

        let background = Self.pqNits(Double(try Self.decodeRGB48(plain, width: 96, height: 64)[(2 * 96 + 2) * 3 + 1]) / 65535)
        func energy(_ path: String) throws -> (total: Double, peak: Double) {
            let rgb = try Self.decodeRGB48(path, width: 96, height: 64)
            var total = 0.0, peak = 0.0
            for y in 12..<52 {
                for x in 28..<68 {
                    let g = Self.pqNits(Double(rgb[(y * 96 + x) * 3 + 1]) / 65535)
                    total += g - background
                    peak = max(peak, g)
                }
            }
            return (total, peak)
        }
        let before = try energy(plain)
        let after = try energy(out)
        #expect(after.peak < before.peak * 0.5, "the highlight did not blur: peak \(before.peak) → \(after.peak) nits")
        let change = abs(after.total - before.total) / before.total
        #expect(change < 0.02, "highlight energy \(before.total) → \(after.total) nit·px (\(change * 100) %)")
    }

    /// A movie's frame 0 as 16-bit RGB, through zimg's conversion from YCbCr with the matrix and
    /// range the movie is tagged with (the standard's; swscale's to 16 bits is 0.4 % dark).
    static func decodeRGB48(_ path: String, width: Int, height: Int) throws -> [Int] {
        let out = try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-i", path, "-map", "0:v:0", "-frames:v", "1", "-vf", zimgToRGB48,
                "-f", "rawvideo", "-pix_fmt", "rgb48le", "-",
            ]
        ).stdout
        return stride(from: 0, to: out.count - 1, by: 2).map { Int(out[$0]) | Int(out[$0 + 1]) << 8 }
    }

    /// zimg's conversion of a frame to 16-bit RGB with the matrix and range it is tagged with.
    static let zimgToRGB48 = "zscale=matrix=gbr:range=full:dither=none,format=gbrp16le"

    @Test(arguments: [Source.h264, Source.hlg, Source.proresHQ])
    func extractWritesTheFrame(_ source: Source) throws {
        let dir = try Paths.temporaryDirectory("extract-\(source.name)")
        let (plain, cinematic) = try Self.make(source, in: dir, frames: 3)
        let png = dir.file("frame.png")
        let result = try CLI.run(["extract", cinematic, "--at", "2f", "--track", "video", "-o", png])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: png))))
        #expect(image.bitDepth == (source.bits > 8 ? 16 : 8))
        #expect(image.width == 128 && image.height == 72)
        // The same frame as ffmpeg converts it to RGB with the source's matrix: zimg at 16 bits
        // (the standard's conversion), swscale at 8 (exact there).
        let matrix = source.matrix == "bt2020nc" ? "bt2020" : source.matrix
        let convert =
            source.bits > 8
            ? Self.zimgToRGB48 : "scale=flags=accurate_rnd+full_chroma_int+full_chroma_inp:in_color_matrix=\(matrix):in_range=limited"
        let out = try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-i", plain, "-map", "0:v:0", "-vf", "select=eq(n\\,2),\(convert)",
                "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", source.bits > 8 ? "rgb48le" : "rgb24", "-",
            ]
        ).stdout
        let expected =
            source.bits > 8 ? stride(from: 0, to: out.count - 1, by: 2).map { Int(out[$0]) | Int(out[$0 + 1]) << 8 } : out.map { Int($0) }
        let actual: [Int] = image.samples16.map { $0.map(Int.init) } ?? image.samples8!.map(Int.init)
        #expect(actual == expected)
    }

    @Test func blendMixesTheTwoSourceFramesInLinearLight() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        #expect(try CLI.run(["demo", "-o", path, "--seconds", "0.5", "--size", "96x64"]).status == 0)
        let slow = try CLI.run(["speed", path, "--range", "0s..0.5s", "--rate", "1/2"])
        #expect(slow.status == 0, "\(slow.stderr)")
        let out = dir.file("out.mov")
        // f/1000: circles of confusion far under a pixel, so the render is the mix itself.
        let result = try CLI.run(["render", path, "-o", out, "--frame-sampling", "blend", "--f-number", "1000", "--range", "0f..4f"])
        #expect(result.status == 0, "\(result.stderr)")
        let source = try CinematicMovie.open(path: path)
        let rendered = try Movie.read(path: out)
        let sample = try #require(rendered.tracks.first?.samples.sample(at: 1))
        let bytes = try FileByteSource(path: out).read(at: sample.offset, count: Int(sample.size))
        let frame1 = try PNGDecoder.decode(bytes)
        let a = try source.picture(0), b = try source.picture(1)
        // IEC 61966-2-1, written out here: program frame 1 is halfway between source frames 0 and 1.
        func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func encoded(_ l: Double) -> Double { l <= 0.003_130_8 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055 }
        var worst = 0.0
        for i in 0..<(96 * 64 * 3) {
            let x = (i / 3) % 96, y = i / 3 / 96, c = i % 3
            let mix = (linear(Double(a.sample(x: x, y: y, channel: c)) / 255) + linear(Double(b.sample(x: x, y: y, channel: c)) / 255)) / 2
            worst = max(worst, abs(encoded(mix) * 255 - Double(frame1.sample(x: x, y: y, channel: c))))
        }
        #expect(worst <= 1.5, "a blended sample is \(worst) codes from the linear-light mix")
    }
}
