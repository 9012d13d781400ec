import Cinepack
import Foundation
import TestSupport
import Testing

/// YCbCr ↔ RGB against the standard (spec/colour.md §3): a movie whose YCbCr code values are
/// written here byte by byte (flat patches: white, black, grey, saturated colours), wrapped
/// losslessly by ffmpeg, is extracted to PNG and compared with the conversion computed here from
/// Kr/Kb and the limited-range scaling of ITU-R BT.709/BT.2020; a 16-bit RGB movie of known
/// patches, rendered with everything in focus to ProRes 422 HQ and lossless HEVC Main10, is
/// compared, unconverted, with the standard's YCbCr of its RGB.
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct ColourConversionTests {
    /// Patches of 16×32 pixels: (Y, Cb, Cr) at 10 bits.
    static let patches: [(Int, Int, Int)] = [
        (940, 512, 512), (64, 512, 512), (502, 512, 512), (300, 400, 800), (700, 200, 300), (200, 900, 450), (650, 600, 180),
        (400, 512, 700),
    ]
    static let width = 128, height = 32, frames = 3

    struct Matrix: Sendable, CustomStringConvertible {
        var name: String, kr: Double, kb: Double
        var primaries: String, transfer: String
        static let bt709 = Matrix(name: "bt709", kr: 0.2126, kb: 0.0722, primaries: "bt709", transfer: "bt709")
        static let bt2020 = Matrix(name: "bt2020nc", kr: 0.2627, kb: 0.0593, primaries: "bt2020", transfer: "bt2020-10")
        var description: String { name }

        /// Limited-range YCbCr at `bits` → R'G'B' in [0, 1], clipped.
        func rgb(_ ycc: (Int, Int, Int), bits: Int) -> [Double] {
            let s = Double(1 << (bits - 8))
            let y = (Double(ycc.0) - 16 * s) / (219 * s)
            let cb = (Double(ycc.1) - 128 * s) / (224 * s), cr = (Double(ycc.2) - 128 * s) / (224 * s)
            let r = y + 2 * (1 - kr) * cr, b = y + 2 * (1 - kb) * cb
            let g = (y - kr * r - kb * b) / (1 - kr - kb)
            return [r, g, b].map { min(max($0, 0), 1) }
        }
    }

    /// Writes the patches as raw planar 4:2:0 frames (little-endian 16-bit samples at 10 bits,
    /// bytes at 8) and wraps them losslessly: HEVC at 10 bits, H.264 at 8.
    static func source(_ matrix: Matrix, bits: Int, in dir: TemporaryDirectory) throws -> String {
        let shift = 10 - bits
        var y = [Int](), cb = [Int](), cr = [Int]()
        for row in 0..<height {
            for x in 0..<width { y.append(patches[x / 16].0 >> shift) }
            if row % 2 == 0 {
                for x in 0..<(width / 2) {
                    cb.append(patches[x / 8].1 >> shift)
                    cr.append(patches[x / 8].2 >> shift)
                }
            }
        }
        var bytes = [UInt8]()
        for sample in y + cb + cr { bytes += bits > 8 ? [UInt8(sample & 0xff), UInt8(sample >> 8)] : [UInt8(sample)] }
        let raw = dir.file("source.yuv")
        try Data(Array(repeating: bytes, count: frames).joined()).write(to: URL(fileURLWithPath: raw))
        let plain = dir.file("source.mov")
        let codec =
            bits > 8
            ? ["-c:v", "libx265", "-x265-params", "log-level=error:lossless=1", "-tag:v", "hvc1"] : ["-c:v", "libx264", "-qp", "0"]
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", bits > 8 ? "yuv420p10le" : "yuv420p", "-s", "\(width)x\(height)", "-r",
                "24", "-i", raw,
            ] + codec + [
                "-color_primaries", matrix.primaries, "-color_trc", matrix.transfer, "-colorspace", matrix.name, "-color_range", "tv",
                plain,
            ])
        return try ProVideoTests.pack(plain, name: "source", in: dir, frames: frames)
    }

    @Test(arguments: [(Matrix.bt2020, 10), (Matrix.bt709, 10), (Matrix.bt709, 8)])
    func extractDecodesToTheStandardsRGB(_ matrix: Matrix, bits: Int) throws {
        let dir = try Paths.temporaryDirectory("ycc-\(matrix.name)-\(bits)")
        let cinematic = try Self.source(matrix, bits: bits, in: dir)
        let png = dir.file("frame.png")
        let result = try CLI.run(["extract", cinematic, "--at", "1f", "--track", "video", "-o", png])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: png))))
        let samples: [Int] = image.samples16.map { $0.map(Int.init) } ?? image.samples8!.map(Int.init)
        let top = Double(bits > 8 ? 65535 : 255)
        // One code value at the source's depth: 64 at 16 bits for a 10-bit source.
        let tolerance = bits > 8 ? 64.0 : 1.0
        let errors = Self.patches.indices.flatMap { p in
            let (y, cb, cr) = Self.patches[p]
            let expected = matrix.rgb((y >> (10 - bits), cb >> (10 - bits), cr >> (10 - bits)), bits: bits).map { $0 * top }
            let at = 3 * ((Self.height / 2) * Self.width + p * 16 + 8)
            return (0..<3).map { Double(samples[at + $0]) - expected[$0] }
        }
        let worst = errors.map(abs).max() ?? .infinity
        #expect(worst <= tolerance, "\(matrix) \(bits)-bit: worst error \(worst) at \(image.bitDepth) bits, errors \(errors)")
        // The standard gives 65535 for limited-range white; a conversion off by 0.4 % gives 65283.
        #expect(samples[3 * (Self.height / 2 * Self.width + 8)] == Int(top))
    }

    /// The patches of a movie's frame 1 as ffmpeg decodes them to 4:2:x YCbCr, no conversion:
    /// means of each plane over the patch's middle (8×16 luma samples).
    static func patchMeans(_ path: String, pixelFormat: String) throws -> [[Double]] {
        let out = try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-i", path, "-map", "0:v:0", "-vf", "select=eq(n\\,1)", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt",
                pixelFormat, "-",
            ]
        ).stdout
        let s = stride(from: 0, to: out.count - 1, by: 2).map { Double(Int(out[$0]) | Int(out[$0 + 1]) << 8) }
        let chromaRows = pixelFormat.hasPrefix("yuv420") ? height / 2 : height
        let lumaCount = width * height, chromaCount = width / 2 * chromaRows
        #expect(s.count == lumaCount + 2 * chromaCount)
        func mean(_ base: Int, _ w: Int, _ rows: Range<Int>, _ cols: Range<Int>) -> Double {
            let values = rows.flatMap { r in cols.map { s[base + r * w + $0] } }
            return values.reduce(0, +) / Double(values.count)
        }
        return patches.indices.map { p in
            [
                mean(0, width, 8..<24, (p * 16 + 4)..<(p * 16 + 12)),
                mean(lumaCount, width / 2, (chromaRows / 4)..<(3 * chromaRows / 4), (p * 8 + 2)..<(p * 8 + 6)),
                mean(lumaCount + chromaCount, width / 2, (chromaRows / 4)..<(3 * chromaRows / 4), (p * 8 + 2)..<(p * 8 + 6)),
            ]
        }
    }

    /// A 16-bit RGB movie (PNG in QuickTime, untagged: sRGB, encoded with BT.709's matrix) of
    /// the patches' RGB at 16 bits, packed.
    static func rgbSource(in dir: TemporaryDirectory) throws -> (String, [[Int]]) {
        let colours = patches.map { p in Matrix.bt709.rgb(p, bits: 10).map { Int(($0 * 65535).rounded()) } }
        var bytes = [UInt8]()
        for _ in 0..<height {
            for x in 0..<width {
                for c in colours[x / 16] { bytes += [UInt8(c & 0xff), UInt8(c >> 8)] }
            }
        }
        let raw = dir.file("source.rgb")
        try Data(Array(repeating: bytes, count: frames).joined()).write(to: URL(fileURLWithPath: raw))
        let plain = dir.file("source.mov")
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb48le", "-s", "\(width)x\(height)", "-r", "24", "-i", raw,
                "-c:v", "png", "-pix_fmt", "rgb48be", plain,
            ])
        return (try ProVideoTests.pack(plain, name: "source", in: dir, frames: frames), colours)
    }

    /// 16-bit R'G'B' → limited-range YCbCr at 10 bits, unrounded.
    static func ycc(_ rgb: [Int], _ m: Matrix) -> [Double] {
        let (r, g, b) = (Double(rgb[0]) / 65535, Double(rgb[1]) / 65535, Double(rgb[2]) / 65535)
        let y = m.kr * r + (1 - m.kr - m.kb) * g + m.kb * b
        return [4 * (16 + 219 * y), 4 * (128 + 224 * (b - y) / (2 * (1 - m.kb))), 4 * (128 + 224 * (r - y) / (2 * (1 - m.kr)))]
    }

    /// A 16-bit RGB movie rendered with everything in focus (its pixels unchanged) to ProRes 422
    /// HQ and lossless HEVC Main10 (an untagged source: BT.709's matrix, limited range): the
    /// code values ffmpeg decodes, unconverted, are the standard's conversion of the RGB, within
    /// ±1 at 10 bits for ProRes (lossy, patch means), rounded for lossless HEVC.
    @Test(arguments: [("prores", "yuv422p10le"), ("hevc", "yuv420p10le")])
    func inFocusRenderEncodesTheStandardsYCbCr(_ codec: String, pixelFormat: String) throws {
        let dir = try Paths.temporaryDirectory("ycc-encode-\(codec)")
        let (cinematic, colours) = try Self.rgbSource(in: dir)
        try ProVideoTests.focusEverywhere(cinematic)
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", cinematic, "-o", out, "--codec", codec] + (codec == "hevc" ? ["--crf", "0"] : []))
        #expect(result.status == 0, "\(result.stderr)")
        let means = try Self.patchMeans(out, pixelFormat: pixelFormat)
        let tolerance = codec == "hevc" ? 0.51 : 1.0
        for p in Self.patches.indices {
            let expected = Self.ycc(colours[p], .bt709)
            let worst = zip(means[p], expected).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst <= tolerance, "\(codec) patch \(p): got \(means[p]), the standard's \(expected)")
        }
    }
}
