import CinepackFormat
import Foundation
import TestSupport
import Testing

@testable import CinepackRender

/// One reference scene previewed from its disparity at 1/4 size, point-sampled and area-averaged,
/// two ways: the map brought to the picture's size by the guided upsampler (spec/render.md §2) and
/// then previewed, and the preview straight from the map (spec/render.md §3), both scored against
/// the ray-traced reference.
struct PreviewMapEvaluation: Sendable {
    let label: String
    /// Per sampling: (upsampled then previewed, previewed from the map).
    let scores: [(sampling: DisparityDownsampling, upsampled: QualityScores, fromMap: QualityScores)]
    /// Sharp in-focus pixels (`BokehQualityTests.sharpMask`) more than two map cells from any
    /// pixel that is not, and how many of them
    /// each preview changes by more than 1/255 (sRGB) from the picture.
    let sharpPixels: Int
    let changed: (upsampled: Int, fromMap: Int)

    init(_ scene: ReferenceScene, frame: Int, reference: LinearImage) {
        label = scene.focus.count > 1 ? "\(scene.name)@\(frame)" : scene.name
        let band = ImageMetrics.edgeBand(disparity: scene.disparity, width: scene.width, height: scene.height)
        let sharp = Self.eroded(BokehQualityTests.sharpMask(scene, focusDisparity: scene.focus[frame]), scene.width, scene.height, by: 8)
        let renderer = BokehRenderer(quality: .preview)
        var scores: [(DisparityDownsampling, QualityScores, QualityScores)] = []
        var changed = (0, 0)
        for sampling in DisparityDownsampling.allCases {
            let map = scene.disparity(downsampledBy: 4, sampling)
            let upsampled = renderer.render(
                picture: scene.picture, fullResolutionDisparity: DisparityUpsampler.upsample(map, guide: scene.picture),
                focusDisparity: scene.focus[frame], lens: scene.lens)
            let fromMap = renderer.render(picture: scene.picture, disparity: map, focusDisparity: scene.focus[frame], lens: scene.lens)
            scores.append(
                (
                    sampling, QualityScores(upsampled, reference: reference, band: band),
                    QualityScores(fromMap, reference: reference, band: band)
                ))
            changed.0 += Self.changed(upsampled, scene.picture, where: sharp)
            changed.1 += Self.changed(fromMap, scene.picture, where: sharp)
        }
        self.scores = scores
        sharpPixels = sharp.filter { $0 }.count
        self.changed = changed
    }

    /// The pixels of `mask` whose every pixel within `r` in x and y is in it too.
    static func eroded(_ mask: [Bool], _ w: Int, _ h: Int, by r: Int) -> [Bool] {
        (0..<(w * h)).map { p in
            let (x, y) = (p % w, p / w)
            return (max(0, y - r)...min(h - 1, y + r)).allSatisfy { yy in
                (max(0, x - r)...min(w - 1, x + r)).allSatisfy { mask[yy * w + $0] }
            }
        }
    }

    /// Pixels of `mask` where `image` leaves `picture` by more than 1/255 in sRGB.
    static func changed(_ image: LinearImage, _ picture: LinearImage, where mask: [Bool]) -> Int {
        mask.indices.filter { p in
            mask[p]
                && (0..<3).contains { c in
                    abs(SRGB.fromLinear(image.values[3 * p + c]) - SRGB.fromLinear(picture.values[3 * p + c])) > 1.0 / 255 + 1e-6
                }
        }.count
    }
}

/// Preview quality straight from a disparity map smaller than the picture (spec/render.md §3):
/// as close to the reference as previewing the guided upsampling of the map, at a fraction of the
/// cost; the same determinism and smoothness as every render.
@Suite struct PreviewFromMapTests {
    /// How far previewing from the map may fall below previewing the upsampled map, in dB of
    /// PSNR: each scene and sampling overall and on its edge band, and the edge-band mean. The
    /// most lost is on hair from an area-averaged map (4.0 dB overall, 4.1 dB on the edge band):
    /// the upsampler lifts strands thinner than a cell out of their cells' mixed values, puts
    /// their pixels at the depth the cells' values imply and carries their depth between the
    /// cells that hold them (spec/render.md §2 steps 6 and 7), which the preview's cheaper path
    /// does not attempt (2.7 and 3.0 dB before the pixels took their share of the structure's
    /// depth: the preview from the map scores the same, the upsampled one 1.3 dB more); nor does
    /// it give the silhouette pixels the refinement leaves undecided a side (step 6). The two
    /// lifted the upsampled map's previews from an edge-band mean of 25.93 to 26.14 dB; the map's
    /// own, 25.44 dB, is unchanged. (With the far field of the reduced render's half-resolution
    /// level built under the tent: 26.16 and 25.45 dB.)
    static let largestLoss = 4.2
    static let largestEdgeLoss = 4.3
    static let largestMeanEdgeLoss = 0.75

