import CinepackFormat
import TestSupport
import Testing

@testable import CinepackRender

@Suite struct BokehRendererTests {
    static let width = 160
    static let height = 120

    /// Disparity giving a blur circle of `diameter` pixels behind a focus at `focus` D.
    static func disparity(diameter: Float, focus: Float, lens: LensModel) -> Float {
        focus - diameter / lens.scale(focusDisparity: focus)
    }

    static func srgb8(_ v: Float) -> Int { Int((SRGB.fromLinear(v) * 255).rounded()) }

    @Test(arguments: RenderQuality.allCases)
    func deterministicAndThreadCountIndependent(quality: RenderQuality) {
        let scene = RendererTestScene.make(width: Self.width, height: Self.height)
        let lens = RendererTestScene.lens(width: Self.width, fNumber: 1)
        var renderer = BokehRenderer(quality: quality)
        let first = renderer.render(picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: 1, lens: lens)
        let second = renderer.render(picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: 1, lens: lens)
        #expect(first == second)
        for threads in [1, 2, 3] {
            renderer.threads = threads
            let other = renderer.render(
                picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: 1, lens: lens)
            #expect(other == first, "\(threads) threads")
        }
        // Something actually happened: the background is blurred.
        #expect(first != scene.picture)
    }

    @Test(arguments: RenderQuality.allCases)
    func pixelsAtTheFocusDisparityStaySharp(quality: RenderQuality) {
        let scene = RendererTestScene.make(width: Self.width, height: Self.height, subject: 1, floor: false)
        let lens = RendererTestScene.lens(width: Self.width, fNumber: 1)
        let out = BokehRenderer(quality: quality).render(
            picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: 1, lens: lens)
        var checked = 0
        var worst = 0
        // Pixels next to a depth step may be split as partly covered (spec/render.md §1.4).
        func atStep(_ p: Int) -> Bool {
            let (x, y) = (p % Self.width, p / Self.width)
            for v in max(0, y - 1)...min(Self.height - 1, y + 1) {
                for u in max(0, x - 1)...min(Self.width - 1, x + 1) where scene.disparity[v * Self.width + u] != 1 { return true }
            }
            return false
        }
        for p in 0..<(Self.width * Self.height) where scene.disparity[p] == 1 && !atStep(p) {
            for c in 0..<3 {
                worst = max(worst, abs(Self.srgb8(out.values[p * 3 + c]) - Self.srgb8(scene.picture.values[p * 3 + c])))
            }
            checked += 1
        }
        #expect(checked > 1000)
        #expect(worst <= 1, "largest change of an in-focus pixel: \(worst)/255")
        // The background next to the subject did get blurred.
        var changed = 0
        for p in 0..<(Self.width * Self.height) where scene.disparity[p] == 0.2 && out.values[p * 3] != scene.picture.values[p * 3] {
            changed += 1
        }
        #expect(changed > 5000)
    }

    @Test(arguments: RenderQuality.allCases, [3, 6, 12, 24, 40] as [Float])
    func aPointBecomesADiskOfTheBlurCircleWithItsEnergy(quality: RenderQuality, diameter: Float) {
        let (w, h) = (Self.width, Self.height)
        var picture = LinearImage(width: w, height: h)
        let (cx, cy) = (80, 60)
        picture.setPixel(cx, cy, SIMD3(repeating: 100))
        let lens = RendererTestScene.lens(width: w, fNumber: 2)
        let d = Self.disparity(diameter: diameter, focus: 1, lens: lens)
        let out = BokehRenderer(quality: quality).render(
            picture: picture, fullResolutionDisparity: [Float](repeating: d, count: w * h), focusDisparity: 1, lens: lens)
        var sum: Float = 0
        var moment: Float = 0
        var outside: Float = 0
        var inner: (Float, Int) = (0, 0)
        var middle: (Float, Int) = (0, 0)
        let radius = diameter / 2
        // Large circles are rendered at reduced resolution and upsampled, which softens the rim
        // by about a cell of the level (an eighth to a quarter of the radius); preview renders
        // everything from cells of f pixels, softer still.
        let export = quality == .export
        let f = Float(PreviewRenderer.factor(width: w, height: h))
        let rim = export ? radius * 1.25 + 2 : radius * 1.5 + 3
        for y in 0..<h {
            for x in 0..<w {
                let v = out.values[(y * w + x) * 3]
                #expect(v.isFinite && v >= 0)
                let dx = Float(x - cx)
                let dy = Float(y - cy)
                let rho = (dx * dx + dy * dy).squareRoot()
                sum += v
                moment += v * rho * rho
                if rho > rim { outside += v }
                if rho <= 0.2 * radius {
                    inner.0 += v
                    inner.1 += 1
                } else if rho <= 0.6 * radius {
                    middle.0 += v
                    middle.1 += 1
                }
            }
        }
        #expect(abs(sum - 100) < 2, "energy \(sum) of 100")
        // A flat disk of radius R has E[ρ²] = R² / 2.
        let measured = (2 * moment / sum).squareRoot()
        let tolerance = max(1, 0.12 * radius)
        if export {
            #expect(abs(measured - radius) <= tolerance, "radius \(measured), expected \(radius)")
        } else {
            // Preview: no narrower than the disk, no wider than the disk spread by its resampling:
            // the cells of f pixels (f × f box average, then bilinear ×f: variance f²/12 + f²/6
            // per axis, so measured² grows by f²) and, for large circles, the coarser levels' own
            // cells (a quarter of the radius at most, as at export).
            let widest = ((1.25 * radius) * (1.25 * radius) + f * f).squareRoot()
            #expect(measured >= radius - tolerance && measured <= widest + tolerance, "radius \(measured), disk \(radius)")
        }
        #expect(outside / sum < (export ? 0.02 : 0.04), "energy beyond \(rim) px: \(outside / sum)")
        if radius >= 5 {
            // A disk, not a Gaussian: as bright at 0.2–0.6 R as in the centre.
            let flatness = (middle.0 / Float(middle.1)) / (inner.0 / Float(inner.1))
            #expect(flatness > 0.85 && flatness < 1.15, "flatness \(flatness)")
        }
    }

