import CinepackContainer
import CinepackFormat
import TestSupport
import Testing

/// Focus-metadata samples (spec/format.md §6): round trips, the key table, every malformed
/// case with its message, and a seeded mutation loop.
@Suite struct FocusMetadataCodecTests {
    static let face = Detection(
        id: 4, groupID: 2, type: .face, rect: NormalizedRect(x: 0.25, y: 0.125, width: 0.25, height: 0.5),
        disparity: 0.5, confidence: 1)
    static let torso = Detection(
        id: 5, groupID: 2, type: .torso, rect: NormalizedRect(x: 0.2, y: 0.4, width: 0.4, height: 0.6),
        disparity: 0.48, confidence: 0.75)
    static let unknownType = Detection(
        id: 9, type: DetectionType(rawValue: 4242), rect: NormalizedRect(x: 0, y: 0, width: 1, height: 1),
        disparity: 1.25, confidence: 0)

    // MARK: Round trips

    static let roundTrips: [(String, FrameMetadata)] = [
        ("empty detections, no focus", FrameMetadata()),
        ("empty detections, focus none", FrameMetadata(focus: FocusState(target: .none, focusDisparity: 0.3))),
        ("focus on a detection, weak", FrameMetadata(detections: [face], focus: FocusState(target: .detection(4), focusDisparity: 0.5))),
        (
            "focus on a detection, strong",
            FrameMetadata(detections: [face], focus: FocusState(target: .detection(4), focusDisparity: 0.5, isStrong: true))
        ),
        (
            "focus on a group in transition",
            FrameMetadata(
                detections: [face, torso],
                focus: FocusState(target: .group(2), focusDisparity: 0.45, inTransition: true, transitionProgress: 0.375))
        ),
        ("fixed disparity", FrameMetadata(focus: FocusState(target: .fixedDisparity(0.7), focusDisparity: 0.7, isStrong: true))),
        (
            "fixed disparity in transition",
            FrameMetadata(focus: FocusState(target: .fixedDisparity(0.7), focusDisparity: 0.6, inTransition: true, transitionProgress: 1))
        ),
        ("point", FrameMetadata(focus: FocusState(target: .point(x: 0.5, y: 0.25), focusDisparity: 0.9))),
        (
            "point in transition (progress not stored)",
            FrameMetadata(
                focus: FocusState(target: .point(x: 0.5, y: 0.25), focusDisparity: 0.9, inTransition: true, transitionProgress: 0))
        ),
        (
            "decision on a detection",
            FrameMetadata(
                detections: [face], focus: FocusState(target: .detection(4), focusDisparity: 0.5),
                decision: CapturedDecision(target: .detection(4), isStrong: true))
        ),
        (
            "decision on a group",
            FrameMetadata(
                focus: FocusState(target: .none, focusDisparity: 1), decision: CapturedDecision(target: .group(7), isStrong: false))
        ),
        (
            "decision on a fixed plane",
            FrameMetadata(
                focus: FocusState(target: .none, focusDisparity: 1),
                decision: CapturedDecision(target: .fixedDisparity(0.25), isStrong: true))
        ),
        (
            "decision on a point",
            FrameMetadata(
                focus: FocusState(target: .none, focusDisparity: 1),
                decision: CapturedDecision(target: .point(x: 0.1, y: 0.9), isStrong: false))
        ),
        ("decision on none", FrameMetadata(decision: CapturedDecision(target: .none, isStrong: false))),
        ("f-number", FrameMetadata(fNumber: 2.8)),
        ("scene: not enough light", FrameMetadata(scene: .notEnoughLight)),
        (
            "scene: both flags and a reserved bit",
            FrameMetadata(scene: [.notEnoughLight, .subjectTooClose, SceneStatus(rawValue: 1 << 31)])
        ),
        (
            "unknown detection type kept",
            FrameMetadata(detections: [unknownType], focus: FocusState(target: .detection(9), focusDisparity: 1.25))
        ),
        (
            "everything",
            FrameMetadata(
                detections: [face, torso, unknownType],
                focus: FocusState(target: .group(2), focusDisparity: 0.49, isStrong: true, inTransition: true, transitionProgress: 0.5),
                decision: CapturedDecision(target: .group(2), isStrong: true), fNumber: 1.8,
                scene: .subjectTooClose)
        ),
    ]

