import CinepackEDL
import Foundation
import TestSupport
import Testing

/// spec/edl.rng is the one source of truth; the library embeds a copy so that reading needs no file.
@Suite struct EDLSchemaTests {
    static let specPath = Paths.root.appendingPathComponent("spec/edl.rng").path
    static let swiftPath = Paths.root.appendingPathComponent("Sources/CinepackEDL/XML/EDLSchema.swift").path

    @Test func embeddedSchemaIsTheSpecFileByteForByte() throws {
        let spec = try #require(FileManager.default.contents(atPath: Self.specPath))
        let embedded = Data(EditDecisionList.relaxNGSchema.utf8)
        if embedded != spec, ProcessInfo.processInfo.environment["CINEPACK_UPDATE_SCHEMA"] == "1" {
            try Self.regenerate(from: spec)
            Issue.record("regenerated \(Self.swiftPath) from spec/edl.rng; rebuild and run again")
            return
        }
        #expect(
            embedded == spec,
            """
            Sources/CinepackEDL/XML/EDLSchema.swift is not spec/edl.rng byte for byte; run
            CINEPACK_UPDATE_SCHEMA=1 swift test --filter EDLSchemaTests
            """)
    }

    /// Rewrites EDLSchema.swift so that its raw string literal holds exactly the bytes of the file.
    static func regenerate(from spec: Data) throws {
        let text = String(decoding: spec, as: UTF8.self)
        precondition(
            !text.contains("\"\"\"#") && !text.contains("\\#") && !text.contains("\r"),
            "spec/edl.rng cannot go in a #\"\"\"…\"\"\"# literal as it is")
        let swift = """
            // GENERATED from spec/edl.rng, byte for byte: do not edit here. After changing spec/edl.rng run
            //   CINEPACK_UPDATE_SCHEMA=1 swift test --filter EDLSchemaTests
            // (EDLSchemaTests fails while the two differ.)

            extension EditDecisionList {
                /// The normative RELAX NG schema of the EDL (spec/edl.rng), embedded so reading needs no file.
                public static let relaxNGSchema = #\"\"\"

            """ + text + "\n\"\"\"#\n}\n"
        try swift.write(toFile: swiftPath, atomically: true, encoding: .utf8)
    }

    /// The same schema through another RELAX NG consumer: xmllint must accept the file as a schema
    /// and the hand-written valid fixtures as instances.
    @Test func xmllintAcceptsTheSchemaAndTheValidCorpus() throws {
        guard try Peers.available("xmllint") else { return }
        let files = Paths.corpusFiles("edl/valid")
        #expect(!files.isEmpty)
        let result = try Peers.run("xmllint", ["--noout", "--relaxng", Self.specPath] + files, allowFailure: true)
        #expect(result.status == 0, "\(result.stderr)")
    }
}
