import CinepackEDL
import CinepackFormat
import CinepackTime
import Foundation
import TestSupport
import Testing

/// Model → canonical XML → model, and the canonical form itself (spec/edl.md §12).
@Suite struct EDLRoundTripTests {
    @Test(arguments: EDLFixtures.all.map(\.0))
    func roundTripIsExactAndStable(name: String) throws {
        let edl = try #require(EDLFixtures.all.first { $0.0 == name }?.1)
        try edl.validate(source: name)
        let bytes = edl.xmlData()
        #expect(edl.xmlData() == bytes, "the writer is deterministic")
        let back = try EditDecisionList.parse(bytes, source: name)
        #expect(back == edl)
        #expect(back.xmlData() == bytes, "canonical output is a fixed point")
        Self.expectCanonicalShape(bytes, name)
    }

    /// Hundreds of random valid EDLs: every value shape, random float bits, every target.
    @Test func randomListsRoundTrip() throws {
        for seed in 0..<300 as Range<UInt64> {
            var random = RandomEDL(seed: seed)
            let edl = random.next()
            do {
                try edl.validate(source: "seed \(seed)")
                let bytes = edl.xmlData()
                let back = try EditDecisionList.parse(bytes, source: "seed \(seed)")
                #expect(back == edl, "seed \(seed)")
                #expect(back.xmlData() == bytes, "seed \(seed)")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    /// The times keep the pair as written (the timescale is information), and `Ns` means N/1.
    @Test func timesKeepTheirTimescale() throws {
        let bytes = EDLFixtures.otherTimescales.xmlData()
        let text = String(decoding: bytes, as: UTF8.self)
        for written in [#"time="0/600s""#, #"time="1s""#, #"time="60/30s""#, #"time="7200000/2400000s""#, #"end="8s""#] {
            #expect(text.contains(written), "\(written)")
        }
        let back = try EditDecisionList.parse(bytes, source: "t")
        #expect(back.decisions.map(\.time.timescale) == [600, 1, 30, 2_400_000])
    }

    /// The spec's example, built in code, is written byte for byte as corpus/edl/valid/spec-example.xml.
    @Test func specExampleIsTheCanonicalGolden() throws {
        var edl = EditDecisionList()
        let ntsc = EDLFixtures.ntsc
        edl.media = MediaBinding(frameCount: 900, frameRate: ntsc, fingerprint: "9f86d081884c7d65")
        edl.fNumber = 2.8
        let before = edl
        edl.decisions = [
            UserDecision(
                time: EDLFixtures.ntscFrame(369), frame: 369, target: .detection(4), strength: .weak,
                minTransition: 0.5, maxTransition: 1),
            UserDecision(time: EDLFixtures.ntscFrame(450), frame: 450, target: .detection(1_000_000), strength: .strong),
        ]
        edl.detectionTracks = [
            UserDetectionTrack(
                id: 1_000_000, kind: .custom,
                samples: [
                    .init(frame: 450, rect: NormalizedRect(x: 0.4, y: 0.3, width: 0.2, height: 0.2), disparity: 0.7),
                    .init(frame: 451, rect: NormalizedRect(x: 0.41, y: 0.3, width: 0.2, height: 0.2), disparity: 0.71),
                ])
        ]
        edl.sourceRanges = [SourceRange(start: EDLFixtures.ntscFrame(0), end: EDLFixtures.ntscFrame(300))]
        edl.speedSegments = [
            SpeedSegment(
                start: EDLFixtures.ntscFrame(30), end: EDLFixtures.ntscFrame(90),
                rateNumerator: 1, rateDenominator: 2)
        ]
        edl.history = [HistoryEntry(description: "Focus on detection 4", previous: before)]
        edl.foreignElements = [
            try EditDecisionList.canonicalForeignElement(
                #"<x:grade look='warm' xmlns:x="urn:example:grading"/>"#)
        ]
        let golden = try #require(FileManager.default.contents(atPath: Paths.corpus("edl/valid/spec-example.xml")))
        #expect(edl.xmlData() == [UInt8](golden))
        #expect(try EditDecisionList.parse([UInt8](golden), source: "spec-example.xml") == edl)
    }

    @Test func emptyListIsOneElement() {
        #expect(
            String(decoding: EditDecisionList().xmlData(), as: UTF8.self)
                == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<edl xmlns=\"urn:cinepack:edl:1\" version=\"1\"/>\n")
    }

    @Test func historyStepsHoldCanonicalPreviousLists() throws {
        var before = EDLFixtures.mediaOnly
        before.history = [HistoryEntry(description: "dropped", previous: EditDecisionList())]
        let step = HistoryEntry(description: "Set aperture", previous: before)
        var expected = before
        expected.history = []
        #expect(try step.previousList() == expected, "a step keeps no history of its own")
        #expect(step.previous == String(decoding: expected.xmlData(), as: UTF8.self))
    }

    @Test func foreignElementsAreCanonicalized() throws {
        let text = try EditDecisionList.canonicalForeignElement(
            "<x:a xmlns:x='urn:x' z='1' b=\"2\"><x:e/><!--c--></x:a>")
        #expect(text == #"<x:a xmlns:x="urn:x" b="2" z="1"><x:e></x:e><!--c--></x:a>"#)
        #expect(throws: EDLError.self) { try EditDecisionList.canonicalForeignElement(#"<a/>"#) }
        #expect(throws: EDLError.self) {
            try EditDecisionList.canonicalForeignElement(#"<media xmlns="urn:cinepack:edl:1"/>"#)
        }
    }

    /// Lists the writer cannot represent are caught by validate(); their output never traps and
    /// the reader refuses it.
    @Test func unrepresentableListsFailValidationNotTheWriter() throws {
        var cases: [(String, EditDecisionList, String)] = []
        var e = EDLFixtures.mediaOnly
        e.decisions = [UserDecision(time: .zero, frame: 0, target: .none, strength: .weak)]
        cases.append(("no target", e, "decision 1: has no target"))
        e = EDLFixtures.mediaOnly
        e.history = [HistoryEntry(description: "x", previous: "not XML")]
        cases.append(("garbage history", e, "history step 1: the previous EDL is refused: previous:1:1: not well-formed XML"))
        e = EDLFixtures.mediaOnly
        e.history = [HistoryEntry(description: "x", previous: #"<edl xmlns="urn:cinepack:edl:1" version="1"/>"#)]
        cases.append(("non-canonical history", e, "history step 1: previous is not canonical EDL text"))
        e = EDLFixtures.mediaOnly
        e.history = [HistoryEntry(description: "bell \u{7}", previous: EditDecisionList())]
        cases.append(("control character", e, "history step 1: description holds a character XML cannot carry"))
        e = EDLFixtures.mediaOnly
        e.foreignElements = [#"<x:a xmlns:x="urn:x" />"#]
        cases.append(("non-canonical foreign", e, "extension 1: is not in canonical form"))
        e = EDLFixtures.mediaOnly
        e.foreignElements = ["<unclosed"]
        cases.append(("broken foreign", e, "extension 1: not well-formed XML"))
        e = EDLFixtures.mediaOnly
        e.fNumber = .nan
        cases.append(("nan", e, "aperture: f-number must be a number > 0 (got nan)"))
        e = EDLFixtures.mediaOnly
        e.sourceRanges = [SourceRange(start: MediaTime(value: -30, timescale: 30), end: .zero)]
        cases.append(("negative time", e, "range 1: time -30/30s is negative"))
        e = EditDecisionList()
        e.version = 2
        cases.append(("version", e, "EDL version \"2\" is not supported"))

        for (name, edl, message) in cases {
            let error = #expect(throws: EDLError.self, "\(name)") { try edl.validate() }
            #expect(error?.description.contains(message) == true, "\(name): \(error?.description ?? "no error")")
            // The writer still writes something, deterministically, and the reader refuses it.
            #expect(edl.xmlData() == edl.xmlData())
            if name != "non-canonical history" && name != "non-canonical foreign" {
                #expect(throws: EDLError.self, "\(name)") { try EditDecisionList.parse(edl.xmlData(), source: name) }
            }
        }
    }

    /// A step whose previous EDL breaks a rule is still written whole; reading names the rule.
    @Test func historyStepsAreWrittenWholeEvenWhenInvalid() throws {
        var before = EditDecisionList()
        before.decisions = [UserDecision(time: .zero, frame: 0, target: .detection(4), strength: .weak)]
        var edl = EDLFixtures.mediaOnly
        edl.history = [HistoryEntry(description: "no media yet", previous: before)]
        let text = String(decoding: edl.xmlData(), as: UTF8.self)
        #expect(text.contains(#"<decision time="0s" frame="0" strength="weak">"#))
        let error = #expect(throws: EDLError.self) { try edl.validate() }
        #expect(
            error?.message.hasPrefix("history step 1: the previous EDL is refused: previous:4:5: decision 1: an EDL with decisions")
                == true, "\(error?.description ?? "")")
        let read = #expect(throws: EDLError.self) { try EditDecisionList.parse(edl.xmlData(), source: "h.xml") }
        #expect(
            read?.description.hasPrefix("h.xml:8:11: history step 1: decision 1: an EDL with decisions") == true,
            "\(read?.description ?? "")")
    }

    /// Every EDL the writer produces validates with xmllint against spec/edl.rng (interop: an
    /// independent RELAX NG consumer of the normative schema).
    @Test func writerOutputValidatesWithXmllint() throws {
        guard try Peers.available("xmllint") else { return }
        let dir = try Paths.temporaryDirectory()
        var files: [String] = []
        for (name, edl) in EDLFixtures.all {
            files.append(dir.file("\(name).xml"))
            try Data(edl.xmlData()).write(to: URL(fileURLWithPath: files.last!))
        }
        for seed in 1000..<1060 as Range<UInt64> {
            var random = RandomEDL(seed: seed)
            files.append(dir.file("random-\(seed).xml"))
            try Data(random.next().xmlData()).write(to: URL(fileURLWithPath: files.last!))
        }
        let schema = Paths.root.appendingPathComponent("spec/edl.rng").path
        let result = try Peers.run("xmllint", ["--noout", "--relaxng", schema] + files, allowFailure: true)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: " validates").count - 1 == files.count, "\(result.stderr)")
    }

    /// UTF-8, LF, two-space indent, declaration first, trailing newline.
    static func expectCanonicalShape(_ bytes: [UInt8], _ name: String) {
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(Array(text.utf8) == bytes, "\(name): valid UTF-8")
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<edl xmlns=\"urn:cinepack:edl:1\" version=\"1\""))
        #expect(text.hasSuffix("\n") && !text.hasSuffix("\n\n"))
        #expect(!text.contains("\r") && !text.contains("\t"))
        for line in text.split(separator: "\n") where line.hasPrefix(" ") {
            let indent = line.prefix { $0 == " " }.count
            #expect(indent % 2 == 0, "\(name): odd indent in \(line)")
        }
    }
}
