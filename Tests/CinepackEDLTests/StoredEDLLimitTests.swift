import CinepackEDL
import CinepackFormat
import Foundation
import TestSupport
import Testing

/// Nothing is stored that the reader would refuse, and a movie whose stored EDL cannot be read
/// can always be recovered (spec/format.md §8): the history is trimmed, or the edit refused,
/// before the 16 MiB read cap; a stored EDL with a right checksum but broken XML is replaced by
/// a recovering open.
@Suite struct StoredEDLLimitTests {
    static func movie() throws -> (TemporaryDirectory, String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: path)
        return (dir, path)
    }

    /// Another tool's data of `bytes` bytes, kept verbatim by the EDL (spec/edl.md §9).
    static func blob(_ bytes: Int) -> String {
        #"<x:blob xmlns:x="urn:example:test">"# + String(repeating: "a", count: bytes) + "</x:blob>"
    }

    @Test func historyIsTrimmedBeforeTheReadCap() throws {
        let (dir, path) = try Self.movie()
        defer { withExtendedLifetime(dir) {} }
        // The rule at a tenth of the scale (the 16 MiB cap costs seconds per save in a debug
        // build): an EDL of 90 KB whose undo step holds it again is 180 KB, over a 160 KB limit.
        var edits = try MovieEdits.open(path: path)
        edits.storedEDLLimit = 160_000
        var big = edits.edl
        big.foreignElements = [Self.blob(90_000)]
        try edits.save(big)
        try edits.edit("aperture f/2") { $0.fNumber = 2 }
        #expect(edits.droppedHistorySteps == 1)
        let stored = try #require(try EDLStore(path: path).current.text)
        #expect(stored.count <= 160_000)
        let reopened = try MovieEdits.open(path: path)
        #expect(reopened.edl.fNumber == 2 && reopened.edl.history.isEmpty)
        #expect(reopened.edl.foreignElements == big.foreignElements)
    }

    @Test func anEDLTooLargeEvenWithoutHistoryIsRefused() throws {
        let (dir, path) = try Self.movie()
        defer { withExtendedLifetime(dir) {} }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var edits = try MovieEdits.open(path: path)
        var huge = edits.edl
        // Each element is within the limit; together they are not.
        huge.foreignElements = [Self.blob(9_000_000), Self.blob(9_000_000)]
        do {
            try edits.save(huge)
            Issue.record("an EDL over the read cap was stored")
        } catch {
            #expect(error.storage?.kind == .tooLarge, "\(error)")
            #expect(error.description.contains("nothing written"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try MovieEdits.open(path: path).edl.foreignElements.isEmpty)
    }

    @Test func brokenStoredXMLWithARightChecksumCanBeReplaced() throws {
        let (dir, path) = try Self.movie()
        defer { withExtendedLifetime(dir) {} }
        var store = try EDLStore(path: path)
        try store.update(text: "<edl xmlns=\"urn:cinepack:edl:1\" version=\"1\"><unclosed>")
        do {
            _ = try MovieEdits.open(path: path)
            Issue.record("broken stored XML was accepted")
        } catch {
            // Typed, and worded for any client: the command line adds its `edl clear` hint itself.
            #expect(error.unreadableStoredEDL != nil, "\(error)")
            #expect(error.description.contains("the movie's media is intact") && !error.description.contains("cinepack edl"), "\(error)")
        }
        var recovered = try MovieEdits.open(path: path, recovering: true)
        #expect(recovered.warnings.contains { $0.contains("the stored EDL cannot be read") })
        try recovered.save(EditDecisionList())
        #expect(try MovieEdits.open(path: path).edl.decisions.isEmpty)
    }
}
