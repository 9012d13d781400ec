import CinepackFormat
import Foundation
import Testing

@testable import CinepackRender

/// The split of mixed pixels at sharp-over-blurred depth edges (spec/render.md §1.4), against the
/// ray-traced reference and against the engine alone (the render without the split).
@Suite struct DepthEdgeMatteTests {
    /// The in-focus wires of the edge scenes (1 and 1.8 px wide, bright and dark, at every slant
    /// and phase) before another wall far behind (blurred to about 4 px radius); `recolour` maps
    /// the wires' and the wall's premultiplied colours.
    static func wires(
        wall: RGBATexture = Procedural.Texture.bricks(seed: 91, highContrast: true),
        recolour: ((SIMD4<Float>) -> SIMD3<Float>)? = nil
    ) -> ReferenceScene {
        let base = ReferenceScenes.wires()
        var layers = base.layers
        layers.layers[1].texture = wall
        if let recolour {
            for l in layers.layers.indices {
                var texture = layers.layers[l].texture
                for o in stride(from: 0, to: texture.values.count, by: 4) {
                    let rgb = recolour(SIMD4(texture.values[o], texture.values[o + 1], texture.values[o + 2], texture.values[o + 3]))
                    (texture.values[o], texture.values[o + 1], texture.values[o + 2]) = (rgb.x, rgb.y, rgb.z)
                }
                layers.layers[l].texture = texture
            }
        }
        return ReferenceScene(
            name: "matte-wires", summary: "in-focus wires before a blurred wall", layers: layers, lens: base.lens, focus: base.focus)
    }

    /// The engine alone on the scene's picture and disparity (what the renderer gave before the
    /// split).
    static func engineOnly(_ scene: ReferenceScene) -> LinearImage {
        scene.picture.values.withUnsafeBufferPointer { pixels in
            scene.disparity.withUnsafeBufferPointer { disparity in
                BokehEngine(
                    width: scene.width, height: scene.height, picture: pixels.baseAddress!, disparity: disparity.baseAddress!,
                    focus: scene.focus[0], lens: scene.lens, quality: .export, threads: nil, pool: LevelPool()
                ).run()
            }
        }
    }

    /// Pixels farther than `reach` px (in x and y) from every depth edge of the scene.
    static func farFromEdges(_ scene: ReferenceScene, reach: Int) -> [Bool] {
        let band = ImageMetrics.edgeBand(disparity: scene.disparity, width: scene.width, height: scene.height, radius: 0)
        var far = [Bool](repeating: true, count: band.count)
        for p in band.indices where band[p] {
            let (x, y) = (p % scene.width, p / scene.width)
            for v in max(0, y - reach)...min(scene.height - 1, y + reach) {
                for u in max(0, x - reach)...min(scene.width - 1, x + reach) { far[v * scene.width + u] = false }
            }
        }
        return far
    }

    @Test func mixedPixelsAlongThinWiresApproachTheReference() {
        let scene = Self.wires()
        let reference = scene.reference()
        let band = ImageMetrics.edgeBand(disparity: scene.disparity, width: scene.width, height: scene.height)
        let split = scene.production()
        let alone = Self.engineOnly(scene)
        let r8 = ImageMetrics.srgb8(reference)
        let withSplit = ImageMetrics.psnr(ImageMetrics.srgb8(split), r8, mask: band)
        let without = ImageMetrics.psnr(ImageMetrics.srgb8(alone), r8, mask: band)
        print(String(format: "wires edge band: %.2f dB with the split, %.2f dB engine alone", withSplit, without))
        #expect(withSplit >= without + 0.5, "edge-band PSNR \(withSplit) dB with the split, \(without) dB without")
        // Beyond the split's window (2 px) and the background's blur radius nothing changes, to
        // the bit; in-focus wire pixels away from the edges neither.
        let blur = Int((scene.lens.diameter(disparity: 0.1, focusDisparity: 1.0) / 2).rounded(.up))
        let far = Self.farFromEdges(scene, reach: 3 + blur + 2)
        var checked = 0
        for p in far.indices where far[p] {
            checked += 1
            for c in 0..<3 where split.values[3 * p + c] != alone.values[3 * p + c] {
                Issue.record("pixel (\(p % scene.width), \(p / scene.width)) changed away from every depth edge")
                return
            }
        }
        #expect(checked > 1000)
    }

