import CinepackEDL
import CinepackFormat
import CinepackTime
import Testing

@testable import CinepackEditor

@Suite struct TapLogicTests {
    typealias S = SyntheticDepth

    static func rect(_ x: Float, _ y: Float, _ w: Float, _ h: Float) -> NormalizedRect {
        NormalizedRect(x: x, y: y, width: w, height: h)
    }

    /// 20 frames at 30 fps; frame 5 has a torso (4) with a face (7) inside it, both group 2, a detection
    /// 9, and two equal rects 11 and 12 side by side, overlapping.
    static let capture: CaptureTimeline = {
        var frames = [FrameMetadata](repeating: FrameMetadata(), count: 20)
        frames[5].detections = [
            Detection(id: 4, groupID: 2, type: .torso, rect: rect(0.1, 0.1, 0.5, 0.5), disparity: 0.5),
            Detection(id: 7, groupID: 2, type: .face, rect: rect(0.2, 0.2, 0.1, 0.1), disparity: 0.5),
            Detection(id: 9, type: .face, rect: rect(0.625, 0.625, 0.125, 0.125), disparity: 1),
            Detection(id: 12, type: .sportsBall, rect: rect(0.625, 0.125, 0.25, 0.25), disparity: 1),
            Detection(id: 11, type: .sportsBall, rect: rect(0.5, 0.125, 0.25, 0.25), disparity: 1),
        ]
        return CaptureTimeline(grid: FrameGrid(rate: FrameRate(frames: 30, per: 1)!, frameCount: 20), frames: frames, parameters: .init())
    }()

    /// A user track (a region tracked earlier) with a sample in frame 5.
    static let userTrack = UserDetectionTrack(
        id: 1_000_002, kind: .custom, samples: [.init(frame: 5, rect: rect(0.85, 0.85, 0.1, 0.1), disparity: 0.4)])

