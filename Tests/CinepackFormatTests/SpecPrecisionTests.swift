import CinepackContainer
import CinepackTime
import Foundation
import TestSupport
import Testing

@testable import CinepackFormat

/// The rules spec/format.md states to the last bit: disparity decoding order and encoding tie rule
/// (§5) against numpy, the writer's timescale (§3) against hand-computed values, payload lengths
/// (§6.2) on hand-made bytes, and what a captured focus state says during a rack (§6.3).
@Suite struct SpecPrecisionTests {
    static let ranges: [DisparityQuantization] = [
        DisparityQuantization(minimum: 0, maximum: 2.5), DisparityQuantization(minimum: 0.1, maximum: 7.3),
        DisparityQuantization(minimum: 0.013, maximum: 0.77), DisparityQuantization(minimum: 1, maximum: 65535),
    ]

    /// §5 decoding: every code of four ranges, bit for bit against numpy's float32 evaluated left to
    /// right as the spec says.
    @Test func decodingMatchesNumpyBinary32LeftToRight() throws {
        guard try Peers.available("python3") else { return }
        let script = """
            import sys, numpy as np
            for line in sys.stdin:
                lo, hi = (np.frombuffer(bytes.fromhex(w), dtype=">f4")[0] for w in line.split())
                c = np.arange(1, 65536, dtype=np.float32)
                d = (c - np.float32(1)) / np.float32(65534) * (hi - lo) + lo
                print(d.astype(">f4").tobytes().hex())
            """
        let input = Self.ranges.map { hex($0.minimum) + " " + hex($0.maximum) }.joined(separator: "\n") + "\n"
        let out = try Peers.run("python3", ["-c", script], stdin: Data(input.utf8))
        let lines = out.text.split(separator: "\n")
        try #require(lines.count == Self.ranges.count, "numpy: \(out.stderr)")
        for (q, line) in zip(Self.ranges, lines) {
            let expected = floats(String(line))
            var mismatches = 0
            for code in 1...65535 where q.disparity(for: UInt16(code)).bitPattern != expected[code - 1].bitPattern {
                mismatches += 1
            }
            #expect(mismatches == 0, "range \(q.minimum)…\(q.maximum): \(mismatches) codes differ from numpy")
        }
    }

    /// §5 encoding: round half away from zero. numpy computes the binary32 steps and rounds with
    /// floor(s + 0.5) (exact in binary64 for s < 2^24); the test also proves it meets ties where
    /// numpy's own round (half to even) would give another code.
    @Test func encodingRoundsHalfAwayFromZero() throws {
        guard try Peers.available("python3") else { return }
        let q = DisparityQuantization(minimum: 0, maximum: 65534)  // t · 65534 lands on halves
        var values: [Float] = (0..<4000).map { Float($0) / 2 }
        var rng = SeededGenerator(seed: 11)
        values += (0..<4000).map { _ in Float.random(in: 0...65534, using: &rng) }
        let script = """
            import sys, numpy as np
            lo, hi = np.float32(0), np.float32(65534)
            d = np.frombuffer(bytes.fromhex(sys.stdin.read().strip()), dtype=">f4").astype(np.float32)
            s = np.clip((d - lo) / (hi - lo), np.float32(0), np.float32(1)) * np.float32(65534)
            away = 1 + np.floor(s.astype(np.float64) + 0.5)
            even = 1 + np.rint(s.astype(np.float64))
            print(" ".join(str(int(x)) for x in away))
            print(int(np.sum(away != even)))
            """
        let out = try Peers.run("python3", ["-c", script], stdin: Data(values.map(hex).joined().utf8))
        let lines = out.text.split(separator: "\n")
        try #require(lines.count == 2, "numpy: \(out.stderr)")
        let expected = lines[0].split(separator: " ").compactMap { Int($0) }
        #expect(expected.count == values.count)
        for (d, code) in zip(values, expected) where Int(q.code(for: d)) != code {
            Issue.record("disparity \(d): code \(q.code(for: d)), the spec's rounding gives \(code)")
        }
        #expect((Int(lines[1]) ?? 0) > 1000, "the sample must contain ties where half-to-even differs")
    }

