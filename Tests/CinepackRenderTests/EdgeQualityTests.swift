import CinepackFormat
import CinepackRender
import Foundation
import Testing

/// One still scene rendered from its full-resolution disparity and from disparity at 1/4 size
/// (point-sampled and area-averaged), scored against the ray-traced reference.
struct EdgeEvaluation: Sendable {
    let label: String
    let full: QualityScores
    let point: QualityScores
    let area: QualityScores
    /// The reference of the scene with its hidden content (behind nearer layers in the picture)
    /// guessed smoothly, against the true one: what even an exact renderer loses to content no
    /// picture shows (nil when not measured).
    let knowable: QualityScores?

    init(_ scene: ReferenceScene, frame: Int, reference: LinearImage, measureKnowable: Bool = false) {
        label = scene.focus.count > 1 ? "\(scene.name)@\(frame)" : scene.name
        let band = ImageMetrics.edgeBand(disparity: scene.disparity, width: scene.width, height: scene.height)
        knowable =
            measureKnowable
            ? QualityScores(
                ReferenceRenderer(samples: ReferenceScenes.referenceSamples).render(
                    scene.layers.withHiddenContentGuessed(), focusDisparity: scene.focus[frame], lens: scene.lens),
                reference: reference, band: band, ssim: false) : nil
        full = QualityScores(scene.production(frame: frame), reference: reference, band: band, ssim: false)
        point = QualityScores(
            scene.production(frame: frame, disparity: scene.disparity(downsampledBy: 4, .point)), reference: reference, band: band,
            ssim: false)
        area = QualityScores(
            scene.production(frame: frame, disparity: scene.disparity(downsampledBy: 4, .area)), reference: reference, band: band,
            ssim: false)
    }
}

/// Every reference scene (the rack focus at its middle frame) and the edge scenes, each from full
/// and quarter-size disparity. The references of the first scenes come from `bokehEvaluations`.
let edgeEvaluations: [EdgeEvaluation] =
    bokehEvaluations.filter { $0.scene.focus.count == 1 || $0.frame == $0.scene.focus.count / 2 }.map {
        EdgeEvaluation($0.scene, frame: $0.frame, reference: $0.reference)
    }
    + zip(ReferenceScenes.edges, ReferenceScenes.edgeReferences).map {
        EdgeEvaluation($0, frame: 0, reference: $1, measureKnowable: ProcessInfo.processInfo.environment["CINEPACK_BOKEH_KNOWABLE"] != nil)
    }

