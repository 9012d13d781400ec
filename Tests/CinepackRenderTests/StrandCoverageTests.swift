import CinepackFormat
import Foundation
import TestSupport
import Testing

@testable import CinepackRender

/// The coverage the depth-edge split (spec/render.md §1.4 step 5) gives the pixels beside a thin
/// in-focus strand, against the strand's exact area in each pixel.
@Suite struct StrandCoverageTests {
    /// The area of pixel (i, j) (the unit square [i, i + 1] × [j, j + 1]) inside the band
    /// |X − (c + s·Y)| ≤ w / 2: the overlap of the band's cross-section with [i, i + 1] is
    /// piecewise linear in Y, so the trapezoid rule between its breakpoints integrates it exactly.
    static func area(_ i: Int, _ j: Int, centre c: Double, slope s: Double, width w: Double) -> Double {
        func overlap(_ y: Double) -> Double {
            max(0, min(Double(i + 1), c + s * y + w / 2) - max(Double(i), c + s * y - w / 2))
        }
        var knots = [Double(j), Double(j + 1)]
        if s != 0 {
            for edge in [Double(i), Double(i + 1)] {
                for end in [-w / 2, w / 2] {
                    let y = (edge - c - end) / s
                    if y > Double(j) && y < Double(j + 1) { knots.append(y) }
                }
            }
        }
        knots.sort()
        var total = 0.0
        for k in 1..<knots.count { total += 0.5 * (overlap(knots[k - 1]) + overlap(knots[k])) * (knots[k] - knots[k - 1]) }
        return total
    }

    /// A dark strand 1.3 px wide, in focus, running down a grey wall far behind whose pixels vary
    /// in lightness (so a mixed pixel's colour cannot tell the strand's share from a darker pixel
    /// of the wall), slanting 0.12 px per row so that it crosses every sub-pixel position. The
    /// picture is each pixel's exact mix, the disparity the strand's where it covers at least
    /// half. On the wall's pixels beside the strand, the split's coverage is within 0.03 of the
    /// exact area on average (0.026 with the strand's geometry; 0.070 from the colours alone).
    @Test func coverageBesideAStrandFollowsItsArea() {
        let (width, height) = (64, 40)
        let (centre, slope, strandWidth) = (30.3, 0.12, 1.3)
        let (near, far): (Float, Float) = (1.0, 0.1)
        let strand = SIMD3<Float>(0.03, 0.025, 0.02)
        var rng = SeededGenerator(seed: 15)
        var picture = LinearImage(width: width, height: height)
        var disparity = [Float](repeating: far, count: width * height)
        var truth = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let wall = Float.random(in: 0.35...0.65, using: &rng) * SIMD3<Float>(1, 0.95, 0.9)
                let a = Float(Self.area(x, y, centre: centre, slope: slope, width: strandWidth))
                truth[y * width + x] = a
                picture.setPixel(x, y, a * strand + (1 - a) * wall)
                if a >= 0.5 { disparity[y * width + x] = near }
            }
        }
        let matte = DepthEdgeMatte(picture: picture, disparity: disparity, focusDisparity: near, lens: ReferenceScenes.lens, threads: nil)
        var black = LinearImage(width: width, height: height, fill: 0)
        var white = LinearImage(width: width, height: height, fill: 1)
        matte.composite(over: &black)
        matte.composite(over: &white)
        var error: Float = 0
        var count = 0
        for y in 3..<(height - 3) {
            for x in 1..<(width - 1) where disparity[y * width + x] == far {
                guard disparity[y * width + x - 1] == near || disparity[y * width + x + 1] == near else { continue }
                let p = y * width + x
                error += abs(1 - (white.values[3 * p] - black.values[3 * p]) - truth[p])
                count += 1
            }
        }
        error /= Float(count)
        print(String(format: "beside the strand (%d px): mean coverage error %.4f", count, error))
        #expect(count >= 60)
        #expect(error <= 0.03, "mean coverage error \(error) beside the strand")
    }
}
