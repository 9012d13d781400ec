import CinepackContainer
import CinepackFormat
import Foundation
import TestSupport
import Testing

/// `moov/meta` movie parameters (spec/format.md §7): round trip, defaults, preserved unknown keys,
/// errors naming the key, and what exiftool and ffprobe make of it.
@Suite struct MovieParametersTests {
    static var custom: CinematicParameters {
        var p = CinematicParameters()
        p.focalLength35mm = 52
        p.defaultFNumber = 2.8
        p.minFNumber = 2
        p.maxFNumber = 22
        p.maxDisparityRate = 0.75
        p.minTransition = 0.25
        p.maxTransition = 1.5
        p.gapBridge = 0.5
        p.weakSuppression = 3
        return p
    }

    /// Parses a top-level `meta` (as the box layer reads it inside `moov`).
    func parseMeta(_ bytes: [UInt8]) throws -> Box {
        let tree = try BoxReader(source: MemoryByteSource(bytes)).readTree()
        #expect(tree.diagnostics.isEmpty, "\(tree.diagnostics)")
        return try #require(tree.first("meta"))
    }

    /// A QuickTime meta with raw items (key, type indicator, value bytes).
    func meta(_ items: [(String, UInt32, [UInt8])]) -> [UInt8] {
        MovieParametersBox.serialized(items.map { MovieMetadataItem(key: $0.0, values: [.init(typeIndicator: $0.1, bytes: $0.2)]) })
    }

    func f32(_ v: Float) -> [UInt8] { u32Bytes(v.bitPattern) }

    @Test func roundTrip() throws {
        let read = try MovieParametersBox.read(try parseMeta(MovieParametersBox.serialized(Self.custom)))
        #expect(read.parameters == Self.custom)
        #expect(read.version == "1")
        #expect(read.majorVersion == 1)
        #expect(read.isSupportedVersion)
        #expect(read.otherItems.isEmpty)
    }

    @Test func layoutIsQuickTimeMetadata() throws {
        let bytes = MovieParametersBox.serialized(CinematicParameters())
        let meta = try parseMeta(bytes)
        // QuickTime meta: no version/flags, hdlr first with handler mdta.
        #expect(Array(bytes[8..<12]) == u32Bytes(33))
        #expect(Array(bytes[12..<16]) == Array("hdlr".utf8))
        #expect(meta.children.map(\.type.description) == ["hdlr", "keys", "ilst"])
        #expect(meta.child("hdlr")?.content(as: HandlerBox.self)?.handlerType == "mdta")
        let keys = try #require(meta.child("keys")?.content(as: MetadataKeysBox.self)).keys
        #expect(keys.map(\.value) == ["org.cinepack.version"] + MovieParametersBox.Field.allCases.map(\.key))
        #expect(keys.allSatisfy { $0.namespace == "mdta" })
        let ilst = try #require(meta.child("ilst"))
        #expect(ilst.children.map(\.type.rawValue) == Array(1...10))
        let values = ilst.children.compactMap { $0.child("data")?.content(as: MetadataValueBox.self) }
        #expect(values.map(\.typeIndicator) == [1] + Array(repeating: 23, count: 9))
        #expect(values.allSatisfy { $0.locale == 0 })
        #expect(values[0].value == Array("1".utf8))
        #expect(values[1].value == [0x41, 0xD0, 0, 0])  // 26.0 big-endian
    }

