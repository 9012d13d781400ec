import CinepackEDL
import CinepackFormat
import CinepackTime
import Foundation
import TestSupport
import Testing

/// Movies and EDLs shared by the timeline-export tests.
enum InterchangeFixtures {
    static let ntsc = FrameRate(frames: 30000, per: 1001)!

    /// A tiny deterministic cinematic movie written with the library: `frames` flat grey frames of
    /// 8×8 at 30000/1001 fps (raw codec, no depth), with captured decisions at the given frames.
    static func writeTinyMovie(
        at path: String, frames: Int = 12, rate: FrameRate = ntsc,
        captured: [Int: CapturedDecision] = defaultCaptured
    ) throws {
        let config = CinematicWriterConfiguration(video: .encoded(.raw, width: 8, height: 8, rate: rate), disparity: nil)
        let writer = try CinematicWriter(path: path, configuration: config)
        for n in 0..<frames {
            let picture = try PixelImage(width: 8, height: 8, layout: .rgb, samples: [UInt8](repeating: UInt8(n * 10), count: 8 * 8 * 3))
            let detections = [
                Detection(id: 1, groupID: 3, type: .face, rect: NormalizedRect(x: 0.1, y: 0.1, width: 0.2, height: 0.2), disparity: 0.5)
            ]
            let metadata = FrameMetadata(
                detections: detections, focus: FocusState(target: .detection(1), focusDisparity: 0.5),
                decision: captured[n], fNumber: 4.5)
            try writer.append(picture: picture, disparity: nil, metadata: metadata)
        }
        try writer.finish()
    }

    static let defaultCaptured: [Int: CapturedDecision] = [
        0: CapturedDecision(target: .detection(1), isStrong: false),
        7: CapturedDecision(target: .group(3), isStrong: true),
    ]

    /// The exact start of frame `n` at `rate`, in the rate's own timescale (e.g. `2002/30000s`).
    static func time(_ n: Int64, _ rate: FrameRate = ntsc) -> MediaTime {
        MediaTime(value: n * rate.seconds, timescale: Int32(rate.frames))
    }

    /// An EDL with a user decision of every target kind, an f-number, two trims and a speed change,
    /// for the tiny movie (12 frames at 30000/1001):
    /// - kept source frames [1, 6) and [7, 12); frames 9…11 play at 2×;
    /// - user decisions at frames 2, 5, 6 (trimmed away), 9 and 11; captured ones at 0 (trimmed away) and 7.
    static func tinyEDL() -> EditDecisionList {
        var edl = EditDecisionList()
        edl.fNumber = 2.8
        edl.decisions = [
            UserDecision(time: time(2), frame: 2, target: .detection(4), strength: .weak),
            UserDecision(time: time(5), frame: 5, target: .group(2), strength: .strong),
            UserDecision(time: time(6), frame: 6, target: .fixedDisparity(0.5), strength: .weak, minTransition: 0.25, maxTransition: 0.75),
            UserDecision(time: time(9), frame: 9, target: .point(x: 0.25, y: 0.75), strength: .strong),
            UserDecision(time: time(11), frame: 11, target: .none, strength: .weak),
        ]
        edl.detectionTracks = [
            UserDetectionTrack(
                id: 1_000_000, kind: .custom,
                samples: [
                    .init(frame: 9, rect: NormalizedRect(x: 0.2, y: 0.6, width: 0.1, height: 0.1), disparity: 0.4),
                    .init(frame: 10, rect: NormalizedRect(x: 0.2, y: 0.6, width: 0.1, height: 0.1), disparity: 0.4),
                ])
        ]
        edl.sourceRanges = [SourceRange(start: time(1), end: time(6)), SourceRange(start: time(7), end: time(12))]
        edl.speedSegments = [SpeedSegment(start: time(9), end: time(12), rateNumerator: 2, rateDenominator: 1)]
        edl.media = MediaBinding(frameCount: 12, frameRate: ntsc, fingerprint: "00ff")
        return edl
    }

    /// A user decision of every target kind, an f-number and one trim, for the 2.5 s demo (75 frames at
    /// 30 fps, captured decisions at frames 0 and 66): the trim [2, 70) drops the first and keeps the second.
    static func demoEDL() -> EditDecisionList {
        let rate = FrameRate(frames: 30, per: 1)!
        var edl = EditDecisionList()
        edl.fNumber = 2.8
        edl.decisions = [
            UserDecision(time: time(3, rate), frame: 3, target: .detection(4), strength: .weak),
            UserDecision(time: time(10, rate), frame: 10, target: .group(2), strength: .strong),
            UserDecision(time: time(15, rate), frame: 15, target: .fixedDisparity(0.5), strength: .weak),
            UserDecision(time: time(20, rate), frame: 20, target: .point(x: 0.25, y: 0.75), strength: .strong),
            UserDecision(time: time(25, rate), frame: 25, target: .none, strength: .weak),
        ]
        edl.sourceRanges = [SourceRange(start: time(2, rate), end: time(70, rate))]
        return edl
    }

    /// A 2.5 s 320×180 demo movie made by the real binary, as a user would.
    static func demoMovie(in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("demo.mov")
        let result = try CLI.run(["demo", "-o", path, "--seconds", "2.5", "--size", "320x180"])
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Parses JSON printed by a peer tool.
    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(text.prefix(200))")
    }
}
