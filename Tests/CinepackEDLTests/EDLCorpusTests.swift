import CinepackEDL
import Foundation
import TestSupport
import Testing

/// corpus/edl: every file has a manifest row (corpus/edl/README.md) and produces what it says.
@Suite struct EDLCorpusTests {
    struct Row {
        var file: String  // e.g. "invalid/doctype.xml"
        var expectation: String
    }

    /// Rows of the README table: `| `file` | how made | must produce |`.
    static func manifest() throws -> [Row] {
        let text = try String(contentsOfFile: Paths.corpus("edl/README.md"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> Row? in
            guard line.hasPrefix("| `") else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { return nil }
            return Row(file: cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), expectation: cells[cells.count - 2])
        }
    }

    static func files() -> [String] {
        (Paths.corpusFiles("edl/valid").map { "valid/" + ($0 as NSString).lastPathComponent }
            + Paths.corpusFiles("edl/invalid").map { "invalid/" + ($0 as NSString).lastPathComponent }).sorted()
    }

    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: Paths.corpus("edl/\(file)"))))
    }

    @Test func everyFileHasOneRowAndEveryRowAFile() throws {
        let rows = try Self.manifest().map(\.file)
        #expect(Set(rows).count == rows.count, "duplicate rows")
        let files = Self.files()
        #expect(files.count > 60)
        #expect(Set(files).subtracting(rows).sorted() == [], "files without a README row")
        #expect(Set(rows).subtracting(files).sorted() == [], "rows without a file")
    }

    @Test(arguments: Self.files().filter { $0.hasPrefix("invalid/") })
    func invalidFileIsRejectedWithItsMessage(file: String) throws {
        let row = try #require(try Self.manifest().first { $0.file == file })
        let expected = row.expectation.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
        let name = (file as NSString).lastPathComponent
        let error = #expect(throws: EDLError.self) { try EditDecisionList.parse(try Self.bytes(file), source: name) }
        #expect(error?.description == expected)
    }

    @Test(arguments: Self.files().filter { $0.hasPrefix("valid/") })
    func validFileReadsAndRoundTrips(file: String) throws {
        let row = try #require(try Self.manifest().first { $0.file == file })
        #expect(row.expectation.hasPrefix("ok"))
        let data = try Self.bytes(file)
        let edl = try EditDecisionList.parse(data, source: file)
        let canonical = edl.xmlData()
        #expect(try EditDecisionList.parse(canonical, source: file) == edl)
        #expect(try EditDecisionList.parse(canonical, source: file).xmlData() == canonical)
        if row.expectation.contains("canonical: written back, the same bytes") {
            #expect(canonical == data)
        }
        if let range = row.expectation.range(of: #"canonical form is `[^`]+`"#, options: .regularExpression) {
            let other = row.expectation[range].dropFirst("canonical form is `".count).dropLast()
            #expect(canonical == (try Self.bytes(String(other))))
        }
    }

    /// The split of spec/edl.md §13: errors from the schema step are schema errors for xmllint too;
    /// errors from the rules (§10 ranges, §11) are not, because the schema cannot say them.
    @Test func xmllintAgreesWithTheSchemaRulesSplit() throws {
        guard try Peers.available("xmllint") else { return }
        let schema = Paths.root.appendingPathComponent("spec/edl.rng").path
        for file in Self.files() where file.hasPrefix("invalid/") {
            let error = try #require(try Self.error(file), "\(file) must be refused")
            let lint = try Peers.run(
                "xmllint", ["--noout", "--nonet", "--relaxng", schema, Paths.corpus("edl/\(file)")], allowFailure: true)
            switch error.kind {
            case .schema, .unsupportedVersion, .notAnEDL:
                #expect(lint.status != 0, "\(file): xmllint accepts what we call a schema error")
            case .invalid:
                // Foreign content in no namespace is our rule (§9), not the schema's.
                #expect(lint.status == 0, "\(file): xmllint refuses what we call a rule error: \(lint.stderr)")
            default:
                break  // XML-level refusals: xmllint has its own opinions (it may read DTDs)
            }
        }
    }

    static func error(_ file: String) throws -> EDLError? {
        let data = try bytes(file)
        do {
            _ = try EditDecisionList.parse(data, source: (file as NSString).lastPathComponent)
            return nil
        } catch {
            return error
        }
    }
}
