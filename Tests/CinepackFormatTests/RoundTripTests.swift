import CinepackCompression
import CinepackContainer
import CinepackFormat
import CinepackTime
import Foundation
import TestSupport
import Testing

/// Library round trips: `Packer.pack` on small synthetic inputs made here (64×48 frames, 32×24
/// maps, 12 frames), then `CinematicMovie.open` must give back every frame bit for bit, every
/// disparity within half a quantization step (NaN ↔ invalid), every detection and focus field
/// exactly, and the movie parameters.
@Suite struct RoundTripTests {
    static let width = 64, height = 48, mapWidth = 32, mapHeight = 24, frames = 12
    static let range = DisparityQuantization(minimum: 0, maximum: 4)

    /// A folder of inputs: `rgb/%04d.png` and the files a test adds.
    final class Inputs {
        let directory: TemporaryDirectory
        init(_ name: String = #function) throws {
            directory = try Paths.temporaryDirectory(name)
            try FileManager.default.createDirectory(atPath: directory.file("rgb"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory.file("depth"), withIntermediateDirectories: true)
            for n in 0..<RoundTripTests.frames {
                try write(PNGEncoder.encode(RoundTripTests.picture(n)), "rgb/\(RoundTripTests.number(n)).png")
            }
        }
        func file(_ relative: String) -> String { directory.file(relative) }
        func write(_ bytes: [UInt8], _ relative: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: file(relative))) }
        func bytes(_ relative: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: file(relative)))) }

        /// Map `n` as a 16-bit grey PNG at `depth/NNNN.png`.
        func writePNG16Map(_ n: Int) throws {
            let map = try PixelImage(
                width: RoundTripTests.mapWidth, height: RoundTripTests.mapHeight, layout: .gray, samples: RoundTripTests.png16Values(n))
            try write(PNGEncoder.encode(map), "depth/\(RoundTripTests.number(n)).png")
        }
    }

    static func number(_ n: Int) -> String { String(format: "%04d", n) }

    static func picture(_ n: Int) throws -> PixelImage {
        var rng = SeededGenerator(seed: 0xBEEF + UInt64(n))
        let samples = (0..<width * height * 3).map { i -> UInt8 in
            let x = (i / 3) % width, y = i / 3 / width
            switch i % 3 {
            case 0: return UInt8((x * 3 + y + n * 11) & 0xFF)
            case 1: return UInt8((y * 4 + n * 5) & 0xFF)
            default: return UInt8(truncatingIfNeeded: rng.next())
            }
        }
        return try PixelImage(width: width, height: height, layout: .rgb, samples: samples)
    }

    /// 16-bit values of the png16 map of frame n.
    static func png16Values(_ n: Int) -> [UInt16] {
        var rng = SeededGenerator(seed: 0x1234 + UInt64(n))
        var values = (0..<mapWidth * mapHeight).map { i in UInt16((i * 211 + n * 4099) % 60000) + UInt16(rng.next() % 5000) }
        values[0] = 0
        values[values.count - 1] = 65535
        return values
    }

    /// Diopters the packer reads from png16 value v (PackRequest.DisparityFormat.png16).
    static func diopters(_ v: UInt16) -> Float { range.disparity(for: v) }

    /// Diopters of the PFM map of frame n: any float in the range, both ends, NaN and ±inf (invalid;
    /// PFM.read turns infinities into NaN).
    static func pfmValues(_ n: Int) -> [Float] {
        var rng = SeededGenerator(seed: 0x9F + UInt64(n))
        var values = (0..<mapWidth * mapHeight).map { _ in Float(rng.next() % 1_000_000) / 1_000_000 * 3.6 + 0.2 }
        values[0] = 0
        values[1] = 4
        values[2] = .nan
        values[3] = .infinity
        values[4] = -.infinity
        // Two invalid pixels inside the MOT box of frame 0 (columns 5…9, rows 6…8).
        values[7 * mapWidth + 6] = .nan
        values[8 * mapWidth + 9] = .nan
        return values
    }

    /// A PFM written big-endian (positive scale) by hand, as other tools do.
    static func bigEndianPFM(_ map: DisparityMap) -> [UInt8] {
        var out = Array("Pf\n\(map.width) \(map.height)\n1.0\n".utf8)
        for row in (0..<map.height).reversed() {
            for x in 0..<map.width {
                let bits = map[x, row].bitPattern
                out += [UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
            }
        }
        return out
    }

    // MARK: Expectations computed here, from the spec

    /// Pixels of a w×h map a normalized rect covers (spec/format.md §5: pixel u covers [u/W, (u+1)/W)).
    static func covered(_ rect: NormalizedRect, width w: Int, height h: Int) -> [(Int, Int)] {
        let x0 = Int((Double(rect.x) * Double(w)).rounded(.down)), x1 = Int((Double(rect.x + rect.width) * Double(w)).rounded(.up))
        let y0 = Int((Double(rect.y) * Double(h)).rounded(.down)), y1 = Int((Double(rect.y + rect.height) * Double(h)).rounded(.up))
        return (max(0, y0)..<min(h, y1)).flatMap { y in (max(0, x0)..<min(w, x1)).map { x in (x, y) } }
    }

    /// The median of the valid values in a rect: for an even count, anything between the two
    /// middle values is a median. nil when no pixel is valid.
    static func median(_ values: [Float], _ rect: NormalizedRect) -> ClosedRange<Float>? {
        let inside = covered(rect, width: mapWidth, height: mapHeight).map { values[$0.1 * mapWidth + $0.0] }.filter(\.isFinite).sorted()
        guard !inside.isEmpty else { return nil }
        return inside[(inside.count - 1) / 2]...inside[inside.count / 2]
    }

    static func same(_ a: Float, _ b: Float) -> Bool { a == b || (a.isNaN && b.isNaN) }

    static func rect(_ x: Float, _ y: Float, _ w: Float, _ h: Float) -> NormalizedRect { NormalizedRect(x: x, y: y, width: w, height: h) }

    /// Every pixel of every map: within half a step (plus float rounding), NaN where invalid.
    static func checkMaps(_ movie: CinematicMovie, expected: (Int) -> [Float]) throws {
        let q = try #require(movie.quantization)
        #expect(q == range)
        let tolerance = q.step / 2 + 4 * Float.ulpOfOne * q.maximum
        for n in 0..<frames {
            let map = try movie.disparityMap(n)
            #expect(map.width == mapWidth && map.height == mapHeight)
            let codes = try #require(try movie.disparityCodes(n).samples16)
            let input = expected(n)
            var bad = 0
            for i in input.indices {
                let d = input[i]
                if d.isFinite {
                    if !(abs(map.values[i] - d) <= tolerance) { bad += 1 }
                    if codes[i] == 0 { bad += 1 }
                } else {
                    if !map.values[i].isNaN || codes[i] != 0 { bad += 1 }
                }
            }
            #expect(bad == 0, "frame \(n): \(bad) pixels differ by more than \(tolerance) D or in validity")
        }
    }

    static func parameters() -> CinematicParameters {
        var p = CinematicParameters()
        p.focalLength35mm = 35
        p.defaultFNumber = 2.8
        p.minFNumber = 1.8
        p.maxFNumber = 22
        p.maxDisparityRate = 0.75
        p.minTransition = 0.25
        p.maxTransition = 1.5
        p.gapBridge = 0.5
        p.weakSuppression = 3
        return p
    }

    static let detectionsJSON = #"""
        {"version": 1, "frames": [
          {"frame": 0,
           "detections": [
             {"id": 4, "group": 2, "type": "face", "rect": [0.125, 0.25, 0.15625, 0.125], "disparity": 0.5, "confidence": 1},
             {"id": 9, "type": 11, "rect": [0.5, 0.5, 0.25, 0.25], "confidence": 0.3},
             {"id": 12, "type": 300, "rect": [0, 0, 1, 1]}],
           "focus": {"target": {"detection": 4}},
           "decision": {"target": {"detection": 4}},
           "f_number": 4.5},
          {"frame": 1,
           "detections": [
             {"id": 4, "group": 2, "type": "face", "rect": [0.125, 0.25, 0.15625, 0.125], "confidence": 0.9},
             {"id": 5, "group": 2, "type": "torso", "rect": [0.0625, 0.5, 0.3125, 0.375], "disparity": 1.5, "confidence": 0.5}],
           "focus": {"target": {"group": 2}, "strong": true, "transition": 0.25},
           "scene": ["not-enough-light"]},
          {"frame": 2, "focus": {"target": {"disparity": 1.25}}, "decision": {"target": {"disparity": 1.25}, "strong": true},
           "scene": ["not-enough-light", "subject-too-close"], "f_number": 2.8},
          {"frame": 3, "focus": {"target": {"point": [0.5, 0.5]}}, "decision": {"target": {"point": [0.25, 0.75]}}},
          {"frame": 4, "focus": {"target": {"detection": 4}, "disparity": 0.75}},
          {"frame": 5, "focus": {"target": {"detection": 4}}},
          {"frame": 6, "detections": [{"id": 4, "group": 2, "type": "face", "rect": [0.5, 0.5, 0.50005, 0.5], "disparity": 2}]},
          {"frame": 11, "detections": [{"id": 4, "group": 2, "type": "head", "rect": [0.875, 0.75, 0.125, 0.25], "disparity": 3}],
           "f_number": 16}
        ]}
        """#

    static func expectDetection(
        _ d: Detection?, id: UInt32, group: UInt32, type: UInt16, rect: NormalizedRect, confidence: Float,
        disparity: ClosedRange<Float>?, frame: Int
    ) {
        guard let d else {
            Issue.record("frame \(frame): no detection \(id)")
            return
        }
        #expect(d.id == id && d.groupID == group && d.type.rawValue == type, "frame \(frame): \(d)")
        #expect(d.rect == rect, "frame \(frame), id \(id): rect \(d.rect)")
        #expect(d.confidence == confidence, "frame \(frame), id \(id)")
        if let disparity {
            #expect(disparity.contains(d.disparity), "frame \(frame), id \(id): disparity \(d.disparity), expected \(disparity)")
        } else {
            #expect(d.disparity.isNaN, "frame \(frame), id \(id): disparity \(d.disparity), expected NaN")
        }
    }

    // MARK: Tests

    /// PNG frames, png16 maps, JSON detections.
    @Test func pngFramesPNG16MapsJSONDetections() throws {
        let inputs = try Inputs()
        for n in 0..<Self.frames {
            try inputs.writePNG16Map(n)
        }
        try inputs.write(Array(Self.detectionsJSON.utf8), "det.json")
        let rate = try #require(FrameRate(parsing: "30000/1001"))
        let metadata = try DetectionsInput.load(
            path: inputs.file("det.json"), frameCount: Self.frames, width: Self.width, height: Self.height)
        let output = inputs.file("clip.mov")
        let summary = try Packer.pack(
            PackRequest(
                output: output,
                pictures: .frames(try ImageSequence(pattern: inputs.file("rgb/%04d.png"), input: .frames), codec: .png, rate: rate),
                disparity: try ImageSequence(pattern: inputs.file("depth/%04d.png"), input: .maps(.disparity)), disparityFormat: .png16,
                disparityRange: Self.range, metadata: metadata, parameters: Self.parameters()))
        #expect(summary.frames == Self.frames)
        #expect(summary.duration == MediaTime(value: 12 * 1001, timescale: 30000))

        let movie = try CinematicMovie.open(path: output)
        #expect(movie.isCinepackFile)
        #expect(movie.frameCount == Self.frames)
        #expect(movie.width == Self.width && movie.height == Self.height)
        #expect(movie.video.codec == "png ")
        #expect(movie.frameRate == rate)
        #expect(movie.parameters == Self.parameters())
        for n in 0..<Self.frames {
            #expect(movie.time(ofFrame: n) == MediaTime(value: Int64(n) * 1001, timescale: 30000))
            #expect(try movie.pictureSample(n) == (try inputs.bytes("rgb/\(Self.number(n)).png")), "frame \(n): stored PNG differs")
            #expect(try movie.picture(n) == (try Self.picture(n)), "frame \(n): pixels differ")
        }
        let maps = (0..<Self.frames).map { Self.png16Values($0).map(Self.diopters) }
        try Self.checkMaps(movie, expected: { maps[$0] })

        // Frame 0: a given disparity, a measured one (type by number), an unknown type kept.
        let m0 = try movie.metadata(0)
        #expect(m0.detections.map(\.id) == [4, 9, 12])
        Self.expectDetection(
            m0.detections.first, id: 4, group: 2, type: 1, rect: Self.rect(0.125, 0.25, 0.15625, 0.125),
            confidence: 1, disparity: 0.5...0.5, frame: 0)
        Self.expectDetection(
            m0.detections.dropFirst().first, id: 9, group: 0, type: 11, rect: Self.rect(0.5, 0.5, 0.25, 0.25),
            confidence: 0.3, disparity: Self.median(maps[0], Self.rect(0.5, 0.5, 0.25, 0.25)), frame: 0)
        Self.expectDetection(
            m0.detections.last, id: 12, group: 0, type: 300, rect: Self.rect(0, 0, 1, 1),
            confidence: 1, disparity: Self.median(maps[0], Self.rect(0, 0, 1, 1)), frame: 0)
        #expect(m0.focus == FocusState(target: .detection(4), focusDisparity: 0.5))
        #expect(m0.decision == CapturedDecision(target: .detection(4), isStrong: false))
        #expect(m0.fNumber == 4.5)
        #expect(m0.scene == [])

        // Frame 1: measured face (15 pixels: an odd count), group focus from its most confident member.
        let m1 = try movie.metadata(1)
        let faceRect = Self.rect(0.125, 0.25, 0.15625, 0.125)
        #expect(Self.covered(faceRect, width: Self.mapWidth, height: Self.mapHeight).count == 15)
        let faceMedian = try #require(Self.median(maps[1], faceRect))
        Self.expectDetection(
            m1.detections.first, id: 4, group: 2, type: 1, rect: faceRect, confidence: 0.9, disparity: faceMedian, frame: 1)
        Self.expectDetection(
            m1.detections.last, id: 5, group: 2, type: 3, rect: Self.rect(0.0625, 0.5, 0.3125, 0.375), confidence: 0.5,
            disparity: 1.5...1.5, frame: 1)
        let f1 = try #require(m1.focus)
        #expect(f1.target == .group(2) && f1.isStrong && f1.inTransition && f1.transitionProgress == 0.25)
        #expect(f1.focusDisparity == m1.detections.first?.disparity)
        #expect(m1.decision == nil && m1.fNumber == nil)
        #expect(m1.scene == .notEnoughLight)

        // Frame 2: fixed focus, strong decision, both scene flags.
        let m2 = try movie.metadata(2)
        #expect(m2.detections.isEmpty)
        #expect(m2.focus == FocusState(target: .fixedDisparity(1.25), focusDisparity: 1.25))
        #expect(m2.decision == CapturedDecision(target: .fixedDisparity(1.25), isStrong: true))
        #expect(m2.scene == [.notEnoughLight, .subjectTooClose])
        #expect(m2.fNumber == 2.8)

        // Frame 3: a point target takes the map's value at the pixel covering the point.
        let m3 = try movie.metadata(3)
        let f3 = try #require(m3.focus)
        #expect(f3.target == .point(x: 0.5, y: 0.5))
        #expect(f3.focusDisparity == maps[3][12 * Self.mapWidth + 16])
        #expect(m3.decision == CapturedDecision(target: .point(x: 0.25, y: 0.75), isStrong: false))

        // Frames 4 and 5: the target is absent; a given disparity is kept, else unknown (NaN).
        #expect(try movie.metadata(4).focus == FocusState(target: .detection(4), focusDisparity: 0.75))
        let f5 = try #require(try movie.metadata(5).focus)
        #expect(f5.target == .detection(4) && f5.focusDisparity.isNaN && !f5.isStrong && !f5.inTransition)

        // Frame 6: a rect sticking out by less than 1e-4 is clamped to the frame.
        Self.expectDetection(
            try movie.metadata(6).detections.first, id: 4, group: 2, type: 1, rect: Self.rect(0.5, 0.5, 0.5, 0.5),
            confidence: 1, disparity: 2...2, frame: 6)
        let m11 = try movie.metadata(11)
        Self.expectDetection(
            m11.detections.first, id: 4, group: 2, type: 2, rect: Self.rect(0.875, 0.75, 0.125, 0.25),
            confidence: 1, disparity: 3...3, frame: 11)
        #expect(m11.fNumber == 16)

        // Frames the file does not list are empty.
        for n in [7, 8, 9, 10] {
            let m = try movie.metadata(n)
            #expect(m.detections.isEmpty && m.focus == nil && m.decision == nil && m.fNumber == nil && m.scene == [], "frame \(n)")
        }
    }

    /// PNG frames, PFM maps (little- and big-endian, NaN and ±inf invalid), MOT CSV detections.
    @Test func pfmMapsMOTDetections() throws {
        let inputs = try Inputs()
        for n in 0..<Self.frames {
            let map = DisparityMap(width: Self.mapWidth, height: Self.mapHeight, values: Self.pfmValues(n))
            try inputs.write(n == 0 ? Self.bigEndianPFM(map) : PFM.write(map), "depth/\(Self.number(n)).pfm")
        }
        // Pixel boxes on the 64×48 video; map pixels are 2×2 video pixels.
        let csv = """
            frame,id,x,y,w,h,conf,class,visibility
            # frame 1 (video frame 0): 5×3 map pixels, two of them invalid
            1, 3, 10, 12, 10, 6, 0.75, 1, 1\r
            1,5,-10,0,20,12,-1

            12,3,54,42,10,6,,
            7,8,0,0,64,48
            """
        try inputs.write(Array(csv.utf8), "tracks.csv")
        let metadata = try DetectionsInput.load(
            path: inputs.file("tracks.csv"), frameCount: Self.frames, width: Self.width,
            height: Self.height)
        let output = inputs.file("clip.mov")
        try Packer.pack(
            PackRequest(
                output: output,
                pictures: .frames(
                    try ImageSequence(pattern: inputs.file("rgb/%04d.png"), input: .frames), codec: .png,
                    rate: try #require(FrameRate(frames: 30, per: 1))),
                disparity: try ImageSequence(pattern: inputs.file("depth/%04d.pfm"), input: .maps(.disparity)), disparityFormat: .pfm,
                disparityRange: Self.range, metadata: metadata))

        let movie = try CinematicMovie.open(path: output)
        #expect(movie.parameters == CinematicParameters())
        for n in 0..<Self.frames {
            #expect(try movie.picture(n) == (try Self.picture(n)), "frame \(n): pixels differ")
        }
        try Self.checkMaps(movie, expected: Self.pfmValues)
        let first = try movie.disparityCodes(0).samples16
        #expect(first?[0] == 1 && first?[1] == 65535 && first?[2] == 0 && first?[3] == 0 && first?[4] == 0)

        let values0 = Self.pfmValues(0)
        let m0 = try movie.metadata(0)
        #expect(m0.detections.map(\.id) == [3, 5])
        let box = Self.rect(10.0 / 64, 0.25, 10.0 / 64, 0.125)
        #expect(Self.covered(box, width: Self.mapWidth, height: Self.mapHeight).count == 15)
        Self.expectDetection(
            m0.detections.first, id: 3, group: 0, type: DetectionType.custom.rawValue, rect: box, confidence: 0.75,
            disparity: Self.median(values0, box), frame: 0)
        // Clipped to the picture; conf −1 is unknown, stored as 1.
        let clipped = Self.rect(0, 0, 10.0 / 64, 0.25)
        Self.expectDetection(
            m0.detections.last, id: 5, group: 0, type: DetectionType.custom.rawValue, rect: clipped, confidence: 1,
            disparity: Self.median(values0, clipped), frame: 0)
        #expect(m0.focus == nil && m0.decision == nil && m0.fNumber == nil)
        // The whole picture, frame 7 (video frame 6).
        Self.expectDetection(
            try movie.metadata(6).detections.first, id: 8, group: 0, type: 102, rect: Self.rect(0, 0, 1, 1),
            confidence: 1, disparity: Self.median(Self.pfmValues(6), Self.rect(0, 0, 1, 1)), frame: 6)
        let last = Self.rect(54.0 / 64, 42.0 / 48, 10.0 / 64, 6.0 / 48)
        Self.expectDetection(
            try movie.metadata(11).detections.first, id: 3, group: 0, type: 102, rect: last, confidence: 1,
            disparity: Self.median(Self.pfmValues(11), last), frame: 11)
        #expect(try movie.metadata(1).detections.isEmpty)

        // The same CSV with a named type.
        let faces = try DetectionsInput.load(
            path: inputs.file("tracks.csv"), frameCount: Self.frames, width: Self.width,
            height: Self.height, csvType: .face)
        #expect(faces[0].detections.allSatisfy { $0.type == .face })
    }

    /// `--codec raw`: uncompressed RGB samples, read back bit for bit.
    @Test func rawCodec() throws {
        let inputs = try Inputs()
        for n in 0..<Self.frames {
            try inputs.writePNG16Map(n)
        }
        let output = inputs.file("raw.mov")
        let rate = try #require(FrameRate(frames: 24, per: 1))
        try Packer.pack(
            PackRequest(
                output: output,
                pictures: .frames(try ImageSequence(pattern: inputs.file("rgb/%04d.png"), input: .frames), codec: .raw, rate: rate),
                disparity: try ImageSequence(pattern: inputs.file("depth/%04d.png"), input: .maps(.disparity)), disparityFormat: .png16,
                disparityRange: Self.range, parameters: Self.parameters()))
        let movie = try CinematicMovie.open(path: output)
        #expect(movie.video.codec == "raw ")
        #expect(movie.video.visual?.depth == 24)
        #expect(movie.frameRate == rate)
        #expect(movie.parameters == Self.parameters())
        for n in 0..<Self.frames {
            let source = try Self.picture(n)
            #expect(try movie.pictureSample(n) == source.samples8, "frame \(n): stored bytes are not packed RGB")
            #expect(try movie.picture(n) == source, "frame \(n)")
            let m = try movie.metadata(n)
            #expect(m.detections.isEmpty && m.focus == nil, "frame \(n)")
        }
        try Self.checkMaps(movie, expected: { Self.png16Values($0).map(Self.diopters) })
    }

    /// A palette PNG made by hand (PNG spec 11.2.2–11.2.3): 8-bit indices into 256 entries.
    static func palettePNG(_ n: Int) throws -> (png: [UInt8], rgb: PixelImage) {
        let palette: [UInt8] = (0..<256).flatMap { (k: Int) -> [UInt8] in [UInt8(k), UInt8(255 - k), UInt8((k * 7) & 0xFF)] }
        var rows: [UInt8] = [], rgb: [UInt8] = []
        for y in 0..<height {
            rows.append(0)  // filter: none
            for x in 0..<width {
                let index = (x * 3 + y * 5 + n) & 0xFF
                rows.append(UInt8(index))
                rgb += palette[index * 3..<index * 3 + 3]
            }
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + data
            return [UInt8](bigEndian32: UInt32(data.count)) + typed + [UInt8](bigEndian32: Zlib.crc32(typed))
        }
        var header = [UInt8](bigEndian32: UInt32(width))
        header += [UInt8](bigEndian32: UInt32(height))
        header += [8, 3, 0, 0, 0]  // bit depth 8, colour type 3 (palette), no interlace
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header)
        png += chunk("PLTE", palette)
        png += chunk("IDAT", try Zlib.deflate(rows))
        png += chunk("IEND", [])
        return (png, try PixelImage(width: width, height: height, layout: .rgb, samples: rgb))
    }

    /// spec/format.md §4: video samples are RGB or RGBA PNGs. Palette frames are stored as RGB
    /// PNGs with the same pixels; grey frames are refused, naming the file.
    @Test func paletteFramesBecomeRGBAndGreyFramesAreRefused() throws {
        let inputs = try Inputs()
        try FileManager.default.createDirectory(atPath: inputs.file("pal"), withIntermediateDirectories: true)
        for n in 0..<Self.frames {
            try inputs.write(Self.palettePNG(n).png, "pal/\(Self.number(n)).png")
            try inputs.writePNG16Map(n)
        }
        #expect(try PNGDecoder.header(of: try inputs.bytes("pal/0000.png")).colorType == .palette)
        func request(_ pattern: String, _ output: String) throws -> PackRequest {
            PackRequest(
                output: inputs.file(output),
                pictures: .frames(
                    try ImageSequence(pattern: inputs.file(pattern), input: .frames), codec: .png,
                    rate: try #require(FrameRate(frames: 30, per: 1))),
                disparity: try ImageSequence(pattern: inputs.file("depth/%04d.png"), input: .maps(.disparity)), disparityFormat: .png16,
                disparityRange: Self.range)
        }
        try Packer.pack(try request("pal/%04d.png", "pal.mov"))
        let movie = try CinematicMovie.open(path: inputs.file("pal.mov"))
        for n in 0..<Self.frames {
            #expect(try PNGDecoder.header(of: try movie.pictureSample(n)).colorType == .rgb, "frame \(n)")
            #expect(try movie.picture(n) == (try Self.palettePNG(n).rgb), "frame \(n)")
        }

        let grey = try PixelImage(
            width: Self.width, height: Self.height, layout: .gray, samples: [UInt8](repeating: 90, count: Self.width * Self.height))
        try inputs.write(PNGEncoder.encode(grey), "rgb/0006.png")
        let error = #expect(throws: FormatError.self) { try Packer.pack(try request("rgb/%04d.png", "grey.mov")) }
        #expect(
            error?.message == "\(inputs.file("rgb/0006.png")): 8-bit gray PNG; frames must be RGB or RGBA", "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: inputs.file("grey.mov")))
    }

    /// A sequence with a gap is refused naming the missing file (also when the pattern has no
    /// name prefix: 'rgb/%04d.png').
    @Test func gapInSequenceNamesTheMissingFile() throws {
        let inputs = try Inputs()
        try FileManager.default.removeItem(atPath: inputs.file("rgb/0005.png"))
        let error = #expect(throws: FormatError.self) {
            try ImageSequence(pattern: inputs.file("rgb/%04d.png"), input: .frames)
        }
        #expect(
            error?.message.contains("rgb/0005.png is missing, but \(inputs.file("rgb/0011.png")) exists") == true,
            "\(String(describing: error))")
    }
}

extension [UInt8] {
    fileprivate init(bigEndian32 value: UInt32) {
        self = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