    @Test(arguments: roundTrips.indices)
    func roundTrip(_ index: Int) throws {
        let (name, frame) = Self.roundTrips[index]
        try FocusMetadataCodec.validate(frame)
        let bytes = FocusMetadataCodec.encode(frame)
        let back = try FocusMetadataCodec.decode(bytes, keys: .writer, sampleIndex: index)
        #expect(back == frame, "\(name)")
        // Keys looked up by name: the same bytes under other local ids decode the same.
        let renumbered = renumber(bytes, [1: 10, 2: 20, 3: 30, 4: 40, 5: 50])
        let other = FocusMetadataKeyMap([10: .detections, 20: .focus, 30: .decision, 40: .fNumber, 50: .scene])
        #expect(try FocusMetadataCodec.decode(renumbered, keys: other, sampleIndex: index) == frame, "\(name)")
    }

    @Test func itemsAreWrittenInKeyOrderAndOnlyWhenSet() throws {
        let ids = { (frame: FrameMetadata) in items(FocusMetadataCodec.encode(frame)).map(\.id) }
        #expect(ids(FrameMetadata()) == [1, 2])
        #expect(ids(FrameMetadata(fNumber: 4)) == [1, 2, 4])
        #expect(
            ids(FrameMetadata(decision: CapturedDecision(target: .none, isStrong: false), fNumber: 4, scene: .notEnoughLight)) == [
                1, 2, 3, 4, 5,
            ])
        // The empty detections payload: version 1, count 0.
        #expect(items(FocusMetadataCodec.encode(FrameMetadata()))[0].payload == [0, 1, 0, 0])
    }

    @Test func missingFocusIsWrittenAsNoneWithNaN() throws {
        let payload = items(FocusMetadataCodec.encode(FrameMetadata()))[1].payload
        #expect(payload.count == 20)
        #expect(Array(payload[0..<8]) == [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(Float(bitPattern: be32(payload, 8)).isNaN)
    }

    @Test func decisionPayloadsAreSixteenBytesExceptPoints() throws {
        let size = { (target: FocusTarget) in
            items(FocusMetadataCodec.encode(FrameMetadata(decision: CapturedDecision(target: target, isStrong: true))))[2].payload.count
        }
        #expect(size(.detection(3)) == 16)
        #expect(size(.fixedDisparity(0.5)) == 16)
        #expect(size(.point(x: 0.5, y: 0.5)) == 20)
        // Fixed: the disparity field holds the target; others: NaN (unknown).
        let fixed = items(
            FocusMetadataCodec.encode(FrameMetadata(decision: CapturedDecision(target: .fixedDisparity(0.5), isStrong: true))))[2]
        #expect(Float(bitPattern: be32(fixed.payload, 8)) == 0.5)
        #expect(fixed.payload[2] == 1)
        let detection = items(FocusMetadataCodec.encode(FrameMetadata(decision: CapturedDecision(target: .detection(3), isStrong: false))))[
            2]
        #expect(Float(bitPattern: be32(detection.payload, 8)).isNaN)
    }

    @Test func nanDetectionDisparityMeansUnknownAndIsKept() throws {
        var d = Self.face
        d.disparity = .nan
        let frame = FrameMetadata(detections: [d], focus: FocusState(target: .detection(4), focusDisparity: .nan, isStrong: true))
        let back = try FocusMetadataCodec.decode(FocusMetadataCodec.encode(frame), keys: .writer, sampleIndex: 0)
        #expect(back.detections[0].disparity.isNaN)
        #expect(back.focus?.focusDisparity.isNaN == true)
        #expect(back.focus?.target == .detection(4))
    }

    @Test func unknownLocalIDsAndKeysAreSkipped() throws {
        let frame = FrameMetadata(detections: [Self.face], focus: FocusState(target: .detection(4), focusDisparity: 0.5), fNumber: 2)
        var bytes = FocusMetadataCodec.encode(frame)
        // An item under a local id the track does not declare, in the middle and at the end.
        let unknown: [UInt8] = [0, 0, 0, 13, 0, 0, 0, 99, 1, 2, 3, 4, 5]
        let firstItemEnd = Int(be32(bytes, 0))
        bytes.insert(contentsOf: unknown, at: firstItemEnd)
        bytes += [0, 0, 0, 8, 0, 0, 0, 77]  // an empty payload
        #expect(try FocusMetadataCodec.decode(bytes, keys: .writer, sampleIndex: 0) == frame)
        // A key the reader does not know by name is skipped like an unknown id.
        let names: [UInt32: String] = [
            1: "org.cinepack.detections", 2: "org.cinepack.focus", 4: "org.cinepack.f-number", 99: "org.example.future",
        ]
        #expect(try FocusMetadataCodec.decode(bytes, keys: names, sampleIndex: 0) == frame)
        // A track without the f-number key: its items are skipped too.
        let partial = FocusMetadataKeyMap([1: .detections, 2: .focus])
        #expect(try FocusMetadataCodec.decode(bytes, keys: partial, sampleIndex: 0).fNumber == nil)
    }

    @Test func longerPayloadsAreAccepted() throws {
        // §6.2: a detections payload longer than 4 + 40·count is read, the rest ignored; same for focus.
        let frame = FrameMetadata(detections: [Self.face], focus: FocusState(target: .detection(4), focusDisparity: 0.5))
        var parts = items(FocusMetadataCodec.encode(frame))
        parts[0].payload += [0xAA, 0xBB, 0xCC]
        parts[1].payload += [0xDD, 0xEE, 0xFF, 0x11]
        #expect(try FocusMetadataCodec.decode(sample(parts), keys: .writer, sampleIndex: 0) == frame)
    }

    // MARK: Malformed samples, each with its message

    static func base() -> [(id: UInt32, payload: [UInt8])] {
        items(
            FocusMetadataCodec.encode(
                FrameMetadata(
                    detections: [face, torso], focus: FocusState(target: .detection(4), focusDisparity: 0.5),
                    decision: CapturedDecision(target: .detection(4), isStrong: true), fNumber: 4.5,
                    scene: .notEnoughLight)))
    }

    /// (name, bytes, substring of the message, clause).
    static let malformed: [(String, [UInt8], String, String)] = {
        var cases: [(String, [UInt8], String, String)] = []
        func add(_ name: String, _ bytes: [UInt8], _ message: String, _ clause: String = "spec/format.md §6.2") {
            cases.append((name, bytes, message, clause))
        }
        func edit(_ item: Int, _ body: (inout [UInt8]) -> Void) -> [UInt8] {
            var parts = base()
            body(&parts[item].payload)
            return sample(parts)
        }
        let good = sample(base())
        add("empty sample", [], "metadata sample 7, sample byte 0: the sample is empty")
        add("trailing 5 bytes", good + [0, 0, 0, 5, 1], "5 bytes left, too few for an item header")
        add(
            "item size below header", [0, 0, 0, 4, 0, 0, 0, 1] + good,
            "item 1, sample byte 0: item size 4 is smaller than its own 8-byte header")
        add("item size zero", good + [0, 0, 0, 0, 0, 0, 0, 9], "item size 0 is smaller")
        add("item past the end", [0, 0, 0, 200, 0, 0, 0, 1, 0, 1, 0, 0], "item 1, sample byte 0: item claims 200 bytes but only 12 remain")
        add("item size 0xFFFFFFFF", [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1, 0, 1], "item claims 4294967295 bytes")
        add("no detections item", sample(Array(base().dropFirst())), "no 'org.cinepack.detections' item")
        add("no focus item", sample(base().enumerated().filter { $0.offset != 1 }.map(\.element)), "no 'org.cinepack.focus' item")
        add("two focus items", sample(base() + [base()[1]]), "a second 'org.cinepack.focus' item")
        add(
            "detections payload of 2 bytes", edit(0) { $0 = [0, 1] },
            "item 1 (org.cinepack.detections), sample byte 8: detections payload is 2 bytes")
        add("detections version 2", edit(0) { $0[1] = 2 }, "detections payload version 2 is not supported")
        add("detections count larger than payload", edit(0) { $0[3] = 3 }, "shorter than the 4 + 40 × 3 = 124 its count needs")
        add(
            "detections count 65535 in a short payload",
            edit(0) {
                $0[2] = 0xFF; $0[3] = 0xFF
            }, "4 + 40 × 65535 = 2621404")
        add(
            "detection id 0", edit(0) { $0.replaceSubrange(4..<8, with: [0, 0, 0, 0]) },
            "detection 1 (id 0): id 0; detection ids start at 1")
        add(
            "duplicate detection id", edit(0) { $0.replaceSubrange(44..<48, with: [0, 0, 0, 4]) }, "detection 2 (id 4): id 4 appears twice")
        add(
            "NaN rect x", edit(0) { $0.replaceSubrange(16..<20, with: [0x7F, 0xC0, 0, 0]) },
            "sample byte 24: detection 1 (id 4): rect x is nan")
        add(
            "infinite rect height", edit(0) { $0.replaceSubrange(68..<72, with: [0x7F, 0x80, 0, 0]) },
            "detection 2 (id 5): rect height is inf")
        add("negative rect width", edit(0) { $0.replaceSubrange(24..<28, with: [0xBF, 0x80, 0, 0]) }, "rect size -1.0 × 0.5 is negative")
        add(
            "infinite disparity", edit(0) { $0.replaceSubrange(32..<36, with: [0xFF, 0x80, 0, 0]) },
            "detection 1 (id 4): disparity is infinite")
        add("NaN confidence", edit(0) { $0.replaceSubrange(36..<40, with: [0x7F, 0xC0, 0, 1]) }, "confidence is nan")
        add("focus payload of 16 bytes", edit(1) { $0.removeLast(4) }, "item 2 (org.cinepack.focus), sample byte", "spec/format.md §6.3")
        add("focus version 0", edit(1) { $0[0] = 0 }, "focus payload version 0 is not supported", "spec/format.md §6.3")
        add("focus kind 5", edit(1) { $0[1] = 5 }, "focus: unknown target kind 5", "spec/format.md §6.3")
        add(
            "focus on detection 0", edit(1) { $0.replaceSubrange(4..<8, with: [0, 0, 0, 0]) }, "focus: target detection id is 0",
            "spec/format.md §6.3")
        add(
            "focus on group 0",
            edit(1) {
                $0[1] = 2; $0.replaceSubrange(4..<8, with: [0, 0, 0, 0])
            }, "target group id is 0", "spec/format.md §6.3")
        add(
            "fixed focus NaN",
            edit(1) {
                $0[1] = 3; $0.replaceSubrange(12..<16, with: [0x7F, 0xC0, 0, 0])
            }, "fixed disparity is nan", "spec/format.md §6.3")
        add(
            "point focus infinite",
            edit(1) {
                $0[1] = 4; $0.replaceSubrange(16..<20, with: [0x7F, 0x80, 0, 0])
            }, "point (0.0, inf) is not finite", "spec/format.md §6.3")
        add(
            "infinite focus disparity", edit(1) { $0.replaceSubrange(8..<12, with: [0x7F, 0x80, 0, 0]) },
            "focus: focus disparity is infinite", "spec/format.md §6.3")
        add(
            "progress above 1",
            edit(1) {
                $0[2] = 2; $0.replaceSubrange(16..<20, with: [0x40, 0, 0, 0])
            }, "transition progress 2.0 is outside 0…1", "spec/format.md §6.3")
        add("decision of 12 bytes", edit(2) { $0.removeLast(4) }, "decision payload is 12 bytes, shorter than 16", "spec/format.md §6.4")
        add("decision version 3", edit(2) { $0[0] = 3 }, "decision payload version 3 is not supported", "spec/format.md §6.4")
        add(
            "16-byte point decision", edit(2) { $0[1] = 4 },
            "decision: a point target needs value 2 (the point's y), but the payload is 16 bytes", "spec/format.md §6.4")
        add("f-number of 8 bytes", edit(3) { $0 += [0, 0, 0, 0] }, "f-number payload is 8 bytes, not 4", "spec/format.md §6.1")
        add("f-number zero", edit(3) { $0 = [0, 0, 0, 0] }, "f-number 0.0 is not a positive finite number", "spec/format.md §6.1")
        add("f-number NaN", edit(3) { $0 = [0x7F, 0xC0, 0, 0] }, "f-number nan", "spec/format.md §6.1")
        add("scene of 2 bytes", edit(4) { $0 = [0, 1] }, "scene status payload is 2 bytes, not 4", "spec/format.md §6.5")
        return cases
    }()

    @Test(arguments: malformed.indices)
    func malformedSampleIsRefused(_ index: Int) {
        let (name, bytes, message, clause) = Self.malformed[index]
        do {
            _ = try FocusMetadataCodec.decode(bytes, keys: .writer, sampleIndex: 7, fileOffset: 1000)
            Issue.record("\(name): decoded without error")
        } catch {
            #expect(error.description.contains(message), "\(name): \(error.description)")
            #expect(error.message.hasPrefix("metadata sample 7"), "\(name): \(error.message)")
            #expect(error.clause == clause, "\(name): \(error.description)")
            #expect((error.offset ?? -1) >= 1000, "\(name): the file offset is sample start + sample byte")
        }
    }

    @Test func errorOffsetsPointAtTheByte() throws {
        var parts = Self.base()
        parts[1].payload[1] = 9  // focus kind at payload byte 1
        let bytes = sample(parts)
        let focusStart = 8 + parts[0].payload.count + 8
        do {
            _ = try FocusMetadataCodec.decode(bytes, keys: .writer, sampleIndex: 3, fileOffset: 5000)
            Issue.record("decoded")
        } catch {
            #expect(error.offset == Int64(5000 + focusStart + 1))
            #expect(error.message.contains("sample byte \(focusStart + 1)"))
            #expect(error.kind == .malformed)
        }
        // Without a file offset the message still says where in the sample.
        do { _ = try FocusMetadataCodec.decode(bytes, keys: .writer, sampleIndex: 3) } catch {
            #expect(error.offset == nil)
            #expect(error.description.contains("metadata sample 3, item 2 (org.cinepack.focus), sample byte \(focusStart + 1)"))
        }
    }

    @Test func unsupportedVersionsAreUnsupportedNotMalformed() {
        var parts = Self.base()
        parts[0].payload[1] = 2
        #expect(throws: ContainerError.self) { try FocusMetadataCodec.decode(sample(parts), keys: .writer, sampleIndex: 0) }
        do { _ = try FocusMetadataCodec.decode(sample(parts), keys: .writer, sampleIndex: 0) } catch { #expect(error.kind == .unsupported) }
    }

    // MARK: Validation before writing

    static let invalidFrames: [(String, FrameMetadata, String)] = [
        (
            "detection id 0",
            FrameMetadata(detections: [Detection(id: 0, type: .face, rect: .init(x: 0, y: 0, width: 1, height: 1), disparity: 1)]),
            "detection 1 (id 0): id 0"
        ),
        ("duplicate ids", FrameMetadata(detections: [face, face]), "detection 2 (id 4): id 4 appears twice in one frame"),
        (
            "NaN rect",
            FrameMetadata(detections: [Detection(id: 1, type: .face, rect: .init(x: .nan, y: 0, width: 1, height: 1), disparity: 1)]),
            "non-finite coordinate"
        ),
        (
            "infinite confidence",
            FrameMetadata(detections: [
                Detection(
                    id: 1, type: .face, rect: .init(x: 0, y: 0, width: 1, height: 1), disparity: 1,
                    confidence: .infinity)
            ]), "confidence is not finite"
        ),
        (
            "focus on detection 0", FrameMetadata(focus: FocusState(target: .detection(0), focusDisparity: 1)),
            "focus: target detection id 0"
        ),
        ("NaN point", FrameMetadata(focus: FocusState(target: .point(x: .nan, y: 0), focusDisparity: 1)), "is not finite"),
        (
            "progress 1.5", FrameMetadata(focus: FocusState(target: .none, focusDisparity: 1, inTransition: true, transitionProgress: 1.5)),
            "outside 0…1"
        ),
        (
            "decision on group 0", FrameMetadata(decision: CapturedDecision(target: .group(0), isStrong: false)),
            "decision: target group id 0"
        ),
        ("f-number -1", FrameMetadata(fNumber: -1), "f-number -1.0 is not a positive finite number"),
    ]

    @Test(arguments: invalidFrames.indices)
    func validateRefusesWhatReadersRefuse(_ index: Int) {
        let (name, frame, message) = Self.invalidFrames[index]
        do {
            try FocusMetadataCodec.validate(frame, frameIndex: 12)
            Issue.record("\(name): validated")
        } catch {
            #expect(error.message.hasPrefix("cannot write frame 12: "), "\(name)")
            #expect(error.message.contains(message), "\(name): \(error.message)")
        }
        // And the reader indeed refuses what encode writes for it.
        #expect(throws: ContainerError.self, "\(name)") {
            try FocusMetadataCodec.decode(FocusMetadataCodec.encode(frame), keys: .writer, sampleIndex: 0)
        }
    }

    @Test func tooManyDetectionsAreAValidationErrorAndEncodeCapsThem() throws {
        let many = (1...65536).map {
            Detection(id: UInt32($0), type: .custom, rect: .init(x: 0, y: 0, width: 0.1, height: 0.1), disparity: 1)
        }
        let frame = FrameMetadata(detections: many)
        #expect(throws: ContainerError.self) { try FocusMetadataCodec.validate(frame) }
        let back = try FocusMetadataCodec.decode(FocusMetadataCodec.encode(frame), keys: .writer, sampleIndex: 0)
        #expect(back.detections.count == 65535)
    }

    // MARK: Keys and the sample entry

    @Test func keyTableMatchesTheSpec() {
        #expect(
            FocusMetadataKey.allCases.map(\.name) == [
                "org.cinepack.detections", "org.cinepack.focus", "org.cinepack.decision",
                "org.cinepack.f-number", "org.cinepack.scene",
            ])
        #expect(FocusMetadataKey.allCases.map(\.wellKnownType) == [0, 0, 0, 23, 77])
        #expect(FocusMetadataKey.allCases.map(\.writerLocalID) == [1, 2, 3, 4, 5])
        #expect(FocusMetadataKeyMap.writer.hasRequiredKeys)
        #expect(!FocusMetadataKeyMap([1: .detections]).hasRequiredKeys)
    }

    @Test func mebxSampleEntryBytes() throws {
        let mebx = FocusMetadataKeys.mebxSampleEntry()
        // Header, 6 reserved bytes, data reference index 1, then `keys`.
        #expect(Int(be32(mebx, 0)) == mebx.count)
        #expect(Array(mebx[4..<8]) == Array("mebx".utf8))
        #expect(Array(mebx[8..<14]) == [0, 0, 0, 0, 0, 0])
        #expect(Array(mebx[14..<16]) == [0, 1])
        #expect(Array(mebx[20..<24]) == Array("keys".utf8))
        #expect(Int(be32(mebx, 16)) == mebx.count - 16)
        // The first key box, local id 1: keyd (mdta + name), dtyp (0, 0).
        let name = Array("org.cinepack.detections".utf8)
        var expected: [UInt8] = []
        expected += u32Bytes(UInt32(8 + 8 + 4 + name.count + 8 + 8)) + [0, 0, 0, 1]
        expected += u32Bytes(UInt32(8 + 4 + name.count)) + Array("keyd".utf8) + Array("mdta".utf8) + name
        expected += u32Bytes(16) + Array("dtyp".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]
        #expect(Array(mebx[24..<24 + expected.count]) == expected)
    }

    @Test func keyMapFromAParsedSampleEntry() throws {
        let mebx = try parseMebx(FocusMetadataKeys.mebxSampleEntry())
        #expect(try FocusMetadataKeyMap(sampleEntry: mebx) == .writer)

        // Other local ids and an extra unknown key: found by name.
        let custom = mebxBytes([
            (7, "org.cinepack.focus", 0), (3, "com.example.other", 1), (12, "org.cinepack.detections", 0),
            (2, "org.cinepack.scene", 77),
        ])
        let map = try FocusMetadataKeyMap(sampleEntry: try parseMebx(custom))
        #expect(map == FocusMetadataKeyMap([7: .focus, 12: .detections, 2: .scene]))
        #expect(map.localID(of: .focus) == 7)
        #expect(map[3] == nil)
    }

    @Test(
        arguments: [
            (
                [(1, "org.cinepack.detections", 0), (2, "org.cinepack.detections", 0)],
                "key 'org.cinepack.detections' is declared twice, as local ids 1 and 2"
            ),
            ([(1, "org.cinepack.f-number", 77)], "key 'org.cinepack.f-number' (local id 1) has well-known type 77, expected 23"),
            ([(0, "org.cinepack.focus", 0)], "key 'org.cinepack.focus' uses reserved local id 0"),
        ] as [([(UInt32, String, UInt32)], String)])
    func badKeyTablesAreRefused(keys: [(UInt32, String, UInt32)], message: String) throws {
        let mebx = try parseMebx(mebxBytes(keys))
        let error = #expect(throws: ContainerError.self) { try FocusMetadataKeyMap(sampleEntry: mebx) }
        #expect(error?.message == message)
        #expect(error?.clause == "spec/format.md §6.1")
    }

    // MARK: Hostile input

    @Test func seededMutationsNeverCrash() {
        var rng = SeededGenerator(seed: 0x6D65_6278)
        let seeds = Self.roundTrips.map { FocusMetadataCodec.encode($0.1) }
        var decoded = 0, refused = 0
        for round in 0..<4000 {
            var bytes = seeds[round % seeds.count]
            let edits = Int.random(in: 1...4, using: &rng)
            for _ in 0..<edits {
                switch Int.random(in: 0..<6, using: &rng) {
                case 0 where !bytes.isEmpty:  // flip a byte
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1 where !bytes.isEmpty:  // truncate
                    bytes.removeLast(Int.random(in: 1...bytes.count, using: &rng))
                case 2:  // insert junk
                    let junk = (0..<Int.random(in: 1...12, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    bytes.insert(contentsOf: junk, at: Int.random(in: 0...bytes.count, using: &rng))
                case 3 where bytes.count >= 4:  // a hostile size or count word
                    let at = Int.random(in: 0...(bytes.count - 4), using: &rng)
                    let word: [UInt8] =
                        [[0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0], [0, 0, 0, 8], [0x7F, 0xC0, 0, 0], [0xFF, 0xFF, 0, 0]]
                        .randomElement(using: &rng) ?? []
                    bytes.replaceSubrange(at..<at + 4, with: word)
                case 4 where bytes.count >= 8:  // duplicate a slice
                    let start = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes += bytes[start..<min(bytes.count, start + 28)]
                default:  // random local-id remap of the whole map
                    break
                }
            }
            do {
                _ = try FocusMetadataCodec.decode(bytes, keys: .writer, sampleIndex: round)
                decoded += 1
            } catch {
                #expect(error.message.hasPrefix("metadata sample \(round)"))
                refused += 1
            }
        }
        #expect(decoded + refused == 4000)
        #expect(decoded > 0 && refused > 0)
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededGenerator(seed: 42)
        for round in 0..<2000 {
            let count = Int.random(in: 0...96, using: &rng)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Keep item headers plausible half the time so payload parsers are reached.
            if round % 2 == 0, bytes.count >= 8 {
                bytes.replaceSubrange(0..<8, with: u32Bytes(UInt32(bytes.count)) + u32Bytes(UInt32.random(in: 1...5, using: &rng)))
            }
            _ = try? FocusMetadataCodec.decode(bytes, keys: .writer, sampleIndex: round)
        }
    }
}

// MARK: Helpers (manual byte handling, independent of the codec)

func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
    UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
}

