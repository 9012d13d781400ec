import CinepackEDL
import CinepackFormat
import CinepackTime
import TestSupport

/// EDLs that exercise every element, attribute and value shape of spec/edl.md, for round trips.
enum EDLFixtures {
    static let ntsc = FrameRate(frames: 30000, per: 1001)!
    static let thirty = FrameRate(frames: 30, per: 1)!

    static func time(_ value: Int64, _ timescale: Int32) -> MediaTime { MediaTime(value: value, timescale: timescale) }

    /// Frame `n` at 30000/1001 as FCPXML writes it, e.g. 369 → 369369/30000s.
    static func ntscFrame(_ n: Int64) -> MediaTime { time(n * 1001, 30000) }

    static var empty: EditDecisionList { EditDecisionList() }

    static var mediaOnly: EditDecisionList {
        var edl = EditDecisionList()
        edl.media = MediaBinding(frameCount: 180, frameRate: thirty, fingerprint: "0123456789abcdef")
        return edl
    }

    static var apertureOnly: EditDecisionList {
        var edl = EditDecisionList()
        edl.fNumber = 2.8
        return edl
    }

    /// Every element and option once or more.
    static var full: EditDecisionList {
        var edl = EditDecisionList()
        edl.media = MediaBinding(frameCount: 900, frameRate: ntsc, fingerprint: String(repeating: "ab", count: 32))
        edl.fNumber = 1.4
        edl.decisions = [
            UserDecision(time: ntscFrame(0), frame: 0, target: .detection(4), strength: .weak),
            UserDecision(
                time: ntscFrame(369), frame: 369, target: .group(2), strength: .strong,
                minTransition: 0.5, maxTransition: 1),
            UserDecision(
                time: ntscFrame(400), frame: 400, target: .fixedDisparity(0.7), strength: .strong,
                minTransition: 1.0 / 3),
            UserDecision(
                time: ntscFrame(450), frame: 450, target: .point(x: 0.5, y: 0.25), strength: .weak,
                maxTransition: 0.75),
            UserDecision(time: ntscFrame(600), frame: 600, target: .detection(1_000_001), strength: .strong),
        ]
        edl.detectionTracks = [
            UserDetectionTrack(
                id: 1_000_000, kind: .fixed,
                samples: [
                    .init(frame: 12, rect: NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4), disparity: 0.7)
                ]),
            UserDetectionTrack(
                id: 1_000_001, kind: .custom,
                samples: [
                    .init(frame: 600, rect: NormalizedRect(x: 0, y: 0, width: 1, height: 1), disparity: 0),
                    .init(frame: 601, rect: NormalizedRect(x: 0.333333, y: 1e-05, width: 0.25, height: 0.5), disparity: 12.5),
                    .init(frame: 899, rect: NormalizedRect(x: 0.9, y: 0.9, width: 0.1, height: 0.1), disparity: 3.4028235e+38),
                ]),
        ]
        edl.sourceRanges = [
            SourceRange(start: ntscFrame(0), end: ntscFrame(300)),
            SourceRange(start: ntscFrame(600), end: ntscFrame(900)),
            SourceRange(start: ntscFrame(100), end: ntscFrame(200)),
        ]
        edl.speedSegments = [
            SpeedSegment(start: ntscFrame(0), end: ntscFrame(30), rateNumerator: 1, rateDenominator: 2),
            SpeedSegment(start: ntscFrame(30), end: ntscFrame(90), rateNumerator: 2, rateDenominator: 1),
            SpeedSegment(start: ntscFrame(100), end: ntscFrame(900), rateNumerator: 30000, rateDenominator: 1001),
        ]
        var before = mediaOnly
        before.fNumber = 4.5
        before.foreignElements = [#"<o:note xmlns:o="urn:example:other">kept</o:note>"#]
        edl.history = [
            HistoryEntry(description: "Set aperture", previous: EditDecisionList()),
            HistoryEntry(description: "Refocus \"Anna\" & <Ben>\n\tat 12.3s — 🎬", previous: before),
        ]
        edl.foreignElements = [
            #"<x:ext xmlns:x="urn:example:x" a="1&#xA;z" b="2"><x:c>te&amp;xt"#
                + "\n  line two<!-- a comment --><x:d></x:d><?pi data?></x:c>&lt;cd&gt;</x:ext>",
            #"<other xmlns="urn:example:o"><k xmlns:y="urn:example:y" y:at="3"></k></other>"#,
        ]
        return edl
    }