    @Test func previewFromTheMapScoresLikePreviewFromTheUpsampledMap() {
        let evaluations =
            bokehEvaluations.filter { $0.scene.focus.count == 1 || $0.frame == $0.scene.focus.count / 2 }.map {
                PreviewMapEvaluation($0.scene, frame: $0.frame, reference: $0.reference)
            } + zip(ReferenceScenes.edges, ReferenceScenes.edgeReferences).map { PreviewMapEvaluation($0, frame: 0, reference: $1) }
        func f(_ v: Double) -> String { v.isInfinite ? "inf" : String(format: "%.2f", v) }
        print("preview from 1/4-size disparity, PSNR (dB) vs the reference, sRGB 8-bit: all / edge band (within 3 px of a depth edge)")
        print("scene          sampling  upsampled then previewed  previewed from the map")
        var upsampledEdges: [Double] = []
        var mapEdges: [Double] = []
        for e in evaluations {
            for (sampling, upsampled, fromMap) in e.scores {
                print(
                    e.label.padding(toLength: 14, withPad: " ", startingAt: 0) + " "
                        + sampling.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                        + " \(f(upsampled.psnr)) / \(f(upsampled.psnrEdge))             \(f(fromMap.psnr)) / \(f(fromMap.psnrEdge))")
                upsampledEdges.append(upsampled.psnrEdge)
                mapEdges.append(fromMap.psnrEdge)
                #expect(
                    fromMap.psnr >= upsampled.psnr - Self.largestLoss,
                    "\(e.label) \(sampling): \(f(fromMap.psnr)) vs \(f(upsampled.psnr)) dB")
                #expect(
                    fromMap.psnrEdge >= upsampled.psnrEdge - Self.largestEdgeLoss,
                    "\(e.label) \(sampling): edge band \(f(fromMap.psnrEdge)) vs \(f(upsampled.psnrEdge)) dB")
            }
            print(
                "  \(e.sharpPixels) sharp in-focus pixels away from depth edges; changed by more than 1/255: upsampled \(e.changed.upsampled), from the map \(e.changed.fromMap)"
            )
            #expect(e.changed.upsampled == 0 && e.changed.fromMap == 0, "\(e.label)")
        }
        let upsampledMean = upsampledEdges.reduce(0, +) / Double(upsampledEdges.count)
        let mapMean = mapEdges.reduce(0, +) / Double(mapEdges.count)
        print("edge-band mean: upsampled then previewed \(f(upsampledMean)) dB, previewed from the map \(f(mapMean)) dB")
        #expect(mapMean >= upsampledMean - Self.largestMeanEdgeLoss)
    }

    /// Cells of the reduced render take the map's mean over the rectangle they cover: a 3 × 2 map
    /// over a 40 × 40 picture (cells of 4 px; map cells of 13⅓ × 20 px).
    @Test func theMapIsAveragedOverEachCell() {
        let map = DisparityMap(width: 3, height: 2, values: [1, 2, 4, 8, 16, 32])
        var cells = [Float](repeating: .nan, count: 10 * 10)
        cells.withUnsafeMutableBufferPointer {
            PreviewMapResampler.resample(map, pictureWidth: 40, pictureHeight: 40, factor: 4, into: $0.baseAddress!)
        }
        // Cell column 3 covers x ∈ [12, 16): 4/3 px of map column 0, 8/3 px of column 1.
        let top: Float = (1.0 * 4 / 3 + 2.0 * 8 / 3) / 4
        let bottom: Float = (8.0 * 4 / 3 + 16.0 * 8 / 3) / 4
        #expect(abs(cells[3] - top) < 1e-5)
        #expect(abs(cells[50 + 3] - bottom) < 1e-5)
        // Row 4 covers y ∈ [16, 20), all in map row 0; row 5 all in map row 1.
        #expect(abs(cells[49] - 4) < 1e-5)
        #expect(abs(cells[50] - 8) < 1e-5)
        // Holes are filled from around; nothing valid gives NaN (in focus).
        let holes = DisparityMap(width: 3, height: 2, values: [1, .nan, 1, 1, 1, .infinity])
        cells.withUnsafeMutableBufferPointer {
            PreviewMapResampler.resample(holes, pictureWidth: 40, pictureHeight: 40, factor: 4, into: $0.baseAddress!)
        }
        #expect(cells.allSatisfy { abs($0 - 1) < 1e-5 })
        let empty = DisparityMap(width: 3, height: 2, values: [Float](repeating: .nan, count: 6))
        cells.withUnsafeMutableBufferPointer {
            PreviewMapResampler.resample(empty, pictureWidth: 40, pictureHeight: 40, factor: 4, into: $0.baseAddress!)
        }
        #expect(cells.allSatisfy { $0.isNaN })
    }

    /// From a map, the preview depends on nothing but its inputs (thread count, earlier frames).
    @Test func deterministicAndThreadCountIndependent() {
        let scene = ReferenceScenes.named("subject")
        for sampling in DisparityDownsampling.allCases {
            let map = scene.disparity(downsampledBy: 4, sampling)
            var renderer = BokehRenderer(quality: .preview)
            let first = renderer.render(picture: scene.picture, disparity: map, focusDisparity: scene.focus[0], lens: scene.lens)
            for threads in [1, 2, 3] {
                renderer.threads = threads
                let other = renderer.render(picture: scene.picture, disparity: map, focusDisparity: scene.focus[0], lens: scene.lens)
                #expect(other == first, "\(sampling), \(threads) threads")
            }
            #expect(first != scene.picture)
        }
    }

    /// The renderer test scene at f/1 with its disparity point-sampled at 1/4 size.
    static func quarterSizeMap(
        width w: Int, height h: Int
    ) -> (scene: (picture: LinearImage, disparity: [Float]), lens: LensModel, map: DisparityMap) {
        let scene = RendererTestScene.make(width: w, height: h)
        let map = DisparityDownsampling.point.map(scene.disparity, width: w, height: h, factor: 4)
        return (scene, RendererTestScene.lens(width: w, fNumber: 1), map)
    }

    /// `renderKeepingDisparity` (for focus aids drawn over a render) renders exactly as `render`
    /// does and gives each pixel's disparity as the render took it: in a preview from the map,
    /// a cell value where the 2 × 2 cells around the pixel agree, and between the values of
    /// those cells elsewhere (spec/render.md §3); at export, the map upsampled (§2).
    @Test func keptDisparityIsWhatTheRenderUsed() {
        let (w, h) = (160, 120)
        let (scene, lens, map) = Self.quarterSizeMap(width: w, height: h)
        let focus = map.values[15 * 40 + 20]
        let preview = BokehRenderer(quality: .preview)
        let (image, kept) = preview.renderKeepingDisparity(picture: scene.picture, disparity: map, focusDisparity: focus, lens: lens)
        #expect(image == preview.render(picture: scene.picture, disparity: map, focusDisparity: focus, lens: lens))
        #expect(kept.count == w * h)
        var agreeing = 0
        for y in 0..<h {
            for x in 0..<w {
                let (i0, i1, _, _) = PreviewUpsampler.position(x, count: 40, factor: 4)
                let (j0, j1, _, _) = PreviewUpsampler.position(y, count: 30, factor: 4)
                let cells = [map.values[j0 * 40 + i0], map.values[j0 * 40 + i1], map.values[j1 * 40 + i0], map.values[j1 * 40 + i1]]
                let d = kept[y * w + x]
                if cells.allSatisfy({ $0 == cells[0] }) {
                    #expect(d == cells[0], "pixel \(x), \(y)")
                    agreeing += 1
                } else {
                    #expect(d >= cells.min()! - 1e-5 && d <= cells.max()! + 1e-5, "pixel \(x), \(y)")
                }
            }
        }
        #expect(agreeing > w * h / 2)

        let export = BokehRenderer(quality: .export)
        let (exported, upsampled) = export.renderKeepingDisparity(picture: scene.picture, disparity: map, focusDisparity: focus, lens: lens)
        #expect(upsampled == DisparityUpsampler.upsample(map, guide: scene.picture))
        #expect(exported == export.render(picture: scene.picture, fullResolutionDisparity: upsampled, focusDisparity: focus, lens: lens))
    }

    /// During a rack focus from a 1/4-size map, no frame-to-frame change much larger than the
    /// typical one (the guided choice near steps switches on and off smoothly).
    @Test func aRackFocusFromAMapChangesSmoothly() {
        let (w, h) = (160, 120)
        let (scene, lens, map) = Self.quarterSizeMap(width: w, height: h)
        let renderer = BokehRenderer(quality: .preview)
        var previous: LinearImage? = nil
        var steps: [Float] = []
        for i in 0...30 {
            let frame = renderer.render(picture: scene.picture, disparity: map, focusDisparity: 0.3 + Float(i) * 0.1, lens: lens)
            if let previous {
                let sum = zip(frame.values, previous.values).reduce(Float(0)) { $0 + abs(SRGB.fromLinear($1.0) - SRGB.fromLinear($1.1)) }
                steps.append(sum / Float(frame.values.count))
            }
            previous = frame
        }
        let sorted = steps.sorted()
        #expect(sorted.last! <= 3 * sorted[sorted.count / 2], "steps \(steps)")
    }
}
