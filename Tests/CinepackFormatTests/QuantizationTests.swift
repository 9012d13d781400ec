import CinepackFormat
import Testing

@Suite struct QuantizationTests {
    @Test func codesFollowTheSpecFormula() {
        let q = DisparityQuantization(minimum: 0, maximum: 2)
        #expect(q.code(for: 0) == 1)
        #expect(q.code(for: 2) == 65535)
        #expect(q.code(for: 1) == 32768)  // 1 + round(0.5 · 65534)
        #expect(q.code(for: .nan) == 0)
        #expect(q.disparity(for: 0).isNaN)
        #expect(q.disparity(for: 65535) == 2)
        for d: Float in stride(from: 0, through: 2, by: 0.013) {
            #expect(abs(q.disparity(for: q.code(for: d)) - d) <= q.step / 2 + 1e-6)
        }
    }
}
