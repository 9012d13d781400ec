import Cinepack
import Foundation
import TestSupport
import Testing

/// EDL sidecars and timelines through the document, in process: what `edl export`, `edl import`
/// and `export-timeline` do, with typed refusals. Expectations come from the EDL parser and the
/// timeline writer applied to the movie directly, and from the bytes on disk.
@Suite struct DocumentInterchangeTests {
    static func edited() throws -> (CinematicDocumentTests.Clip, CinematicDocument) {
        let clip = try CinematicDocumentTests.clip()
        var doc = try CinematicDocument(path: clip.path)
        try doc.addDecision(target: .object(7), at: try CinematicDocumentTests.t("2s"), strength: .strong)
        try doc.setAperture(2.8)
        try doc.save()
        return (clip, doc)
    }

    @Test func anExportedSidecarImportsBackIntoAnotherDocument() throws {
        let (clip, doc) = try Self.edited()
        let sidecar = clip.dir.file("edits.xml")
        let written = try doc.exportEDL(to: OutputTarget(path: sidecar, overwrite: false))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: sidecar))
        #expect(written == bytes.count && Array(bytes) == doc.exportEDL())
        // A second export without permission to replace is refused; the file stays.
        do {
            try doc.exportEDL(to: OutputTarget(path: sidecar, overwrite: false))
            Issue.record("an existing sidecar was replaced")
        } catch {
            guard case .writeFailed(_, let cause) = error else { Issue.record("\(error)"); return }
            #expect("\(cause)" == OutputError.exists(path: sidecar).description)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: sidecar)) == bytes)

        let edl = try CinematicDocument.readEDL(path: sidecar)
        #expect(edl == (try EditDecisionList.parse(Array(bytes), source: sidecar)))
        var other = try CinematicDocument(path: clip.path)
        try other.clear()
        try other.save()
        try other.importEDL(edl)
        #expect(other.hasUnsavedChanges)
        try other.save()
        let reread = try MovieEdits.open(path: clip.path).edl
        #expect(reread.decisions == edl.decisions && reread.fNumber == 2.8 && reread.history == edl.history)
    }

    @Test func aSidecarForOtherMediaIsRefusedWithBothBindings() throws {
        let (clip, doc) = try Self.edited()
        let longer = clip.dir.file("longer.mov")
        #expect(try CLI.run(["demo", "-o", longer, "--seconds", "2", "--size", "160x90"]).status == 0)
        var target = try CinematicDocument(path: longer)
        let before = try Data(contentsOf: URL(fileURLWithPath: longer))
        let ours = try #require(doc.edl.media)
        let theirs = try #require(try MovieEdits.open(path: longer).edl.media)
        do {
            try target.importEDL(doc.edl)
            Issue.record("an EDL for other media was taken")
        } catch {
            guard case .boundToOtherMedia(let edl, let movie) = error else { Issue.record("\(error)"); return }
            #expect(edl == ours && movie == theirs)
            #expect(!LibraryWordingTests.hasCLIVocabulary(error.description), "\(error)")
        }
        #expect(!target.hasUnsavedChanges)
        #expect(try Data(contentsOf: URL(fileURLWithPath: longer)) == before)
        #expect(throws: DocumentError.self) { try CinematicDocument.readEDL(path: clip.dir.file("missing.xml")) }
    }

    @Test func theTimelineIsTheWritersOutputPlacedAtomically() throws {
        let (clip, doc) = try Self.edited()
        for format in TimelineExport.Format.allCases {
            let out = clip.dir.file("clip.\(format.rawValue)")
            try doc.exportTimeline(format, to: OutputTarget(path: out, overwrite: false))
            let movie = try CinematicMovie.open(path: clip.path)
            let expected = try TimelineExport.export(
                format, movie: movie, edl: try MovieEdits.open(path: clip.path).edl, mediaURL: TimelineExport.fileURL(forPath: clip.path))
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out))) == expected, "\(format)")
        }
        // Into a folder that does not exist: a typed refusal, nothing written.
        let missing = clip.dir.file("no-such-folder/clip.otio")
        #expect(throws: DocumentError.self) { try doc.exportTimeline(.otio, to: OutputTarget(path: missing, overwrite: false)) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
