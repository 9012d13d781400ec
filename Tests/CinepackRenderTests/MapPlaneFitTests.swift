import Testing

@testable import CinepackRender

@Suite struct MapPlaneFitTests {
    /// The three-column form the upsampler's layer models use gives, bit for bit, what the general
    /// form gives for the same neighbourhood: inside the map, and with its rows clipped at the top
    /// and bottom edges.
    @Test func threeColumnResidualMatchesTheGeneralForm() {
        let (w, h) = (37, 9)
        var state: UInt32 = 12345
        // Steps, slopes, noise, zeros of both signs: whatever the map holds.
        let values: [Float] = (0..<(w * h)).map { k in
            state = state &* 1_664_525 &+ 1_013_904_223
            switch state >> 29 {
            case 0: return 0
            case 1: return -0.0
            case 2: return Float(k % w) * 0.37
            case 3: return k % w > 18 ? 2.5 : 0.25
            default: return Float(state >> 8) / Float(1 << 24) * 4 - 1
            }
        }
        values.withUnsafeBufferPointer { buffer in
            let p = buffer.baseAddress!
            for j in 0..<h {
                let rows = max(0, j - 1)...min(h - 1, j + 1)
                for c in 1..<(w - 1) {
                    let general = MapPlaneFit.residual(p, width: w, rows: rows, columns: (c - 1)...(c + 1))
                    let unrolled = MapPlaneFit.residual3(p, width: w, rows: rows, centre: c)
                    #expect(unrolled.bitPattern == general.bitPattern, "cell (\(c), \(j))")
                }
            }
        }
    }
}
