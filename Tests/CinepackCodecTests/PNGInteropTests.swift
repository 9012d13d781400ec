import CinepackFormat
import Foundation
import TestSupport
import Testing

/// ffmpeg as an independent PNG implementation, both ways. Runs whenever CI=true (failing if
/// ffmpeg is missing); elsewhere skipped when ffmpeg is not installed.
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct PNGInteropTests {
    static let formats: [(layout: PixelLayout, depth: Int)] = [
        (.gray, 8), (.gray, 16), (.rgb, 8), (.rgb, 16), (.rgba, 8), (.rgba, 16), (.grayAlpha, 8), (.grayAlpha, 16),
    ]
    static let formatNames = formats.map { TestImages.ffmpegFormat($0.layout, $0.depth) }
    static let predictions = ["none", "sub", "up", "avg", "paeth", "mixed"]
    static let quiet = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"]

    static func format(named name: String) -> (layout: PixelLayout, depth: Int) {
        formats.first { TestImages.ffmpegFormat($0.layout, $0.depth) == name } ?? (.rgb, 8)
    }

    /// Runs ffmpeg, returning the bytes it wrote to `output` in a fresh temporary directory.
    static func ffmpeg(_ arguments: [String], inputs: [String: [UInt8]] = [:], output: String) throws -> [UInt8] {
        let dir = try Paths.temporaryDirectory("PNGInterop")
        return try withExtendedLifetime(dir) {
            for (name, bytes) in inputs { try Data(bytes).write(to: dir.url.appendingPathComponent(name)) }
            let resolved = arguments.map { arg in
                inputs[arg] != nil || arg == output ? dir.file(arg) : arg
            }
            try Peers.run("ffmpeg", quiet + resolved)
            return Array(try Data(contentsOf: dir.url.appendingPathComponent(output)))
        }
    }

    /// ffmpeg's decode of a PNG file as rawvideo in `pixFmt`.
    static func ffmpegDecode(_ png: [UInt8], pixFmt: String) throws -> [UInt8] {
        try ffmpeg(
            ["-i", "in.png", "-f", "rawvideo", "-pix_fmt", pixFmt, "out.raw"],
            inputs: ["in.png": png], output: "out.raw")
    }

    /// ffmpeg encodes our raw pattern (odd size, real alpha content) with each prediction mode;
    /// our decoder must give back exactly the pattern.
    @Test(arguments: formatNames, predictions)
    func decodeFFmpegEncodedPattern(pixFmt: String, pred: String) throws {
        let (layout, depth) = Self.format(named: pixFmt)
        let image = try TestImages.make(width: 97, height: 61, layout: layout, bitDepth: depth, seed: 2024)
        let png = try Self.ffmpeg(
            [
                "-f", "rawvideo", "-pix_fmt", pixFmt, "-s", "97x61", "-i", "in.raw",
                "-frames:v", "1", "-c:v", "png", "-pred", pred, "-f", "image2", "out.png",
            ],
            inputs: ["in.raw": TestImages.rawBytes(image)], output: "out.png")
        #expect(Compare.images(try PNGDecoder.decode(png), image) == nil)
    }

    /// ffmpeg's testsrc2 through ffmpeg's PNG encoder vs the raw pixels ffmpeg makes of the same source.
    @Test(arguments: formatNames, predictions)
    func decodeFFmpegTestPattern(pixFmt: String, pred: String) throws {
        let source = ["-f", "lavfi", "-i", "testsrc2=size=96x60:rate=1", "-frames:v", "1", "-pix_fmt", pixFmt]
        let png = try Self.ffmpeg(source + ["-c:v", "png", "-pred", pred, "-f", "image2", "out.png"], output: "out.png")
        let raw = try Self.ffmpeg(source + ["-f", "rawvideo", "out.raw"], output: "out.raw")
        let decoded = try PNGDecoder.decode(png)
        let (layout, depth) = Self.format(named: pixFmt)
        #expect(decoded.width == 96 && decoded.height == 60)
        #expect(decoded.layout == layout && decoded.bitDepth == depth)
        #expect(Compare.firstDifference(TestImages.rawBytes(decoded), raw) == nil)
    }

    /// Our encoder's output, decoded by ffmpeg, must be our pixels, for every strategy.
    @Test(arguments: formatNames, PNGFilterStrategy.allCases)
    func ffmpegDecodesOurPNG(pixFmt: String, strategy: PNGFilterStrategy) throws {
        let (layout, depth) = Self.format(named: pixFmt)
        let image = try TestImages.make(width: 45, height: 29, layout: layout, bitDepth: depth, seed: 31)
        let png = try PNGEncoder.encode(image, filter: strategy)
        #expect(Compare.firstDifference(try Self.ffmpegDecode(png, pixFmt: pixFmt), TestImages.rawBytes(image)) == nil)
    }

    /// 1-bit greyscale written by ffmpeg (monob): we expand to 0/255 like ffmpeg's gray output.
    @Test func monochrome() throws {
        let png = try Self.ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=size=96x60:rate=1", "-frames:v", "1",
                "-pix_fmt", "monob", "-c:v", "png", "-f", "image2", "out.png",
            ], output: "out.png")
        #expect(try PNGDecoder.header(of: png).bitDepth == 1)
        let decoded = try PNGDecoder.decode(png)
        #expect(decoded.layout == .gray)
        let gray = try Self.ffmpegDecode(png, pixFmt: "gray")
        #expect(Compare.firstDifference(TestImages.rawBytes(decoded), gray) == nil)
    }

    /// ffmpeg's pal8 PNG: our RGB/RGBA vs ffmpeg's own decode of the same file.
    @Test func paletteFromFFmpeg() throws {
        let png = try Self.ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=size=96x60:rate=1", "-frames:v", "1",
                "-pix_fmt", "pal8", "-c:v", "png", "-f", "image2", "out.png",
            ], output: "out.png")
        #expect(try PNGDecoder.header(of: png).colorType == .palette)
        let decoded = try PNGDecoder.decode(png)
        let rgba = try Self.ffmpegDecode(png, pixFmt: "rgba")
        if decoded.layout == .rgba {
            #expect(Compare.firstDifference(TestImages.rawBytes(decoded), rgba) == nil)
        } else {
            // No tRNS: ffmpeg reports opaque alpha, we report RGB.
            #expect(decoded.layout == .rgb)
            let rgb = stride(from: 0, to: rgba.count, by: 4).flatMap { rgba[$0..<($0 + 3)] }
            #expect(Compare.firstDifference(TestImages.rawBytes(decoded), rgb) == nil)
            #expect(stride(from: 3, to: rgba.count, by: 4).allSatisfy { rgba[$0] == 255 })
        }
    }

    /// Hand-built files ffmpeg cannot write (interlaced, 2/4-bit, palette with tRNS): ffmpeg's
    /// decoder and ours must agree.
    @Test(arguments: [false, true])
    func handBuiltFilesAgreeWithFFmpeg(interlaced: Bool) throws {
        var rng = SeededGenerator(seed: interlaced ? 7 : 8)
        let width = 27, height = 19
        let cases: [(colorType: Int, depth: Int, pixFmt: String)] = [
            (0, 1, "gray"), (0, 2, "gray"), (0, 4, "gray"), (0, 8, "gray"), (0, 16, "gray16be"),
            (2, 8, "rgb24"), (2, 16, "rgb48be"), (4, 8, "ya8"), (4, 16, "ya16be"), (6, 8, "rgba"), (6, 16, "rgba64be"),
            (3, 1, "rgba"), (3, 2, "rgba"), (3, 4, "rgba"), (3, 8, "rgba"),
        ]
        for (colorType, depth, pixFmt) in cases {
            let spp = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1
            let entries = colorType == 3 ? 1 << depth : 0
            let samples = (0..<height).map { _ in
                (0..<(width * spp)).map { _ in Int(rng.next() % UInt64(colorType == 3 ? entries : 1 << depth)) }
            }
            let palette = (0..<(entries * 3)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Alpha for all but the last entry, so "missing tRNS entries are opaque" is exercised.
            let alpha = (0..<max(entries - 1, 1)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let extra = colorType == 3 ? [RefPNG.chunk("PLTE", palette), RefPNG.chunk("tRNS", alpha)] : []
            let filtered = RefPNG.imageData(
                width: width, height: height, samplesPerPixel: spp, depth: depth,
                interlaced: interlaced, samples: samples,
                filterFor: { pass, row in (pass * 3 + row) % 5 })
            let png = try RefPNG.png(
                width: width, height: height, depth: depth, colorType: colorType,
                interlaced: interlaced, filtered: filtered, beforeIDAT: extra)
            let ours = try PNGDecoder.decode(png)
            let theirs = try Self.ffmpegDecode(png, pixFmt: pixFmt)
            #expect(
                Compare.firstDifference(TestImages.rawBytes(ours), theirs) == nil,
                "colour type \(colorType) depth \(depth) interlaced \(interlaced)")
        }
    }

    /// A full-HD frame round-trips through ffmpeg too (multiple IDAT chunks on our side).
    @Test func largeFrame() throws {
        let image = try TestImages.make(width: 1920, height: 1080, layout: .rgb, bitDepth: 8, seed: 3)
        let png = try PNGEncoder.encode(image)
        #expect(RefPNG.chunks(of: png).filter { $0.type == "IDAT" }.count >= 2)
        #expect(Compare.firstDifference(try Self.ffmpegDecode(png, pixFmt: "rgb24"), TestImages.rawBytes(image)) == nil)
        #expect(Compare.images(try PNGDecoder.decode(png), image) == nil)
    }
}