    /// Disparity: 0.3 D background with a 1.2 D disc around (0.9, 0.4) (empty space in frame 5).
    static func maps(_ frame: Int) -> DisparityMap {
        S.map(background: 0.3, discs: [S.Disc(cx: 0.9 * 64, cy: 0.4 * 48, radius: 4, disparity: 1.2)], seed: UInt64(frame))
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var x: Float
        var y: Float
        var current: FocusTarget?
        var strength: DecisionStrength?
        var action: TapResult.Action
        var target: FocusTarget?
        var decisionStrength: DecisionStrength?
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "unfocused face inside a torso", x: 0.25, y: 0.25, action: .focusDetection, target: .detection(7), decisionStrength: .weak
        ),
        Row(name: "torso outside the face", x: 0.5, y: 0.5, action: .focusDetection, target: .detection(4), decisionStrength: .weak),
        Row(
            name: "weakly focused face", x: 0.25, y: 0.25, current: .detection(7), strength: .weak, action: .lockFocus,
            target: .detection(7), decisionStrength: .strong),
        Row(
            name: "strength unknown counts as weak", x: 0.25, y: 0.25, current: .detection(7), action: .lockFocus, target: .detection(7),
            decisionStrength: .strong),
        Row(name: "strongly focused face", x: 0.25, y: 0.25, current: .detection(7), strength: .strong, action: .alreadyLocked),
        Row(
            name: "face while the torso is focused", x: 0.25, y: 0.25, current: .detection(4), strength: .weak, action: .focusDetection,
            target: .detection(7), decisionStrength: .weak),
        Row(
            name: "face of the weakly focused group", x: 0.25, y: 0.25, current: .group(2), strength: .weak, action: .lockFocus,
            target: .group(2), decisionStrength: .strong),
        Row(
            name: "detection while a fixed plane is focused", x: 0.7, y: 0.7, current: .fixedDisparity(1), strength: .strong,
            action: .focusDetection, target: .detection(9), decisionStrength: .weak),
        Row(
            name: "equal rects: nearer centre (left)", x: 0.65, y: 0.25, action: .focusDetection, target: .detection(11),
            decisionStrength: .weak),
        Row(
            name: "equal rects: nearer centre (right)", x: 0.73, y: 0.25, action: .focusDetection, target: .detection(12),
            decisionStrength: .weak),
        Row(
            name: "equal rects: equal distance, smaller id", x: 0.6875, y: 0.25, action: .focusDetection, target: .detection(11),
            decisionStrength: .weak),
        Row(name: "rect edge counts as inside", x: 0.75, y: 0.75, action: .focusDetection, target: .detection(9), decisionStrength: .weak),
        Row(
            name: "weakly focused user region", x: 0.9, y: 0.9, current: .detection(1_000_002), strength: .weak, action: .lockFocus,
            target: .detection(1_000_002), decisionStrength: .strong),
        Row(
            name: "empty space without depth", x: 0.05, y: 0.9, action: .focusPoint, target: .point(x: 0.05, y: 0.9),
            decisionStrength: .weak),
    ]

    @Test(arguments: rows)
    func tap(_ row: Row) throws {
        let result = try TapLogic.tap(
            at: (x: row.x, y: row.y), frame: 5, capture: Self.capture, current: row.current, currentStrength: row.strength,
            userTracks: [Self.userTrack])
        #expect(result.action == row.action)
        #expect(result.decision?.target == row.target)
        #expect(result.decision?.strength == row.decisionStrength)
        #expect(result.track == nil)
        if let d = result.decision {
            #expect(d.frame == 5)
            #expect(d.time == MediaTime(value: 5, timescale: 30))
        }
    }

    @Test func tapOnEmptySpaceTracksTheRegion() throws {
        let result = try TapLogic.tap(
            at: (x: 0.9, y: 0.4), frame: 5, capture: Self.capture, current: .detection(4), currentStrength: .strong,
            userTracks: [Self.userTrack], disparityMaps: Self.maps)
        #expect(result.action == .focusRegion)
        #expect(result.hit == nil)
        let track = try #require(result.track)
        #expect(track.id == 1_000_003)
        #expect(track.kind == .custom)
        #expect(track.samples.map(\.frame) == Array(5...19))
        #expect(result.tracking?.stop == .endOfClip)
        #expect(track.samples.allSatisfy { abs($0.disparity - 1.2) < 0.05 })
        #expect(
            result.decision
                == UserDecision(time: MediaTime(value: 5, timescale: 30), frame: 5, target: .detection(1_000_003), strength: .weak))
        // The first user track gets 1 000 000.
        let first = try TapLogic.tap(
            at: (x: 0.9, y: 0.4), frame: 5, capture: Self.capture, current: nil, currentStrength: nil, disparityMaps: Self.maps)
        #expect(first.track?.id == 1_000_000)
        // No valid depth around the point: the point itself.
        let blind = try TapLogic.tap(
            at: (x: 0.9, y: 0.4), frame: 5, capture: Self.capture, current: nil, currentStrength: nil,
            disparityMaps: { _ in DisparityMap(width: 4, height: 4, values: [Float](repeating: .nan, count: 16)) })
        #expect(blind.action == .focusPoint)
        #expect(blind.decision?.target == .point(x: 0.9, y: 0.4))
    }

    @Test func longPressFixesFocusAtThePoint() throws {
        // On a detection too: the plane is the depth at the point, strong.
        let result = try TapLogic.longPress(at: (x: 0.9, y: 0.4), frame: 5, capture: Self.capture, disparityMaps: Self.maps)
        #expect(result.action == .fixedFocus)
        guard case .fixedDisparity(let d)? = result.decision?.target else {
            Issue.record("expected a fixed plane, got \(String(describing: result.decision))")
            return
        }
        #expect(abs(d - 1.2) < 0.03)
        #expect(result.decision?.strength == .strong)
        #expect(result.decision?.frame == 5)
        let onTorso = try TapLogic.longPress(at: (x: 0.5, y: 0.5), frame: 5, capture: Self.capture, disparityMaps: Self.maps)
        #expect(onTorso.action == .fixedFocus)
        #expect(onTorso.hit == nil)
        #expect(try TapLogic.longPress(at: (x: 0.5, y: 0.5), frame: 5, capture: Self.capture).action == .noDepth)
        let blind = try TapLogic.longPress(
            at: (x: 0.5, y: 0.5), frame: 5, capture: Self.capture,
            disparityMaps: { _ in DisparityMap(width: 4, height: 4, values: [Float](repeating: .nan, count: 16)) })
        #expect(blind.action == .noDepth)
        #expect(blind.decision == nil)
    }

    @Test func badTapsAreRefused() {
        #expect(
            throws: TapError("frame 20 is outside the clip's frames 0…19 (spec/retime.md §4)")
        ) { try TapLogic.tap(at: (x: 0.5, y: 0.5), frame: 20, capture: Self.capture, current: nil, currentStrength: nil) }
        #expect(throws: TapError.self) {
            try TapLogic.tap(at: (x: 1.5, y: 0.5), frame: 5, capture: Self.capture, current: nil, currentStrength: nil)
        }
        #expect(throws: TapError.self) { try TapLogic.longPress(at: (x: .nan, y: 0.5), frame: 5, capture: Self.capture) }
    }

    @Test func disparityReadErrorsPassThrough() {
        struct ReadFailure: Error {}
        #expect(throws: ReadFailure.self) {
            try TapLogic.tap(
                at: (x: 0.05, y: 0.9), frame: 5, capture: Self.capture, current: nil, currentStrength: nil,
                disparityMaps: { _ in throw ReadFailure() })
        }
    }

    @Test func nextTrackID() {
        #expect(TapLogic.nextTrackID(after: []) == 1_000_000)
        #expect(TapLogic.nextTrackID(after: [Self.userTrack]) == 1_000_003)
        #expect(TapLogic.nextTrackID(after: [UserDetectionTrack(id: UInt32.max, kind: .fixed, samples: [])]) == nil)
    }
}
