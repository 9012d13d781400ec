import Foundation
import TestSupport
import Testing

@testable import CinepackEDL

/// Hostile XML (spec/edl.md §13): each refused with a clear error, quickly, before anything grows.
@Suite struct EDLHostileTests {
    static let open = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    static let root = #"<edl xmlns="urn:cinepack:edl:1" version="1">"#

    /// Parses `text` (or bytes), expecting refusal of `kind` within `seconds`.
    @discardableResult
    static func refuse(
        _ bytes: [UInt8], _ kind: EDLError.Kind, within seconds: Double = 2,
        _ comment: Comment? = nil
    ) -> EDLError? {
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: EDLError.self, comment) { try EditDecisionList.parse(bytes, source: "hostile.xml") }
        let elapsed = clock.now - start
        #expect(error?.kind == kind, "\(error?.description ?? "accepted")")
        #expect(elapsed < .seconds(seconds), "took \(elapsed)")
        return error
    }

    @discardableResult
    static func refuse(_ text: String, _ kind: EDLError.Kind, within seconds: Double = 2) -> EDLError? {
        refuse(Array(text.utf8), kind, within: seconds)
    }

    /// XXE: an external entity naming a local file. Refused at the DOCTYPE; the file's content
    /// appears nowhere, whether the entity is used in content, an attribute, or a parameter entity.
    @Test func externalEntityNamingALocalFile() throws {
        let passwd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let firstLine = String(passwd.split(separator: "\n").first ?? "root:x:0:0")
        let documents = [
            Self.open + "<!DOCTYPE edl [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n" + Self.root
                + "<extensions><x:l xmlns:x=\"urn:x\">&xxe;</x:l></extensions></edl>",
            Self.open + "<!DOCTYPE edl [<!ENTITY xxe SYSTEM \"/etc/passwd\">]>\n" + Self.root
                + "<history><step description=\"&xxe;\"><edl version=\"1\"/></step></history></edl>",
            Self.open + "<!DOCTYPE edl [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]>\n" + Self.root + "</edl>",
            Self.open + "<!DOCTYPE edl SYSTEM \"file:///etc/passwd\">\n" + Self.root + "</edl>",
            Self.open + "<!DOCTYPE edl SYSTEM \"http://127.0.0.1:9/edl.dtd\">\n" + Self.root + "</edl>",
        ]
        for doc in documents {
            let error = Self.refuse(doc, .doctype)
            #expect(error?.description.contains(firstLine) == false)
            #expect(error?.description.contains("DOCTYPE is not allowed") == true)
        }
        // Without a DOCTYPE the reference is merely undefined.
        let bare = Self.open + Self.root + "<extensions><x:l xmlns:x=\"urn:x\">&xxe;</x:l></extensions></edl>"
        let error = Self.refuse(bare, .notWellFormed)
        #expect(error?.description.contains("Entity 'xxe' not defined") == true)
    }

    /// XInclude is not processed: the element is foreign data, kept as written, never resolved.
    @Test func xincludeIsNotProcessed() throws {
        let doc =
            Self.open + Self.root + "<extensions>"
            + #"<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd" parse="text"/>"#
            + "</extensions></edl>"
        let edl = try EditDecisionList.parse(Array(doc.utf8), source: "xinclude.xml")
        #expect(
            edl.foreignElements == [
                #"<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd" parse="text"></xi:include>"#
            ])
        #expect(!String(decoding: edl.xmlData(), as: UTF8.self).contains("root:"))
    }

    @Test func billionLaughs() {
        var doc = Self.open + "<!DOCTYPE edl [\n<!ENTITY lol \"lol\">\n"
        var previous = "lol"
        for i in 1...9 {
            doc += "<!ENTITY lol\(i) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
            previous = "lol\(i)"
        }
        doc += "]>\n" + Self.root + "<extensions><x:l xmlns:x=\"urn:x\">&lol9;</x:l></extensions></edl>"
        Self.refuse(doc, .doctype, within: 1)
    }

    /// Quadratic blowup (one large entity used many times) also needs a DOCTYPE.
    @Test func quadraticBlowup() {
        let doc =
            Self.open + "<!DOCTYPE edl [<!ENTITY a \"" + String(repeating: "a", count: 50_000) + "\">]>\n"
            + Self.root + "<extensions><x:l xmlns:x=\"urn:x\">" + String(repeating: "&a;", count: 50_000)
            + "</x:l></extensions></edl>"
        Self.refuse(doc, .doctype, within: 1)
    }

    @Test func tenThousandDeepNesting() {
        let n = 10_000
        let doc =
            Self.open + Self.root + "<extensions><x:n xmlns:x=\"urn:x\">"
            + String(repeating: "<x:n>", count: n) + String(repeating: "</x:n>", count: n) + "</x:n></extensions></edl>"
        let error = Self.refuse(doc, .tooDeep, within: 1)
        #expect(error?.description.contains("nested more than \(XMLLimits.maxDepth) deep") == true)
        // Unclosed nesting stops at the same place.
        Self.refuse(String(repeating: "<a>", count: n), .tooDeep, within: 1)
    }

    @Test func depthLimitIsExact() throws {
        // Root 1, extensions 2, then foreign elements down to exactly the limit: accepted.
        let inner = XMLLimits.maxDepth - 2
        func doc(_ levels: Int) -> String {
            Self.open + Self.root + "<extensions><x:n xmlns:x=\"urn:x\">" + String(repeating: "<x:n>", count: levels - 1)
                + String(repeating: "</x:n>", count: levels - 1) + "</x:n></extensions></edl>"
        }
        _ = try EditDecisionList.parse(Array(doc(inner).utf8), source: "deep.xml")
        Self.refuse(doc(inner + 1), .tooDeep)
    }

    /// 100 MB (generated here, never committed): refused by size before libxml2 sees a byte.
    @Test func hundredMegabyteDocument() {
        let head = Array((Self.open + Self.root + "<extensions><x:l xmlns:x=\"urn:x\">").utf8)
        let tail = Array("</x:l></extensions></edl>".utf8)
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 100_000_000)
        bytes.replaceSubrange(0..<head.count, with: head)
        bytes.replaceSubrange((bytes.count - tail.count)..., with: tail)
        let error = Self.refuse(bytes, .tooLarge, within: 0.5)
        #expect(
            error?.description
                == "hostile.xml: \(bytes.count) bytes is larger than the \(XMLLimits.maxInputBytes)-byte limit for an EDL (spec/edl.md §2)")
        // One byte over the limit is refused as well.
        Self.refuse([UInt8](repeating: 0x20, count: XMLLimits.maxInputBytes + 1), .tooLarge, within: 0.5)
    }

    /// A large real EDL (about 3 MB) reads in time linear in its size, with exact places far past
    /// the point where libxml2 starts shrinking its input buffer.
    @Test func largeValidDocument() throws {
        var edl = EDLFixtures.mediaOnly
        edl.media?.frameCount = 10_000_000
        for f in 0..<20_000 as Range<Int64> {
            edl.decisions.append(
                UserDecision(
                    time: .init(value: f, timescale: 30), frame: f, target: .detection(UInt32(f % 1000 + 1)),
                    strength: .weak, minTransition: 0.5, maxTransition: 1))
        }
        var bytes = edl.xmlData()
        #expect(bytes.count > 2_000_000 && bytes.count < XMLLimits.maxInputBytes)
        let start = ContinuousClock.now
        #expect(try EditDecisionList.parse(bytes, source: "large.xml") == edl)
        #expect(ContinuousClock.now - start < .seconds(60))
        // Break the last decision: the error points at its line, far past libxml2's buffer shrinking.
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: #"frame="19999""#, with: #"frame="19998""#)
        bytes = Array(text.utf8)
        let error = #expect(throws: EDLError.self) { try EditDecisionList.parse(bytes, source: "large.xml") }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).lastIndex { $0.contains(#"frame="19998""#) }.map { $0 + 1 }
        #expect(error?.line == line && error?.column == 5, "\(error?.description ?? "")")
    }

    @Test func doctypeOfAnyKind() {
        for doctype in [
            "<!DOCTYPE edl>", "<!DOCTYPE edl []>", "<!DOCTYPE edl PUBLIC \"-//x//y\" \"edl.dtd\">",
            "<!DOCTYPE edl [<!ELEMENT edl ANY><!ATTLIST edl version CDATA \"1\">]>",
        ] {
            let error = Self.refuse(Self.open + doctype + "\n" + Self.root + "</edl>", .doctype)
            #expect(error?.line == 2)
        }
    }

    @Test func wrongNamespaceAndVersion() {
        var error = Self.refuse(Self.open + #"<edl xmlns="urn:cinepack:edl:2" version="1"/>"#, .notAnEDL)
        #expect(error?.message.contains(#"the root element is <edl> in namespace "urn:cinepack:edl:2""#) == true)
        error = Self.refuse(Self.open + #"<e:edl xmlns:e="urn:other" version="1"/>"#, .notAnEDL)
        #expect(error?.message.contains("<e:edl>") == true)
        error = Self.refuse(Self.open + #"<edl xmlns="urn:cinepack:edl:1" version="1.0"/>"#, .unsupportedVersion)
        #expect(
            error?.description == #"hostile.xml:2:1: EDL version "1.0" is not supported; this cinepack reads version 1 (spec/edl.md §2)"#)
        Self.refuse(Self.open + #"<edl xmlns="urn:cinepack:edl:1" version="2"><future/></edl>"#, .unsupportedVersion)
    }

    @Test func encodings() {
        Self.refuse(Array("<?xml version='1.0' encoding='UTF-16'?><edl/>".utf8), .encoding)
        Self.refuse([0x00, 0x3C, 0x00, 0x65], .encoding)
        Self.refuse(
            Array((Self.open + Self.root + "<extensions><x:a xmlns:x=\"urn:x\">").utf8) + [0xC3, 0x28]
                + Array("</x:a></extensions></edl>".utf8), .encoding)
        Self.refuse([], .notWellFormed)
        Self.refuse(Array("\u{0}".utf8), .encoding)
    }

    /// libxml2 prints nothing on stderr: every diagnostic goes to the per-parse handlers. Checked by
    /// pointing fd 2 at a file while parsing every invalid fixture, then looking for libxml2's
    /// message prefixes (other suites may print unrelated things meanwhile).
    @Test func libxml2NeverWritesToStderr() throws {
        let dir = try Paths.temporaryDirectory()
        let capture = dir.file("stderr.txt")
        #expect(FileManager.default.createFile(atPath: capture, contents: nil))
        let fd = Foundation.open(capture, O_WRONLY)
        #expect(fd >= 0)
        fflush(nil)
        let saved = dup(2)
        dup2(fd, 2)
        for path in Paths.corpusFiles("edl/invalid") + Paths.corpusFiles("edl/valid") {
            let data = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
            _ = try? EditDecisionList.parse(data, source: path)
        }
        _ = try? EditDecisionList.canonicalForeignElement("<x:a xmlns:x='rel/ative'><b/></x:a>")
        _ = try? EditDecisionList.canonicalForeignElement("<unclosed")
        // The reader's pieces on their own (outside parse's handlers) are quiet too.
        let relative = Self.open + Self.root + "<extensions><x:e xmlns:x='rel/ative'/></extensions></edl>"
        if let document = try? SafeXML.parse(Array(relative.utf8), source: "r") {
            _ = try? EDLTreeReader(document: document).read()
            _ = try? SafeXML.validate(document, schema: "<not a schema")
        }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(fd)
        let written = try String(contentsOfFile: capture, encoding: .utf8)
        for marker in ["parser error", "validity error", "Relax-NG", "namespace error", "parser warning", "I/O error", "c14n"] {
            #expect(!written.contains(marker), "libxml2 wrote to stderr: \(written.prefix(500))")
        }
    }

    /// Parses on many threads at once give each its own diagnostics.
    @Test func concurrentParsesKeepTheirOwnErrors() async throws {
        let files = Paths.corpusFiles("edl/invalid") + Paths.corpusFiles("edl/valid")
        func outcome(_ path: String) -> String {
            let data = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
            do {
                return String(decoding: try EditDecisionList.parse(data, source: path).xmlData(), as: UTF8.self)
            } catch {
                return error.description
            }
        }
        let expected = files.map(outcome)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<5 {
                        for (i, path) in files.enumerated() where (i + worker + round) % 2 == 0 {
                            if outcome(path) != expected[i] { return false }
                        }
                    }
                    return true
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    /// 40 000 attributes on one foreign element (509 KB) took 38 s and 12 GB: libxml2 checks duplicates
    /// and canonicalizes attributes in quadratic time. Refused on the bytes, before libxml2 parses.
    @Test func fortyThousandAttributesOnOneElement() {
        let attributes = (0..<40_000).map { "a\($0)=\"v\"" }.joined(separator: " ")
        let doc = Self.open + Self.root + "<extensions><x:e xmlns:x=\"urn:x\" \(attributes)/></extensions></edl>"
        let error = Self.refuse(doc, .tooManyAttributes)
        #expect(
            error?.description
                == "hostile.xml:2:57: an element has more than 1024 attributes (namespace declarations included; spec/edl.md §2)")
    }

    /// The limit counts attributes, not `=` signs in text, comments, CDATA or attribute values.
    @Test func attributeLimitCountsOnlyAttributes() throws {
        let many = String(repeating: "a=b ", count: 5000)
        let attributes = (0..<1023).map { "a\($0)=\"x=y\"" }.joined(separator: " ")
        let doc =
            Self.open + Self.root
            + "<!-- \(many) --><extensions><x:e xmlns:x=\"urn:x\" \(attributes)>\(many)<![CDATA[\(many)]]><?pi \(many)?></x:e>"
            + "</extensions></edl>"
        let edl = try EditDecisionList.parse(Array(doc.utf8), source: "ok.xml")
        #expect(edl.foreignElements.count == 1)
    }

    /// Foreign content is free (spec/edl.md §9), and libxml2's RELAX NG matched it in quadratic time:
    /// 40 000 elements, each declaring its own namespace, took 120 s. The schema now sees each foreign
    /// element without its content (which it allows whatever it is); the content is still kept whole.
    @Test(arguments: [true, false])
    func fortyThousandElementsInsideAnExtension(ownNamespaces: Bool) throws {
        let inner = (0..<40_000).map { ownNamespaces ? "<y\($0):e xmlns:y\($0)=\"urn:y\($0)\"/>" : "<x:e\($0)/>" }.joined()
        let doc = Self.open + Self.root + "<extensions><x:e xmlns:x=\"urn:x\">\(inner)</x:e></extensions></edl>"
        let clock = ContinuousClock()
        let start = clock.now
        let edl = try EditDecisionList.parse(Array(doc.utf8), source: "big.xml")
        #expect(clock.now - start < .seconds(10), "took \(clock.now - start)")
        let kept = try #require(edl.foreignElements.first)
        #expect(kept.contains(ownNamespaces ? "<y39999:e xmlns:y39999=\"urn:y39999\"></y39999:e>" : "<x:e39999></x:e39999>"))
        // And the schema still judges the foreign element itself: one in the EDL namespace is refused.
        let ours = Self.open + Self.root + "<extensions><e>\(inner.prefix(1000))</e></extensions></edl>"
        #expect(throws: EDLError.self) { try EditDecisionList.parse(Array(ours.utf8), source: "ours.xml") }
    }
}
