import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackTime
import Testing

/// Small synthetic timelines for the focus-script tests: 10 fps, the default parameters (0.5 D/s,
/// transitions 1/3…1 s, gaps bridged up to 1 s = 10 missing frames, weak suppression 2 s).
enum FocusFixture {
    static let fps: Int64 = 10

    /// How a synthetic detection's disparity varies: `base + perFrame × n`.
    struct Disparity: Sendable {
        var base: Float
        var perFrame: Float = 0
        static func constant(_ d: Float) -> Disparity { Disparity(base: d) }
        func at(_ n: Int) -> Float { base + perFrame * Float(n) }
    }

    /// A detection id observed on some frames.
    struct Track: Sendable {
        var id: UInt32
        var group: UInt32 = 0
        var confidence: Float = 1
        var rect = NormalizedRect(x: 0, y: 0, width: 0.1, height: 0.1)
        var spans: [(frames: ClosedRange<Int>, disparity: Disparity)]
    }

    /// The cast most cases use: A (1) at 0.5 D, B (2) at 1.0 D, C (3) at 1.5 D, all in every frame.
    static let a = Track(id: 1, rect: NormalizedRect(x: 0.1, y: 0.1, width: 0.2, height: 0.2), spans: [(0...999, .constant(0.5))])
    static let c = Track(id: 3, rect: NormalizedRect(x: 0.6, y: 0.1, width: 0.2, height: 0.2), spans: [(0...999, .constant(1.5))])
    static func b(_ frames: ClosedRange<Int>...) -> Track {
        Track(id: 2, rect: NormalizedRect(x: 0.35, y: 0.1, width: 0.2, height: 0.2), spans: frames.map { ($0, .constant(1.0)) })
    }

    static func capture(
        frames count: Int, tracks: [Track], base: [(frame: Int, target: FocusTarget)] = [], focus: [Int: FocusState] = [:],
        parameters: CinematicParameters = CinematicParameters()
    ) -> CaptureTimeline {
        var frames: [FrameMetadata] = []
        for n in 0..<count {
            var detections: [Detection] = []
            for t in tracks {
                for span in t.spans where span.frames.contains(n) {
                    detections.append(
                        Detection(
                            id: t.id, groupID: t.group, type: .face, rect: t.rect, disparity: span.disparity.at(n), confidence: t.confidence
                        ))
                }
            }
            let decision = base.first { $0.frame == n }.map { CapturedDecision(target: $0.target, isStrong: false) }
            frames.append(FrameMetadata(detections: detections, focus: focus[n], decision: decision, fNumber: 4.5))
        }
        let grid = FrameGrid(rate: FrameRate(frames: fps, per: 1)!, frameCount: Int64(count))
        return CaptureTimeline(grid: grid, frames: frames, parameters: parameters)
    }

    /// Faster timing: 1 D/s, transitions 0.2…0.5 s, gaps bridged up to 0.5 s (5 frames), weak window 1 s.
    static let brisk: CinematicParameters = {
        var p = CinematicParameters()
        p.maxDisparityRate = 1
        p.minTransition = 0.2
        p.maxTransition = 0.5
        p.gapBridge = 0.5
        p.weakSuppression = 1
        return p
    }()

    static func user(
        _ frame: Int64, _ target: FocusTarget, _ strength: DecisionStrength, min: Double? = nil, max: Double? = nil
    ) -> UserDecision {
        UserDecision(
            time: MediaTime(value: frame, timescale: Int32(fps)), frame: frame, target: target, strength: strength, minTransition: min,
            maxTransition: max)
    }

    static func edl(_ decisions: [UserDecision], tracks: [UserDetectionTrack] = []) -> EditDecisionList {
        var edl = EditDecisionList()
        edl.media = MediaBinding(frameCount: 60, frameRate: FrameRate(frames: fps, per: 1)!, fingerprint: "0123456789abcdef")
        edl.decisions = decisions
        edl.detectionTracks = tracks
        return edl
    }
}

