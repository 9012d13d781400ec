import Cinepack
import Foundation
import TestSupport
import Testing

/// A file the real `cinepack` binary writes is read by Tests/Interop/cinepack_reader.py, a reader
/// written from spec/format.md alone (no shared code, no look at the Swift sources), and what it
/// finds must equal what the Swift library reads: every detection and focus field bit for bit,
/// the disparity statistics of every frame to 1e-5, the sample tables and the movie parameters.
/// When the two disagree, either the writer or the spec is wrong.
///
/// Edited copies check the rules an independent reader depends on: keys are found by name (local
/// ids swapped), items of unknown keys are skipped (a key renamed), and a broken file is refused by
/// both readers (encoding ≠ 1, an item overrunning its sample, a missing brand).
@Suite struct IndependentReaderTests {
    static let script = Paths.root.appendingPathComponent("Tests/Interop/cinepack_reader.py").path

    struct Clip: CustomStringConvertible, Sendable {
        var seconds: String
        var size: String
        var description: String { "\(seconds)s \(size)" }
    }

    /// 1 s is the plain case; 6 s reaches rack transitions, later decisions and the span flagged
    /// not-enough-light.
    static let clips = [Clip(seconds: "1", size: "320x180"), Clip(seconds: "6", size: "160x90")]

    @Test(arguments: clips)
    func independentReaderAgreesWithLibrary(_ clip: Clip) throws {
        guard try Peers.available("python3") else { return }
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        try makeDemo(path, clip)
        let json = try readIndependently(path)
        let movie = try CinematicMovie.open(path: path)
        try compare(json, movie)
    }