    /// Times stored at timescales other than the frame rate's, on the grid all the same.
    static var otherTimescales: EditDecisionList {
        var edl = EditDecisionList()
        edl.media = MediaBinding(frameCount: 240, frameRate: thirty, fingerprint: "ffffffff")
        edl.decisions = [
            UserDecision(time: time(0, 600), frame: 0, target: .detection(1), strength: .weak),
            UserDecision(time: time(1, 1), frame: 30, target: .detection(4_294_967_295), strength: .strong),
            UserDecision(time: time(60, 30), frame: 60, target: .group(1), strength: .weak),
            UserDecision(time: time(7_200_000, 2_400_000), frame: 90, target: .fixedDisparity(-0.0), strength: .weak),
        ]
        edl.detectionTracks = [
            UserDetectionTrack(
                id: 4_294_967_295, kind: .custom,
                samples: [
                    .init(frame: 239, rect: NormalizedRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5), disparity: 1)
                ])
        ]
        edl.sourceRanges = [SourceRange(start: time(0, 1), end: time(8, 1))]
        return edl
    }

    /// Small, odd and exact float values.
    static var floats: EditDecisionList {
        var edl = EditDecisionList()
        edl.media = MediaBinding(frameCount: 10, frameRate: FrameRate(frames: 24000, per: 1001)!, fingerprint: "00000000")
        edl.fNumber = 16
        edl.decisions = [
            UserDecision(
                time: time(0, 24000), frame: 0, target: .point(x: 1, y: 0), strength: .weak,
                minTransition: 1e-300, maxTransition: 0.1),
            UserDecision(
                time: time(1001, 24000), frame: 1, target: .fixedDisparity(.leastNonzeroMagnitude), strength: .strong,
                minTransition: 123456789.125, maxTransition: 1e300),
            UserDecision(time: time(9009, 24000), frame: 9, target: .point(x: 0.1, y: 0.99999994), strength: .weak),
        ]
        return edl
    }

    static let all: [(String, EditDecisionList)] = [
        ("empty", empty), ("mediaOnly", mediaOnly), ("apertureOnly", apertureOnly), ("full", full),
        ("otherTimescales", otherTimescales), ("floats", floats),
    ]
}

/// Random valid EDLs from a seed, for property round trips and as seeds of the mutation loop.
struct RandomEDL {
    var rng: SeededGenerator
    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    static let rates: [FrameRate] = [(30, 1), (30000, 1001), (24000, 1001), (25, 1), (60, 1), (1, 1), (120000, 1001), (2, 3)]
        .map { FrameRate(frames: $0.0, per: $0.1)! }
    static let foreign = [
        #"<x:a xmlns:x="urn:example:x"></x:a>"#,
        #"<x:b xmlns:x="urn:example:x" k="v &amp; w">text<x:c></x:c><!-- note --></x:b>"#,
        #"<g xmlns="urn:example:grading"><lut name="film"></lut></g>"#,
    ]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    /// Any finite float in the range, with all its bits (so the shortest text is exercised).
    mutating func float(_ range: ClosedRange<Float>) -> Float { Float.random(in: range, using: &rng) }

