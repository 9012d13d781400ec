import CinepackFormat
import TestSupport
import Testing

@testable import CinepackRender

/// The 8-bit sRGB encoder (a table and one comparison) against the transfer function itself.
@Suite struct SRGBTests {
    static func formula(_ v: Float) -> UInt8 { UInt8((SRGB.fromLinear(v) * 255).rounded()) }

    @Test func codesMatchTheTransferFunction() {
        var rng = SeededGenerator(seed: 0x5e6b)
        var values: [Float] = [0, 1, -1, 2, .nan, .infinity, -.infinity, 1e-12, 0.003_130_8, 0.999_99]
        for _ in 0..<200_000 { values.append(Float(rng.next() % 1_000_001) / 1_000_000) }
        for _ in 0..<20_000 { values.append(Float(rng.next() % 1_000_001) / 100_000_000) }  // the dark end
        var mismatches = 0
        for v in values where !v.isNaN {
            let expected = Self.formula(v)
            let got = SRGB.code8(v)
            if got != expected {
                // Only where pow's rounding and the threshold disagree: right at a step.
                let k = Int(min(got, expected))
                let step = SRGB.thresholds[k]
                #expect(abs(v - step) <= 4 * step.ulp, "\(v): \(got) vs \(expected)")
                mismatches += 1
            }
        }
        #expect(mismatches < 5)
        #expect(SRGB.code8(.nan) == 0)
        // Every step: just below gives k, at the threshold k + 1.
        for k in 0..<255 {
            let t = SRGB.thresholds[k]
            #expect(SRGB.code8(t.nextDown.nextDown) == UInt8(k))
            #expect(SRGB.code8(t.nextUp) == UInt8(k + 1))
        }
    }

    @Test func aPictureIsEncodedValueByValue() throws {
        var rng = SeededGenerator(seed: 7)
        let (w, h) = (37, 23)
        let image = LinearImage(width: w, height: h, values: (0..<(w * h * 3)).map { _ in Float(rng.next() % 1201) / 1000 - 0.1 })
        let picture = SRGB.picture(image)
        guard case .uint8(let samples) = picture.storage else {
            Issue.record("expected 8-bit samples")
            return
        }
        #expect(samples == image.values.map(SRGB.code8))
        #expect(picture.width == w && picture.height == h)
    }
}
