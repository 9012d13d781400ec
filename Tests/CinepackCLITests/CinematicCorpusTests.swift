import Cinepack
import Foundation
import TestSupport
import Testing

/// corpus/cinematic: each file against its corpus/manifest.tsv line, through `cinepack inspect`
/// with and without `--strict`, and the reader rules those files stand for (spec/format.md §2, §3,
/// §6.2, §8).
@Suite struct CinematicCorpusTests {
    typealias Entry = CorpusManifest.Entry

    static let manifest = CorpusManifest.entries.filter { $0.file.hasPrefix("cinematic/") }

    @Test func everyCinematicFileHasAManifestLine() {
        let listed = Set(Self.manifest.map(\.file))
        let files = Paths.corpusFiles("cinematic").map { "cinematic/" + URL(fileURLWithPath: $0).lastPathComponent }
        #expect(Set(files) == listed, "corpus/cinematic and its manifest lines differ")
        #expect(files.count >= 9)
    }

    @Test(arguments: manifest)
    func inspectBehavesAsDocumented(_ entry: Entry) throws {
        let path = Paths.corpus(entry.file)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let lenient = try CLI.run(["inspect", entry.file], in: Paths.corpus(""))
        let strict = try CLI.run(["inspect", entry.file, "--strict"], in: Paths.corpus(""))
        switch entry.mode {
        case "ok":
            #expect(lenient.status == 0 && strict.status == 0, "\(lenient.stderr)\(strict.stderr)")
            #expect(lenient.stdout.contains(entry.expected), "\(lenient.stdout)")
            #expect(!lenient.stdout.contains("warning"), "\(lenient.stdout)")
        case "warn":
            #expect(lenient.status == 0, "\(lenient.stderr)")
            #expect(lenient.stdout.contains("warning: ") && lenient.stdout.contains(entry.expected), "\(lenient.stdout)")
            #expect(strict.status == 1)
            #expect(strict.stdout.isEmpty)
            #expect(strict.stderr.contains(entry.expected) && strict.stderr.contains(entry.file), "\(strict.stderr)")
        default:
            #expect(lenient.status == 1 && strict.status == 1)
            #expect(lenient.stderr.contains(entry.expected), "\(lenient.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// §2: a file that fails identification is read as a plain movie, refused for cinematic work,
    /// and its JSON has no `cinematic` section but the warning.
    @Test(arguments: ["no-cnpk-brand.mov", "no-version-key.mov"])
    func failedIdentificationIsAPlainMovie(_ name: String) throws {
        let path = Paths.corpus("cinematic/\(name)")
        let movie = try CinematicMovie.open(path: path)
        #expect(!movie.isCinepackFile)
        #expect(movie.disparity == nil && movie.metadata == nil && movie.quantization == nil)
        #expect(movie.frameCount == 15)
        _ = try movie.pictureSample(0)
        let map = #expect(throws: FormatError.self) { try movie.disparityMap(0) }
        #expect(map?.description.contains("is not a cinepack movie") == true)

        let json = try CLI.run(["inspect", path, "--json"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(root["cinematic"] == nil)
        #expect((root["warnings"] as? [String])?.contains { $0.contains("is not a cinepack movie") } == true)

        let focus = try CLI.run(["focus", path])
        #expect(focus.status == 1)
        #expect(focus.stderr.contains("is not a cinepack movie") && focus.stderr.contains("§2"), "\(focus.stderr)")
    }

    /// §3: a `mebx` track without the focus key is not a focus-metadata track; the movie is read
    /// without one (every frame has empty metadata) instead of being refused.
    @Test func mebxTrackWithoutFocusKeyIsNotFocusMetadata() throws {
        let movie = try CinematicMovie.open(path: Paths.corpus("cinematic/mebx-without-focus-key.mov"))
        #expect(movie.isCinepackFile)
        #expect(movie.metadata == nil)
        #expect(movie.disparity != nil)
        #expect(try movie.metadata(0) == FrameMetadata())
        let focus = try CLI.run(["focus", Paths.corpus("cinematic/mebx-without-focus-key.mov"), "--at", "0f"])
        #expect(focus.status == 0, "\(focus.stderr)")
    }

    /// §6.2: a type outside the table is kept and shown as its number, in text and JSON.
    @Test func unknownDetectionTypeIsANumber() throws {
        let movie = try CinematicMovie.open(path: Paths.corpus("cinematic/unknown-detection-type.mov"))
        let first = try #require(try movie.metadata(0).detections.first)
        #expect(first.type.rawValue == 777 && first.type.description == "777")
        let json = try CLI.run(["inspect", Paths.corpus("cinematic/unknown-detection-type.mov"), "--json"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let subjects = try #require((root["cinematic"] as? [String: Any])?["subjects"] as? [[String: Any]])
        let one = try #require(subjects.first { ($0["id"] as? Int) == 1 })
        #expect(one["type"] as? String == "777")
        #expect(one["type_number"] as? Int == 777)
        #expect(subjects.first { ($0["id"] as? Int) == 4 }?["type"] as? String == "face")
    }

    /// The box listing's JSON has one `type` per object (the box's): Python's JSON reader, told
    /// to refuse duplicate keys, reads every listing of the corpus, and `data` boxes carry their
    /// value type as `type_indicator`.
    @Test func boxListingJSONHasNoDuplicateKeys() throws {
        guard try Peers.available("python3") else { return }
        let check = """
            import json, sys
            def pairs(items):
                keys = [k for k, _ in items]
                dup = sorted({k for k in keys if keys.count(k) > 1})
                if dup: sys.exit("duplicate keys %s in %s" % (dup, dict(items).get("path")))
                return dict(items)
            doc = json.load(sys.stdin, object_pairs_hook=pairs)
            def walk(boxes):
                for b in boxes:
                    if b["type"] == "data": assert isinstance(b["type_indicator"], int), b
                    walk(b.get("children", []))
            walk(doc["boxes"])
            """
        let files = ["cinematic/demo-small.mov"] + Paths.corpusFiles("valid").map { "valid/" + URL(fileURLWithPath: $0).lastPathComponent }
        for file in files {
            let listing = try CLI.run(["inspect", file, "--boxes", "--json"], in: Paths.corpus(""))
            #expect(listing.status == 0)
            let result = try Peers.run("python3", ["-c", check], stdin: Data(listing.stdout.utf8), allowFailure: true)
            #expect(result.status == 0, "\(file): \(result.stderr)")
        }
    }

    // MARK: - EDL slots (spec/format.md §8)

    /// Two valid slots with one sequence: slot B's EDL is current.
    @Test func equalSequencesReadSlotB() throws {
        let export = try CLI.run(["edl", "export", Paths.corpus("cinematic/edl-equal-sequences.mov")])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains(#"<aperture f-number="5.6"/>"#), "\(export.stdout)")
    }

    /// A writer's empty slot is a valid record of sequence 0 and length 0: magic, zeros, the CRC-32
    /// of those 16 bytes (0x271743C4, the value spec/format.md §8 gives), zero padding.
    @Test func emptySlotsAreValidRecordsOfSequenceZero() throws {
        let path = Paths.corpus("cinematic/demo-small.mov")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let layout = try #require(try EDLStore(path: path).layout)
        var expected = Array("EDLS".utf8) + [UInt8](repeating: 0, count: 12) + [0x27, 0x17, 0x43, 0xC4]
        for slot in layout.slots {
            expected += [UInt8](repeating: 0, count: slot.capacity - expected.count)
            #expect([UInt8](data[Int(slot.recordOffset)..<Int(slot.recordOffset) + slot.capacity]) == expected, "slot \(slot.slot)")
        }
    }

    /// The first edit of a movie without edits records the empty EDL as its undo step (spec/edl.md
    /// §8), byte for byte the corpus file written from the spec.
    @Test func firstEditRecordsTheEmptyEDL() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: path)
        let edit = try CLI.run(["aperture", path, "--f-number", "2.8"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let export = try CLI.run(["edl", "export", path])
        let expected = try String(contentsOfFile: Paths.corpus("edl/valid/first-edit.xml"), encoding: .utf8)
        #expect(export.stdout == expected)
        // Undo goes back to no edits.
        #expect(try CLI.run(["undo", path]).status == 0)
        let undone = try EditDecisionList.parse(Array(try CLI.run(["edl", "export", path]).stdout.utf8), source: "undone")
        #expect(undone.fNumber == nil && undone.history.isEmpty)
    }

    /// A `cpES` of an unknown version: no edit is written, the movie is unchanged.
    @Test func unknownSlotVersionRefusesEdits() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/edl-slot-version-1.mov"), toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let edit = try CLI.run(["aperture", path, "--f-number", "2.8"])
        #expect(edit.status == 1)
        #expect(edit.stderr.contains("slot A has version 1"), "\(edit.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// spec/edl.md §12: an edit writes times in the grid's timescale, the rate's frame count (30 at
    /// 30/1, not the track's 600): frame 6 is 6/30s.
    @Test func editsWriteTimesInTheGridTimescale() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: path)
        #expect(try CLI.run(["refocus", path, "--at", "0.2s", "--object", "4"]).status == 0)
        #expect(try CLI.run(["trim", path, "--keep", "0.1s..0.4s"]).status == 0)
        let xml = try CLI.run(["edl", "export", path]).stdout
        #expect(xml.contains(#"<decision time="6/30s" frame="6""#), "\(xml)")
        #expect(xml.contains(#"<range start="3/30s" end="12/30s"/>"#), "\(xml)")
    }

    /// spec/format.md §6.2: one bad sample refuses the focus metadata for every whole-movie
    /// operation, naming sample, item and byte; a valid earlier sample still reads on its own.
    @Test func oneBadSampleRefusesTheFocusMetadata() throws {
        let path = Paths.corpus("cinematic/bad-metadata-sample.mov")
        let movie = try CinematicMovie.open(path: path)
        _ = try movie.metadata(6)
        let error = #expect(throws: FormatError.self) { try movie.metadata(7) }
        #expect(error?.description.contains("metadata sample 7, item 2 (org.cinepack.focus), sample byte") == true)
        #expect(error?.description.contains("at byte ") == true, "names the file offset")
        for command in [["focus", path], ["decisions", path]] {
            let result = try CLI.run(command)
            #expect(result.status == 1 && result.stderr.contains("metadata sample 7"), "\(command): \(result.stderr)")
        }
    }
}
