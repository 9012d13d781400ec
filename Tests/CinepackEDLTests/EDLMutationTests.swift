import Foundation
import TestSupport
import Testing

@testable import CinepackEDL

/// A seeded mutation loop over valid EDLs (the XML reader is fuzzed). Every mutant must be
/// refused with an error or read into a list that round-trips exactly; nothing may crash or hang.
/// The same mutants check that the reader's own grammar checks agree with spec/edl.rng.
@Suite struct EDLMutationTests {
    static let cases = 3000

    /// Valid documents to mutate: the corpus, the fixtures and some random lists.
    static func seeds() -> [[UInt8]] {
        var seeds = Paths.corpusFiles("edl/valid").compactMap { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } }
        seeds += EDLFixtures.all.map { $0.1.xmlData() }
        for seed in 500..<510 as Range<UInt64> {
            var random = RandomEDL(seed: seed)
            seeds.append(random.next().xmlData())
        }
        return seeds
    }

    /// Tokens that reach interesting places: markup, entities, DOCTYPEs, namespaces, edge values.
    static let tokens: [String] = [
        "<", ">", "/>", "</", "\"", "'", "&", "&amp;", "&#0;", "&#x10FFFF;", "&xxe;", "]]>", "<![CDATA[x]]>",
        "<!--", "-->", "<?pi?>", "<!DOCTYPE edl [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>",
        " xmlns=\"\"", " xmlns:x=\"urn:x\"", " x:a=\"1\"", " version=\"2\"", "<x:e xmlns:x=\"urn:x\"/>", "<e/>",
        "<media frames=\"1\" rate=\"1/1\" fingerprint=\"00000000\"/>", "<decision/>", "<extensions>", "</extensions>",
        "<history><step description=\"d\"><edl version=\"1\"/></step></history>", "\u{0}", "\u{FEFF}", "é", "\r\n",
        "-1", "0", "1e39", "-0.0", "4294967296", "9223372036854775808", "1/0s", "0/1", "00", "2.5s", "NaN", "INF",
    ]
    static let values: [String] = [
        "", " 1", "-1", "0", "1", "1e39", "1e-45", "0.5", "4294967295", "4294967296", "1000000", "9999999999999999999",
        "0s", "1s", "1/3s", "12.3s", "2147483648/1s", "1/2147483648s", "weak", "strong", "custom", "fixed",
        "30/1", "30000/1001", "0/1", "abcdef01", "ABCDEF01", "&lt;", "&#10;",
    ]

    static func mutate(_ input: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var b = input
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            guard !b.isEmpty else { break }
            let i = Int.random(in: 0..<b.count, using: &rng)
            // Weighted towards mutations that keep the XML well-formed, so the schema and the
            // rules get exercised, not only the parser.
            switch [0, 1, 2, 2, 3, 4, 4, 4, 5][Int.random(in: 0..<9, using: &rng)] {
            case 0:
                b[i] = UInt8.random(in: 0...255, using: &rng)
            case 1:
                b.removeSubrange(i..<min(b.count, i + Int.random(in: 1...16, using: &rng)))
            case 2:
                b.insert(contentsOf: Array(tokens.randomElement(using: &rng)!.utf8), at: i)
            case 3:
                let j = Int.random(in: 0..<b.count, using: &rng)
                let slice = Array(b[min(i, j)..<min(b.count, min(i, j) + Int.random(in: 1...200, using: &rng))])
                b.insert(contentsOf: slice, at: Int.random(in: 0...b.count, using: &rng))
            case 4:
                // Replace an attribute value.
                let quotes = b.indices.filter { b[$0] == UInt8(ascii: "\"") && $0 > 0 && b[$0 - 1] == UInt8(ascii: "=") }
                guard let q = quotes.randomElement(using: &rng),
                    let end = b[(q + 1)...].firstIndex(of: UInt8(ascii: "\""))
                else { continue }
                b.replaceSubrange((q + 1)..<end, with: Array(values.randomElement(using: &rng)!.utf8))
            default:
                // Swap two lines.
                var lines = b.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
                guard lines.count > 3 else { continue }
                lines.swapAt(Int.random(in: 0..<lines.count, using: &rng), Int.random(in: 0..<lines.count, using: &rng))
                b = Array(lines.joined(separator: [0x0A]))
            }
        }
        return b
    }

    @Test func mutantsAreRefusedOrRoundTrip() throws {
        let seeds = Self.seeds()
        var rng = SeededGenerator(seed: 0xED1_F022)
        var accepted = 0, refused: [EDLError.Kind: Int] = [:], disagreements = 0
        for n in 0..<Self.cases {
            let input = Self.mutate(seeds[n % seeds.count], &rng)
            switch Result(catching: { () throws(EDLError) in try EditDecisionList.parse(input, source: "mutant \(n)") }) {
            case .success(let edl):
                accepted += 1
                let canonical = edl.xmlData()
                #expect(throws: Never.self, "mutant \(n) was read but does not validate") { try edl.validate() }
                let back = try EditDecisionList.parse(canonical, source: "mutant \(n) rewritten")
                #expect(back == edl, "mutant \(n)")
                #expect(back.xmlData() == canonical, "mutant \(n)")
            case .failure(let error):
                refused[error.kind, default: 0] += 1
                #expect(error.kind != .internal, "mutant \(n): \(error)")
                #expect(error.description.hasPrefix("mutant \(n)") && !error.message.isEmpty)
            }
            if !Self.readerAgreesWithSchema(input) {
                disagreements += 1
                Issue.record("mutant \(n): the reader and spec/edl.rng disagree on\n\(String(decoding: input, as: UTF8.self))")
            }
        }
        print(
            "EDL mutation loop: \(Self.cases) cases, \(accepted) read, refused by kind: \(refused.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        #expect(accepted > 50 && refused.count >= 6, "the loop should reach both outcomes and many kinds of error")
        #expect(disagreements == 0)
    }

    /// For a well-formed document whose root is a version-1 `<edl>`: when the schema accepts it the
    /// reader raises no schema error, and when the schema refuses it the reader refuses it too.
    static func readerAgreesWithSchema(_ input: [UInt8]) -> Bool {
        guard let document = try? SafeXML.parse(input, source: "m") else { return true }
        let root = document.root
        guard root.localName == "edl", root.namespaceURI == EditDecisionList.namespace,
            EDLTreeReader.attribute(root, "version") == "1"
        else { return true }
        guard let problems = try? SafeXML.validate(document, schema: EditDecisionList.relaxNGSchema) else { return false }
        do {
            _ = try EDLTreeReader(document: document).read()
            return problems.isEmpty
        } catch {
            return problems.isEmpty ? error.kind != .schema : true
        }
    }

    /// Replays every input kept in corpus/edl/fuzz-crashers (none so far; the folder appears with
    /// the first): each must be refused or read, without crashing.
    @Test func crashersReplay() {
        for path in Paths.corpusFiles("edl/fuzz-crashers") {
            let data = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
            _ = try? EditDecisionList.parse(data, source: path)
        }
    }
}
