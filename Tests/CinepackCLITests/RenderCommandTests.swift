import Cinepack
import Foundation
import TestSupport
import Testing

/// `cinepack render` through the real binary: stills, movies, ffmpeg codecs, bad requests.
@Suite struct RenderCommandTests {
    static func clip(seconds: String = "0.5", size: String = "160x90") throws -> (TemporaryDirectory, String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        let made = try CLI.run(["demo", "-o", path, "--seconds", seconds, "--size", size])
        #expect(made.status == 0, "\(made.stderr)")
        return (dir, path)
    }

    @Test func stillKeepsTheFocusedSubjectSharpAndBlursTheRest() throws {
        let (dir, path) = try Self.clip(size: "320x180")
        let still = dir.file("still.png")
        let result = try CLI.run(["render", path, "--at", "0.2s", "-o", still, "--f-number", "1.4", "--focal-length", "80", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let rendered = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: still))))
        let movie = try CinematicMovie.open(path: path)
        let original = try movie.picture(6)
        #expect(rendered.width == 320 && rendered.height == 180)
        // Focus is on person A (group 1) at frame 6: the middle of its torso (detection 3) stays close
        // to the original; the brick wall (top rows; at 80 mm, f/1.4 and 320 px its blur circle is
        // about 15 px) changes.
        let face = try #require(try movie.metadata(6).detections.first { $0.id == 3 })
        func meanDifference(x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
            var total = 0.0, count = 0.0
            for y in y0..<y1 {
                for x in x0..<x1 {
                    for c in 0..<3 {
                        total += abs(Double(rendered.sample(x: x, y: y, channel: c)) - Double(original.sample(x: x, y: y, channel: c)))
                        count += 1
                    }
                }
            }
            return total / max(count, 1)
        }
        let fx = Int(face.rect.centerX * 320), fy = Int(face.rect.centerY * 180)
        let onFace = meanDifference(x0: fx - 2, y0: fy - 2, x1: fx + 3, y1: fy + 3)
        let onWall = meanDifference(x0: 0, y0: 0, x1: 320, y1: 20)
        #expect(onFace < 4, "in-focus face changed by \(onFace)")
        #expect(onWall > onFace + 2, "background barely changed: \(onWall)")
    }

    @Test func overlayMatteTintsTheStillAndABadOverlayIsRefused() throws {
        let (dir, path) = try Self.clip()
        let plain = dir.file("plain.png"), matte = dir.file("matte.png"), bad = dir.file("bad.png")
        #expect(try CLI.run(["render", path, "--at", "0.2s", "-o", plain]).status == 0)
        let result = try CLI.run(["render", path, "--at", "0.2s", "-o", matte, "--overlay", "matte"])
        #expect(result.status == 0, "\(result.stderr)")
        let a = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: plain))))
        let b = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: matte))))
        // Every pixel is half the plain render and half pure red, green or blue.
        var zones = Set<Int>()
        for y in 0..<a.height {
            for x in 0..<a.width {
                let plain = (0..<3).map { Float(a.sample(x: x, y: y, channel: $0)) }
                let tinted = (0..<3).map { Float(b.sample(x: x, y: y, channel: $0)) }
                func matches(_ zone: Int) -> Bool {
                    (0..<3).allSatisfy { c -> Bool in
                        let expected: Float = c == zone ? (plain[c] + 255) / 2 : plain[c] / 2
                        return abs(tinted[c] - expected) <= 0.5
                    }
                }
                let zone = (0..<3).first(where: matches)
                #expect(zone != nil, "pixel \(x),\(y): \(plain) → \(tinted)")
                if let zone { zones.insert(zone) }
                if zone == nil { return }
            }
        }
        #expect(zones.count >= 2, "the demo has sharp and blurred zones: \(zones)")
        let refused = try CLI.run(["render", path, "--at", "0.2s", "-o", bad, "--overlay", "zebra"])
        #expect(refused.status != 0 && refused.stderr.contains("--overlay must be peaking, disparity or matte"))
        #expect(!FileManager.default.fileExists(atPath: bad))
    }

    @Test func movieIsAPlainMovieWithEveryFrame() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", path, "-o", out, "--quality", "preview", "--progress-json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(#""event":"progress""#))
        let movie = try Movie.read(path: out, options: .init(strict: true))
        #expect(movie.tracks.count == 1 && movie.tracks[0].samples.count == 15)
        #expect(movie.fileType?.compatibleBrands.contains("cnpk") == false)
        if try Peers.available("ffprobe") {
            let probe = try Peers.run(
                "ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out])
            #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "15")
        }
    }

    /// The movie's frames (decoded, rendered and written by overlapping stages) are the stills of
    /// the same frames, in order, byte for byte: the renderer is deterministic.
    @Test func movieFramesAreTheStillsInOrder() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", path, "-o", out, "--f-number", "1.4"])
        #expect(result.status == 0, "\(result.stderr)")
        let movie = try Movie.read(path: out)
        let samples = movie.tracks[0].samples
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        for frame in [0, 1, 7, 14] {
            let still = dir.file("still\(frame).png")
            let made = try CLI.run(["render", path, "--at", "\(frame)f", "-o", still, "--f-number", "1.4"])
            #expect(made.status == 0, "\(made.stderr)")
            let info = try #require(samples.sample(at: frame))
            let sample = Array(bytes[Int(info.offset)..<Int(info.offset) + Int(info.size)])
            let fromMovie = try PNGDecoder.decode(sample)
            let fromStill = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: still))))
            #expect(fromMovie == fromStill, "frame \(frame)")
        }
    }

    @Test func h264GoesThroughFFmpeg() throws {
        guard try Peers.available("ffmpeg"), try Peers.available("ffprobe") else { return }
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mp4.mov")
        let result = try CLI.run(["render", path, "-o", out, "--quality", "preview", "--codec", "h264", "--range", "0s..0.2s"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try Peers.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", out])
        #expect(probe.text.contains("h264"))
    }

    /// A corrupt picture or disparity sample part-way through: the error names the frame, nothing
    /// is written and the source is byte-identical; a movie with no depth at all is refused.
    @Test func corruptFramesAndMissingDepthLeaveNoOutput() throws {
        let (dir, path) = try Self.clip()
        let movie = try CinematicMovie.open(path: path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for (track, role) in [(movie.video, "video"), (try #require(movie.disparity), "disparity")] {
            // Bytes in the middle of sample 9 flipped: its zlib stream or CRC no longer checks.
            let info = try #require(track.samples.sample(at: 9))
            var bytes = original
            for k in 0..<16 { bytes[Int(info.offset) + Int(info.size) / 2 + k] ^= 0xA5 }
            let broken = dir.file("broken-\(role).mov")
            try bytes.write(to: URL(fileURLWithPath: broken))
            let out = dir.file("out-\(role).mov")
            let result = try CLI.run(["render", broken, "-o", out])
            #expect(result.status == 1, "\(role): \(result.stderr)")
            #expect(result.stderr.contains("\(role) frame 9"), "\(role): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
            #expect(try Data(contentsOf: URL(fileURLWithPath: broken)) == bytes)
        }
        // Pictures without a disparity track.
        let flat = dir.file("flat.mov")
        let rate = try #require(FrameRate(frames: 30, per: 1))
        let writer = try CinematicWriter(
            path: flat,
            configuration: CinematicWriterConfiguration(video: .encoded(.png, width: 32, height: 24, rate: rate), disparity: nil))
        for _ in 0..<3 {
            try writer.append(
                picture: .image(try PixelImage(width: 32, height: 24, layout: .rgb, samples: [UInt8](repeating: 90, count: 32 * 24 * 3))),
                disparity: nil, metadata: FrameMetadata())
        }
        try writer.finish()
        let out = dir.file("out-flat.mov")
        let result = try CLI.run(["render", flat, "-o", out])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("no disparity track"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Without ffmpeg, `--codec h264` says what is missing and how to get it, and writes nothing.
    @Test func withoutFFmpegTheCodecIsExplained() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mov")
        let result = try CLI.run(
            ["render", path, "-o", out, "--codec", "h264"], environment: ["CINEPACK_FFMPEG": dir.file("no-ffmpeg-here")])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("--codec h264 needs ffmpeg"), "\(result.stderr)")
        #expect(result.stderr.contains("CINEPACK_FFMPEG"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// An H.264 source is decoded through ffmpeg. With every disparity at the focus (no metadata:
    /// focus 0 D; maps all 0 D) nothing blurs, so each rendered frame is ffmpeg's own decode of it.
    @Test func aForeignCodecSourceIsDecodedThroughFFmpeg() throws {
        guard try Peers.available("ffmpeg") else { return }
        let clip = try ClipFixture(frames: 1)
        let input = clip.file("in.mp4")
        _ = try FF.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "0.4", "-c:v", "libx264", "-pix_fmt", "yuv420p", input,
        ])
        try FileManager.default.createDirectory(atPath: clip.file("maps"), withIntermediateDirectories: true)
        for n in 0..<10 {
            // Code 1 is the bottom of the range: 0 D (code 0 would be no depth).
            let zero = try PixelImage(width: 80, height: 60, layout: .gray, samples: [UInt16](repeating: 1, count: 80 * 60))
            try clip.write(PNGEncoder.encode(zero), to: clip.file(String(format: "maps/%04d.png", n)))
        }
        let packed = try clip.pack(["--video", input, "--disparity", "maps/%04d.png", "--disparity-range", "0:4"])
        try #require(packed.status == 0, "\(packed.stderr)")
        for frame in [0, 6] {
            let still = clip.file("still\(frame).png")
            let result = try CLI.run(["render", clip.output, "--at", "\(frame)f", "-o", still])
            #expect(result.status == 0, "\(result.stderr)")
            let rendered = try PNGDecoder.decode(clip.bytes(still))
            let decoded = try FF.ffmpeg([
                // The conversion cinepack asks of ffmpeg: accurate rounding, full-resolution chroma.
                "-i", input, "-vf", "select=eq(n\\,\(frame)),scale=flags=accurate_rnd+full_chroma_int+full_chroma_inp", "-frames:v", "1",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
            ])
            #expect(rendered == (try PixelImage(width: 160, height: 120, layout: .rgb, samples: Array(decoded.stdout))), "frame \(frame)")
        }
    }

    @Test func badRequestsLeaveNoOutput() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mov")
        #expect(try CLI.run(["render", path, "-o", out, "--f-number", "0"]).status == 64)
        #expect(try CLI.run(["render", path, "-o", out, "--quality", "best"]).status == 64)
        let unwritable = try CLI.run(["render", path, "-o", dir.file("missing/out.mov")])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr.contains("missing/out.mov"))
        let outside = try CLI.run(["render", path, "-o", out, "--range", "5s..6s"])
        #expect(outside.status == 1)
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["demo.mov"])
    }
}
