import CinepackEDL
import CinepackFormat
import CinepackTime
import Foundation
import TestSupport
import Testing

/// FCPXML export, validated by xmllint against spec/fcpxml-subset.rng (our RELAX NG transcription
/// of the part of the FCPXML 1.10 DTD we emit) and read back with XPath.
@Suite struct FCPXMLExportTests {
    static var schema: String { Paths.root.appendingPathComponent("spec/fcpxml-subset.rng").path }

    static func validate(_ path: String) throws {
        let result = try Peers.run("xmllint", ["--noout", "--relaxng", schema, path], allowFailure: true)
        #expect(result.status == 0, "xmllint: \(result.stderr)")
    }

    /// The string value of an XPath expression (xmllint adds a newline after it).
    static func xpath(_ expression: String, _ path: String) throws -> String {
        var text = try Peers.run("xmllint", ["--xpath", expression, path]).text
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Values of one attribute over all matching elements, in document order (xmllint prints ` name="v"`).
    static func attributes(_ expression: String, _ name: String, _ path: String) throws -> [String] {
        let text = try Peers.run("xmllint", ["--xpath", expression, path], allowFailure: true).text
        var values: [String] = []
        var rest = Substring(text)
        while let r = rest.range(of: "\(name)=\"") {
            rest = rest[r.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            values.append(String(rest[..<end]))
            rest = rest[rest.index(after: end)...]
        }
        return values
    }

    @Test func tinyMovieValidatesAndCarriesMarkersAndAperture() throws {
        guard try Peers.available("xmllint") else { return }
        let dir = try Paths.temporaryDirectory()
        // Every character XML treats specially, in the name that becomes the asset, event and project names.
        let moviePath = dir.file("a&b <\"c\">'d'.mov")
        try InterchangeFixtures.writeTinyMovie(at: moviePath)
        let movie = try CinematicMovie.open(path: moviePath)
        let out = dir.file("tiny.fcpxml")
        try InterchangeFixtures.write(
            try TimelineExport.fcpxml(
                movie: movie, edl: InterchangeFixtures.tinyEDL(),
                mediaURL: TimelineExport.fileURL(forPath: moviePath)), to: out)
        try Self.validate(out)

        #expect(try Self.xpath("string(/fcpxml/@version)", out) == "1.10")
        #expect(try Self.xpath("string(//format/@frameDuration)", out) == "1001/30000s")
        #expect(try Self.xpath("string(//asset/@name)", out) == "a&b <\"c\">'d'")
        #expect(try Self.xpath("string(//asset/@duration)", out) == "12012/30000s")
        #expect(try Self.xpath("string(//media-rep/@src)", out).hasSuffix("/a%26b%20%3C%22c%22%3E%27d%27.mov"))
        // Trims: [1,6) and [7,12) back to back; speed is not carried (spec/interchange.md §3).
        #expect(try Self.attributes("//asset-clip/@start", "start", out) == ["1001/30000s", "7007/30000s"])
        #expect(try Self.attributes("//asset-clip/@offset", "offset", out) == ["0s", "5005/30000s"])
        #expect(try Self.attributes("//asset-clip/@duration", "duration", out) == ["5005/30000s", "5005/30000s"])
        #expect(try Self.xpath("string(//sequence/@duration)", out) == "10010/30000s")
        #expect(try Self.attributes("//adjust-cinematic/@aperture", "aperture", out) == ["2.8", "2.8"])

        // Markers at the source times of their frames, one frame long, inside the clip that shows them.
        #expect(try Self.attributes("//asset-clip[1]/marker/@start", "start", out) == ["2002/30000s", "5005/30000s"])
        #expect(try Self.attributes("//asset-clip[2]/marker/@start", "start", out) == ["7007/30000s", "9009/30000s", "11011/30000s"])
        #expect(try Self.attributes("//marker/@duration", "duration", out) == Array(repeating: "1001/30000s", count: 5))
        #expect(
            try Self.attributes("//marker/@value", "value", out) == [
                "focus → detection 4 (weak)", "focus → group 2 (strong)", "captured focus → group 3 (strong)",
                "focus → point (0.25, 0.75) (strong)", "focus → none (weak)",
            ])
        #expect(
            try Self.xpath("string(//asset-clip[2]/marker[1]/@note)", out)
                == "cinepack captured decision; frame 7; time 7007/30000s; target group 3; strong")
    }

    @Test func demoMovieValidates() throws {
        guard try Peers.available("xmllint") else { return }
        let dir = try Paths.temporaryDirectory()
        let moviePath = try InterchangeFixtures.demoMovie(in: dir)
        let movie = try CinematicMovie.open(path: moviePath)
        let out = dir.file("demo.fcpxml")
        try InterchangeFixtures.write(
            try TimelineExport.fcpxml(
                movie: movie, edl: InterchangeFixtures.demoEDL(),
                mediaURL: TimelineExport.fileURL(forPath: moviePath)), to: out)
        try Self.validate(out)
        #expect(try Self.xpath("string(//format/@frameDuration)", out) == "1/30s")
        #expect(try Self.xpath("string(//format/@width)", out) == "320")
        #expect(try Self.xpath("string(//asset-clip/@start)", out) == "2/30s")
        #expect(try Self.xpath("string(//asset-clip/@duration)", out) == "68/30s")
        let user = try Self.attributes("//marker[not(starts-with(@value, 'captured'))]/@start", "start", out)
        #expect(user == ["3/30s", "10/30s", "15/30s", "20/30s", "25/30s"])
        #expect(try Self.attributes("//marker[starts-with(@value, 'captured')]/@start", "start", out) == ["66/30s"])
    }

    /// The schema rejects what the DTD rejects in our subset (so a passing validation means something).
    @Test func schemaRejectsOutOfOrderAndMalformedTimes() throws {
        guard try Peers.available("xmllint") else { return }
        let dir = try Paths.temporaryDirectory()
        let head =
            "<fcpxml version=\"1.10\"><resources><format id=\"r1\" frameDuration=\"1/30s\"/>"
            + "<asset id=\"r2\" format=\"r1\"><media-rep src=\"file:///a.mov\"/></asset></resources>"
            + "<library><event><project><sequence format=\"r1\"><spine>"
        let tail = "</spine></sequence></project></event></library></fcpxml>"
        let cases = [
            // adjust-cinematic after a marker breaks the DTD's content order.
            "<asset-clip ref=\"r2\"><marker start=\"0s\" value=\"m\"/><adjust-cinematic aperture=\"2.8\"/></asset-clip>",
            // Decimal seconds are not FCPXML time.
            "<asset-clip ref=\"r2\" start=\"1.5s\"/>",
            // A marker needs a value.
            "<asset-clip ref=\"r2\"><marker start=\"0s\"/></asset-clip>",
            // ref must name a resource.
            "<asset-clip ref=\"r9\"/>",
        ]
        for (i, body) in cases.enumerated() {
            let path = dir.file("bad\(i).fcpxml")
            try (head + body + tail).write(toFile: path, atomically: true, encoding: .utf8)
            let result = try Peers.run("xmllint", ["--noout", "--relaxng", Self.schema, path], allowFailure: true)
            #expect(result.status != 0, "accepted: \(body)")
        }
        let good = dir.file("good.fcpxml")
        try (head + "<asset-clip ref=\"r2\"><adjust-cinematic aperture=\"2.8\"/><marker start=\"0s\" value=\"m\"/></asset-clip>" + tail)
            .write(toFile: good, atomically: true, encoding: .utf8)
        try Self.validate(good)
    }
}