    @Test func missingKeysTakeDefaults() throws {
        let onlyVersion = try MovieParametersBox.read(try parseMeta(meta([("org.cinepack.version", 1, Array("1".utf8))])))
        #expect(onlyVersion.parameters == CinematicParameters())
        #expect(onlyVersion.version == "1")

        let someKeys = try MovieParametersBox.read(try parseMeta(meta([("org.cinepack.lens.focal-length-35mm", 23, f32(77))])))
        var expected = CinematicParameters()
        expected.focalLength35mm = 77
        #expect(someKeys.parameters == expected)
        #expect(someKeys.version == nil)
        #expect(!someKeys.isSupportedVersion)

        // The spec's table of defaults.
        let d = CinematicParameters()
        #expect(
            [
                d.focalLength35mm, d.defaultFNumber, d.minFNumber, d.maxFNumber, d.maxDisparityRate, d.maxTransition, d.gapBridge,
                d.weakSuppression,
            ] == [26, 4.5, 1.4, 16, 0.5, 1, 1, 2])
        #expect(abs(d.minTransition - 0.3333) < 1e-4)
    }

    @Test func unknownKeysAreReturnedAndWrittenBack() throws {
        let foreign: [(String, UInt32, [UInt8])] = [
            ("com.apple.quicktime.artist", 1, Array("someone".utf8)),
            ("org.cinepack.version", 1, Array("1".utf8)),
            ("org.cinepack.future-thing", 23, f32(3)),
        ]
        let read = try MovieParametersBox.read(try parseMeta(meta(foreign)))
        #expect(
            read.otherItems == [
                MovieMetadataItem(key: "com.apple.quicktime.artist", values: [.init(typeIndicator: 1, bytes: Array("someone".utf8))]),
                MovieMetadataItem(key: "org.cinepack.future-thing", values: [.init(typeIndicator: 23, bytes: f32(3))]),
            ])
        let rewritten = MovieParametersBox.serialized(Self.custom, preserving: read.otherItems)
        let again = try MovieParametersBox.read(try parseMeta(rewritten))
        #expect(again.otherItems == read.otherItems)
        #expect(again.parameters == Self.custom)
        // A preserved item under one of our keys never duplicates it.
        let clash = MovieParametersBox.serialized(
            Self.custom,
            preserving: [
                MovieMetadataItem(
                    key: "org.cinepack.version",
                    values: [.init(typeIndicator: 1, bytes: [0x39])])
            ])
        #expect(try MovieParametersBox.read(try parseMeta(clash)).version == "1")
    }

    @Test(
        arguments: [
            (
                [("org.cinepack.aperture.default", UInt32(1), Array("4".utf8))],
                "'org.cinepack.aperture.default' has data type 1, expected 23 (big-endian f32)"
            ),
            (
                [("org.cinepack.aperture.default", UInt32(23), [0x40, 0x90, 0, 0, 0])],
                "'org.cinepack.aperture.default' holds 5 bytes; an f32 has 4"
            ),
            (
                [("org.cinepack.lens.focal-length-35mm", UInt32(23), [0x7F, 0xC0, 0, 0])],
                "'org.cinepack.lens.focal-length-35mm' is nan; it must be a finite number > 0"
            ),
            (
                [("org.cinepack.aperture.minimum", UInt32(23), [0, 0, 0, 0])],
                "'org.cinepack.aperture.minimum' is 0.0; it must be a finite number > 0"
            ),
            (
                [("org.cinepack.focus.gap-bridge", UInt32(23), [0xBF, 0x80, 0, 0])],
                "'org.cinepack.focus.gap-bridge' is -1.0; it must be a finite number ≥ 0"
            ),
            ([("org.cinepack.version", UInt32(23), [0x3F, 0x80, 0, 0])], "'org.cinepack.version' has data type 23, expected 1 (UTF-8)"),
            ([("org.cinepack.version", UInt32(1), [])], "'org.cinepack.version' is not a non-empty UTF-8 string"),
            ([("org.cinepack.version", UInt32(1), [0xFF, 0xFE])], "'org.cinepack.version' is not a non-empty UTF-8 string"),
            (
                [("org.cinepack.aperture.default", UInt32(23), [0x41, 0xA0, 0, 0])],
                "aperture default 20.0 lies outside minimum 1.4 … maximum 16.0"
            ),
            (
                [("org.cinepack.focus.min-transition", UInt32(23), [0x40, 0, 0, 0])],
                "focus min-transition 2.0 s is above max-transition 1.0 s"
            ),
            (
                [("org.cinepack.version", UInt32(1), Array("1".utf8)), ("org.cinepack.version", UInt32(1), Array("1".utf8))],
                "key 'org.cinepack.version' is declared twice"
            ),
        ] as [([(String, UInt32, [UInt8])], String)])
    func badValuesNameTheKey(items: [(String, UInt32, [UInt8])], message: String) throws {
        let box = try parseMeta(meta(items))
        let error = #expect(throws: ContainerError.self) { try MovieParametersBox.read(box) }
        #expect(error?.message == message)
        #expect(error?.clause == "spec/format.md §7")
        #expect(error?.path?.hasPrefix("meta") == true)
    }

    @Test func majorVersions() {
        #expect(MovieParameters(version: "1").majorVersion == 1)
        #expect(MovieParameters(version: "1.4").majorVersion == 1)
        #expect(MovieParameters(version: "2").majorVersion == 2)
        #expect(!MovieParameters(version: "2").isSupportedVersion)
        #expect(MovieParameters(version: "x").majorVersion == nil)
        #expect(MovieParameters(version: "").majorVersion == nil)
        #expect(MovieParameters(version: nil).majorVersion == nil)
    }

    @Test func aMetaWithoutMdtaHandlerIsRefusedAndMoovWithoutMetaGivesDefaults() throws {
        var w = ByteWriter()
        w.box("meta") { w in w.bytes(HandlerBox(handlerType: "mdir", name: "").serialized()) }
        let error = #expect(throws: ContainerError.self) { try MovieParametersBox.read(try parseMeta(w.bytes)) }
        #expect(error?.message.contains("no 'mdta' handler") == true)

        let movie = try Movie.read(path: Paths.corpus("valid/raw-moov-last.mov"))
        let none = try MovieParametersBox.read(moov: movie.moov)
        #expect(none == MovieParameters(version: nil))
    }

    // MARK: Interop

    /// corpus/valid/raw-moov-last.mov with our meta appended to its moov. moov is the last box, so
    /// no chunk offset moves.
    func movieWithParameters(_ parameters: CinematicParameters, in directory: TemporaryDirectory) throws -> String {
        let source = try FileByteSource(path: Paths.corpus("valid/raw-moov-last.mov"))
        let tree = try BoxReader(source: source).readTree()
        #expect(tree.boxes.last?.type == "moov")
        let boxes: [WritableBox] = tree.boxes.map { box in
            box.type == "moov"
                ? .container("moov", box.children.map { .original($0) } + [.bytes(MovieParametersBox.serialized(parameters))])
                : .original(box)
        }
        var sink = MemorySink()
        try BoxTreeWriter(source: source).write(boxes, to: &sink)
        let path = directory.file("parameters.mov")
        try Data(sink.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func readBackThroughTheMovieReader() throws {
        let dir = try Paths.temporaryDirectory()
        let path = try movieWithParameters(Self.custom, in: dir)
        let movie = try Movie.read(path: path, options: MovieReadOptions(strict: true))
        let read = try MovieParametersBox.read(moov: movie.moov)
        #expect(read.parameters == Self.custom)
        #expect(read.version == "1")
    }

    @Test func exiftoolListsOurKeys() throws {
        guard try Peers.available("exiftool") else { return }
        let dir = try Paths.temporaryDirectory()
        let path = try movieWithParameters(Self.custom, in: dir)
        let output = try Peers.run("exiftool", ["-j", "-G", "-a", path])
        let json = try JSONSerialization.jsonObject(with: output.stdout) as? [[String: Any]]
        let tags = try #require(json?.first)
        #expect(tags["ExifTool:Error"] == nil, "\(tags)")
        #expect(tags["ExifTool:Warning"] == nil, "\(tags)")
        // exiftool names unknown mdta keys after the key; find each by its value.
        let keyed = tags.filter { $0.key.hasPrefix("QuickTime:") }
        func value(containing fragment: String) -> Any? {
            keyed.first { $0.key.lowercased().replacingOccurrences(of: "-", with: "").contains(fragment) }?.value
        }
        let expectations: [(String, Double)] = [
            ("focallength35mm", 52), ("aperturedefault", 2.8), ("apertureminimum", 2), ("aperturemaximum", 22),
            ("maxdisparityrate", 0.75), ("mintransition", 0.25), ("maxtransition", 1.5), ("gapbridge", 0.5), ("weaksuppression", 3),
        ]
        for (fragment, expected) in expectations {
            let found = value(containing: fragment)
            let number = (found as? NSNumber)?.doubleValue ?? (found as? String).flatMap(Double.init)
            #expect(number.map { abs($0 - expected) < 1e-5 } == true, "\(fragment): \(String(describing: found)) in \(keyed.keys.sorted())")
        }
        let version = value(containing: "cinepackversion")
        #expect((version as? NSNumber)?.intValue == 1 || (version as? String) == "1", "version: \(String(describing: version))")
    }

    @Test func ffprobeListsOurKeys() throws {
        guard try Peers.available("ffprobe") else { return }
        let dir = try Paths.temporaryDirectory()
        let path = try movieWithParameters(Self.custom, in: dir)
        let output = try Peers.run("ffprobe", ["-v", "error", "-show_format", "-of", "json", path])
        #expect(output.stderr.isEmpty, "\(output.stderr)")
        let json = try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any]
        let tags = try #require((json?["format"] as? [String: Any])?["tags"] as? [String: String], "\(output.text)")
        #expect(tags["org.cinepack.version"] == "1")
        for field in MovieParametersBox.Field.allCases {
            let text = try #require(tags[field.key], "\(field.key) missing from \(tags)")
            #expect(Double(text).map { abs($0 - Double(field.value(in: Self.custom))) < 1e-5 } == true, "\(field.key) = \(text)")
        }
    }
}