    /// The split patches the picture and disparity it is handed in place; a caller that keeps its
    /// own sees them unchanged, and both ways render the same.
    @Test func patchesOnlyWhatItIsHandedOver() {
        let scene = Self.wires()
        let (picture, disparity) = (scene.picture, scene.disparity)
        let renderer = BokehRenderer(quality: .export)
        let kept = renderer.render(picture: picture, fullResolutionDisparity: disparity, focusDisparity: scene.focus[0], lens: scene.lens)
        #expect(picture.values == scene.picture.values)
        #expect(disparity == scene.disparity)
        // Fresh arrays with the same values, handed over: nobody else holds them.
        let ownPicture = LinearImage(width: scene.width, height: scene.height, values: scene.picture.values.map { $0 })
        let ownDisparity = scene.disparity.map { $0 }
        let handed = renderer.render(
            picture: consume ownPicture, fullResolutionDisparity: consume ownDisparity, focusDisparity: scene.focus[0], lens: scene.lens)
        let matte = DepthEdgeMatte(
            picture: scene.picture, disparity: scene.disparity, focusDisparity: scene.focus[0], lens: scene.lens, threads: nil)
        print("patchesOnlyWhatItIsHandedOver: \(matte.matteCount) pixels split")
        #expect(matte.matteCount > 100)
        #expect(matte.picture.values != scene.picture.values)
        #expect(handed.values == kept.values)
    }

    /// On the sharp side of a depth edge the split recovers the rims' coverage (the wires' pixels
    /// partly covered) and leaves the whole pixels of a textured subject whole: against the true
    /// coverage, the split's estimate is nearer than the label's (coverage 1). (Today 0.100
    /// against 0.252 on the wires' rims.)
    @Test func sharpSideRimsTakeTheirCoverageAndTexturedSubjectsStayWhole() {
        let rims = DepthEdgeCoverageTests.coverage(Self.wires(), sharp: true).filter { $0.truth < 0.98 }
        let label = rims.map { 1 - $0.truth }.reduce(0, +) / Float(rims.count)
        let split = rims.map { abs($0.estimate - $0.truth) }.reduce(0, +) / Float(rims.count)
        let whole = DepthEdgeCoverageTests.coverage(ReferenceScenes.subjectBeforeBackground(), sharp: true).filter { $0.truth >= 0.999 }
        let wrong = whole.map { 1 - $0.estimate }.reduce(0, +) / Float(whole.count)
        print(
            String(
                format: "sharp-side rims (%d px): mean coverage error %.3f split, %.3f label; whole textured pixels (%d px): %.3f",
                rims.count, split, label, whole.count, wrong))
        #expect(rims.count > 100 && whole.count > 100)
        #expect(split <= 0.9 * label, "rims: mean coverage error \(split) with the split, \(label) from the label")
        #expect(wrong <= 0.02, "whole textured pixels: mean coverage lost \(wrong)")
    }

    /// Where the two sides' colours cannot be told apart, nothing is split: wires of the wall's
    /// own colour over a plain wall render exactly as with the engine alone.
    @Test func sidesOfOneColourAreLeftAlone() {
        let scene = Self.wires { 0.4 * SIMD3(repeating: $0.w) }
        let matte = DepthEdgeMatte(
            picture: scene.picture, disparity: scene.disparity, focusDisparity: scene.focus[0], lens: scene.lens, threads: nil)
        #expect(matte.matteCount == 0)
        #expect(scene.production() == Self.engineOnly(scene))
    }
}
