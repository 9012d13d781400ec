import Foundation
import TestSupport
import Testing

@testable import CinepackContainer

/// Every file in `corpus/valid` and `corpus/invalid` against its line in `corpus/manifest.tsv`.
@Suite struct CorpusTests {
    typealias Entry = CorpusManifest.Entry

    /// cinematic/ lines describe what `cinepack inspect` says (CinematicCorpusTests).
    static let manifest = CorpusManifest.entries.filter { !$0.file.hasPrefix("cinematic/") }

    @Test func everyCorpusFileHasAManifestLine() {
        let listed = Set(Self.manifest.map(\.file))
        for folder in ["valid", "invalid"] {
            for path in Paths.corpusFiles(folder) {
                let name = "\(folder)/\(URL(fileURLWithPath: path).lastPathComponent)"
                #expect(listed.contains(name), "\(name) has no line in corpus/manifest.tsv")
            }
        }
        #expect(Self.manifest.count >= 20)
    }

    @Test(arguments: manifest)
    func corpusFileBehavesAsDocumented(_ entry: Entry) throws {
        let path = Paths.corpus(entry.file)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        switch entry.mode {
        case "ok":
            let movie = try Movie.read(path: path, options: .init(strict: true))
            #expect(movie.diagnostics.isEmpty, "\(movie.diagnostics)")
            #expect("tracks=\(movie.tracks.count) samples=\(movie.tracks.first?.samples.count ?? 0)" == entry.expected)
        case "warn":
            let movie = try Movie.read(path: path)
            #expect(movie.diagnostics.contains { $0.error.description.contains(entry.expected) }, "\(movie.diagnostics)")
            #expect(throws: ContainerError.self) { try Movie.read(path: path, options: .init(strict: true)) }
        default:
            do {
                _ = try Movie.read(path: path)
                Issue.record("\(entry.file) was read without error; expected: \(entry.expected)")
            } catch {
                #expect(error.description.contains(entry.expected), "got: \(error.description)")
                #expect(error.offset != nil || error.path != nil, "error says neither where nor in which box")
            }
        }
        // Reading never changes the input.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func rawMoovLastSamplesMatchHandLayout() throws {
        let movie = try Movie.read(path: Paths.corpus("valid/raw-moov-last.mov"), options: .init(strict: true))
        let track = try #require(movie.tracks.first)
        #expect(track.codec == "raw ")
        #expect(track.visual?.width == 16 && track.visual?.height == 16)
        #expect(track.timescale == 30 && track.mediaDuration == 3)
        // ftyp (20) + wide (8) + mdat header (8): the first frame starts at byte 36.
        let offsets = (0..<3).compactMap { track.samples.sample(at: $0)?.offset }
        #expect(offsets == [36, 36 + 768, 36 + 1536])
        #expect(track.samples.sample(at: 2)?.decodeTime == 2)
        #expect(track.samples.sampleIndex(atDecodeTime: 1) == 1)
        #expect(track.samples.sampleIndex(atDecodeTime: 3) == nil)
    }

    @Test func oneChunkAndSyncTable() throws {
        let movie = try Movie.read(path: Paths.corpus("valid/one-chunk-stss.mov"), options: .init(strict: true))
        let samples = try #require(movie.tracks.first).samples
        var seen: [SampleInfo] = []
        samples.forEach { seen.append($0) }
        #expect(seen.map(\.offset) == [36, 804, 1572])
        #expect(seen.map(\.isSync) == [true, false, false])
        #expect(samples.syncSample(atOrBefore: 2) == 0)
        #expect(seen == (0..<3).compactMap { samples.sample(at: $0) })
    }

    @Test func compressedMovieIsInflated() throws {
        let movie = try Movie.read(path: Paths.corpus("valid/compressed-moov.mov"), options: .init(strict: true))
        #expect(movie.isCompressed)
        #expect(movie.moov.origin == .compressedMovie)
        #expect(movie.tracks.first?.samples.sample(at: 0)?.offset == 36)
    }

    @Test func quickTimeAndISOMetaAreToldApart() throws {
        let qt = try Movie.read(path: Paths.corpus("valid/quicktime-meta.mov"), options: .init(strict: true))
        let keys = try #require(qt.moov.child("meta")?.child("keys")?.content(as: MetadataKeysBox.self))
        #expect(keys.keys.map(\.value) == ["com.apple.quicktime.artist"])
        let value = qt.moov.child("meta")?.child("ilst")?.children.first?.child("data")?.content(as: MetadataValueBox.self)
        #expect(value.map { String(decoding: $0.value, as: UTF8.self) } == "cinepack corpus")
        let iso = try Movie.read(path: Paths.corpus("valid/iso-meta.mov"), options: .init(strict: true))
        #expect(iso.moov.child("udta")?.child("meta")?.child("hdlr")?.content(as: HandlerBox.self)?.handlerType == "mdir")
    }

    @Test func unknownBoxesAreKeptAndLargeSizesRead() throws {
        let tree = try BoxReader(source: FileByteSource(path: Paths.corpus("valid/unknown-boxes.mov"))).readTree()
        #expect(tree.first("zzzz")?.isKnown == false)
        #expect(tree.first("uuid")?.header.userType == Array(0..<16))
        #expect(tree.first("moov")?.child("xtra")?.isKnown == false)
        let large = try BoxReader(source: FileByteSource(path: Paths.corpus("valid/large-size-co64.mov"))).readTree()
        #expect(large.first("mdat")?.header.sizeEncoding == .large)
        let zero = try BoxReader(source: FileByteSource(path: Paths.corpus("valid/size-zero-mdat.mov"))).readTree()
        #expect(zero.boxes.last?.header.sizeEncoding == .toEnd)
        #expect(zero.boxes.last?.header.end == zero.fileSize)
    }

    /// Inspecting must read about the moov, never the media data.
    @Test func inspectionDoesNotReadMediaData() throws {
        let source = try FileByteSource(path: Paths.corpus("valid/raw-moov-last.mov"))
        let movie = try Movie.read(source: source)
        let mdat = try #require(movie.tree.first("mdat"))
        let headerReads = Int64(16 * movie.tree.boxes.count)
        #expect(source.bytesRead <= source.size - mdat.header.payloadSize + headerReads)
    }
}
