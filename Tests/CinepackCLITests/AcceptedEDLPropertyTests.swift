import Cinepack
import Foundation
import TestSupport
import Testing

/// The property "accepted means handled": any EDL that the reader (`edl validate`) accepts can be
/// imported into its movie, exported to OpenTimelineIO and FCPXML, plotted, and rendered (one
/// frame) without a crash. EDLs come from a seeded generator over the value ranges of spec/edl.md
/// §10, extremes included (the largest binary32, the smallest subnormal, rates with 63-bit parts,
/// timescales up to 2³¹−1); many are refused, and the test checks enough are accepted to mean
/// something. The library calls are the ones the commands make; a few cases also run the real binary.
@Suite struct AcceptedEDLPropertyTests {
    static let cases = 100

    struct Generator {
        var rng: SeededGenerator
        let frames = 30

        mutating func pick<T>(_ values: [T]) -> T { values[Int(rng.next() % UInt64(values.count))] }
        mutating func chance(_ n: UInt64) -> Bool { rng.next() % n == 0 }
        mutating func frame() -> Int { Int(rng.next() % UInt64(frames)) }

        /// Frame `n` (up to `frames`) as a time on the 30 fps grid, in a random multiple of its timescale.
        mutating func time(_ n: Int) -> String {
            let k = pick([1, 1, 2, 1001, 71_582_788])  // 30 × 71 582 788 ≤ 2³¹−1
            return n == 0 && chance(2) ? "0s" : "\(n * k)/\(30 * k)s"
        }

        mutating func number() -> String {
            pick([
                "0", "0.5", "1", "2.8", "16", "1e-45", "1.4e-45", "3.4028234e38", "3.4e38", "1e19", "1e-300", "1e300", "-0.0",
                "\(Double(rng.next() % 10_000) / 100)",
            ])
        }

        mutating func part() -> String {
            pick(["1", "2", "3", "1000", "1001", "1000003", "2147483647", "4611686018427387904", "9223372036854775807"])
        }

        mutating func rect() -> String {
            let x = pick(["0", "0.1", "0.5", "0.999999"]), w = pick(["1e-45", "0.1", "0.5", "1"])
            let y = pick(["0", "0.25", "0.5"]), h = pick(["0.000001", "0.25", "0.5"])
            return #"x="\#(x)" y="\#(y)" w="\#(w)" h="\#(h)""#
        }