    /// Sizes that are no multiple of a cell, a tile or a SIMD group (and both preview factors):
    /// the render is finite, in-focus pixels are kept and a uniform picture stays uniform.
    @Test(arguments: RenderQuality.allCases, [(33, 41), (95, 97), (101, 96), (130, 99), (257, 131)])
    func anyPictureSize(quality: RenderQuality, size: (Int, Int)) {
        let (w, h) = size
        var rng = SeededGenerator(seed: UInt64(w * 1000 + h))
        var picture = LinearImage(width: w, height: h, fill: 0.3)
        var disparity = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                // In focus on the left, behind the focus plane (far field) on the right.
                disparity[y * w + x] = x < w / 3 ? 1 : Float(rng.next() % 100) / 100
                if x >= w / 3 { picture.setPixel(x, y, SIMD3(0.3, 0.3, 0.3)) }
            }
        }
        let lens = RendererTestScene.lens(width: w, fNumber: 1.4)
        let out = BokehRenderer(quality: quality).render(
            picture: picture, fullResolutionDisparity: disparity, focusDisparity: 1, lens: lens)
        #expect(out.width == w && out.height == h)
        // Everything is the same grey: whatever the blur, it stays that grey.
        #expect(out.values.allSatisfy { abs($0 - 0.3) < 1e-4 }, "\(w)×\(h)")
        // A textured in-focus strip on the left is kept exactly: nothing behind it bleeds onto it.
        for y in 0..<h { for x in 0..<(w / 3) { picture.setPixel(x, y, SIMD3(Float(x % 7) / 7, Float(y % 5) / 5, 0.5)) } }
        let textured = BokehRenderer(quality: quality).render(
            picture: picture, fullResolutionDisparity: disparity, focusDisparity: 1, lens: lens)
        #expect(textured.values.allSatisfy { $0.isFinite })
        // (The strip's last column, next to the depth step, may be split as partly covered: spec/render.md §1.4.)
        let inside = (0..<h).flatMap { y in (0..<(w / 3 - 1)).map { (y, $0) } }
        #expect(inside.allSatisfy { textured.pixel($0.1, $0.0) == picture.pixel($0.1, $0.0) }, "\(w)×\(h)")
    }

    @Test(arguments: RenderQuality.allCases)
    func noNaNOrInfinityWhateverTheInput(quality: RenderQuality) {
        let scene = RendererTestScene.make(width: 96, height: 64)
        var disparity = scene.disparity
        for i in stride(from: 0, to: disparity.count, by: 7) { disparity[i] = .nan }
        for i in stride(from: 3, to: disparity.count, by: 97) { disparity[i] = .infinity }
        for i in stride(from: 5, to: disparity.count, by: 89) { disparity[i] = -.infinity }
        let renderer = BokehRenderer(quality: quality)
        for fNumber: Float in [0, -1, 0.01, 0.7, 16, 1e6, .nan, .infinity] {
            for focus: Float in [0, 1, 25, -3, .nan] {
                let lens = RendererTestScene.lens(width: 96, fNumber: fNumber)
                let out = renderer.render(picture: scene.picture, fullResolutionDisparity: disparity, focusDisparity: focus, lens: lens)
                #expect(out.values.allSatisfy { $0.isFinite }, "f/\(fNumber), focus \(focus)")
            }
        }
        // A low-resolution map with holes, and one with nothing valid.
        var map = DisparityMap(width: 24, height: 16, values: (0..<(24 * 16)).map { $0 % 5 == 0 ? .nan : Float($0 % 24) / 10 })
        let lens = RendererTestScene.lens(width: 96, fNumber: 1)
        var out = renderer.render(picture: scene.picture, disparity: map, focusDisparity: 1, lens: lens)
        #expect(out.values.allSatisfy { $0.isFinite })
        map.values = [Float](repeating: .nan, count: 24 * 16)
        out = renderer.render(picture: scene.picture, disparity: map, focusDisparity: 1, lens: lens)
        #expect(out == scene.picture)
        // Degenerate sizes.
        let tiny = LinearImage(width: 1, height: 1, values: [0.5, 0.5, 0.5])
        #expect(
            renderer.render(picture: tiny, fullResolutionDisparity: [0], focusDisparity: 1, lens: lens).values.allSatisfy { $0.isFinite })
        let strip = RendererTestScene.make(width: 37, height: 3)
        let stripOut = renderer.render(
            picture: strip.picture, fullResolutionDisparity: strip.disparity, focusDisparity: 1,
            lens: RendererTestScene.lens(width: 37, fNumber: 0.5))
        #expect(stripOut.values.allSatisfy { $0.isFinite })
    }

    @Test func aStaticSceneRendersIdenticalFrames() {
        let scene = RendererTestScene.make(width: Self.width, height: Self.height)
        let lens = RendererTestScene.lens(width: Self.width, fNumber: 1.4)
        let map = DisparityMap(
            width: 40, height: 30,
            values: (0..<(40 * 30)).map { scene.disparity[(($0 / 40) * 4 + 2) * Self.width + ($0 % 40) * 4 + 2] })
        for quality in RenderQuality.allCases {
            let renderer = BokehRenderer(quality: quality)
            let frames = (0..<3).map { _ in renderer.render(picture: scene.picture, disparity: map, focusDisparity: 1, lens: lens) }
            #expect(frames[0] == frames[1] && frames[1] == frames[2])
        }
    }

    /// During a rack focus the picture changes smoothly: no frame-to-frame jump much larger than
    /// the typical one (blur radii crossing level boundaries or the near/far split do not pop).
    @Test(arguments: RenderQuality.allCases)
    func aRackFocusChangesSmoothly(quality: RenderQuality) {
        let scene = RendererTestScene.make(width: Self.width, height: Self.height)
        let lens = RendererTestScene.lens(width: Self.width, fNumber: 1)
        let renderer = BokehRenderer(quality: quality)
        var previous: LinearImage? = nil
        var steps: [Float] = []
        for i in 0...30 {
            let focus = 0.3 + Float(i) * 0.1
            let frame = renderer.render(
                picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: focus, lens: lens)
            if let previous {
                var sum: Float = 0
                for k in 0..<frame.values.count {
                    sum += abs(SRGB.fromLinear(frame.values[k]) - SRGB.fromLinear(previous.values[k]))
                }
                steps.append(sum / Float(frame.values.count))
            }
            previous = frame
        }
        let sorted = steps.sorted()
        let median = sorted[sorted.count / 2]
        let largest = sorted.last!
        #expect(largest <= 3 * median, "steps \(steps)")
    }

    @Test(arguments: RenderQuality.allCases)
    func aBlurredForegroundSpillsOverTheSharpSubjectBehind(quality: RenderQuality) {
        let (w, h) = (Self.width, Self.height)
        var picture = LinearImage(width: w, height: h, fill: 0.5)
        var disparity = [Float](repeating: 1, count: w * h)
        // A green near square over an in-focus grey subject.
        for y in 40..<80 {
            for x in 60..<100 {
                picture.setPixel(x, y, SIMD3(0, 1, 0))
                disparity[y * w + x] = 2
            }
        }
        let lens = RendererTestScene.lens(width: w, fNumber: 1)
        let r = lens.diameter(disparity: 2, focusDisparity: 1) / 2
        let out = BokehRenderer(quality: quality).render(
            picture: picture, fullResolutionDisparity: disparity, focusDisparity: 1, lens: lens)
        // Just outside the square the subject is partly covered by the blurred square…
        let outside = out.pixel(100 + 2, 60)
        #expect(outside.y > 0.6 && outside.x < 0.4, "2 px outside: \(outside)")
        // … just inside, the square is partly see-through …
        let inside = out.pixel(99 - 1, 60)
        #expect(inside.x > 0.05 && inside.y < 0.95, "1 px inside: \(inside)")
        // … and beyond its blur the subject is untouched.
        let far = out.pixel(100 + Int(r.rounded(.up)) + 6, 60)
        #expect(far == SIMD3(repeating: 0.5))
    }

    @Test(arguments: RenderQuality.allCases)
    func aSharpForegroundDoesNotBleedIntoTheBlurredBackground(quality: RenderQuality) {
        let (w, h) = (Self.width, Self.height)
        var picture = LinearImage(width: w, height: h, fill: 0.2)
        var disparity = [Float](repeating: 0, count: w * h)
        for y in 40..<80 {
            for x in 60..<100 {
                picture.setPixel(x, y, SIMD3(1, 1, 1))
                disparity[y * w + x] = 1
            }
        }
        let lens = RendererTestScene.lens(width: w, fNumber: 0.7)
        let out = BokehRenderer(quality: quality).render(
            picture: picture, fullResolutionDisparity: disparity, focusDisparity: 1, lens: lens)
        // The uniform background stays uniform right up to the sharp white square…
        for x in [55, 58, 59] { #expect(abs(out.pixel(x, 60).x - 0.2) < 1e-4, "x = \(x): \(out.pixel(x, 60))") }
        // … whose edge stays sharp.
        #expect(out.pixel(60, 60) == SIMD3(1, 1, 1))
    }
}
