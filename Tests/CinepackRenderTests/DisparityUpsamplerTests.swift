import CinepackFormat
import CinepackRender
import Foundation
import Testing

@Suite struct DisparityUpsamplerTests {
    static let (width, height) = (160, 120)
    static let (near, far): (Float, Float) = (2, 0.5)

    /// A two-colour picture (lightly textured) with a rectangle at `near` D over a `far` D background,
    /// the rectangle's edges between map cells.
    static func scene() -> (picture: LinearImage, truth: [Float]) {
        var picture = LinearImage(width: width, height: height)
        var truth = [Float](repeating: far, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= 50 && x < 111 && y >= 31 && y < 90
                let t = 0.03 * Float((x * 7 + y * 13) % 5) / 4
                picture.setPixel(x, y, inside ? SIMD3(0.8 + t, 0.5, 0.2) : SIMD3(0.15, 0.3 + t, 0.55))
                if inside { truth[y * width + x] = near }
            }
        }
        return (picture, truth)
    }

    /// A map `factor` times smaller: each cell the average (`area`) or the centre sample of its block.
    static func lowRes(_ truth: [Float], factor: Int, area: Bool) -> DisparityMap {
        (area ? DisparityDownsampling.area : .point).map(truth, width: width, height: height, factor: factor)
    }

    static func bilinear(_ map: DisparityMap) -> [Float] {
        var out = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            let v = (Float(y) + 0.5) * Float(map.height) / Float(height) - 0.5
            let j0 = min(max(Int(v.rounded(.down)), 0), map.height - 1)
            let j1 = min(j0 + 1, map.height - 1)
            let fy = min(max(v - Float(j0), 0), 1)
            for x in 0..<width {
                let u = (Float(x) + 0.5) * Float(map.width) / Float(width) - 0.5
                let i0 = min(max(Int(u.rounded(.down)), 0), map.width - 1)
                let i1 = min(i0 + 1, map.width - 1)
                let fx = min(max(u - Float(i0), 0), 1)
                let top = map[i0, j0] * (1 - fx) + map[i1, j0] * fx
                let bottom = map[i0, j1] * (1 - fx) + map[i1, j1] * fx
                out[y * width + x] = top * (1 - fy) + bottom * fy
            }
        }
        return out
    }

    /// Mean absolute error over the pixels within 4 px of the rectangle's edge.
    static func edgeError(_ values: [Float], _ truth: [Float]) -> Float {
        var sum: Float = 0
        var n = 0
        for y in 0..<height {
            for x in 0..<width {
                let nearEdge = (x >= 46 && x < 115 && y >= 27 && y < 94) && !(x >= 54 && x < 107 && y >= 35 && y < 86)
                if nearEdge {
                    sum += abs(values[y * width + x] - truth[y * width + x])
                    n += 1
                }
            }
        }
        return sum / Float(n)
    }

    @Test(arguments: [4, 8], [false, true])
    func keepsADisparityEdgeOnThePictureEdge(factor: Int, area: Bool) {
        let (picture, truth) = Self.scene()
        let map = Self.lowRes(truth, factor: factor, area: area)
        let up = DisparityUpsampler.upsample(map, guide: picture)
        #expect(up.count == truth.count)
        let ours = Self.edgeError(up, truth)
        let plain = Self.edgeError(Self.bilinear(map), truth)
        #expect(ours < 0.4 * plain, "edge-band error \(ours) vs bilinear \(plain)")
        // Far from the edge, exact.
        #expect(abs(up[60 * Self.width + 80] - Self.near) < 1e-3)
        #expect(abs(up[5 * Self.width + 5] - Self.far) < 1e-3)
    }

    @Test func fillsInvalidValuesFromValidNeighbours() {
        let (picture, truth) = Self.scene()
        var map = Self.lowRes(truth, factor: 4, area: false)
        let clean = Self.edgeError(DisparityUpsampler.upsample(map, guide: picture), truth)
        // Knock out every 7th value and a whole block.
        for i in stride(from: 0, to: map.values.count, by: 7) { map.values[i] = .nan }
        for j in 2..<6 { for i in 2..<8 { map.values[j * map.width + i] = .nan } }
        let up = DisparityUpsampler.upsample(map, guide: picture)
        #expect(up.allSatisfy { $0.isFinite })
        #expect(up.allSatisfy { $0 >= Self.far - 1e-3 && $0 <= Self.near + 1e-3 })
        let holed = Self.edgeError(up, truth)
        #expect(holed < 2 * clean + 0.02, "edge error with holes \(holed), without \(clean)")
        // Inside the knocked-out background block: the background value.
        #expect(abs(up[18 * Self.width + 20] - Self.far) < 1e-3)
        // Nothing valid: NaN (the renderer treats it as in focus).
        let empty = DisparityUpsampler.upsample(
            DisparityMap(width: 4, height: 3, values: [Float](repeating: .nan, count: 12)), guide: picture)
        #expect(empty.count == truth.count && empty.allSatisfy { $0.isNaN })
    }

    /// The same stripes on both sides of a vertical depth step (the colours cannot tell the sides
    /// apart): the result is a soft matte (spec/render.md §2 steps 6–7), never a speckle of one
    /// side's depth inside the other. Along every row the depth falls from the near side to the
    /// far side, rising back by no more than a tenth of the step (the stripes may ripple the
    /// matte a little; a speckle would rise by the whole step), and away from the step's cells
    /// each side keeps its own depth.
    @Test(arguments: [false, true])
    func sharedColoursOnBothSidesGiveASoftMatte(area: Bool) {
        var picture = LinearImage(width: Self.width, height: Self.height)
        var truth = [Float](repeating: Self.far, count: Self.width * Self.height)
        let edge = 82  // inside a map cell at 1/4 size
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let stripe = (x + y / 2) % 5 < 2
                let t = 0.03 * Float((x * 7 + y * 13) % 5) / 4
                picture.setPixel(x, y, stripe ? SIMD3(0.8 + t, 0.1, 0.1) : SIMD3(0.1, 0.2 + t, 0.7))
                if x < edge { truth[y * Self.width + x] = Self.near }
            }
        }
        let up = DisparityUpsampler.upsample(Self.lowRes(truth, factor: 4, area: area), guide: picture)
        let step = Self.near - Self.far
        var rises = 0
        var wrongSide = 0
        for y in 0..<Self.height {
            for x in 1..<Self.width where up[y * Self.width + x] > up[y * Self.width + x - 1] + 0.1 * step { rises += 1 }
            for x in 0..<Self.width where abs(x - edge) >= 8 && abs(up[y * Self.width + x] - truth[y * Self.width + x]) > 0.02 * step {
                wrongSide += 1
            }
        }
        #expect(rises == 0, "\(rises) rises of the depth toward the far side")
        #expect(wrongSide == 0, "\(wrongSide) pixels 8 px or more from the step off their side's depth")
    }

    @Test func isDeterministic() {
        let (picture, truth) = Self.scene()
        let map = Self.lowRes(truth, factor: 8, area: true)
        #expect(DisparityUpsampler.upsample(map, guide: picture) == DisparityUpsampler.upsample(map, guide: picture))
    }
    /// A diagonal edge between two clearly different colours, crossing map cells at every
    /// offset: where the colours decide, each pixel takes its own side's depth (spec/render.md §2
    /// step 5), not the average of the cells around it. Scored on the pixels 1–4 px from the edge
    /// whose 2 × 2 cells hold both depths (the others the clamp keeps to one side anyway). The
    /// guided filter alone errs several times more here.
    @Test(arguments: [false, true])
    func assignsEachPixelToItsSideOfADiagonalEdge(area: Bool) {
        var picture = LinearImage(width: Self.width, height: Self.height)
        var truth = [Float](repeating: Self.far, count: Self.width * Self.height)
        func side(_ x: Int, _ y: Int) -> Float { Float(y) + 0.5 - (0.7 * (Float(x) + 0.5) + 23.3) }
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let t = 0.03 * Float((x * 7 + y * 13) % 5) / 4
                let inside = side(x, y) > 0
                picture.setPixel(x, y, inside ? SIMD3(0.8 + t, 0.5, 0.2) : SIMD3(0.15, 0.3 + t, 0.55))
                if inside { truth[y * Self.width + x] = Self.near }
            }
        }
        let factor = 4
        let map = Self.lowRes(truth, factor: factor, area: area)
        let up = DisparityUpsampler.upsample(map, guide: picture)
        let plain = Self.bilinear(map)
        var wrong = 0, scored = 0
        var ours: Float = 0, bilinear: Float = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let distance = abs(side(x, y)) / (1 + 0.7 * 0.7).squareRoot()
                guard distance >= 1 && distance <= 4 else { continue }
                // The 2 × 2 cells the pixel interpolates between (spec/render.md §2 step 1).
                func cell(_ p: Int, _ cells: Int, _ pixels: Int) -> Int {
                    min(max(Int(((Float(p) + 0.5) * Float(cells) / Float(pixels) - 0.5).rounded(.down)), 0), cells - 2)
                }
                let i = cell(x, map.width, Self.width), j = cell(y, map.height, Self.height)
                let cells = [map[i, j], map[i + 1, j], map[i, j + 1], map[i + 1, j + 1]]
                guard let low = cells.min(), let high = cells.max(), high - low > 0.5 * (Self.near - Self.far) else { continue }
                let k = y * Self.width + x
                scored += 1
                ours += abs(up[k] - truth[k])
                bilinear += abs(plain[k] - truth[k])
                if abs(up[k] - truth[k]) > 0.5 * (Self.near - Self.far) { wrong += 1 }
            }
        }
        #expect(scored > 100)
        print(
            "diagonal edge (\(area ? "area" : "point")): \(scored) pixels, mean error \(ours / Float(scored)) D, bilinear \(bilinear / Float(scored)) D, \(wrong) on the wrong side"
        )
        #expect(wrong == 0, "\(wrong) of \(scored) pixels take the other side's depth")
        #expect(ours < 0.05 * bilinear, "mean error \(ours / Float(scored)) vs bilinear \(bilinear / Float(scored))")
    }

    /// A 1 px bright wire at `near` D before a lightly textured far background, with a block at
    /// `near` D elsewhere in the picture, area-averaged at 1/4 size: the wire's cells hold a
    /// quarter of the step each and nothing around them holds more, yet the wire's pixels take
    /// (nearly) its own depth (spec/render.md §2 step 7) while the background around keeps the
    /// far depth; a point-sampled map whose samples all miss the wire leaves it at the far depth,
    /// and nothing anywhere goes nearer than the map's nearest value.
    @Test(arguments: [false, true])
    func recoversAWireThinnerThanACellFromMixedValues(area: Bool) {
        var picture = LinearImage(width: Self.width, height: Self.height)
        var truth = [Float](repeating: Self.far, count: Self.width * Self.height)
        let wire = 41  // the second pixel of map column 10; point samples sit at x = 4i + 2
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                // Shading in every channel, over several cells (a picture, not a flat colour).
                let (u, v) = (Float(x), Float(y))
                let t = 0.03 * SIMD3(sin(u / 5 + v / 7), sin(u / 6 - v / 4 + 1), sin(v / 5 - u / 9 + 2))
                let onWire = x == wire && y >= 10 && y < 110
                let block = x >= 120 && x < 150 && y >= 40 && y < 80
                picture.setPixel(
                    x, y, onWire ? SIMD3(0.9, 0.85, 0.7) : block ? SIMD3(0.8, 0.5, 0.2) + t : SIMD3(0.15, 0.3, 0.35) + t)
                if onWire || block { truth[y * Self.width + x] = Self.near }
            }
        }
        let map = Self.lowRes(truth, factor: 4, area: area)
        let up = DisparityUpsampler.upsample(map, guide: picture)
        let step = Self.near - Self.far
        var low: Float = .infinity
        var background: Float = 0
        for y in 20..<100 {
            low = min(low, up[y * Self.width + wire])
            for x in [wire - 3, wire - 2, wire + 2, wire + 3] { background = max(background, up[y * Self.width + x]) }
        }
        #expect(up.allSatisfy { $0 >= Self.far - 1e-3 && $0 <= Self.near + 1e-3 })
        if area {
            // The map holds far + step / 4 along the wire: the wire's pixels go well beyond it.
            #expect(map[10, 12] < Self.far + 0.3 * step)
            #expect(low > Self.far + 0.8 * step, "wire pixels at \(low) D, the wire at \(Self.near) D")
            #expect(background < Self.far + 0.1 * step, "background beside the wire up to \(background) D")
        } else {
            #expect(map.values.allSatisfy { $0 == Self.far || $0 == Self.near })
            #expect(low < Self.far + 0.01 * step && background < Self.far + 0.01 * step)
        }
    }
}
