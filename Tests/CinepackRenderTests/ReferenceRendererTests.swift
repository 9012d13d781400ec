import CinepackRender
import Foundation
import Testing

/// The reference renderer itself: the geometry it is derived from (spec/render.md §1 lens model), occlusion
/// at depth edges, energy, and (on request) its convergence in aperture samples.
@Suite struct ReferenceRendererTests {
    static let lens = LensModel(focalLength35mm: 50, fNumber: 1.4, width: 64)

    static func plane(
        _ d: Float, width: Int = 64, height: Int = 64, _ texel: (Float, Float) -> (rgb: SIMD3<Float>, alpha: Float)
    )
        -> SceneLayer
    {
        SceneLayer(name: "plane \(d)", depth: .plane(d), texture: RGBATexture(width: width, height: height, texel))
    }

    /// At the focus disparity every aperture sample lands on the pixel itself: the render is the
    /// pinhole picture.
    @Test func inFocusLayersRenderAsThePinholePicture() {
        let scene = ReferenceScenes.subjectBeforeBackground()
        let flat = LayeredScene(width: scene.width, height: scene.height, layers: [scene.layers.layers[0]])
        let background = LayeredScene(width: scene.width, height: scene.height, layers: [scene.layers.layers[1]])
        for (layers, d) in [(flat, Float(1.5)), (background, Float(0.1))] {
            let picture = layers.pinhole().picture
            let rendered = ReferenceRenderer(samples: 64).render(layers, focusDisparity: d, lens: scene.lens)
            let worst = zip(picture.values, rendered.values).map { abs($0 - $1) }.max()!
            #expect(worst < 1e-5)
        }
    }

    /// A point at disparity d images to a uniform disk of diameter c(d) from the lens model, keeping
    /// its energy. The point is one texel (bilinear: a 2 px tent); focus puts c at 24 px.
    @Test func aPointImagesToADiskOfTheLensModelsDiameter() {
        let df: Float = 8
        let lens = LensModel(focalLength35mm: 50, fNumber: 1.4, width: 40)
        let d = df - 24 / lens.scale(focusDisparity: df)  // behind the focus plane
        #expect(abs(lens.diameter(disparity: d, focusDisparity: df) - 24) < 1e-3)
        let point = Self.plane(d, width: 40, height: 40) { x, y in (x == 20.5 && y == 20.5 ? [1, 1, 1] : [0, 0, 0], 1) }
        let scene = LayeredScene(width: 40, height: 40, layers: [point])
        let image = ReferenceRenderer(samples: 4096).render(scene, focusDisparity: df, lens: lens)
        var energy: Double = 0, moment: Double = 0, outside: Float = 0
        var inner: [Float] = []
        for y in 0..<40 {
            for x in 0..<40 {
                let v = image.values[(y * 40 + x) * 3]
                let dx = Float(x) - 20, dy = Float(y) - 20
                let r = (dx * dx + dy * dy).squareRoot()
                energy += Double(v)
                moment += Double(v) * Double(r * r)
                if r > 12 + 1.5 { outside = max(outside, v) }
                if r < 12 - 1.5 { inner.append(v) }
            }
        }
        // Energy: one texel of 1 (a bilinear tent integrates to 1 px²).
        #expect(abs(energy - 1) < 0.01)
        // Nothing beyond the disk (radius 12, plus the tent's reach).
        #expect(outside == 0)
        // Uniform inside: 1/(π·12²) each; mean within 2 %, every pixel within 25 % (sampling).
        let level = 1 / (Float.pi * 144)
        let mean = inner.reduce(0, +) / Float(inner.count)
        #expect(abs(mean / level - 1) < 0.02)
        #expect(inner.allSatisfy { abs($0 / level - 1) < 0.25 })
        // Radius from the second moment: a uniform disk of radius R has mean r² = R²/2; the tent
        // adds 1/6 px² per axis.
        let radius = (2 * (moment / energy - 1.0 / 3)).squareRoot()
        #expect(abs(radius - 12) < 0.1, "radius \(radius)")
    }