    /// Frame `n`'s time, sometimes at a multiple of the grid's timescale (the pair is kept as written).
    mutating func time(_ grid: FrameGrid, _ n: Int64) -> MediaTime {
        let t = grid.time(ofFrame: n)
        let k = Int64(int(1...3))
        let (value, overflow) = t.value.multipliedReportingOverflow(by: k)
        if k > 1, !overflow, Int64(t.timescale) * k <= Int64(Int32.max) {
            return MediaTime(value: value, timescale: Int32(Int64(t.timescale) * k))
        }
        return t
    }

    mutating func body(history: Bool) -> EditDecisionList {
        var edl = EditDecisionList()
        if chance(0.5) { edl.fNumber = float(0.5...32) }
        guard chance(0.85) else { return edl }
        let frames = int(1...5000)
        let rate = Self.rates[int(0...(Self.rates.count - 1))]
        let hex = (0..<16).map { _ in String(int(0...15), radix: 16) }.joined()
        edl.media = MediaBinding(frameCount: frames, frameRate: rate, fingerprint: hex)
        let grid = FrameGrid(rate: rate, frameCount: Int64(frames))

        var ids = Set<UInt32>()
        for _ in 0..<int(0...3) {
            var id = UInt32(1_000_000 + int(0...5000))
            while ids.contains(id) { id += 1 }
            ids.insert(id)
            var samples: [UserDetectionTrack.Sample] = []
            var f = Int64(int(0...(frames - 1)))
            while f < Int64(frames), samples.count < 6 {
                let x = float(0...0.9), y = float(0...0.9)
                let w = float(0.001...(1 - x)), h = float(0.001...(1 - y))
                samples.append(.init(frame: f, rect: NormalizedRect(x: x, y: y, width: w, height: h), disparity: float(0...20)))
                f += Int64(int(1...40))
            }
            edl.detectionTracks.append(UserDetectionTrack(id: id, kind: chance(0.5) ? .custom : .fixed, samples: samples))
        }
        var frame = Int64(int(0...20))
        while frame < Int64(frames), edl.decisions.count < 8 {
            let target: FocusTarget
            switch int(0...4) {
            case 0: target = .detection(UInt32(int(1...999_999)))
            case 1: target = ids.first.map { .detection($0) } ?? .group(UInt32(int(1...99)))
            case 2: target = .group(UInt32(int(1...99)))
            case 3: target = .fixedDisparity(float(0...10))
            default: target = .point(x: float(0...1), y: float(0...1))
            }
            var minT: Double? = chance(0.3) ? Double.random(in: 0.01...1, using: &rng) : nil
            var maxT: Double? = chance(0.3) ? Double.random(in: 1...3, using: &rng) : nil
            if chance(0.1) { (minT, maxT) = (1.0 / 3, 1) }
            edl.decisions.append(
                UserDecision(
                    time: time(grid, frame), frame: frame, target: target,
                    strength: chance(0.5) ? .weak : .strong,
                    minTransition: minT, maxTransition: maxT))
            frame += Int64(int(1...300))
        }
        for _ in 0..<int(0...3) {
            let a = Int64(int(0...(frames - 1)))
            let b = Int64(int(Int(a) + 1...frames))
            edl.sourceRanges.append(SourceRange(start: time(grid, a), end: time(grid, b)))
        }
        var start = Int64(0)
        for _ in 0..<int(0...3) {
            start += Int64(int(0...50))
            guard start < Int64(frames) else { break }
            let end = min(Int64(frames), start + Int64(int(1...200)))
            edl.speedSegments.append(
                SpeedSegment(
                    start: time(grid, start), end: time(grid, end),
                    rateNumerator: Int64(int(1...4)), rateDenominator: Int64(int(1...4))))
            start = end
        }
        if chance(0.3) { edl.foreignElements = Array(Self.foreign.prefix(int(1...3))) }
        if history {
            for i in 0..<int(0...2) {
                edl.history.append(HistoryEntry(description: "step \(i) <&> \"é\"", previous: body(history: false)))
            }
        }
        return edl
    }

    mutating func next() -> EditDecisionList { body(history: true) }
}