    /// Local ids are arbitrary: swapping those of detections and scene (in the keys and in every
    /// item) changes nothing either reader reports.
    @Test func keysAreFoundByName() throws {
        guard try Peers.available("python3") else { return }
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        try makeDemo(path, Self.clips[1])
        let original = try readIndependently(path)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let keys = try keyBoxes(bytes)
        let detections = try #require(keys["org.cinepack.detections"])
        let scene = try #require(keys["org.cinepack.scene"])
        let (a, b) = (readU32(bytes, detections.typeOffset), readU32(bytes, scene.typeOffset))
        writeU32(&bytes, detections.typeOffset, b)
        writeU32(&bytes, scene.typeOffset, a)
        try rewriteItems(&bytes, original) { id in id == a ? b : id == b ? a : id }
        let edited = dir.file("swapped.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: edited))

        let json = try readIndependently(edited)
        let movie = try CinematicMovie.open(path: edited)
        #expect(movie.metadataKeys[b] == "org.cinepack.detections")
        #expect(movie.metadataKeys[a] == "org.cinepack.scene")
        try compare(json, movie)
        // Both readers report the original content.
        let before = try frames(original), after = try frames(json)
        #expect(before.count == after.count)
        for (n, (x, y)) in zip(before, after).enumerated() {
            #expect(NSDictionary(dictionary: x).isEqual(to: y), "frame \(n) changed when local ids were swapped")
        }
        let originalMovie = try CinematicMovie.open(path: path)
        for n in 0..<originalMovie.frameCount {
            #expect(try sameFrame(originalMovie.metadata(n), movie.metadata(n)), "frame \(n)")
        }
    }

    /// A key neither reader knows (`org.cinepack.f-number` renamed) is skipped, not an error, and
    /// the rest of every sample still reads.
    @Test func itemsOfUnknownKeysAreSkipped() throws {
        guard try Peers.available("python3") else { return }
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        try makeDemo(path, Self.clips[0])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let key = try #require(try keyBoxes(bytes)["org.cinepack.f-number"])
        bytes[key.nameOffset + key.nameLength - 1] = UInt8(ascii: "X")  // org.cinepack.f-numbeX
        let edited = dir.file("renamed.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: edited))

        let json = try readIndependently(edited)
        let movie = try CinematicMovie.open(path: edited)
        try compare(json, movie)
        let original = try CinematicMovie.open(path: path)
        for n in 0..<movie.frameCount {
            let m = try movie.metadata(n)
            #expect(m.fNumber == nil, "frame \(n): an item of an unknown key was read as the f-number")
            var expected = try original.metadata(n)
            expected.fNumber = nil
            #expect(sameFrame(expected, m), "frame \(n)")
        }
        let unknown = try frames(json).map { ($0["unknown_items"] as? NSNumber)?.intValue ?? -1 }
        #expect(unknown.allSatisfy { $0 == 1 }, "every frame carries one f-number item: \(unknown)")
    }

    /// §2: beyond 4 GiB the `wide` box and the `mdat` header become one 16-byte header with a
    /// 64-bit largesize. Doing that rewrite on a small file moves no byte, and both readers must
    /// read the same movie.
    @Test func largeSizeMdatHeaderReads() throws {
        guard try Peers.available("python3") else { return }
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        try makeDemo(path, Self.clips[0])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let wide = Int(readU32(bytes, 0))  // just after ftyp
        try #require(Array(bytes[wide + 4..<wide + 8]) == Array("wide".utf8) && readU32(bytes, wide) == 8)
        try #require(Array(bytes[wide + 12..<wide + 16]) == Array("mdat".utf8))
        let mdatSize = UInt64(readU32(bytes, wide + 8))
        writeU32(&bytes, wide, 1)
        bytes.replaceSubrange(wide + 4..<wide + 8, with: Array("mdat".utf8))
        writeU32(&bytes, wide + 8, UInt32((mdatSize + 8) >> 32))
        writeU32(&bytes, wide + 12, UInt32((mdatSize + 8) & 0xFFFF_FFFF))
        let edited = dir.file("largesize.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: edited))

        let json = try readIndependently(edited)
        try compare(json, try CinematicMovie.open(path: edited))
        let before = try frames(try readIndependently(path)), after = try frames(json)
        #expect(NSArray(array: before).isEqual(to: after))
    }

    enum Breakage: String, CaseIterable, CustomStringConvertible, Sendable {
        case encodingTwo, itemOverrunsSample, noBrand
        var description: String { rawValue }
    }

    /// Files that break the spec are refused by both readers; the independent one exits 2 naming
    /// the clause.
    @Test(arguments: Breakage.allCases)
    func bothReadersRefuseBrokenFiles(_ breakage: Breakage) throws {
        guard try Peers.available("python3") else { return }
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        try makeDemo(path, Self.clips[0])
        let json = try readIndependently(path)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let clause: String
        switch breakage {
        case .encodingTwo:
            let cpdq = try #require(find(Array("cpdq".utf8), in: bytes, from: moovStart(bytes)).first)
            writeU32(&bytes, cpdq + 16, 2)  // type, version/flags, min, max, then encoding
            clause = "§5"
        case .itemOverrunsSample:
            let first = try #require(((json["tracks"] as? [String: Any])?["metadata"] as? [String: Any])?["samples"] as? [[NSNumber]])
            let (offset, size) = (first[0][0].intValue, first[0][1].uint32Value)
            writeU32(&bytes, offset, size + 1)  // the first item claims one byte past the sample
            clause = "§6.2"
        case .noBrand:
            let brand = try #require(find(Array("cnpk".utf8), in: Array(bytes[0..<32]), from: 0).first)
            bytes.replaceSubrange(brand..<brand + 4, with: Array("xxxx".utf8))
            clause = "§2"
        }
        let broken = dir.file("broken.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: broken))

        let result = try Peers.run("python3", [Self.script, broken], allowFailure: true)
        #expect(result.status == 2, "independent reader: \(result.stderr)")
        #expect(result.stderr.contains(clause), "message names the clause: \(result.stderr)")
        #expect(result.stdout.isEmpty)

        switch breakage {
        case .encodingTwo:
            // "reader MUST refuse the track": refusing the file or dropping the track both do.
            if let movie = try? CinematicMovie.open(path: broken) {
                #expect(movie.quantization == nil && movie.disparity == nil, "library accepted disparity encoding 2")
                #expect(throws: (any Error).self) { try movie.disparityMap(0) }
            }
        case .itemOverrunsSample:
            if let movie = try? CinematicMovie.open(path: broken) {
                #expect(throws: (any Error).self) { try movie.metadata(0) }
            }
        case .noBrand:
            if let movie = try? CinematicMovie.open(path: broken) {
                #expect(!movie.isCinepackFile, "library identifies a file without the cnpk brand as cinepack")
            }
        }
    }

    /// spec/format.md §4: the header fields writers fill in, read by the independent reader.
    @Test func writerFillsTheSpecifiedHeaderFields() throws {
        guard try Peers.available("python3") else { return }
        let json = try readIndependently(Paths.corpus("cinematic/demo-small.mov"))
        let tracks = try #require(json["tracks"] as? [String: Any])
        func fields(_ role: String) -> NSDictionary {
            NSDictionary(dictionary: ((tracks[role] as? [String: Any])?["fields"] as? [String: Any]) ?? [:])
        }
        let video: NSDictionary = [
            "tkhd_flags": 3, "media_header": "vmhd", "handler_name": "cinepack video", "compressor": "PNG", "depth": 24,
        ]
        let disparity: NSDictionary = [
            "tkhd_flags": 2, "media_header": "vmhd", "handler_name": "cinepack disparity", "compressor": "cinepack disparity",
            "depth": 24,
        ]
        let metadata: NSDictionary = ["tkhd_flags": 2, "media_header": "nmhd", "handler_name": "cinepack focus metadata"]
        #expect(fields("video") == video)
        #expect(fields("disparity") == disparity)
        #expect(fields("metadata") == metadata)
        // §8: two valid empty records.
        let edl = try #require(json["edl"] as? [String: Any])
        #expect(int(edl["sequence"]) == 0 && edl["text"] is NSNull)
        #expect((edl["slots"] as? [[String: Any]])?.map { $0["valid"] as? Bool } == [true, true])
    }

    /// The corpus/cinematic files through both readers: they agree on what each rule gives.
    @Test func bothReadersAgreeOnTheCinematicCorpus() throws {
        guard try Peers.available("python3") else { return }
        func independent(_ name: String) throws -> Peers.Result {
            try Peers.run("python3", [Self.script, Paths.corpus("cinematic/\(name)")], allowFailure: true)
        }
        func library(_ name: String) throws -> CinematicMovie { try CinematicMovie.open(path: Paths.corpus("cinematic/\(name)")) }

        // §2: not a cinepack movie.
        for name in ["no-cnpk-brand.mov", "no-version-key.mov"] {
            let result = try independent(name)
            #expect(result.status == 2 && result.stderr.contains("§2"), "\(name): \(result.stderr)")
            #expect(try !library(name).isCinepackFile)
        }
        // §3: a mebx track without the focus key is not focus metadata.
        let noFocus = try readIndependently(Paths.corpus("cinematic/mebx-without-focus-key.mov"))
        #expect((noFocus["tracks"] as? [String: Any])?["metadata"] is NSNull)
        #expect(try library("mebx-without-focus-key.mov").metadata == nil)
        // §6.1 and §6.2: refused by both.
        for (name, clause) in [("dtyp-mismatch.mov", "§6.1"), ("bad-metadata-sample.mov", "§6.3")] {
            let result = try independent(name)
            #expect(result.status == 2 && result.stderr.contains(clause), "\(name): \(result.stderr)")
            #expect(throws: (any Error).self, "\(name)") {
                let movie = try library(name)
                for n in 0..<movie.frameCount { _ = try movie.metadata(n) }
            }
        }
        // §6.2: a type outside the table is kept.
        let typed = try frames(try readIndependently(Paths.corpus("cinematic/unknown-detection-type.mov")))
        #expect(int((typed.first?["detections"] as? [[String: Any]])?.first?["type"]) == 777)
        #expect(try library("unknown-detection-type.mov").metadata(0).detections.first?.type.rawValue == 777)
        // §7 input: frames 1…14 captured at f/2.0, frame 0 without (its item's local id is undeclared).
        let f2 = try frames(try readIndependently(Paths.corpus("cinematic/captured-f2.mov")))
        let movie = try library("captured-f2.mov")
        for (n, frame) in f2.enumerated() {
            let expected: Float? = n == 0 ? nil : 2
            #expect((frame["f_number"] is NSNull ? nil : float(frame["f_number"])) == expected, "frame \(n)")
            #expect(try movie.metadata(n).fNumber == expected, "frame \(n)")
        }
        // §8: the tie goes to slot B; an unknown slot version leaves both slots unused.
        let tie = try #require(try readIndependently(Paths.corpus("cinematic/edl-equal-sequences.mov"))["edl"] as? [String: Any])
        #expect(tie["slot"] as? String == "B")
        let stored = try EDLStore(path: Paths.corpus("cinematic/edl-equal-sequences.mov")).current
        #expect(stored.slot == .b && stored.text.map { String(decoding: $0, as: UTF8.self) } == tie["text"] as? String)
        let versioned = try readIndependently(Paths.corpus("cinematic/edl-slot-version-1.mov"))
        #expect((versioned["edl"] as? [String: Any])?["unreadable"] as? String == "slot A has version 1")
        #expect(throws: EDLStorageError.self) { try EDLStore(path: Paths.corpus("cinematic/edl-slot-version-1.mov")) }
    }

    // MARK: - Running the two readers

    private func makeDemo(_ path: String, _ clip: Clip) throws {
        let made = try CLI.run(["demo", "-o", path, "--seconds", clip.seconds, "--size", clip.size])
        try #require(made.status == 0, "cinepack demo failed: \(made.stderr)")
    }

    private func readIndependently(_ path: String) throws -> [String: Any] {
        let result = try Peers.run("python3", [Self.script, path], allowFailure: true)
        try #require(result.status == 0, "the independent reader refused \(path): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    private func frames(_ json: [String: Any]) throws -> [[String: Any]] {
        let tracks = try #require(json["tracks"] as? [String: Any])
        let metadata = try #require(tracks["metadata"] as? [String: Any])
        return try #require(metadata["frames"] as? [[String: Any]])
    }

    // MARK: - Comparing

    private func compare(_ json: [String: Any], _ movie: CinematicMovie) throws {
        #expect(movie.isCinepackFile)
        let brands = try #require(json["brands"] as? [String: Any])
        #expect((brands["compatible"] as? [String])?.contains("cnpk") == true)
        let tracks = try #require(json["tracks"] as? [String: Any])

        // Video.
        let video = try #require(tracks["video"] as? [String: Any])
        #expect(int(video["id"]) == Int(movie.video.id))
        #expect(video["codec"] as? String == movie.video.codec?.description)
        #expect(int(video["width"]) == movie.width)
        #expect(int(video["height"]) == movie.height)
        #expect(int(video["frames"]) == movie.frameCount)
        try compareSamples(video, movie.video, "video")

        // Disparity.
        let disparity = try #require(tracks["disparity"] as? [String: Any])
        let track = try #require(movie.disparity)
        let q = try #require(movie.quantization)
        #expect(int(disparity["id"]) == Int(track.id))
        #expect(int(disparity["width"]) == Int(track.visual?.width ?? 0))
        #expect(int(disparity["height"]) == Int(track.visual?.height ?? 0))
        #expect(same(float(disparity["min"]), q.minimum), "quantization minimum")
        #expect(same(float(disparity["max"]), q.maximum), "quantization maximum")
        #expect(int(disparity["encoding"]) == 1)
        #expect(int(disparity["frames"]) == movie.frameCount)
        try compareSamples(disparity, track, "disparity")
        let stats = try #require(disparity["frame_stats"] as? [[String: Any]])
        #expect(stats.count == movie.frameCount)
        let frame0 = try #require(disparity["frame0_stats"] as? [String: Any])
        #expect(NSDictionary(dictionary: frame0).isEqual(to: stats.first ?? [:]))
        for (n, s) in stats.enumerated() {
            let map = try movie.disparityMap(n)
            #expect(map.width == int(disparity["width"]) && map.height == int(disparity["height"]))
            let valid = map.values.filter { !$0.isNaN }
            #expect(int(s["invalid"]) == map.values.count - valid.count, "frame \(n) invalid pixels")
            #expect(int(s["valid"]) == valid.count, "frame \(n) valid pixels")
            guard let lo = valid.min(), let hi = valid.max() else {
                #expect(s["min"] is NSNull, "frame \(n)")
                continue
            }
            let mean = valid.reduce(0.0) { $0 + Double($1) } / Double(valid.count)
            #expect(abs(double(s["min"]) - Double(lo)) <= 1e-5, "frame \(n) min \(String(describing: s["min"])) vs \(lo)")
            #expect(abs(double(s["max"]) - Double(hi)) <= 1e-5, "frame \(n) max \(String(describing: s["max"])) vs \(hi)")
            #expect(abs(double(s["mean"]) - mean) <= 1e-5, "frame \(n) mean \(String(describing: s["mean"])) vs \(mean)")
        }

        // Focus metadata.
        let metadata = try #require(tracks["metadata"] as? [String: Any])
        let metaTrack = try #require(movie.metadata)
        #expect(int(metadata["id"]) == Int(metaTrack.id))
        try compareSamples(metadata, metaTrack, "metadata")
        let keys = try #require(metadata["keys"] as? [String: String])
        #expect(keys.count == movie.metadataKeys.count)
        for (id, name) in movie.metadataKeys { #expect(keys[String(id)] == name, "local id \(id)") }
        let frames = try frames(json)
        #expect(frames.count == movie.frameCount)
        for (n, frame) in frames.enumerated() {
            try compareFrame(n, frame, try movie.metadata(n))
        }

        // Movie parameters.
        let parameters = try #require(json["parameters"] as? [String: Any])
        let p = movie.parameters
        #expect(parameters["org.cinepack.version"] as? String == movie.formatVersion)
        let floats: [(String, Float)] = [
            ("org.cinepack.lens.focal-length-35mm", p.focalLength35mm),
            ("org.cinepack.aperture.default", p.defaultFNumber),
            ("org.cinepack.aperture.minimum", p.minFNumber),
            ("org.cinepack.aperture.maximum", p.maxFNumber),
            ("org.cinepack.focus.max-disparity-rate", p.maxDisparityRate),
            ("org.cinepack.focus.min-transition", p.minTransition),
            ("org.cinepack.focus.max-transition", p.maxTransition),
            ("org.cinepack.focus.gap-bridge", p.gapBridge),
            ("org.cinepack.focus.weak-suppression", p.weakSuppression),
        ]
        for (key, value) in floats {
            #expect(same(float(parameters[key]), value), "\(key): independent \(String(describing: parameters[key])), library \(value)")
        }
        // The writer stores every parameter (CinematicParameters: "every number is stored").
        let stored = try #require(json["parameters_stored"] as? [String: Any])
        for (key, _) in floats { #expect(stored[key] != nil, "\(key) is not stored in moov/meta") }
    }

    private func compareSamples(_ json: [String: Any], _ track: Track, _ role: String) throws {
        let samples = try #require(json["samples"] as? [[NSNumber]])
        #expect(samples.count == track.samples.count, "\(role) sample count")
        #expect(int(json["timescale"]) == Int(track.timescale), "\(role) timescale")
        for (k, s) in samples.enumerated() {
            let info = try #require(track.samples.sample(at: k))
            #expect(
                s.map(\.int64Value) == [info.offset, Int64(info.size), info.decodeTime, info.duration],
                "\(role) sample \(k): independent \(s), library \(info)")
        }
    }

    private func compareFrame(_ n: Int, _ frame: [String: Any], _ m: FrameMetadata) throws {
        let detections = try #require(frame["detections"] as? [[String: Any]])
        #expect(detections.count == m.detections.count, "frame \(n) detection count")
        for (k, (j, d)) in zip(detections, m.detections).enumerated() {
            let at = "frame \(n) detection \(k)"
            #expect(int(j["id"]) == Int(d.id), "\(at) id")
            #expect(int(j["group"]) == Int(d.groupID), "\(at) group")
            #expect(int(j["type"]) == Int(d.type.rawValue), "\(at) type")
            let rect = (j["rect"] as? [Any]) ?? []
            #expect(rect.count == 4, "\(at) rect")
            if rect.count == 4 {
                for (i, (value, name)) in [(d.rect.x, "x"), (d.rect.y, "y"), (d.rect.width, "width"), (d.rect.height, "height")]
                    .enumerated()
                {
                    #expect(same(float(rect[i]), value), "\(at) \(name): \(rect[i]) vs \(value)")
                }
            }
            #expect(same(float(j["disparity"]), d.disparity), "\(at) disparity")
            #expect(same(float(j["confidence"]), d.confidence), "\(at) confidence")
        }

        let focus = try #require(frame["focus"] as? [String: Any])
        let state = try #require(m.focus, "frame \(n): the library has no focus state, the independent reader does")
        #expect(sameTarget(focus, state.target), "frame \(n) focus target \(focus) vs \(state.target)")
        #expect(same(float(focus["disparity"]), state.focusDisparity), "frame \(n) focus disparity")
        #expect(focus["strong"] as? Bool == state.isStrong, "frame \(n) strong")
        #expect(focus["in_transition"] as? Bool == state.inTransition, "frame \(n) in transition")
        #expect(same(float(focus["progress"]), state.transitionProgress), "frame \(n) transition progress")

        if let decision = frame["decision"] as? [String: Any] {
            let captured = try #require(m.decision, "frame \(n): the library lost the decision")
            #expect(sameTarget(decision, captured.target), "frame \(n) decision target \(decision) vs \(captured.target)")
            #expect(decision["strong"] as? Bool == captured.isStrong, "frame \(n) decision strength")
        } else {
            #expect(frame["decision"] is NSNull && m.decision == nil, "frame \(n) decision")
        }

        if frame["f_number"] is NSNull {
            #expect(m.fNumber == nil, "frame \(n) f-number")
        } else {
            #expect(m.fNumber.map { same(float(frame["f_number"]), $0) } == true, "frame \(n) f-number")
        }
        // An absent scene item is status 0.
        let scene = frame["scene"] is NSNull ? 0 : int(frame["scene"])
        #expect(scene == Int(m.scene.rawValue), "frame \(n) scene")
    }

    /// §6.3 target kinds. A decision (§6.4) stores only 16 bytes, so a point's y is not in it.
    private func sameTarget(_ j: [String: Any], _ target: FocusTarget) -> Bool {
        let id = UInt32(int(j["target_id"]))
        switch (int(j["kind"]), target) {
        case (0, .none): return true
        case (1, .detection(let d)): return d == id
        case (2, .group(let g)): return g == id
        case (3, .fixedDisparity(let d)): return same(float(j["value1"]), d)
        case (4, .point(let x, let y)):
            return same(float(j["value1"]), x) && (j["value2"] == nil || same(float(j["value2"]), y))
        default: return false
        }
    }

    private func sameFrame(_ a: FrameMetadata, _ b: FrameMetadata) -> Bool {
        // Equatable would call NaN unequal to itself; compare the encodings instead.
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(a)) == (try? encoder.encode(b))
    }

    // MARK: - JSON values

    private func int(_ value: Any?) -> Int { (value as? NSNumber)?.intValue ?? Int.min }
    private func double(_ value: Any?) -> Double { (value as? NSNumber).map(exactDouble) ?? .nan }

    /// JSONSerialization on Linux returns NSDecimalNumber, whose `doubleValue` is not correctly
    /// rounded (0.7260162234306335 becomes 0.7260162234306333); its decimal text parsed by
    /// `Double(_:)` is.
    private func exactDouble(_ n: NSNumber) -> Double { Double(n.stringValue) ?? n.doubleValue }

    /// A binary32 from the reader's JSON: a number (exactly representable) or "NaN"/"Infinity".
    private func float(_ value: Any?) -> Float? {
        switch value {
        case let s as String:
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: return nil
            }
        case let n as NSNumber:
            let d = exactDouble(n)
            let f = Float(d)
            return Double(f) == d ? f : nil  // not a binary32: the reader or the parse went wrong
        default: return nil
        }
    }

    /// Bit-for-bit equality, with every NaN equal to every NaN.
    private func same(_ a: Float?, _ b: Float) -> Bool {
        guard let a else { return false }
        return (a.isNaN && b.isNaN) || a.bitPattern == b.bitPattern
    }

    // MARK: - Editing a file in place

    private struct EditError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    private struct KeyBox {
        var typeOffset: Int
        var nameOffset: Int
        var nameLength: Int
    }

    private func moovStart(_ bytes: [UInt8]) throws -> Int {
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = Int(readU32(bytes, offset))
            if size == 1 { size = Int(readU32(bytes, offset + 8)) << 32 | Int(readU32(bytes, offset + 12)) }
            if Array(bytes[offset + 4..<offset + 8]) == Array("moov".utf8) { return offset }
            guard size >= 8 else { break }
            offset += size
        }
        throw EditError(message: "no top-level moov box")
    }

    /// The key boxes of the mebx sample entry, by name: each is `size, local id` followed by a
    /// `keyd` box (`size, 'keyd', 'mdta', name`).
    private func keyBoxes(_ bytes: [UInt8]) throws -> [String: KeyBox] {
        let moov = try moovStart(bytes)
        let mebx = try #require(find(Array("mebx".utf8), in: bytes, from: moov).first)
        var result: [String: KeyBox] = [:]
        for keyd in find(Array("keydmdta".utf8), in: bytes, from: mebx) {
            let size = Int(readU32(bytes, keyd - 4))
            let name = String(decoding: bytes[keyd + 8..<keyd - 4 + size], as: UTF8.self)
            result[name] = KeyBox(typeOffset: keyd - 8, nameOffset: keyd + 8, nameLength: size - 12)
        }
        return result
    }

    /// Rewrites the local id of every item of every metadata sample (§6.2).
    private func rewriteItems(_ bytes: inout [UInt8], _ json: [String: Any], _ map: (UInt32) -> UInt32) throws {
        let tracks = try #require(json["tracks"] as? [String: Any])
        let samples = try #require((tracks["metadata"] as? [String: Any])?["samples"] as? [[NSNumber]])
        for s in samples {
            let (start, end) = (s[0].intValue, s[0].intValue + s[1].intValue)
            var at = start
            while at + 8 <= end {
                let size = Int(readU32(bytes, at))
                try #require(size >= 8 && at + size <= end)
                writeU32(&bytes, at + 4, map(readU32(bytes, at + 4)))
                at += size
            }
        }
    }

    private func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> [Int] {
        guard pattern.count <= bytes.count else { return [] }
        var hits: [Int] = []
        var i = start
        while i + pattern.count <= bytes.count {
            if bytes[i] == pattern[0] && Array(bytes[i..<i + pattern.count]) == pattern { hits.append(i) }
            i += 1
        }
        return hits
    }

    private func readU32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private func writeU32(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt32) {
        for i in 0..<4 { bytes[offset + i] = UInt8(value >> (24 - 8 * UInt32(i)) & 0xFF) }
    }
}