    /// §5: a value within half a quantization step outside [min, max] is clamped; further out it is
    /// refused, naming the pixel and the value.
    @Test func outOfRangeValuesAreRefusedBeyondHalfAStep() throws {
        let q = DisparityQuantization(minimum: 0.5, maximum: 2.5)
        let half = (q.maximum - q.minimum) / 65534 / 2  // 1.5259e-5 D
        let near = DisparityMap(width: 2, height: 1, values: [q.minimum - half * 0.9, q.maximum + half * 0.9])
        #expect(try near.codes(q) == [1, 65535])
        let far = DisparityMap(width: 2, height: 1, values: [1, q.maximum + half * 4])
        let error = #expect(throws: FormatError.self) { try far.codes(q) }
        #expect(error?.description.contains("at pixel (1, 0) is outside the declared range") == true)
    }

    /// §3: timescale N·k, k = max(1, ⌈600 / N⌉), frames of D·k ticks.
    @Test func writerTimescaleFollowsTheSpec() {
        let cases: [(Int64, Int64, UInt32, UInt32)] = [
            (30, 1, 600, 20), (25, 1, 600, 24), (48, 1, 624, 13), (120, 1, 600, 5), (7, 1, 602, 86),
            (30000, 1001, 30000, 1001), (24000, 1001, 24000, 1001), (1000, 1, 1000, 1), (600, 1, 600, 1),
        ]
        for (n, d, timescale, ticks) in cases {
            let rate = FrameRate(frames: n, per: d)!
            let got = CinematicWriter.timescale(for: rate)
            #expect(got.0 == timescale && got.1 == ticks, "\(n)/\(d): \(got), expected (\(timescale), \(ticks))")
        }
    }

    /// §6.2: f-number and scene payloads are exactly 4 bytes.
    @Test(arguments: [0, 3, 5, 8])
    func fourByteItemsOfAnotherLengthAreRefused(_ length: Int) throws {
        for (localID, what) in [(UInt32(4), "f-number"), (UInt32(5), "scene status")] {
            let item = { (n: Int) in be(UInt32(8 + n)) + be(localID) + [UInt8](repeating: 0x40, count: n) }
            let error = #expect(throws: ContainerError.self) {
                try FocusMetadataCodec.decode(Self.requiredItems + item(length), keys: .writer, sampleIndex: 0)
            }
            #expect(error?.description.contains("\(what) payload is \(length) bytes, not 4") == true, "\(String(describing: error))")
            _ = try FocusMetadataCodec.decode(Self.requiredItems + item(4), keys: .writer, sampleIndex: 0)
        }
    }

    /// §6.3: during a rack the focus state names the decision focus arrives at, with its strength.
    @Test func rackFramesDescribeTheDecisionArrivedAt() throws {
        let scene = try DemoScene(options: .init(width: 128, height: 72, seconds: 6, framesPerSecond: 30, disparityScale: 4))
        let frames = (0..<scene.frameCount).map { scene.metadata($0) }
        var racks = 0
        for (n, frame) in frames.enumerated() {
            guard let focus = frame.focus, focus.inTransition else { continue }
            racks += 1
            let arrival = try #require(frames[n...].first { $0.focus?.inTransition == false }?.focus, "frame \(n): the rack never ends")
            #expect(focus.target == arrival.target, "frame \(n): \(focus.target) during the rack, \(arrival.target) on arrival")
            #expect(focus.isStrong == arrival.isStrong, "frame \(n)")
        }
        #expect(racks > 10)
    }

    /// Detections (none) and focus ("no focus information"), as the writer encodes them.
    static let requiredItems: [UInt8] =
        be(12) + be(1) + [0, 1, 0, 0] + be(28) + be(2) + [1, 0, 0, 0] + be(0) + be(Float.nan.bitPattern) + be(0) + be(0)
}

private func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

private func hex(_ f: Float) -> String { be(f.bitPattern).map { String(format: "%02x", $0) }.joined() }

private func floats(_ hex: String) -> [Float] {
    var result: [Float] = []
    var bytes: [UInt8] = []
    var chars = hex.makeIterator()
    while let a = chars.next(), let b = chars.next() {
        bytes.append(UInt8(String([a, b]), radix: 16)!)
        if bytes.count == 4 {
            result.append(Float(bitPattern: bytes.reduce(0) { $0 << 8 | UInt32($1) }))
            bytes.removeAll(keepingCapacity: true)
        }
    }
    return result
}
