import Cinepack
import Foundation
import TestSupport
import Testing

/// A small synthetic clip on disk, made in the test: numbered 8-bit RGB PNG frames
/// (`rgb/%04d.png`, 64×48) and 16-bit grey disparity PNGs (`depth/%04d.png`, 32×24), plus an
/// `out/` folder for the movie so a test can see every file a command leaves behind.
/// Shared by the pack, extract and demo tests.
final class ClipFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let frameCount: Int
    let width = 64, height = 48
    let mapWidth = 32, mapHeight = 24
    static let framePattern = "rgb/%04d.png"
    static let disparityPattern = "depth/%04d.png"
    /// The --disparity-range every fixture uses.
    static let range: (min: Float, max: Float) = (0, 4)

    init(frames: Int = 12, name: String = #function) throws {
        directory = try Paths.temporaryDirectory(name)
        frameCount = frames
        for folder in ["rgb", "depth", "out"] {
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        for n in 0..<frames {
            try write(PNGEncoder.encode(Self.picture(n, width: width, height: height)), to: framePath(n))
            try write(
                PNGEncoder.encode(try PixelImage(width: mapWidth, height: mapHeight, layout: .gray, samples: mapCodes(n))),
                to: disparityPath(n))
        }
    }

    var root: String { directory.path }
    func file(_ relative: String) -> String { directory.file(relative) }
    func framePath(_ n: Int) -> String { file(String(format: "rgb/%04d.png", n)) }
    func disparityPath(_ n: Int) -> String { file(String(format: "depth/%04d.png", n)) }
    /// The movie a test packs to.
    var output: String { file("out/clip.mov") }

    func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// What is in `out/`, sorted: nothing but the movie may ever appear there.
    func outputFolder() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: file("out")).sorted() }

    /// Frame `n`: gradients that move with the frame plus seeded noise (so PNG filters and zlib
    /// get real work and every frame differs).
    static func picture(_ n: Int, width: Int, height: Int) throws -> PixelImage {
        var rng = SeededGenerator(seed: 0xF00D + UInt64(n))
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                samples[i] = UInt8((x * 4 + n * 7) & 0xFF)
                samples[i + 1] = UInt8((y * 5 + n * 3) & 0xFF)
                samples[i + 2] = UInt8(truncatingIfNeeded: rng.next())
            }
        }
        return try PixelImage(width: width, height: height, layout: .rgb, samples: samples)
    }

    /// The 16-bit values of disparity PNG `n` (codes 1 … 65535: both ends of the range present;
    /// 0 would mean no depth).
    func mapCodes(_ n: Int) -> [UInt16] {
        var rng = SeededGenerator(seed: 0xDE97 + UInt64(n))
        var codes = [UInt16](repeating: 0, count: mapWidth * mapHeight)
        for y in 0..<mapHeight {
            for x in 0..<mapWidth {
                let smooth = (x * 1500 + y * 900 + n * 997) % 60000
                codes[y * mapWidth + x] = UInt16(smooth + Int(rng.next() % 5000))
            }
        }
        codes[0] = 1
        codes[1] = 65535
        return codes
    }

    /// The code the movie must store for PNG value `v`: a 16-bit disparity PNG holds the codes
    /// of spec/format.md §5 on the declared range, so they are stored unchanged (0 = no depth).
    static func storedCode(_ v: UInt16) -> UInt16 { v }

    static let defaultArguments = [
        "--frames", framePattern, "--disparity", disparityPattern, "--disparity-range", "0:4",
    ]

    /// `cinepack pack -o out/clip.mov ARGS` run in the fixture's folder.
    func pack(_ arguments: [String] = defaultArguments) throws -> CLI.Output {
        try CLI.run(["pack", "-o", "out/clip.mov"] + arguments, in: root)
    }

    /// Packs with the default arguments (plus `extra`) and fails the test unless it worked.
    func packed(_ extra: [String] = []) throws -> String {
        let result = try pack(Self.defaultArguments + extra)
        try #require(result.status == 0, "pack failed: \(result.stderr)")
        return output
    }
}

