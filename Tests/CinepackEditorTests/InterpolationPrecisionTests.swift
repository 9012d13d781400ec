import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackTime
import Foundation
import TestSupport
import Testing

/// spec/focus.md §3.3 "Arithmetic": times and progress in binary64, the interpolated disparity in
/// binary64 rounded once to binary32. Python (binary64 floats, numpy for binary32) computes the
/// table from the spec's steps alone; the script's table must equal it bit for bit, and the spec's
/// remark that pure binary32 would differ must hold on the sample (so the test can tell them apart).
@Suite struct InterpolationPrecisionTests {
    static let frames = 90
    static let target = 60

    /// Two fixed-plane base decisions, at frame 0 (a) and frame 60 (b), 30000/1001 fps.
    static func capture(_ a: Float, _ b: Float) -> CaptureTimeline {
        var metadata = [FrameMetadata](repeating: FrameMetadata(), count: frames)
        metadata[0].decision = CapturedDecision(target: .fixedDisparity(a), isStrong: false)
        metadata[target].decision = CapturedDecision(target: .fixedDisparity(b), isStrong: false)
        let grid = FrameGrid(rate: FrameRate(frames: 30000, per: 1001)!, frameCount: Int64(frames))
        return CaptureTimeline(grid: grid, frames: metadata, parameters: CinematicParameters())
    }

    @Test func rackDisparitiesFollowTheSpecArithmetic() throws {
        guard try Peers.available("python3") else { return }
        var rng = SeededGenerator(seed: 13)
        var pairs: [(Float, Float)] = []
        for _ in 0..<40 { pairs.append((Float.random(in: 0...3, using: &rng), Float.random(in: 0...3, using: &rng))) }
        var input = ""
        var actual: [[UInt32]] = []
        for (a, b) in pairs {
            let script = FocusScript(capture: Self.capture(a, b), edl: EditDecisionList())
            input += "\(a.bitPattern) \(b.bitPattern)\n"
            actual.append(script.frames.map { $0.focusDisparity.bitPattern })
        }
        let python = """
            import sys, numpy as np
            f32 = lambda x: float(np.float32(x))
            tmin, tmax, rate = f32(1 / 3), 1.0, f32(0.5)
            differing = 0
            for line in sys.stdin:
                a, b = (float(np.uint32(int(w)).view(np.float32)) for w in line.split())
                tau = lambda n: (n * 1001) / 30000
                t0, t1 = tau(0), tau(\(Self.target))
                delta = abs(float(np.float32(b) - np.float32(a)))
                nominal = min(max(delta / rate if delta else 0.0, tmin), tmax)
                start = max(t1 - nominal, t0)
                length = t1 - start
                row = []
                for n in range(\(Self.frames)):
                    if n >= \(Self.target):
                        d = np.float32(b)
                    elif tau(n) >= start - 1e-6:
                        p = min(max((tau(n) - start) / length, 0.0), 1.0)
                        d = np.float32((1 - p) * a + p * b)
                        p32 = np.float32(p)
                        d32 = (np.float32(1) - p32) * np.float32(a) + p32 * np.float32(b)
                        differing += int(d32 != d)
                    else:
                        d = np.float32(a)
                    row.append(str(int(np.float32(d).view(np.uint32))))
                print(" ".join(row))
            print(differing)
            """
        let out = try Peers.run("python3", ["-c", python], stdin: Data(input.utf8))
        let lines = out.text.split(separator: "\n")
        try #require(lines.count == pairs.count + 1, "python: \(out.stderr)")
        for (k, (a, b)) in pairs.enumerated() {
            let expected = lines[k].split(separator: " ").compactMap { UInt32($0) }
            for (n, (got, want)) in zip(actual[k], expected).enumerated() where got != want {
                Issue.record(
                    "a \(a), b \(b), frame \(n): script \(Float(bitPattern: got)), spec \(Float(bitPattern: want))")
            }
        }
        #expect((Int(lines[pairs.count]) ?? 0) > 0, "pure binary32 must differ somewhere for the test to tell the rules apart")
    }
}