/// Depth edges as users see them: near-field silhouettes, thin structures, and disparity that
/// arrives at a quarter of the picture's size (phones, depth models).
@Suite struct EdgeQualityTests {
    // Floors under today's scores (regression guards; the report prints the scores). The edge scenes put high-contrast
    // bricks behind near-field silhouettes: the bricks hidden in the picture show through the blurred rim in the
    // reference, and no renderer can know them. With CINEPACK_BOKEH_KNOWABLE=1 the report adds the bound that leaves
    // (the reference of the scene with its hidden content guessed smoothly, scored against the true one): edge-band
    // 27.3, 23.4, 21.6 and 20.9 dB at radii 3, 6, 10 and 15 px, where full-size disparity scores 26.3, 23.5, 22.1 and
    // 21.4 dB; the wires 34.7 dB, where full-size disparity scores 30.0 dB. Mixed pixels at sharp-over-blurred edges
    // are split (spec/render.md §1.4): full size, subject 38.8, hair 36.0, wires 30.5, highlights 38.1 dB (beside
    // strands without their geometry, step 5: hair 34.8, wires 30.4; the split's coverage weighed by colour alone,
    // the blurred side's trust cut by its samples' spread: 38.2, 33.5, 28.2 and 38.2; no split: hair 30.6, wires
    // 26.9, highlights 35.6). What the wires still lose is the rims' coverage where the
    // wire's colour is near the bricks' (mortar behind a bright wire), the strands' most covered pixels, brighter than
    // any of their samples (taken as whole), and the two sides' colours, taken from samples up to 2 px away. From
    // 1/4-size maps (spec/render.md §2) the refinement at picture resolution, run twice, decides the pixels the
    // cell-level models leave between two depths where their colour is found decided nearby, and the split then
    // recovers the rims of the sharp side (edge band, 1/4 point / area: subject 35.7 / 35.0, occluder 30.8 / 30.6, floor
    // 33.1 / 36.1, highlights 38.8 / 38.9, rack 35.1 / 35.0, stripes 24.5 / 26.0 at 3 px down to 20.0 / 20.8 at 15 px;
    // a pixel's own depth that contradicts its map cell loses its vote where its colour is found around it: subject
    // and occluder 35.6 / 35.6 and 30.2 / 30.2 without that, before the next rule). Circles of 0.5 – 2 px are blurred
    // closer to the lens's (spec/render.md §3: the full-resolution radius catches up by 1.5 px, not 2.25 as before: rack
    // full size 34.8 -> 35.7 dB); the in-between depths an upsampled map leaves on an in-focus silhouette blur with them
    // (subject from 1/4 size 35.9 / 35.6 with the slower catch-up).
    // Thin wires and strands: an area-averaged map holds them only as mixed values, which the ceiling of step 7 lets
    // them leave for the depth their pixel share implies; a point-sampled map hits them only here and there, and step 6
    // carries the depth found at the hits along a strand between hits up to five cells apart (hair 26.5 / 25.5, 24.6 /
    // 25.2 without it). The ceiling read from the pixels' shares of the structure (rims counted in part), each pixel of
    // such a cell put at least its share of the way there: hair 1/4 area 25.5 -> 28.2, wires 22.3 -> 23.1 (occluder
    // 30.62 -> 30.59: a textured cell there already taken for a mixture). Wires the map never hits keep the
    // background's depth (wires 20.5 point-sampled). A strand's free end, one or two cells past its last hit, takes the
    // depth carried one way where it stands out in depth all the way: hair 1/4 point 26.5 -> 26.9, area 28.20 -> 28.25,
    // wires 20.40 -> 20.50.
    // Silhouette pixels the refinement leaves between the two depths (their colour found on both sides) take the side
    // whose decided pixels hold their two closest colours (step 6, undecided pixels): 1/4 point / area subject 35.7 /
    // 35.0 -> 36.5 / 35.7, occluder 30.8 / 30.6 -> 31.7 / 31.1, rack 35.1 / 35.0 -> 35.9 / 35.6, floor 33.1 / 36.1 ->
    // 33.6 / 36.2, highlights 38.8 / 38.9 -> 39.0 / 39.1, stripes at 3 px 24.5 -> 26.0 point-sampled, hair and wires
    // within 0.1 dB. With the three rules the 1/4 mean is 28.31 -> 28.90.
    /// Mean edge-band PSNR over the scenes from full-size disparity.
    static let minimumFullEdgeMean = 31.3
    /// Mean edge-band PSNR over the scenes and both samplings from 1/4-size disparity, and the
    /// least any one may score.
    static let minimumQuarterEdgeMean = 28.8
    static let minimumQuarterEdge = 20.2