    /// A blurred near occluder covers a sharp subject behind its edge by exactly the part of each
    /// pixel's blur disk the occluder's (pinhole) silhouette takes: the circular segment area.
    @Test func aBlurredOccluderCoversTheCircularSegment() {
        let df: Float = 1
        let dNear = df + 20 / Self.lens.scale(focusDisparity: df)  // c = 20 px, in front
        let occluder = Self.plane(dNear, height: 8) { x, _ in ([1, 1, 1], x < 32 ? 1 : 0) }  // edge at x = 32
        let subject = Self.plane(df, height: 8) { _, _ in ([0, 0, 0], 1) }
        let scene = LayeredScene(width: 64, height: 8, layers: [occluder, subject])
        let image = ReferenceRenderer(samples: 4096).render(scene, focusDisparity: df, lens: Self.lens)
        for x in 32..<46 {
            let t = Float(x) + 0.5 - 32  // distance from the edge to the pixel centre
            let r: Float = 10
            let expected = t >= r ? 0 : (r * r * acos(t / r) - t * (r * r - t * t).squareRoot()) / (Float.pi * r * r)
            let v = image.values[(4 * 64 + x) * 3]
            #expect(abs(v - expected) < 0.02, "x = \(x): \(v) vs \(expected)")
        }
        // And behind the edge, a sharp subject is never touched by a blurred background.
        let behind = Self.plane(0) { _, _ in ([1, 1, 1], 1) }
        let sharp = Self.plane(df) { x, _ in ([0, 0, 0], x < 32 ? 1 : 0) }
        let image2 = ReferenceRenderer(samples: 256).render(
            LayeredScene(width: 64, height: 64, layers: [sharp, behind]), focusDisparity: df, lens: Self.lens)
        for x in 0..<32 { #expect(image2.values[(32 * 64 + x) * 3] == 0) }
        #expect(image2.values[(32 * 64 + 32) * 3] > 0.3)
    }

    /// A receding plane's disparity is exactly linear in the image row, and the ray intersection
    /// solves for it: a plane tilted in y, focused at its middle row, is sharp on that row only.
    @Test func recedingPlaneIsSharpOnlyAtTheFocusRow() {
        let plane = SceneLayer(
            name: "floor", depth: .receding(atTop: 0.5, perPixel: 0.03),
            texture: RGBATexture(width: 64, height: 64) { x, _ in (Int(x) % 2 == 0 ? [1, 1, 1] : [0, 0, 0], 1) })
        let scene = LayeredScene(width: 64, height: 64, layers: [plane])
        let df = plane.depth.disparity(atY: 32.5)
        let picture = scene.pinhole().picture
        let image = ReferenceRenderer(samples: 256).render(scene, focusDisparity: df, lens: Self.lens)
        func contrast(_ img: LinearImage, row: Int) -> Float {
            (8..<56).map { abs(img.values[(row * 64 + $0) * 3] - img.values[(row * 64 + $0 + 1) * 3]) }.reduce(0, +) / 48
        }
        #expect(abs(contrast(image, row: 32) - contrast(picture, row: 32)) < 1e-4)
        #expect(contrast(image, row: 2) < 0.2 * contrast(picture, row: 2))
        #expect(contrast(image, row: 62) < 0.2 * contrast(picture, row: 62))
    }

    static let slowChecks = ProcessInfo.processInfo.environment["CINEPACK_REFERENCE_CHECKS"] != nil

    /// Convergence of the reference in aperture samples: 256 against 1024 on every scene (slow; run
    /// with CINEPACK_REFERENCE_CHECKS=1, in release). The quality tests use 256.
    @Test(.enabled(if: slowChecks))
    func referenceConvergence() {
        print("reference convergence, 256 vs 1024 aperture samples (sRGB 8-bit):")
        print("scene        frame  PSNR all  PSNR edge  max |Δ| codes")
        for scene in ReferenceScenes.all {
            for frame in Set([0, scene.focus.count / 2, scene.focus.count - 1]).sorted() {
                let a = scene.reference(frame: frame, samples: 256)
                let b = scene.reference(frame: frame, samples: 1024)
                let band = ImageMetrics.edgeBand(disparity: scene.disparity, width: scene.width, height: scene.height)
                let ca = ImageMetrics.srgb8(a), cb = ImageMetrics.srgb8(b)
                let worst = zip(ca, cb).map { abs($0 - $1) }.max()!
                let line = [
                    scene.name.padding(toLength: 12, withPad: " ", startingAt: 0), String(format: "%5d", frame),
                    String(format: "%9.2f", ImageMetrics.psnr(ca, cb)), String(format: "%10.2f", ImageMetrics.psnr(ca, cb, mask: band)),
                    String(format: "%14.0f", worst),
                ]
                print(line.joined(separator: " "))
                #expect(ImageMetrics.psnr(ca, cb) > 45)
            }
        }
    }

    /// The scenes are fair: what the occluded content no renderer can see costs (the reference of the
    /// scene with hidden texels replaced by a smooth guess, against the true reference) stays far
    /// above the quality thresholds. Slow; run with CINEPACK_REFERENCE_CHECKS=1, in release.
    @Test(.enabled(if: slowChecks))
    func scenesAreFair() {
        print("fairness: reference with hidden content guessed vs true reference (sRGB 8-bit)")
        print("scene        frame  PSNR all  PSNR edge")
        for scene in ReferenceScenes.all {
            let guessed = scene.layers.withHiddenContentGuessed()
            for frame in Set([0, scene.focus.count / 2, scene.focus.count - 1]).sorted() {
                let truth = ImageMetrics.srgb8(scene.reference(frame: frame))
                let guess = ImageMetrics.srgb8(
                    ReferenceRenderer().render(guessed, focusDisparity: scene.focus[frame], lens: scene.lens))
                let band = ImageMetrics.edgeBand(disparity: scene.disparity, width: scene.width, height: scene.height)
                let all = ImageMetrics.psnr(truth, guess), edge = ImageMetrics.psnr(truth, guess, mask: band)
                print(
                    scene.name.padding(toLength: 12, withPad: " ", startingAt: 0) + String(format: " %5d %9.2f %10.2f", frame, all, edge))
                #expect(all >= 40 && edge >= 34, "\(scene.name)@\(frame)")
            }
        }
    }

    /// The ground truth's own frame-to-frame behaviour during the rack focus, against the flicker
    /// bounds of `BokehQualityTests.rackFocusIsTemporallyStable`. Slow; CINEPACK_REFERENCE_CHECKS=1.
    @Test(.enabled(if: slowChecks))
    func referenceRackFocusIsSmooth() {
        let scene = ReferenceScenes.named("rack")
        let frames = scene.focus.indices.map { scene.reference(frame: $0).values.map(SRGB.fromLinear) }
        var report: [String] = []
        var worstRatio = 0.0, worstMean = 0.0, worstP99 = 0.0
        for stats in BokehQualityTests.rackFlicker(frames, scene: scene) {
            worstRatio = max(worstRatio, stats.mean / stats.motion)
            worstMean = max(worstMean, stats.mean)
            worstP99 = max(worstP99, stats.p99)
            report.append(
                String(
                    format: "%d: %.3f (motion %.3f) p99 %.2f max %.2f", stats.frame, stats.mean * 255, stats.motion * 255, stats.p99 * 255,
                    stats.max * 255))
            #expect(stats.mean <= stats.meanBound)
            #expect(stats.p99 <= BokehQualityTests.rackFlickerPercentileBound)
        }
        print("reference rack flicker (1/255): " + report.joined(separator: ", "))
        print(
            String(
                format: "reference rack: worst mean %.3f/255, worst mean / motion %.3f, worst 99th percentile %.2f/255", worstMean * 255,
                worstRatio,
                worstP99 * 255))
    }
}
