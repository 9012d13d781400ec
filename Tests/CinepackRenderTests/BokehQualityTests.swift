import CinepackRender
import Foundation
import Testing

/// One scene frame rendered four ways — ground truth, production (export quality), preview quality,
/// naive baseline — with its depth-edge band and scores.
struct BokehEvaluation: Sendable {
    let scene: ReferenceScene
    let frame: Int
    let reference: LinearImage
    let production: LinearImage
    let preview: LinearImage
    let naive: LinearImage
    let band: [Bool]
    let productionScores: QualityScores
    let previewScores: QualityScores
    let naiveScores: QualityScores

    var label: String { scene.focus.count > 1 ? "\(scene.name)@\(frame)" : scene.name }

    init(_ scene: ReferenceScene, frame: Int) {
        self.scene = scene
        self.frame = frame
        reference = scene.reference(frame: frame)
        production = scene.production(frame: frame)
        preview = scene.production(frame: frame, quality: .preview)
        naive = scene.naive(frame: frame)
        band = ImageMetrics.edgeBand(disparity: scene.disparity, width: scene.width, height: scene.height)
        productionScores = QualityScores(production, reference: reference, band: band)
        previewScores = QualityScores(preview, reference: reference, band: band)
        naiveScores = QualityScores(naive, reference: reference, band: band)
        if let folder = ProcessInfo.processInfo.environment["CINEPACK_BOKEH_DUMP"] { dump(to: folder) }
    }

    /// For looking at failures: with CINEPACK_BOKEH_DUMP=<folder>, each evaluation writes its
    /// picture, reference, production and naive renders and its edge band as binary PPM (sRGB 8-bit).
    func dump(to folder: String) {
        func write(_ name: String, _ codes: [Float]) {
            var bytes = Array("P6 \(scene.width) \(scene.height) 255\n".utf8)
            bytes += codes.map { UInt8($0) }
            _ = FileManager.default.createFile(atPath: "\(folder)/\(label)-\(name).ppm", contents: Data(bytes))
        }
        write("picture", ImageMetrics.srgb8(scene.picture))
        write("reference", ImageMetrics.srgb8(reference))
        write("production", ImageMetrics.srgb8(production))
        write("preview", ImageMetrics.srgb8(preview))
        write("naive", ImageMetrics.srgb8(naive))
        write("band", band.flatMap { [Float]($0 ? [255, 255, 255] : [0, 0, 0]) })
    }
}

/// Every still scene, and the rack focus at its first, middle and last frames. Computed once (in
/// memory, on first use) and shared by the tests below.
let bokehEvaluations: [BokehEvaluation] = ReferenceScenes.all.flatMap { scene in
    let frames = scene.focus.count > 1 ? [0, scene.focus.count / 2, scene.focus.count - 1] : [0]
    return frames.map { BokehEvaluation(scene, frame: $0) }
}

/// Bokeh quality against the ray-traced reference (spec/render.md §1.3): PSNR/SSIM in sRGB
/// 8-bit, overall and on the depth-edge bands (within 3 px of a depth discontinuity), temporal
/// stability, and in-focus pixels left alone.
@Suite struct BokehQualityTests {
    static let minimumPSNR = 32.0
    static let minimumEdgePSNR = 28.0
    static let minimumEdgeGainOverNaive = 3.0
    /// Preview quality trades accuracy for speed (cells of 4 px: small blur circles come out
    /// softer, so scenes of mostly small blur, like the receding floor, score below the naive
    /// full-resolution gather); it must still be a fair likeness of the lens.
    static let minimumPreviewPSNR = 28.0