    @Test func edgesHoldFromFullAndQuarterSizeDisparity() {
        func f(_ v: Double) -> String { v.isInfinite ? "inf" : String(format: "%.2f", v) }
        print("edge scenes:")
        for scene in ReferenceScenes.edges { print("  \(scene.name): \(scene.summary)") }
        print("PSNR (dB) vs the reference, sRGB 8-bit: all / edge band (within 3 px of a depth edge)")
        print("scene          full disparity     1/4 point-sampled  1/4 area-averaged  knowable bound")
        var fullEdges: [Double] = [], quarterEdges: [Double] = []
        for e in edgeEvaluations {
            print(
                e.label.padding(toLength: 14, withPad: " ", startingAt: 0)
                    + " \(f(e.full.psnr)) / \(f(e.full.psnrEdge))    \(f(e.point.psnr)) / \(f(e.point.psnrEdge))    \(f(e.area.psnr)) / \(f(e.area.psnrEdge))"
                    + (e.knowable.map { "    \(f($0.psnr)) / \(f($0.psnrEdge))" } ?? "")
            )
            fullEdges.append(e.full.psnrEdge)
            quarterEdges += [e.point.psnrEdge, e.area.psnrEdge]
            #expect(e.point.psnrEdge >= Self.minimumQuarterEdge, "\(e.label): 1/4 point-sampled edge PSNR \(f(e.point.psnrEdge)) dB")
            #expect(e.area.psnrEdge >= Self.minimumQuarterEdge, "\(e.label): 1/4 area-averaged edge PSNR \(f(e.area.psnrEdge)) dB")
        }
        let fullMean = fullEdges.reduce(0, +) / Double(fullEdges.count)
        let quarterMean = quarterEdges.reduce(0, +) / Double(quarterEdges.count)
        print(
            "edge-band mean: full \(f(fullMean)) dB (≥ \(Self.minimumFullEdgeMean)), 1/4 \(f(quarterMean)) dB (≥ \(Self.minimumQuarterEdgeMean))"
        )
        #expect(fullMean >= Self.minimumFullEdgeMean)
        #expect(quarterMean >= Self.minimumQuarterEdgeMean)
    }

    /// A blurred foreground's silhouette over a sharp background spreads as the lens spreads it:
    /// the 10–90 % width of the edge (linear light, averaged along the edge) within 20 % of the
    /// reference's, at every near-field radius, from full-size disparity and from 1/4-size.
    @Test(arguments: ReferenceScenes.nearRadii)
    func silhouetteSpreadsByItsBlurRadius(_ radius: Float) {
        let (width, height) = (96, 32)
        let lens = LensModel(focalLength35mm: 50, fNumber: 1.4, width: width)
        let df: Float = 0.5
        let near = df + 2 * radius / lens.scale(focusDisparity: df)
        let edge: Float = 42  // inside a map cell at 1/4 size
        let foreground = SceneLayer(
            name: "foreground", depth: .plane(near),
            texture: RGBATexture(width: width, height: height) { x, _ in ([0.8, 0.7, 0.6], x < edge ? 1 : 0) })
        let background = SceneLayer(
            name: "background", depth: .plane(df), texture: RGBATexture(width: width, height: height) { _, _ in ([0.04, 0.05, 0.06], 1) })
        let scene = ReferenceScene(
            name: "edge-r\(Int(radius))", summary: "bright foreground edge blurred to \(radius) px over a dark sharp background",
            layers: LayeredScene(width: width, height: height, layers: [foreground, background]), lens: lens, focus: [df])
        let reference = Self.edgeWidth(scene.reference(), rows: 8..<24)
        let renders = [
            ("full", scene.production()),
            ("1/4 point", scene.production(disparity: scene.disparity(downsampledBy: 4, .point))),
            ("1/4 area", scene.production(disparity: scene.disparity(downsampledBy: 4, .area))),
        ]
        for (label, image) in renders {
            let width = Self.edgeWidth(image, rows: 8..<24)
            print(String(format: "radius %2.0f px, %@: 10–90 %% edge width %.2f px, reference %.2f px", radius, label, width, reference))
            #expect(
                abs(width - reference) <= 0.2 * reference, "radius \(radius), \(label): edge width \(width) px vs reference \(reference) px"
            )
        }
    }

    /// The 10–90 % width of a bright-to-dark edge along x: the green channel averaged over `rows`,
    /// the levels taken at the two ends, crossings interpolated linearly.
    static func edgeWidth(_ image: LinearImage, rows: Range<Int>) -> Float {
        let profile = (0..<image.width).map { x in rows.map { image.pixel(x, $0).y }.reduce(0, +) / Float(rows.count) }
        let high = profile[0], low = profile[profile.count - 1]
        func crossing(_ fraction: Float) -> Float {
            let level = low + fraction * (high - low)
            for x in 1..<profile.count where profile[x] <= level {
                let a = profile[x - 1], b = profile[x]
                return Float(x - 1) + (a - level) / max(a - b, 1e-9)
            }
            return Float(profile.count)
        }
        return crossing(0.1) - crossing(0.9)
    }
}
