import CinepackEDL
import CinepackFormat
import Foundation
import TestSupport
import Testing

/// Both exports of a fixed tiny movie and EDL, byte for byte, against corpus/interchange/.
/// `CINEPACK_UPDATE_GOLDEN=1 swift test --filter TimelineExportGoldenTests` rewrites them; review the diff.
@Suite struct TimelineExportGoldenTests {
    static let mediaURL = TimelineExport.fileURL(forPath: "/media/golden clip.mov")

    static func expected(_ name: String, actual: String) throws -> String {
        let path = Paths.corpus("interchange/\(name)")
        if Golden.updating {
            try FileManager.default.createDirectory(atPath: Paths.corpus("interchange"), withIntermediateDirectories: true)
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            return actual
        }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// The movie's file name becomes the clip name, so it is fixed too.
    static func exports() throws -> (otio: String, fcpxml: String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("golden clip.mov")
        try InterchangeFixtures.writeTinyMovie(at: path)
        let movie = try CinematicMovie.open(path: path)
        let edl = InterchangeFixtures.tinyEDL()
        let otio = try TimelineExport.otio(movie: movie, edl: edl, mediaURL: mediaURL)
        let fcpxml = try TimelineExport.export(.fcpxml, movie: movie, edl: edl, mediaURL: mediaURL)
        // Deterministic: a second export is identical.
        #expect(try TimelineExport.export(.otio, movie: movie, edl: edl, mediaURL: mediaURL) == otio)
        #expect(try TimelineExport.fcpxml(movie: movie, edl: edl, mediaURL: mediaURL) == fcpxml)
        return (String(decoding: otio, as: UTF8.self), String(decoding: fcpxml, as: UTF8.self))
    }

    @Test func outputsMatchTheGoldenFiles() throws {
        let (otio, fcpxml) = try Self.exports()
        #expect(otio == (try Self.expected("golden.otio", actual: otio)))
        #expect(fcpxml == (try Self.expected("golden.fcpxml", actual: fcpxml)))
    }

    /// The committed fixtures themselves load in opentimelineio and validate against the subset schema.
    @Test func goldenFilesAreReadableByPeers() throws {
        if try OTIOExportTests.available() {
            let s = try OTIOExportTests.summary(Paths.corpus("interchange/golden.otio"))
            #expect(s["rewrite_identical"] as? Bool == true)
            #expect(OTIOExportTests.list(s["clips"]).count == 3)
        }
        if try Peers.available("xmllint") {
            try FCPXMLExportTests.validate(Paths.corpus("interchange/golden.fcpxml"))
        }
    }
}
