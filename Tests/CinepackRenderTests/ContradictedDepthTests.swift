import CinepackFormat
import CinepackRender
import Foundation
import Testing

/// The refinement's vote of a pixel's own depth where that depth contradicts the map cell the
/// pixel lies in (spec/render.md §2 step 6): a textured background whose stripes share a colour
/// with the textured subject in front of it, the silhouette inside map cells.
@Suite struct ContradictedDepthTests {
    static let (width, height) = (96, 64)
    static let (near, far): (Float, Float) = (1, 0.1)

    /// A disc (checks of a light and a dark green, 3 px) at `near` over `far` diagonal stripes of
    /// yellow and blue (4 px), the yellow close to the light green: colour alone cannot tell a
    /// yellow pixel from the subject's.
    static func scene() -> (picture: LinearImage, truth: [Float]) {
        var picture = LinearImage(width: width, height: height)
        var truth = [Float](repeating: far, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let (dx, dy) = (Float(x) + 0.5 - 45, Float(y) + 0.5 - 33)
                let k = y * width + x
                if dx * dx + dy * dy < 21 * 21 {
                    let light = (x / 3 + y / 3) % 2 == 0
                    picture.setPixel(x, y, light ? SIMD3(0.67, 0.71, 0.58) : SIMD3(0.41, 0.55, 0.38))
                    truth[k] = near
                } else {
                    let yellow = ((x + y) / 4) % 2 == 0
                    picture.setPixel(x, y, yellow ? SIMD3(0.77, 0.70, 0.38) : SIMD3(0.21, 0.48, 0.62))
                }
            }
        }
        return (picture, truth)
    }

    /// Most pixels within 2 px of the silhouette keep their side: a yellow background pixel the
    /// guided model puts on the subject, in a map cell that says background, does not vote for
    /// that depth where the window holds its colour, and takes the depth of the yellow around it.
    /// Without the rule 30.5 % (point-sampled) and 29.9 % (area-averaged) of them end on the wrong
    /// side of the middle depth; with it 26.0 % and 27.5 %, and 18.2 % and 21.6 % once the pixels
    /// the refinement leaves undecided take a side (`UndecidedDepthTests`).
    @Test(arguments: DisparityDownsampling.allCases)
    func pixelsAtTheSilhouetteKeepTheirSide(_ sampling: DisparityDownsampling) {
        let (picture, truth) = Self.scene()
        let result = DisparityUpsampler.upsample(
            sampling.map(truth, width: Self.width, height: Self.height, factor: 4), guide: picture)
        let (band, wrong) = SilhouetteBand(result, truth: truth, width: Self.width, height: Self.height).counts
        let share = Double(wrong) / Double(band)
        print(
            String(
                format: "%@: %d of %d pixels within 2 px of the silhouette on the wrong side (%.1f %%)", sampling.rawValue, wrong,
                band, 100 * share))
        #expect(share <= 0.23, "\(wrong) of \(band) pixels on the wrong side")
    }
}

/// Pixels the refinement leaves between the two depths of a step (spec/render.md §2 step 6,
/// undecided pixels): the subject scene's checked silhouette before its striped background, whose
/// orange shares a hue with the subject's light checks, so that the refinement's mean finds many
/// silhouette pixels' colours on both sides.
@Suite struct UndecidedDepthTests {
    /// Within 2 px of the silhouette, the pixels whose depth lies more than a quarter of the step
    /// from their true depth (in between, or on the wrong side), and those on the wrong side of
    /// the middle. Without the rule 11.3 % (point-sampled) and 10.0 % (area-averaged) are off,
    /// with it 5.6 % and 8.5 %; on the wrong side 2.0 % and 1.5 % without, 2.4 % and 1.9 % with.
    @Test(arguments: DisparityDownsampling.allCases)
    func silhouettePixelsTakeTheirSide(_ sampling: DisparityDownsampling) {
        let scene = ReferenceScenes.named("subject")
        let (width, height, truth) = (scene.width, scene.height, scene.disparity)
        let result = DisparityUpsampler.upsample(
            sampling.map(truth, width: width, height: height, factor: 4), guide: scene.picture)
        let silhouette = SilhouetteBand(result, truth: truth, width: width, height: height)
        let (band, wrong) = silhouette.counts
        let off = silhouette.off
        let (offShare, wrongShare) = (Double(off) / Double(band), Double(wrong) / Double(band))
        print(
            String(
                format: "%@: of %d pixels within 2 px of the silhouette %.1f %% off their depth, %.1f %% on the wrong side",
                sampling.rawValue, band, 100 * offShare, 100 * wrongShare))
        #expect(offShare <= 0.09, "\(off) of \(band) pixels off their depth")
        #expect(wrongShare <= 0.03, "\(wrong) of \(band) pixels on the wrong side")
    }
}

/// The pixels within 2 px of a two-depth silhouette (some pixel of their 5 × 5 window at the
/// other true depth), and how many of them an upsampled map gets wrong.
struct SilhouetteBand {
    /// The band's pixel count, and those whose depth lies on the wrong side of the middle depth.
    let counts: (band: Int, wrong: Int)
    /// Those whose depth lies more than a quarter of the step from their true depth.
    let off: Int

    init(_ result: [Float], truth: [Float], width: Int, height: Int) {
        let (near, far) = (truth.max()!, truth.min()!)
        let middle = 0.5 * (near + far)
        var (band, off, wrong) = (0, 0, 0)
        for y in 2..<(height - 2) {
            for x in 2..<(width - 2) {
                let k = y * width + x
                let step = (-2...2).contains { v in (-2...2).contains { u in truth[(y + v) * width + x + u] != truth[k] } }
                guard step else { continue }
                band += 1
                if abs(result[k] - truth[k]) > 0.25 * (near - far) { off += 1 }
                if (truth[k] > middle) != (result[k] > middle) { wrong += 1 }
            }
        }
        (counts, self.off) = ((band, wrong), off)
    }
}