/// ffmpeg/ffprobe helpers for the CLI tests.
enum FF {
    static let quiet = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"]

    static func ffmpeg(_ arguments: [String]) throws -> Peers.Result { try Peers.run("ffmpeg", quiet + arguments) }

    /// ffprobe's streams and format as JSON.
    static func probe(_ path: String, countFrames: Bool = false) throws -> (streams: [[String: Any]], format: [String: Any], stderr: String)
    {
        let result = try Peers.run(
            "ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json"] + (countFrames ? ["-count_frames"] : []) + [path])
        let root = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        return (root["streams"] as? [[String: Any]] ?? [], root["format"] as? [String: Any] ?? [:], result.stderr)
    }

    /// The packet lines of `ffmpeg -i FILE -map MAP -c copy -f framemd5 -` (and its header).
    static func packetHashes(_ path: String, map: String) throws -> String {
        try ffmpeg(["-i", path, "-map", map, "-c", "copy", "-f", "framemd5", "-"]).text
    }

    static func packetLines(_ framemd5: String) -> [Substring] {
        framemd5.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }
}

/// `cinepack pack` through the real binary: what peers (ffprobe, ffmpeg, exiftool, mediainfo) see in
/// a packed movie, carrying H.264 and audio through untouched, and every kind of bad input.
@Suite struct PackCommandTests {
    static let detectionsJSON = #"""
        {"version": 1, "frames": [
          {"frame": 0, "detections": [{"id": 4, "group": 2, "type": "face", "rect": [0.25, 0.125, 0.25, 0.5], "disparity": 0.5}],
           "focus": {"target": {"detection": 4}}, "decision": {"target": {"detection": 4}}, "f_number": 4.5},
          {"frame": 5, "detections": [{"id": 4, "group": 2, "type": 1, "rect": [0.3, 0.125, 0.25, 0.5]}],
           "scene": ["not-enough-light"]}
        ]}
        """#

    // MARK: What peers see

    @Test func summaryLineAndJSON() throws {
        let clip = try ClipFixture()
        let text = try clip.pack()
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("wrote out/clip.mov: 12 frames, 0.400s, "), "\(text.stdout)")
        let json = try clip.pack(ClipFixture.defaultArguments + ["--json", "--force"])
        #expect(json.status == 0, "\(json.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(summary["frames"] as? Int == 12)
        #expect(summary["duration_seconds"] as? Double == 0.4)
        let size = try FileManager.default.attributesOfItem(atPath: clip.output)[.size] as? Int
        #expect(summary["bytes"] as? Int == size)
        #expect(try clip.outputFolder() == ["clip.mov"])
    }

    @Test func ffprobeListsThreeStreams() throws {
        guard try Peers.available("ffprobe") else { return }
        let clip = try ClipFixture()
        try clip.write(Array(Self.detectionsJSON.utf8), to: clip.file("det.json"))
        let path = try clip.packed(["--detections", "det.json"])
        let probe = try FF.probe(path, countFrames: true)
        #expect(probe.stderr.isEmpty, "ffprobe complained: \(probe.stderr)")
        try #require(probe.streams.count == 3, "\(probe.streams)")
        let (video, depth, data) = (probe.streams[0], probe.streams[1], probe.streams[2])
        #expect(video["codec_type"] as? String == "video")
        #expect(video["codec_name"] as? String == "png")
        #expect(video["pix_fmt"] as? String == "rgb24")
        #expect(video["width"] as? Int == 64 && video["height"] as? Int == 48)
        #expect(video["nb_frames"] as? String == "12")
        #expect(video["nb_read_frames"] as? String == "12")
        #expect(video["r_frame_rate"] as? String == "30/1")
        #expect(depth["codec_type"] as? String == "video")
        #expect(depth["codec_name"] as? String == "png")
        #expect(depth["pix_fmt"] as? String == "gray16be")
        #expect(depth["width"] as? Int == 32 && depth["height"] as? Int == 24)
        #expect(depth["nb_frames"] as? String == "12")
        #expect(depth["nb_read_frames"] as? String == "12")
        #expect(data["codec_type"] as? String == "data")
        #expect(data["codec_tag_string"] as? String == "mebx")
        #expect(data["nb_frames"] as? String == "12")
        #expect((probe.format["format_name"] as? String)?.contains("mov") == true)
        #expect(Double(probe.format["duration"] as? String ?? "") == 0.4)
    }

    /// Every frame ffmpeg decodes from the video track is bit-identical to the PNG that was packed.
    @Test func ffmpegDecodesEveryFrameBitExact() throws {
        guard try Peers.available("ffmpeg") else { return }
        let clip = try ClipFixture()
        let path = try clip.packed()
        let raw = Array(
            try FF.ffmpeg(["-i", path, "-map", "0:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdout)
        let frameBytes = clip.width * clip.height * 3
        try #require(raw.count == frameBytes * clip.frameCount, "ffmpeg gave \(raw.count) bytes")
        for n in 0..<clip.frameCount {
            let source = try PNGDecoder.decode(try clip.bytes(clip.framePath(n)))
            let decoded = Array(raw[n * frameBytes..<(n + 1) * frameBytes])
            #expect(decoded == source.samples8, "frame \(n) differs")
        }
    }

    /// The disparity track decodes in ffmpeg as 16-bit grey holding exactly the quantized codes.
    @Test func ffmpegDecodesDisparityCodes() throws {
        guard try Peers.available("ffmpeg") else { return }
        let clip = try ClipFixture()
        let path = try clip.packed()
        let raw = Array(
            try FF.ffmpeg(["-i", path, "-map", "0:1", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray16be", "-"]).stdout)
        let mapBytes = clip.mapWidth * clip.mapHeight * 2
        try #require(raw.count == mapBytes * clip.frameCount, "ffmpeg gave \(raw.count) bytes")
        let movie = try CinematicMovie.open(path: path)
        for n in 0..<clip.frameCount {
            let base = n * mapBytes
            let ffmpegCodes = (0..<clip.mapWidth * clip.mapHeight).map { UInt16(raw[base + 2 * $0]) << 8 | UInt16(raw[base + 2 * $0 + 1]) }
            let expected = clip.mapCodes(n).map(ClipFixture.storedCode)
            #expect(ffmpegCodes == expected, "frame \(n)")
            #expect(try movie.disparityCodes(n).samples16 == expected, "frame \(n)")
        }
        // The ends of the range are codes 1 and 65535, and stay so.
        #expect(ClipFixture.storedCode(1) == 1 && ClipFixture.storedCode(65535) == 65535)
    }

    @Test func exiftoolReadsPackedFile() throws {
        guard try Peers.available("exiftool") else { return }
        let clip = try ClipFixture()
        let path = try clip.packed(["--focal-length", "35"])
        let result = try Peers.run("exiftool", ["-j", path])
        let tags = try #require((try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])?.first)
        #expect(tags["Error"] == nil, "exiftool: \(tags["Error"] ?? "")")
        #expect(tags["FileType"] as? String == "MOV")
        #expect(tags["ImageWidth"] as? Int == 64)
        // The movie parameters of spec/format.md §7 show as ordinary tags.
        let focal = tags.first { $0.key.lowercased().contains("focal-length-35mm") }
        #expect((focal?.value as? NSNumber)?.doubleValue == 35, "\(tags.keys.sorted())")
    }

    @Test func mediainfoReadsPackedFile() throws {
        guard try Peers.available("mediainfo") else { return }
        let clip = try ClipFixture()
        let path = try clip.packed()
        let result = try Peers.run("mediainfo", ["--Output=JSON", path])  // throws on a non-zero exit
        let root = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let tracks = try #require((root["media"] as? [String: Any])?["track"] as? [[String: Any]])
        let videos = tracks.filter { $0["@type"] as? String == "Video" }
        #expect(videos.count == 2, "\(tracks)")
        #expect(videos.allSatisfy { $0["Format"] as? String == "PNG" })
        #expect(videos.first?["Width"] as? String == "64")
        #expect(videos.first?["FrameCount"] as? String == "12")
    }

    // MARK: Carrying H.264 and audio through

    struct CarriedCase: Sendable, CustomStringConvertible {
        var container: String
        var audioCodec: String
        var description: String { "\(container) + \(audioCodec)" }
    }

    /// An H.264 file with B-frames made by ffmpeg now, packed with `--video IN --audio IN`: every
    /// video packet keeps its bytes, pts and dts; the audio keeps its bytes.
    @Test(arguments: [CarriedCase(container: "mp4", audioCodec: "aac"), CarriedCase(container: "mov", audioCodec: "pcm_s16le")])
    func carriedH264AndAudioAreByteIdentical(_ c: CarriedCase) throws {
        guard try Peers.available("ffmpeg"), try Peers.available("ffprobe") else { return }
        let clip = try ClipFixture(frames: 1)
        let input = clip.file("in.\(c.container)")
        _ = try FF.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", "1", "-c:v", "libx264", "-g", "10", "-bf", "2", "-pix_fmt", "yuv420p", "-c:a", c.audioCodec, input,
        ])
        // One disparity map per video frame (25), 80×60.
        try FileManager.default.createDirectory(atPath: clip.file("maps"), withIntermediateDirectories: true)
        for n in 0..<25 {
            let codes = (0..<80 * 60).map { UInt16(($0 * 13 + n * 101) % 65536) }
            try clip.write(
                PNGEncoder.encode(try PixelImage(width: 80, height: 60, layout: .gray, samples: codes)),
                to: clip.file(String(format: "maps/%04d.png", n)))
        }
        let result = try clip.pack(["--video", input, "--audio", input, "--disparity", "maps/%04d.png", "--disparity-range", "0:4"])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("25 frames"), "\(result.stdout)")

        let before = try FF.packetHashes(input, map: "0:v:0")
        let after = try FF.packetHashes(clip.output, map: "0:v:0")
        let packets = FF.packetLines(before)
        #expect(packets.count == 25)
        // B-frames: some packets are presented after later-decoded ones (pts ≠ dts), so order matters.
        #expect(
            packets.contains { line in
                let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                return fields.count > 2 && fields[1] != fields[2]
            })
        #expect(after == before, "video packets differ:\n\(before)\n---\n\(after)")

        if c.audioCodec == "aac" {
            let audioBefore = try FF.packetHashes(input, map: "0:a:0")
            #expect(FF.packetLines(audioBefore).count > 40)
            #expect(try FF.packetHashes(clip.output, map: "0:a:0") == audioBefore)
        } else {
            // PCM packets are cut at chunk boundaries, which the writer chooses: compare the bytes.
            let md5 = { (path: String) throws -> String in
                try FF.ffmpeg(["-i", path, "-map", "0:a:0", "-c", "copy", "-f", "md5", "-"]).text
            }
            #expect(try md5(clip.output) == (try md5(input)))
        }

        let probe = try FF.probe(clip.output)
        #expect(probe.stderr.isEmpty, "\(probe.stderr)")
        try #require(probe.streams.count == 4, "\(probe.streams)")
        #expect(probe.streams[0]["codec_name"] as? String == "h264")
        #expect(probe.streams[1]["codec_name"] as? String == "png")
        #expect(probe.streams[2]["codec_tag_string"] as? String == "mebx")
        #expect(probe.streams[3]["codec_name"] as? String == c.audioCodec)
        #expect(probe.streams.first?["nb_frames"] as? String == "25")
        #expect(probe.streams.dropFirst().first?["nb_frames"] as? String == "25")
        let movie = try CinematicMovie.open(path: clip.output)
        #expect(movie.frameCount == 25 && movie.video.codec == "avc1" && movie.audio != nil)
    }

    // MARK: Bad input

    struct BadInput: Sendable, CustomStringConvertible {
        var description: String
        /// pack's arguments after `-o out/clip.mov`.
        var arguments: [String] = ClipFixture.defaultArguments
        var status: Int32 = 1
        /// Text the error line must contain.
        var mentions: [String]
        var prepare: @Sendable (ClipFixture) throws -> Void = { _ in }
    }

    static func remove(_ path: String) throws { try FileManager.default.removeItem(atPath: path) }

    /// Flips one bit inside the IDAT data of a PNG: its CRC no longer matches.
    static func corruptIDAT(_ path: String) throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let idat = try #require((8..<bytes.count - 4).first { bytes[$0..<$0 + 4] == [0x49, 0x44, 0x41, 0x54] })
        bytes[idat + 4 + 10] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func writeJSON(_ text: String) -> @Sendable (ClipFixture) throws -> Void {
        { clip in try clip.write(Array(text.utf8), to: clip.file("det.json")) }
    }

    static func writeCSV(_ text: String) -> @Sendable (ClipFixture) throws -> Void {
        { clip in try clip.write(Array(text.utf8), to: clip.file("det.csv")) }
    }

    /// PFM maps in diopters for every frame (all 1 D) with `bad` at pixel (7, 18) of frame 3.
    static func pfmMaps(bad: Float) -> @Sendable (ClipFixture) throws -> Void {
        { clip in
            for n in 0..<clip.frameCount {
                var values = [Float](repeating: 1, count: clip.mapWidth * clip.mapHeight)
                if n == 3 { values[18 * clip.mapWidth + 7] = bad }
                try clip.write(
                    PFM.write(DisparityMap(width: clip.mapWidth, height: clip.mapHeight, values: values)),
                    to: clip.file(String(format: "depth/%04d.pfm", n)))
            }
        }
    }

    static let json = ClipFixture.defaultArguments + ["--detections", "det.json"]
    static let csv = ClipFixture.defaultArguments + ["--detections", "det.csv"]
    static func range(_ text: String) -> [String] {
        ["--frames", ClipFixture.framePattern, "--disparity", ClipFixture.disparityPattern, "--disparity-range=\(text)"]
    }

    static let badInputs: [BadInput] = [
        BadInput(
            description: "gap in --frames", mentions: ["rgb/0005.png", "missing"],
            prepare: { try remove($0.framePath(5)) }),
        BadInput(
            description: "gap in --disparity", mentions: ["depth/0007.png", "missing"],
            prepare: { try remove($0.disparityPath(7)) }),
        BadInput(
            description: "more frames than disparity maps", mentions: ["13 video frames", "12 depth maps", "depth/%04d.png"],
            prepare: { clip in try FileManager.default.copyItem(atPath: clip.framePath(0), toPath: clip.framePath(12)) }),
        BadInput(
            description: "a frame of another size", mentions: ["rgb/0007.png", "66×48", "64×48"],
            prepare: { clip in try clip.write(PNGEncoder.encode(ClipFixture.picture(7, width: 66, height: 48)), to: clip.framePath(7)) }),
        BadInput(
            description: "a disparity map of another size", mentions: ["depth/0004.png", "30×24", "32×24"],
            prepare: { clip in
                let image = try PixelImage(width: 30, height: 24, layout: .gray, samples: [UInt16](repeating: 7, count: 30 * 24))
                try clip.write(PNGEncoder.encode(image), to: clip.disparityPath(4))
            }),
        BadInput(
            description: "a grey PNG frame", mentions: ["rgb/0002.png", "8-bit gray PNG", "RGB or RGBA"],
            prepare: { clip in
                let grey = try PixelImage(width: 64, height: 48, layout: .gray, samples: [UInt8](repeating: 90, count: 64 * 48))
                try clip.write(PNGEncoder.encode(grey), to: clip.framePath(2))
            }),
        BadInput(
            description: "--codec raw with an RGBA frame", arguments: ClipFixture.defaultArguments + ["--codec", "raw"],
            mentions: ["rgb/0003.png", "raw video needs RGB frames"],
            prepare: { clip in
                let rgba = try PixelImage(width: 64, height: 48, layout: .rgba, samples: [UInt8](repeating: 90, count: 64 * 48 * 4))
                try clip.write(PNGEncoder.encode(rgba), to: clip.framePath(3))
            }),
        BadInput(
            description: "corrupt PNG frame", mentions: ["rgb/0004.png", "CRC"],
            prepare: { try corruptIDAT($0.framePath(4)) }),
        BadInput(
            description: "corrupt disparity PNG", mentions: ["depth/0009.png", "CRC"],
            prepare: { try corruptIDAT($0.disparityPath(9)) }),
        BadInput(
            description: "PFM value above --disparity-range",
            arguments: [
                "--frames", ClipFixture.framePattern, "--disparity", "depth/%04d.pfm", "--disparity-format", "pfm",
                "--disparity-range", "0:4",
            ],
            mentions: ["depth/0003.pfm", "(7, 18)", "9.5"], prepare: pfmMaps(bad: 9.5)),
        BadInput(
            description: "PFM value below --disparity-range",
            arguments: [
                "--frames", ClipFixture.framePattern, "--disparity", "depth/%04d.pfm", "--disparity-format", "pfm",
                "--disparity-range", "0.5:4",
            ],
            mentions: ["depth/0003.pfm", "(7, 18)", "0.25"], prepare: pfmMaps(bad: 0.25)),
        BadInput(
            description: "detections JSON: bad version", arguments: json, mentions: ["det.json", "\"version\" 2"],
            prepare: writeJSON(#"{"version": 2, "frames": []}"#)),
        BadInput(
            description: "detections JSON: unknown type", arguments: json,
            mentions: ["det.json: frame 1, detection 2:", "\"type\" \"alien\""],
            prepare: writeJSON(
                #"""
                {"version": 1, "frames": [{"frame": 1, "detections": [
                  {"id": 1, "type": "face", "rect": [0, 0, 0.5, 0.5]},
                  {"id": 2, "type": "alien", "rect": [0, 0, 0.5, 0.5]}]}]}
                """#)),
        BadInput(
            description: "detections JSON: rect out of range", arguments: json,
            mentions: ["det.json: frame 2, detection 1:", "\"rect\" x + width"],
            prepare: writeJSON(
                #"{"version": 1, "frames": [{"frame": 2, "detections": [{"id": 1, "type": "face", "rect": [0.6, 0, 0.5, 0.5]}]}]}"#)),
        BadInput(
            description: "detections JSON: frame beyond the clip", arguments: json,
            mentions: ["det.json: frame entry 2:", "\"frame\" 12", "12 frames"],
            prepare: writeJSON(#"{"version": 1, "frames": [{"frame": 0}, {"frame": 12}]}"#)),
        BadInput(
            description: "detections JSON: focus on an unknown detection", arguments: json,
            mentions: ["det.json: frame 3, focus:", "detection 9"],
            prepare: writeJSON(#"{"version": 1, "frames": [{"frame": 3, "focus": {"target": {"detection": 9}}}]}"#)),
        BadInput(
            description: "detections JSON: not JSON", arguments: json, mentions: ["det.json", "not valid JSON"],
            prepare: writeJSON(#"{"version": 1, "frames": [{"frame": 3,"#)),
        BadInput(
            description: "MOT CSV: not a number", arguments: csv, mentions: ["det.csv:3:", "column 5 (w)", "abc"],
            prepare: writeCSV("frame,id,x,y,w,h,conf\n1,1,0,0,10,10,1\n2,1,0,0,abc,10,1\n")),
        BadInput(
            description: "MOT CSV: untracked id", arguments: csv, mentions: ["det.csv:2:", "id -1"],
            prepare: writeCSV("1,1,0,0,10,10,1\n2,-1,0,0,10,10,1\n")),
        BadInput(
            description: "MOT CSV: frame beyond the clip", arguments: csv, mentions: ["det.csv:4:", "frame 13"],
            prepare: writeCSV("# tracker output\n1,1,0,0,10,10,1\n\n13,1,0,0,10,10,1\n")),
        BadInput(
            description: "MOT CSV: same id twice in a frame", arguments: csv, mentions: ["det.csv:2:", "lines 1 and 2"],
            prepare: writeCSV("1,1,0,0,10,10,1\n1,1,5,5,10,10,1\n")),
        BadInput(
            description: "--disparity-range without a colon", arguments: range("4"), status: 64, mentions: ["--disparity-range", "4"]),
        BadInput(
            description: "--disparity-range not a number", arguments: range("0:x"), status: 64, mentions: ["--disparity-range", "0:x"]),
        BadInput(description: "--disparity-range reversed", arguments: range("4:0"), status: 64, mentions: ["--disparity-range", "4:0"]),
        BadInput(description: "--disparity-range empty", arguments: range("1:1"), status: 64, mentions: ["--disparity-range", "1:1"]),
        BadInput(description: "--disparity-range negative", arguments: range("-1:2"), status: 64, mentions: ["--disparity-range", "-1:2"]),
        BadInput(
            description: "--disparity-range infinite", arguments: range("0:inf"), status: 64, mentions: ["--disparity-range", "0:inf"]),
        BadInput(
            description: "both --frames and --video", arguments: ClipFixture.defaultArguments + ["--video", "rgb/0000.png"],
            status: 64, mentions: ["--frames", "--video"]),
        BadInput(
            description: "neither --frames nor --video",
            arguments: ["--disparity", ClipFixture.disparityPattern, "--disparity-range", "0:4"], status: 64,
            mentions: ["--frames", "--video"]),
    ]

    /// Each bad input: the documented exit status, one error line naming the place, no file in
    /// out/ (no partial file either), and an existing movie there left byte-for-byte as it was.
    @Test(arguments: badInputs)
    func badInputIsRefusedAndWritesNothing(_ c: BadInput) throws {
        let clip = try ClipFixture()
        try c.prepare(clip)

        let first = try clip.pack(c.arguments)
        #expect(first.status == c.status, "\(first.stderr)")
        #expect(first.stdout.isEmpty, "\(first.stdout)")
        let lines = first.stderr.split(separator: "\n")
        let errorLines = lines.filter { $0.hasPrefix("Error: ") }
        #expect(errorLines.count == 1, "\(first.stderr)")
        #expect(lines.first?.hasPrefix("Error: ") == true, "\(first.stderr)")
        if c.status == 1 { #expect(lines.count == 1, "more than one line: \(first.stderr)") }
        for text in c.mentions { #expect(errorLines.first?.contains(text) == true, "missing \(text): \(first.stderr)") }
        let leftBehind = try clip.outputFolder()
        #expect(leftBehind.isEmpty, "left behind: \(leftBehind)")

        var rng = SeededGenerator(seed: 77)
        let existing = (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        try clip.write(existing, to: clip.output)
        // Even asked to replace it (--force), a failed pack leaves the existing movie as it was.
        let second = try clip.pack(c.arguments + ["--force"])
        #expect(second.status == c.status)
        #expect(second.stderr == first.stderr)
        #expect(try clip.bytes(clip.output) == existing, "the existing movie was changed")
        #expect(try clip.outputFolder() == ["clip.mov"])
    }

    /// A sequence numbered from 1 is fine; so is a name prefix in the pattern (the gap check must
    /// still see later files).
    @Test func sequenceFromOneAndPrefixedGap() throws {
        let clip = try ClipFixture(frames: 3)
        let fm = FileManager.default
        for n in (0..<3).reversed() {
            try fm.moveItem(atPath: clip.framePath(n), toPath: clip.file(String(format: "rgb/f_%03d.png", n + 1)))
        }
        let ok = try clip.pack(["--frames", "rgb/f_%03d.png", "--disparity", ClipFixture.disparityPattern, "--disparity-range", "0:4"])
        #expect(ok.status == 0, "\(ok.stderr)")
        try fm.removeItem(atPath: clip.output)
        try fm.removeItem(atPath: clip.file("rgb/f_002.png"))
        let gap = try clip.pack(["--frames", "rgb/f_%03d.png", "--disparity", ClipFixture.disparityPattern, "--disparity-range", "0:4"])
        #expect(gap.status == 1)
        #expect(gap.stderr.contains("rgb/f_002.png is missing, but rgb/f_003.png exists"), "\(gap.stderr)")
        #expect(try clip.outputFolder().isEmpty)
    }
}