/// FocusRun focus over a run of frames, written out by hand.
struct FocusRun: Sendable {
    var frames: ClosedRange<Int>
    var primary: FocusTarget
    var secondary: FocusTarget?
    /// One value for the whole run, or one per frame.
    var disparity: [Float]
    /// Nil: not in transition; else one progress per frame.
    var progress: [Float]?

    /// Focus resting on `target`.
    static func hold(_ frames: ClosedRange<Int>, _ target: FocusTarget, _ disparity: Float...) -> FocusRun {
        FocusRun(frames: frames, primary: target, secondary: nil, disparity: disparity, progress: nil)
    }

    /// A rack from `from` to `to`.
    static func rack(
        _ frames: ClosedRange<Int>, from: FocusTarget, to: FocusTarget, disparity: [Float], progress: [Float]
    ) -> FocusRun {
        FocusRun(frames: frames, primary: to, secondary: from, disparity: disparity, progress: progress)
    }
}

/// An expected entry of `FocusScript.decisions`, in order.
struct ListedDecision: Sendable, Equatable, CustomStringConvertible {
    var source: ScriptDecision.Source
    var index: Int
    var frame: Int
    var suppressed: SuppressionReason?

    init(_ source: ScriptDecision.Source, _ index: Int, at frame: Int, _ suppressed: SuppressionReason? = nil) {
        self.source = source
        self.index = index
        self.frame = frame
        self.suppressed = suppressed
    }

    init(_ d: ScriptDecision) {
        self.init(d.source, d.index, at: d.frame, d.suppressed)
    }

    var description: String { "\(source) \(index) @\(frame)" + (suppressed.map { " (\($0))" } ?? "") }
}

/// One table-driven case: a timeline, an EDL, and the hand-computed focus at every frame.
struct FocusCase: Sendable, CustomTestStringConvertible {
    var name: String
    var capture: CaptureTimeline
    var edl = EditDecisionList()
    var expected: [FocusRun]
    var listed: [ListedDecision]

    var testDescription: String { name }

    /// Checks every frame against the expectation (which must cover every frame exactly once).
    func check(_ script: FocusScript, sourceLocation: SourceLocation = #_sourceLocation) {
        let covered = expected.flatMap { Array($0.frames) }
        #expect(
            covered == Array(0..<capture.frames.count), "\(name): the expectation must cover every frame once",
            sourceLocation: sourceLocation)
        #expect(script.frames.count == capture.frames.count, sourceLocation: sourceLocation)
        for run in expected {
            #expect(
                run.disparity.count == 1 || run.disparity.count == run.frames.count, "\(name): \(run.frames)",
                sourceLocation: sourceLocation)
            #expect(
                run.progress == nil || run.progress!.count == run.frames.count, "\(name): \(run.frames)", sourceLocation: sourceLocation)
            for (i, n) in run.frames.enumerated() where n < script.frames.count {
                let f = script.frame(n)
                let d = run.disparity.count == 1 ? run.disparity[0] : run.disparity[i]
                #expect(f.frame == n, sourceLocation: sourceLocation)
                #expect(f.primary == run.primary, "\(name) frame \(n): primary", sourceLocation: sourceLocation)
                #expect(f.secondary == run.secondary, "\(name) frame \(n): secondary", sourceLocation: sourceLocation)
                #expect(
                    abs(f.focusDisparity - d) <= 1e-4, "\(name) frame \(n): disparity \(f.focusDisparity), expected \(d)",
                    sourceLocation: sourceLocation)
                if let progress = run.progress {
                    let p = f.transitionProgress ?? -1
                    #expect(
                        abs(p - progress[i]) <= 1e-4, "\(name) frame \(n): progress \(p), expected \(progress[i])",
                        sourceLocation: sourceLocation)
                } else {
                    #expect(f.transitionProgress == nil, "\(name) frame \(n): not in transition", sourceLocation: sourceLocation)
                }
                if let k = f.decisionIndex {
                    #expect(
                        script.decisions[k].isEffective, "\(name) frame \(n): governed by an effective decision",
                        sourceLocation: sourceLocation)
                }
            }
        }
        #expect(script.decisions.map(ListedDecision.init) == listed, "\(name): decisions", sourceLocation: sourceLocation)
    }
}