        mutating func edl(fingerprint: String) -> String {
            var body = #"  <media frames="\#(frames)" rate="30/1" fingerprint="\#(fingerprint)"/>"# + "\n"
            if chance(2) { body += #"  <aperture f-number="\#(number())"/>"# + "\n" }
            var trackIDs: [Int] = []
            var tracks = ""
            if chance(2) {
                for t in 0..<Int(1 + rng.next() % 2) {
                    let id = 1_000_000 + t
                    trackIDs.append(id)
                    var samples = ""
                    var n = frame() / 2
                    for _ in 0..<Int(1 + rng.next() % 3) where n < frames {
                        samples += #"<sample frame="\#(n)" \#(rect()) disparity="\#(number())"/>"#
                        n += 1 + Int(rng.next() % 10)
                    }
                    tracks += #"<track id="\#(id)" kind="\#(pick(["custom", "fixed"]))">\#(samples)</track>"#
                }
            }
            if chance(3) == false {
                var decisions = ""
                var n = frame() / 3
                for _ in 0..<Int(1 + rng.next() % 3) where n < frames {
                    let target = pick([
                        #"<detection id="\#(pick(["1", "2", "4294967295"] + trackIDs.map(String.init)))"/>"#, #"<group id="1"/>"#,
                        #"<disparity value="\#(number())"/>"#, #"<point x="\#(pick(["0", "0.5", "1"]))" y="\#(pick(["0", "1"]))"/>"#,
                    ])
                    var transitions = ""
                    if chance(3) { transitions += #" min-transition="\#(number())""# }
                    if chance(3) { transitions += #" max-transition="\#(number())""# }
                    decisions +=
                        #"<decision time="\#(time(n))" frame="\#(n)" strength="\#(pick(["weak", "strong"]))"\#(transitions)>\#(target)</decision>"#
                    n += 1 + Int(rng.next() % 12)
                }
                body += "  <decisions>\(decisions)</decisions>\n"
            }
            if !tracks.isEmpty { body += "  <tracks>\(tracks)</tracks>\n" }
            if chance(2) {
                var timeline = ""
                for _ in 0..<Int(rng.next() % 3) {
                    let a = frame(), b = a + 1 + Int(rng.next() % UInt64(frames - a))
                    timeline += #"<range start="\#(time(a))" end="\#(time(b))"/>"#
                }
                var n = frame() / 2
                for _ in 0..<Int(rng.next() % 3) where n < frames {
                    let b = n + 1 + Int(rng.next() % UInt64(frames - n))
                    timeline += #"<speed start="\#(time(n))" end="\#(time(b))" rate="\#(part())/\#(part())"/>"#
                    n = b
                }
                body += "  <timeline>\(timeline)</timeline>\n"
            }
            return #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<edl xmlns="urn:cinepack:edl:1" version="1">"# + "\n" + body
                + "</edl>\n"
        }
    }

    @Test func everyAcceptedEDLIsHandledByEveryCommand() throws {
        let dir = try Paths.temporaryDirectory()
        let original = try ExtremeValueTests.clip(dir)
        let fingerprint = try ExtremeValueTests.fingerprint(original)
        let originalBytes = try Data(contentsOf: URL(fileURLWithPath: original))
        var generator = Generator(rng: SeededGenerator(seed: 0xED1_0000))
        var accepted = 0
        var binaryRuns = 0
        for n in 0..<Self.cases {
            let text = generator.edl(fingerprint: fingerprint)
            guard let edl = try? EditDecisionList.parse(Array(text.utf8), source: "case-\(n).xml") else { continue }
            accepted += 1
            let movie = dir.file("case.mov")
            try? FileManager.default.removeItem(atPath: movie)
            try originalBytes.write(to: URL(fileURLWithPath: movie))
            // Import, as `edl import` does.
            var edits = try MovieEdits.open(path: movie)
            _ = try edits.save(edl)
            let reopened = try MovieEdits.open(path: movie)
            #expect(reopened.edl.decisions == edl.decisions && reopened.edl.speedSegments == edl.speedSegments, "case \(n)")
            // Export, plot, render one frame.
            let url = TimelineExport.fileURL(forPath: movie)
            let otio = try TimelineExport.otio(movie: reopened.movie, edl: reopened.edl, mediaURL: url)
            #expect(try JSONSerialization.jsonObject(with: Data(otio)) is [String: Any], "case \(n): OTIO is JSON")
            let fcpxml = try TimelineExport.fcpxml(movie: reopened.movie, edl: reopened.edl, mediaURL: url)
            #expect(String(decoding: fcpxml, as: UTF8.self).contains("<fcpxml"), "case \(n)")
            let capture = try CaptureTimeline(movie: reopened.movie)
            let svg = FocusPlot.svg(script: FocusScript(capture: capture, edl: reopened.edl), capture: capture, title: "case \(n)")
            #expect(svg.hasSuffix("</svg>\n"), "case \(n)")
            let plan = try RenderPlan(edits: reopened)
            if let first = plan.outputFrames.first {
                let source = try plan.sourceFrame(ofOutput: first)
                let still = try plan.render(
                    picture: try reopened.movie.picture(source), sourceFrame: source, renderer: BokehRenderer(quality: .preview))
                #expect(still.width == reopened.movie.width, "case \(n)")
            }
            // Every tenth accepted case also through the real binary, as a user would.
            if accepted % 10 == 1 {
                binaryRuns += 1
                let sidecar = dir.file("case.xml")
                try text.write(toFile: sidecar, atomically: true, encoding: .utf8)
                try originalBytes.write(to: URL(fileURLWithPath: movie))
                try ExtremeValueTests.bounded(["edl", "validate", sidecar])
                try ExtremeValueTests.bounded(["edl", "import", movie, sidecar])
                try ExtremeValueTests.everyCommand(movie, dir)
            }
        }
        // The generator reaches both sides: enough accepted EDLs for the property to say something.
        #expect(accepted >= 20 && accepted < Self.cases, "\(accepted) of \(Self.cases) accepted")
        #expect(binaryRuns >= 3)
    }
}
