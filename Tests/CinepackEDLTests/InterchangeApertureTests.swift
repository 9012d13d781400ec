import CinepackEDL
import CinepackFormat
import Foundation
import TestSupport
import Testing

/// spec/interchange.md "Aperture": the EDL's f-number, else the first captured one, else the movie
/// default. corpus/cinematic/captured-f2.mov captures f/2.0 from frame 1 on; its default is f/4.5.
@Suite struct InterchangeApertureTests {
    static func aperture(_ edl: EditDecisionList) throws -> Double? {
        let movie = try CinematicMovie.open(path: Paths.corpus("cinematic/captured-f2.mov"))
        let xml = String(decoding: try TimelineExport.fcpxml(movie: movie, edl: edl, mediaURL: "file:///clip.mov"), as: UTF8.self)
        guard let range = xml.range(of: #"aperture="[^"]*""#, options: .regularExpression) else { return nil }
        return Double(xml[range].dropFirst("aperture=\"".count).dropLast())
    }

    @Test func capturedFNumberComesBeforeTheDefault() throws {
        #expect(try Self.aperture(EditDecisionList()) == 2.0)
        var edl = EditDecisionList()
        edl.fNumber = 2.8
        #expect(try Self.aperture(edl) == 2.8)
    }
}