func u32Bytes(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

/// The items of a well-formed sample.
func items(_ bytes: [UInt8]) -> [(id: UInt32, payload: [UInt8])] {
    var result: [(id: UInt32, payload: [UInt8])] = []
    var at = 0
    while at + 8 <= bytes.count {
        let size = Int(be32(bytes, at))
        guard size >= 8, at + size <= bytes.count else { break }
        result.append((be32(bytes, at + 4), Array(bytes[at + 8..<at + size])))
        at += size
    }
    return result
}

func sample(_ items: [(id: UInt32, payload: [UInt8])]) -> [UInt8] {
    items.flatMap { u32Bytes(UInt32(8 + $0.payload.count)) + u32Bytes($0.id) + $0.payload }
}

func renumber(_ bytes: [UInt8], _ map: [UInt32: UInt32]) -> [UInt8] {
    sample(items(bytes).map { (map[$0.id] ?? $0.id, $0.payload) })
}

/// A `mebx` box with the given (local id, key name, well-known type) keys.
func mebxBytes(_ keys: [(UInt32, String, UInt32)]) -> [UInt8] {
    func box(_ type: [UInt8], _ payload: [UInt8]) -> [UInt8] { u32Bytes(UInt32(8 + payload.count)) + type + payload }
    let keyBoxes = keys.flatMap { id, name, type in
        box(
            u32Bytes(id),
            box(Array("keyd".utf8), Array("mdta".utf8) + Array(name.utf8)) + box(Array("dtyp".utf8), [0, 0, 0, 0] + u32Bytes(type)))
    }
    return box(Array("mebx".utf8), [0, 0, 0, 0, 0, 0, 0, 1] + box(Array("keys".utf8), keyBoxes))
}

/// Parses `mebx` where it lives (moov/trak/mdia with a `meta` handler, minf/stbl/stsd) so the box
/// layer reads it as a timed-metadata sample entry.
func parseMebx(_ mebx: [UInt8]) throws -> Box {
    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { u32Bytes(UInt32(8 + payload.count)) + Array(type.utf8) + payload }
    let hdlr = HandlerBox(handlerType: "meta", name: "").serialized()
    let stsd = box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + mebx)
    let moov = box("moov", box("trak", box("mdia", hdlr + box("minf", box("stbl", stsd)))))
    let tree = try BoxReader(source: MemoryByteSource(moov)).readTree()
    return try #require(tree.first("moov")?.descendant(["trak", "mdia", "minf", "stbl", "stsd", "mebx"]))
}
