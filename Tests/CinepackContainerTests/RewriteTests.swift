import Foundation
import TestSupport
import Testing

@testable import CinepackContainer

/// The writing side: unchanged trees come out byte for byte; replacing one box keeps every other
/// box, known or not, exactly as it was; new files appear atomically.
@Suite struct RewriteTests {
    @Test(arguments: Paths.corpusFiles("valid"))
    func unchangedTreeIsByteIdentical(_ path: String) throws {
        let source = try FileByteSource(path: path)
        let tree = try BoxReader(source: source).readTree()
        var sink = MemorySink()
        try BoxTreeWriter(source: source).write(WritableBox.unchanged(tree), to: &sink)
        #expect(sink.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func replacingOneBoxPreservesUnknownSiblings() throws {
        let path = Paths.corpus("valid/unknown-boxes.mov")
        let source = try FileByteSource(path: path)
        let tree = try BoxReader(source: source).readTree()
        let moov = try #require(tree.first("moov"))
        let original = try #require(moov.child("mvhd"))
        var header = try #require(original.content(as: MovieHeaderBox.self))
        header.duration = 1200
        let edited = try WritableBox.replacing(path: original.path, in: tree.boxes, with: .bytes(header.serialized()), source: source)
        var sink = MemorySink()
        try BoxTreeWriter(source: source).write(edited, to: &sink)

        let reread = try BoxReader(source: MemoryByteSource(sink.bytes)).readTree()
        #expect(reread.first("moov")?.child("mvhd")?.content(as: MovieHeaderBox.self)?.duration == 1200)
        let input = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // Same size (mvhd kept its size), and only the 4 duration bytes differ.
        #expect(sink.bytes.count == input.count)
        let differing = zip(sink.bytes, input).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        let durationField = Int(original.header.offset) + 8 + 4 + 4 + 4 + 4
        #expect(Set(differing).isSubset(of: Set(durationField..<durationField + 4)) && !differing.isEmpty)
        for type: FourCC in ["zzzz", "uuid"] {
            let a = try #require(tree.first(type)), b = try #require(reread.first(type))
            #expect(input[Int(a.header.offset)..<Int(a.header.end)] == sink.bytes[Int(b.header.offset)..<Int(b.header.end)])
        }
    }

    @Test func atomicWriterLeavesNoPartialFileOnFailure() throws {
        let dir = try Paths.temporaryDirectory()
        let target = dir.file("out.mov")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        do {
            let writer = try AtomicFileWriter(path: target)
            try writer.write([1, 2, 3])
            writer.abandon()
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.mov"])
        let writer = try AtomicFileWriter(path: target)
        try writer.write([9, 8, 7])
        try writer.commit()
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: target))) == [9, 8, 7])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.mov"])
        #expect(throws: ContainerError.self) { try AtomicFileWriter(path: dir.file("missing-dir/out.mov")) }
    }
}