    @Test func productionRendererMatchesTheReference() {
        func f(_ v: Double, _ digits: Int = 2) -> String { v.isInfinite ? "inf" : String(format: "%.\(digits)f", v) }
        print("bokeh quality scenes (\(ReferenceScenes.width)×\(ReferenceScenes.height), 50 mm f/1.4):")
        for scene in ReferenceScenes.all { print("  \(scene.name): \(scene.summary)") }
        print(
            """
            bokeh quality vs the ray-traced reference (\(ReferenceScenes.width)×\(ReferenceScenes.height), \
            \(ReferenceScenes.referenceSamples) aperture samples), sRGB 8-bit; edge = within 3 px of a depth discontinuity
            scene         edge px | production: PSNR all  PSNR edge  SSIM all  SSIM edge | naive: PSNR all  PSNR edge  SSIM all  SSIM edge
            """)
        for e in bokehEvaluations {
            let p = e.productionScores, n = e.naiveScores
            let edgePixels = e.band.filter { $0 }.count
            print(
                e.label.padding(toLength: 12, withPad: " ", startingAt: 0) + String(format: " %8d |", edgePixels)
                    + " \(f(p.psnr).leftPadded(19))  \(f(p.psnrEdge).leftPadded(9))  \(f(p.ssim, 4).leftPadded(8))  \(f(p.ssimEdge, 4).leftPadded(9)) |"
                    + " \(f(n.psnr).leftPadded(14))  \(f(n.psnrEdge).leftPadded(9))  \(f(n.ssim, 4).leftPadded(8))  \(f(n.ssimEdge, 4).leftPadded(9))"
            )
        }
        print("scene         preview: PSNR all  PSNR edge  SSIM all  SSIM edge")
        for e in bokehEvaluations {
            let v = e.previewScores
            print(
                e.label.padding(toLength: 12, withPad: " ", startingAt: 0)
                    + " \(f(v.psnr).leftPadded(16))  \(f(v.psnrEdge).leftPadded(9))  \(f(v.ssim, 4).leftPadded(8))  \(f(v.ssimEdge, 4).leftPadded(9))"
            )
            #expect(v.psnr >= Self.minimumPreviewPSNR, "\(e.label): preview PSNR \(f(v.psnr)) dB, required ≥ \(Self.minimumPreviewPSNR)")
        }
        for e in bokehEvaluations {
            let p = e.productionScores, n = e.naiveScores
            #expect(p.psnr >= Self.minimumPSNR, "\(e.label): PSNR \(f(p.psnr)) dB overall, required ≥ \(Self.minimumPSNR)")
            #expect(
                p.psnrEdge >= Self.minimumEdgePSNR, "\(e.label): PSNR \(f(p.psnrEdge)) dB on edge bands, required ≥ \(Self.minimumEdgePSNR)"
            )
            #expect(
                p.psnrEdge >= n.psnrEdge + Self.minimumEdgeGainOverNaive,
                "\(e.label): edge-band PSNR \(f(p.psnrEdge)) dB vs naive \(f(n.psnrEdge)) dB, required ≥ \(Self.minimumEdgeGainOverNaive) dB better"
            )
        }
    }

    /// Pixels at the focus disparity stay sharp: within 1/255 of the picture in sRGB, wherever no
    /// nearer pixel's blur disk (radius c/2, plus 1 px for a soft disk edge) reaches them
    /// (`sharpMask`). This is where a renderer lets the blurred background bleed onto a sharp subject,
    /// or softens it. The ground truth holds the same property (checked too, so the mask is right).
    @Test func inFocusPixelsStaySharp() {
        for e in bokehEvaluations {
            let df = e.scene.focus[e.frame]
            let mask = Self.sharpMask(e.scene, focusDisparity: df)
            var checked = 0, changed = 0, referenceChanged = 0
            var worst: Float = 0
            for p in mask.indices where mask[p] {
                checked += 1
                var deviation: Float = 0, referenceDeviation: Float = 0
                for c in 0..<3 {
                    let i = p * 3 + c
                    let original = SRGB.fromLinear(e.scene.picture.values[i])
                    deviation = max(deviation, abs(SRGB.fromLinear(e.production.values[i]) - original))
                    referenceDeviation = max(referenceDeviation, abs(SRGB.fromLinear(e.reference.values[i]) - original))
                }
                worst = max(worst, deviation)
                if deviation > 1.0 / 255 + 1e-6 { changed += 1 }
                if referenceDeviation > 1.0 / 255 + 1e-6 { referenceChanged += 1 }
            }
            guard checked > 0 else { continue }  // mid-rack: nothing is in focus
            print(
                "\(e.label): \(checked) sharp in-focus pixels, \(changed) changed by more than 1/255, worst \(String(format: "%.2f", worst * 255))/255"
            )
            #expect(referenceChanged == 0, "\(e.label): the reference changes \(referenceChanged) pixels of the sharp mask")
            #expect(changed == 0, "\(e.label): \(changed) of \(checked) sharp in-focus pixels changed, worst by \(worst * 255)/255")
        }
    }

    /// In-focus pixels (blur circle under 0.05 px) wholly covered by their layer (antialiased edge
    /// pixels mix in what lies behind, which blurs), beyond the reach of every nearer pixel's blur disk
    /// (its radius c/2 plus 1 px), with no pixel blurred by more than 1 px of radius next to them.
    static func sharpMask(_ scene: ReferenceScene, focusDisparity df: Float) -> [Bool] {
        let width = scene.width, height = scene.height, d = scene.disparity
        let inFocus = d.indices.map { p in
            scene.lens.diameter(disparity: d[p], focusDisparity: df) < 0.05
                && scene.layers.layers[scene.surface[p]].texture.alpha(p % width, p / width) == 1
        }
        var mask = inFocus
        // Where the 3 × 3 window holds a pixel blurred by more than 1 px of radius, the split of
        // mixed pixels at depth edges (spec/render.md §1.4) may take a whole pixel for a mixed one.
        for q in d.indices where scene.lens.diameter(disparity: d[q], focusDisparity: df) > 2 {
            for y in max(0, q / width - 1)...min(height - 1, q / width + 1) {
                for x in max(0, q % width - 1)...min(width - 1, q % width + 1) { mask[y * width + x] = false }
            }
        }
        for q in d.indices where d[q] > df && !inFocus[q] {
            let reach = scene.lens.diameter(disparity: d[q], focusDisparity: df) / 2 + 1
            let r = Int(reach.rounded(.up)), qx = q % width, qy = q / width
            for y in max(0, qy - r)...min(height - 1, qy + r) {
                for x in max(0, qx - r)...min(width - 1, qx + r) where Float((x - qx) * (x - qx) + (y - qy) * (y - qy)) <= reach * reach {
                    mask[y * width + x] = false
                }
            }
        }
        return mask
    }

    /// A static scene with static focus renders identical frames (no random taps, no state).
    @Test(arguments: ["rack", "highlights"])
    func staticSceneRendersIdenticalFrames(_ name: String) {
        let scene = ReferenceScenes.named(name)
        let renderer = BokehRenderer(quality: .export)
        let first = scene.production()
        let again = renderer.render(
            picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: scene.focus[0], lens: scene.lens)
        let third = scene.production()
        #expect(first.values == again.values)
        #expect(first.values == third.values)
    }

    /// During the rack focus (focus moving linearly in disparity, so every blur circle grows or shrinks
    /// linearly), no frame may differ from the mean of its two neighbours by more than two bounds, on
    /// eᵢ = |S(Fᵢ) − (S(Fᵢ₋₁) + S(Fᵢ₊₁))/2| per value (S the sRGB transfer):
    ///
    /// - on average over the frame: mean eᵢ ≤ 1/255 (one 8-bit code: flicker becomes visible on flat
    ///   areas around there) + ¼ of the frame's own motion, mean |S(Fᵢ₊₁) − S(Fᵢ₋₁)| / 2;
    /// - locally: the 99th percentile of eᵢ ≤ 3/255, leaving out only the pixels that cross focus
    ///   between the two neighbours (whose blur turns from shrinking to growing, a true kink) and
    ///   their 1 px neighbourhood. Pops at depth edges — a layer membership switching, a tap pattern
    ///   jumping — touch a few percent of a frame and vanish in the mean; this catches them.
    ///
    /// A smooth change of blur has second differences well below its first differences. The ground
    /// truth here (`ReferenceRendererTests.referenceRackFocusIsSmooth`) stays under 0.25/255 on average
    /// (at most 0.33 of the motion term, at the frame where focus passes the object; most frames under
    /// 0.1) against mean bounds of 1.15–1.24/255, and its 99th percentile under 1/255, so both bounds
    /// leave a renderer room for its own discretisation.
    @Test func rackFocusIsTemporallyStable() {
        let scene = ReferenceScenes.named("rack")
        let renderer = BokehRenderer(quality: .export)
        let frames = scene.focus.map { df in
            renderer.render(picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: df, lens: scene.lens)
                .values.map(SRGB.fromLinear)
        }
        var report: [String] = []
        for stats in Self.rackFlicker(frames, scene: scene) {
            let i = stats.frame
            report.append(String(format: "%d: %.2f/%.2f p99 %.2f", i, stats.mean * 255, stats.meanBound * 255, stats.p99 * 255))
            #expect(
                stats.mean <= stats.meanBound,
                "rack frame \(i): differs from the mean of its neighbours by \(stats.mean * 255)/255 on average, bound \(stats.meanBound * 255)/255"
            )
            #expect(
                stats.p99 <= Self.rackFlickerPercentileBound,
                "rack frame \(i): 99th percentile of the difference from the mean of its neighbours \(stats.p99 * 255)/255, bound 3/255 (max \(stats.max * 255)/255)"
            )
        }
        print("rack focus flicker per frame, in 1/255 (frame: mean/bound, 99th percentile; bound 3): " + report.joined(separator: ", "))
    }

    static let rackFlickerPercentileBound = 3.0 / 255

    struct FlickerStats {
        var frame: Int
        /// Mean of eᵢ over all values, its bound, and the frame's motion term.
        var mean: Double
        var meanBound: Double
        var motion: Double
        /// 99th percentile and maximum of eᵢ outside the pixels crossing focus.
        var p99: Double
        var max: Double
    }

    /// Second-difference statistics of frames 1…n−2 of a rack focus (values already in sRGB).
    static func rackFlicker(_ frames: [[Float]], scene: ReferenceScene) -> [FlickerStats] {
        let width = scene.width, height = scene.height
        return (1..<(frames.count - 1)).map { i in
            // Pixels whose disparity lies strictly between the neighbours' focus, and 1 px around.
            let lo = min(scene.focus[i - 1], scene.focus[i + 1]), hi = max(scene.focus[i - 1], scene.focus[i + 1])
            var crossing = [Bool](repeating: false, count: width * height)
            for p in crossing.indices where scene.disparity[p] > lo && scene.disparity[p] < hi {
                let x = p % width, y = p / width
                for v in max(0, y - 1)...min(height - 1, y + 1) {
                    for u in max(0, x - 1)...min(width - 1, x + 1) { crossing[v * width + u] = true }
                }
            }
            var second: Double = 0, motion: Double = 0
            var local: [Float] = []
            for v in frames[i].indices {
                let before = frames[i - 1][v], after = frames[i + 1][v]
                let e = abs(frames[i][v] - (before + after) / 2)
                second += Double(e)
                motion += Double(abs(after - before) / 2)
                if !crossing[v / 3] { local.append(e) }
            }
            local.sort()
            second /= Double(frames[i].count)
            motion /= Double(frames[i].count)
            return FlickerStats(
                frame: i, mean: second, meanBound: 1.0 / 255 + 0.25 * motion, motion: motion,
                p99: Double(local[local.count * 99 / 100]), max: Double(local.last ?? 0))
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
