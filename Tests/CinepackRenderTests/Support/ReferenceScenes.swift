import CinepackFormat
import CinepackRender
import Foundation

/// One synthetic test scene for the bokeh quality tests: its layers, the lens, and the focus at each
/// frame (one frame for stills, 30 for the rack focus). What the production renderer is given — the
/// pinhole picture and its full-resolution disparity — is computed once from the layers.
struct ReferenceScene: Sendable {
    let name: String
    /// What the scene exercises, for the report.
    let summary: String
    let layers: LayeredScene
    let lens: LensModel
    /// Focus disparity per frame.
    let focus: [Float]
    /// The all-in-focus picture (front-to-back composite at pixel centres, linear light).
    let picture: LinearImage
    /// Per-pixel disparity of the front-most (at least half-covering) layer, diopters.
    let disparity: [Float]
    /// Index of that layer per pixel.
    let surface: [Int]

    init(name: String, summary: String, layers: LayeredScene, lens: LensModel, focus: [Float]) {
        self.name = name
        self.summary = summary
        self.layers = layers
        self.lens = lens
        self.focus = focus
        (picture, disparity, surface) = layers.pinhole()
    }

    var width: Int { layers.width }
    var height: Int { layers.height }

    /// The ground truth at `frame`.
    func reference(frame: Int = 0, samples: Int = ReferenceScenes.referenceSamples) -> LinearImage {
        ReferenceRenderer(samples: samples).render(layers, focusDisparity: focus[frame], lens: lens)
    }

    /// The naive baseline at `frame`.
    func naive(frame: Int = 0) -> LinearImage {
        NaiveGatherRenderer().render(picture: picture, disparity: disparity, focusDisparity: focus[frame], lens: lens)
    }

    /// The disparity at 1/`factor` of the picture's size (cells of `factor × factor` pixels).
    func disparity(downsampledBy factor: Int, _ sampling: DisparityDownsampling) -> DisparityMap {
        sampling.map(disparity, width: width, height: height, factor: factor)
    }

    /// The production renderer at export quality from a disparity map of any size (upsampled by
    /// the renderer, guided by the picture).
    func production(frame: Int = 0, disparity map: DisparityMap) -> LinearImage {
        BokehRenderer(quality: .export).render(picture: picture, disparity: map, focusDisparity: focus[frame], lens: lens)
    }

    /// The production renderer at export quality at `frame`.
    func production(frame: Int = 0, quality: RenderQuality = .export) -> LinearImage {
        BokehRenderer(quality: quality).render(
            picture: picture, fullResolutionDisparity: disparity, focusDisparity: focus[frame], lens: lens)
    }
}

/// The six scenes of user-visible failure modes, all 160×120 seen
/// through a 50 mm-equivalent lens at f/1.4 (so the lens model gives about 8–8.6 px of blur-circle
/// diameter per diopter at this width): blur circles of 5–12.5 px, like 60–150 px at 1920 wide.
enum ReferenceScenes {
    typealias Noise = Procedural.Noise
    typealias Shape = Procedural.Shape
    typealias Texture = Procedural.Texture
    typealias Hash = Procedural.Hash

    static let width = 160
    static let height = 120
    static let lens = LensModel(focalLength35mm: 50, fNumber: 1.4, width: width)
    /// Aperture samples of the reference (a converged count: see `ReferenceRendererTests`).
    static let referenceSamples = 256
    static let rackFrames = 30

    /// The still scenes, then the rack focus.
    static let all: [ReferenceScene] = [
        subjectBeforeBackground(), nearOccluder(), thinStructures(), recedingFloor(), pointHighlights(), rackFocus(),
    ]

    static func named(_ name: String) -> ReferenceScene { (all + edges).first { $0.name == name }! }

    /// Near-field blur radii (px) of the silhouette scenes: the common case on phone lenses.
    static let nearRadii: [Float] = [3, 6, 10, 15]

    /// The edge scenes: a saturated striped foreground blurred to each radius of `nearRadii` over a
    /// sharp, high-contrast brick wall, and hair-like lines in focus before a blurred wall.
    static let edges: [ReferenceScene] = nearRadii.map(stripesOverBricks) + [wires()]
    /// The edge scenes' references, ray-traced once for every test that scores against them.
    static let edgeReferences: [LinearImage] = edges.map { $0.reference() }

    /// Focus of the silhouette scenes: the brick wall, 2 m away.
    static let wallDisparity: Float = 0.5

    // MARK: Scenes

    /// A subject in focus (1.5 D, 0.67 m) before a far background (0.1 D, 10 m): 12 px background blur.
    static func subjectBeforeBackground() -> ReferenceScene {
        let background = SceneLayer(
            name: "background", depth: .plane(0.1),
            texture: Texture.stripesAndNoise(seed: 11, a: [0.55, 0.32, 0.10], b: [0.06, 0.16, 0.45]))
        let subject = SceneLayer(
            name: "subject", depth: .plane(1.5),
            texture: Texture.shape(seed: 12, checker: 4, a: [0.62, 0.42, 0.30], b: [0.25, 0.12, 0.08]) { x, y in
                Shape.union(
                    Shape.ellipse(x, y, cx: 72, cy: 38, rx: 15, ry: 18), Shape.roundedBox(x, y, x0: 44, y0: 60, x1: 102, y1: 140, r: 14))
            })
        return ReferenceScene(
            name: "subject", summary: "subject (1.5 D, in focus) before a far background (0.1 D)",
            layers: LayeredScene(width: width, height: height, layers: [subject, background]), lens: lens, focus: [1.5])
    }

    /// A near occluder (2.5 D: a branch with a leaf) in front of the subject in focus (1.0 D), far
    /// background (0.1 D): the blurred occluder must spill over the sharp subject.
    static func nearOccluder() -> ReferenceScene {
        let background = SceneLayer(
            name: "background", depth: .plane(0.1),
            texture: Texture.diagonalStripesAndNoise(seed: 21, a: [0.20, 0.45, 0.60], b: [0.70, 0.65, 0.35]))
        let subject = SceneLayer(
            name: "subject", depth: .plane(1.0),
            texture: Texture.shape(seed: 22, checker: 3, a: [0.70, 0.74, 0.60], b: [0.42, 0.56, 0.40], grain: 0.2) { x, y in
                Shape.ellipse(x, y, cx: 96, cy: 62, rx: 40, ry: 38)
            })
        let occluder = SceneLayer(
            name: "occluder", depth: .plane(2.5),
            texture: Texture.shape(seed: 23, checker: 2, a: [0.22, 0.12, 0.05], b: [0.40, 0.26, 0.12]) { x, y in
                Shape.union(
                    Shape.segment(x, y, ax: 52, ay: -10, bx: 70, by: 130, halfWidth: 6), Shape.ellipse(x, y, cx: 78, cy: 84, rx: 13, ry: 7))
            })
        return ReferenceScene(
            name: "occluder", summary: "near occluder (2.5 D) over the subject in focus (1.0 D), background 0.1 D",
            layers: LayeredScene(width: width, height: height, layers: [occluder, subject, background]), lens: lens, focus: [1.0])
    }

    /// Hair: 1–2 px strands (1.2 D, in focus, bright and dark) against a far background (0.05 D).
    static func thinStructures() -> ReferenceScene {
        let background = SceneLayer(
            name: "background", depth: .plane(0.05),
            texture: Texture.stripesAndNoise(seed: 31, a: [0.30, 0.50, 0.25], b: [0.55, 0.20, 0.35]))
        var strands: [(x0: Float, amplitude: Float, period: Float, phase: Float, halfWidth: Float, colour: SIMD3<Float>)] = []
        var rng = Hash(seed: 32)
        for s in 0..<14 {
            let bright = s % 3 != 0
            strands.append(
                (
                    x0: 12 + Float(s) * 10.5 + rng.next() * 2, amplitude: 2 + rng.next() * 4, period: 40 + rng.next() * 50,
                    phase: rng.next() * 6.28, halfWidth: s % 2 == 0 ? 0.5 : 1.0,
                    colour: bright ? [0.85, 0.62, 0.30] : [0.03, 0.02, 0.015]
                ))
        }
        let hair = SceneLayer(
            name: "hair", depth: .plane(1.2),
            texture: RGBATexture(width: width, height: height) { x, y in
                // Strands over each other (premultiplied "over"), then the head at the bottom.
                var over = Procedural.Over()
                for strand in strands where y > 4 {
                    let centre = strand.x0 + strand.amplitude * sin(2 * Float.pi * y / strand.period + strand.phase)
                    let slope = strand.amplitude * 2 * Float.pi / strand.period * cos(2 * Float.pi * y / strand.period + strand.phase)
                    let distance = abs(x - centre) / (1 + slope * slope).squareRoot()
                    over.add(Shape.coverage(distance - strand.halfWidth), strand.colour)
                }
                over.add(Shape.coverage(Shape.ellipse(x, y, cx: 80, cy: 138, rx: 50, ry: 36)), SIMD3(0.45, 0.30, 0.20))
                return over.straight
            })
        return ReferenceScene(
            name: "hair", summary: "1–2 px strands (1.2 D, in focus) against a far background (0.05 D)",
            layers: LayeredScene(width: width, height: height, layers: [hair, background]), lens: lens, focus: [1.2])
    }

    /// A receding floor (from 0.5 D at its far edge, row 40, to 2.3 D at the bottom) ending before a
    /// far wall (0.1 D), with a pillar standing on it in focus (1.1 D).
    static func recedingFloor() -> ReferenceScene {
        let gradient: Float = 1.8 / 80
        let floorDepth = LayerDepth.receding(atTop: 0.5 - 40 * gradient, perPixel: gradient)
        let wall = SceneLayer(name: "wall", depth: .plane(0.1), texture: Texture.bricks(seed: 41))
        let floor = SceneLayer(
            name: "floor", depth: floorDepth,
            texture: RGBATexture(width: width, height: height) { x, y in
                let d = max(floorDepth.disparity(atY: y), 0.01)
                let z = 1 / d  // metres
                let u = (x - 80) * z / 222  // metres across (222 px focal length at this width)
                let check = (Int((u / 0.06).rounded(.down)) + Int((z / 0.2).rounded(.down))) & 1 == 0
                let n = Noise.value(x, y, cell: 3, seed: 42)
                let base: SIMD3<Float> = check ? [0.50, 0.42, 0.30] : [0.12, 0.10, 0.09]
                return (base * (0.75 + 0.5 * n), Shape.coverage(40 - y))
            })
        let pillarFoot: Float = 40 + (1.1 - 0.5) / gradient
        let pillar = SceneLayer(
            name: "pillar", depth: .plane(1.1),
            texture: Texture.shape(seed: 43, checker: 3, a: [0.70, 0.72, 0.78], b: [0.30, 0.12, 0.15]) { x, y in
                Shape.roundedBox(x, y, x0: 100, y0: 14, x1: 124, y1: pillarFoot, r: 1)
            })
        return ReferenceScene(
            name: "floor", summary: "receding floor (0.5 → 2.3 D) before a far wall (0.1 D), pillar in focus (1.1 D)",
            layers: LayeredScene(width: width, height: height, layers: [pillar, floor, wall]), lens: lens, focus: [1.1])
    }

    /// Small emitters 25–50× brighter than the rest (linear light) on a dark far background (0.05 D),
    /// some just behind the subject in focus (1.5 D).
    static func pointHighlights() -> ReferenceScene {
        func subjectShape(_ x: Float, _ y: Float) -> Float { Shape.ellipse(x, y, cx: 58, cy: 66, rx: 22, ry: 30) }
        var rng = Hash(seed: 51)
        var lights: [(x: Float, y: Float, level: Float, tint: SIMD3<Float>)] = []
        while lights.count < 16 {
            let x = 8 + rng.next() * 144, y = 8 + rng.next() * 104, level = 2.5 + 2.5 * rng.next()
            // None hidden behind the subject, even partly: what the picture cannot show, no renderer can blur.
            guard subjectShape(x, y) > 3 else { continue }
            lights.append((x: x, y: y, level: level, tint: lights.count % 2 == 0 ? [1.0, 0.8, 0.55] : [0.7, 0.85, 1.0]))
        }
        // Two just outside the subject's silhouette: their disks must not leak onto the sharp subject.
        lights.append((x: 86, y: 50, level: 4, tint: [1, 1, 1]))
        lights.append((x: 60, y: 101, level: 3, tint: [1, 0.9, 0.7]))
        let background = SceneLayer(
            name: "background", depth: .plane(0.05),
            texture: RGBATexture(width: width, height: height) { x, y in
                let n = Noise.value(x, y, cell: 6, seed: 52) * 0.7 + Noise.value(x, y, cell: 2, seed: 53) * 0.3
                var rgb = SIMD3<Float>(0.04, 0.05, 0.09) + n * SIMD3(0.08, 0.07, 0.06)
                for light in lights {
                    let r = ((x - light.x) * (x - light.x) + (y - light.y) * (y - light.y)).squareRoot()
                    rgb += light.level * Shape.coverage(r - 1.2) * light.tint
                }
                return (rgb, 1)
            })
        let subject = SceneLayer(
            name: "subject", depth: .plane(1.5),
            texture: Texture.shape(seed: 54, checker: 4, a: [0.35, 0.30, 0.28], b: [0.12, 0.10, 0.14], subjectShape))
        return ReferenceScene(
            name: "highlights", summary: "emitters 25–50× the background (0.05 D) around a subject in focus (1.5 D)",
            layers: LayeredScene(width: width, height: height, layers: [subject, background]), lens: lens, focus: [1.5])
    }

    /// A saturated striped figure (head and shoulders, red and blue 3 px stripes) in front of a
    /// high-contrast brick wall in focus: the figure's disparity puts its blur-circle radius at
    /// `radius` px, so its silhouette must spread softly over the sharp bricks by that much.
    static func stripesOverBricks(radius: Float) -> ReferenceScene {
        let df = wallDisparity
        let near = df + 2 * radius / lens.scale(focusDisparity: df)
        let wall = SceneLayer(name: "wall", depth: .plane(df), texture: Texture.bricks(seed: 71, highContrast: true))
        let figure = SceneLayer(
            name: "figure", depth: .plane(near),
            texture: RGBATexture(width: width, height: height) { x, y in
                let distance = Shape.union(
                    Shape.ellipse(x, y, cx: 62, cy: 42, rx: 17, ry: 21), Shape.roundedBox(x, y, x0: 26, y0: 70, x1: 98, y1: 150, r: 18))
                let stripe = (x + 0.4 * y).truncatingRemainder(dividingBy: 6) < 3
                let colour: SIMD3<Float> = stripe ? [0.85, 0.03, 0.02] : [0.02, 0.06, 0.80]
                return (colour * (0.85 + 0.3 * Noise.value(x, y, cell: 3, seed: 72)), Shape.coverage(distance))
            })
        return ReferenceScene(
            name: "stripes-r\(Int(radius))",
            summary: "striped figure (\(String(format: "%.2f", near)) D, \(Int(radius)) px blur radius) over sharp bricks (\(df) D)",
            layers: LayeredScene(width: width, height: height, layers: [figure, wall]), lens: lens, focus: [df])
    }

    /// Hair-like lines: 1–2 px wires and strands (1.0 D, in focus), bright and dark, some nearly
    /// horizontal, some crossing, before a high-contrast brick wall far behind (0.1 D).
    static func wires() -> ReferenceScene {
        let wall = SceneLayer(name: "wall", depth: .plane(0.1), texture: Texture.bricks(seed: 81, highContrast: true))
        var lines: [(ax: Float, ay: Float, bx: Float, by: Float, halfWidth: Float, colour: SIMD3<Float>)] = []
        var rng = Hash(seed: 82)
        for k in 0..<9 {
            let ax = rng.next() * 160, bx = rng.next() * 160
            let ay = k % 3 == 0 ? rng.next() * 120 : -5, by = k % 3 == 0 ? rng.next() * 120 : 125
            lines.append(
                (
                    ax: ax, ay: ay, bx: bx, by: by, halfWidth: k % 2 == 0 ? 0.5 : 0.9,
                    colour: k % 3 == 1 ? [0.04, 0.03, 0.03] : [0.90, 0.85, 0.70]
                ))
        }
        let subject = SceneLayer(
            name: "wires", depth: .plane(1.0),
            texture: RGBATexture(width: width, height: height) { x, y in
                var over = Procedural.Over()
                for line in lines {
                    over.add(
                        Shape.coverage(Shape.segment(x, y, ax: line.ax, ay: line.ay, bx: line.bx, by: line.by, halfWidth: line.halfWidth)),
                        line.colour)
                }
                over.add(Shape.coverage(Shape.roundedBox(x, y, x0: 118, y0: 20, x1: 134, y1: 130, r: 2)), SIMD3(0.30, 0.32, 0.36))
                return over.straight
            })
        return ReferenceScene(
            name: "wires", summary: "1–2 px wires and strands (1.0 D, in focus) before high-contrast bricks (0.1 D)",
            layers: LayeredScene(width: width, height: height, layers: [subject, wall]), lens: lens, focus: [1.0])
    }

    /// A 30-frame rack focus from the subject (1.5 D) to the background (0.1 D), linear in disparity,
    /// with an object in between (0.6 D).
    static func rackFocus() -> ReferenceScene {
        let background = SceneLayer(
            name: "background", depth: .plane(0.1),
            texture: Texture.checksAndNoise(seed: 61, a: [0.55, 0.50, 0.42], b: [0.28, 0.30, 0.40]))
        let middle = SceneLayer(
            name: "object", depth: .plane(0.6),
            texture: Texture.shape(seed: 62, checker: 3, a: [0.15, 0.45, 0.20], b: [0.75, 0.70, 0.20]) { x, y in
                Shape.roundedBox(x, y, x0: 112, y0: 30, x1: 146, y1: 84, r: 4)
            })
        let subject = SceneLayer(
            name: "subject", depth: .plane(1.5),
            texture: Texture.shape(seed: 63, checker: 4, a: [0.70, 0.45, 0.35], b: [0.20, 0.22, 0.40]) { x, y in
                Shape.union(
                    Shape.ellipse(x, y, cx: 58, cy: 40, rx: 14, ry: 17), Shape.roundedBox(x, y, x0: 32, y0: 60, x1: 86, y1: 140, r: 12))
            })
        let focus = (0..<rackFrames).map { 1.5 + (0.1 - 1.5) * Float($0) / Float(rackFrames - 1) }
        return ReferenceScene(
            name: "rack", summary: "rack focus over 30 frames: subject 1.5 D → background 0.1 D (object at 0.6 D)",
            layers: LayeredScene(width: width, height: height, layers: [subject, middle, background]), lens: lens, focus: focus)
    }
}

// MARK: - Procedural textures (deterministic, detailed enough that blur is measurable)

/// Procedural helpers of the reference scenes (namespaced: the test target holds other helpers).
enum Procedural {
    /// A tiny deterministic hash stream for scene layout.
    struct Hash {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> Float {
            state &+= 0x9E37_79B9_7F4A_7C15
            return Noise.unit(state)
        }
    }

    /// Coverages composited front to back ("over", premultiplied), read back as straight colour.
    struct Over {
        var premultiplied = SIMD3<Float>(repeating: 0)
        var alpha: Float = 0

        mutating func add(_ coverage: Float, _ colour: SIMD3<Float>) {
            premultiplied += (1 - alpha) * coverage * colour
            alpha += (1 - alpha) * coverage
        }

        var straight: (rgb: SIMD3<Float>, alpha: Float) { (alpha > 0 ? premultiplied / alpha : premultiplied, alpha) }
    }

    enum Noise {
        static func unit(_ v: UInt64) -> Float {
            var z = v
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Float(z >> 40) / Float(1 << 24)
        }

        static func lattice(_ i: Int, _ j: Int, seed: UInt64) -> Float {
            unit(
                UInt64(bitPattern: Int64(i)) &* 0x1000_0000_01B3 ^ UInt64(bitPattern: Int64(j)) &* 0x9E37_79B9 ^ seed
                    &* 0xD6E8_FEB8_6659_FD93)
        }

        /// Smooth value noise in [0, 1) with lattice spacing `cell` pixels.
        static func value(_ x: Float, _ y: Float, cell: Float, seed: UInt64) -> Float {
            let u = x / cell, v = y / cell
            let i = Int(u.rounded(.down)), j = Int(v.rounded(.down))
            var fu = u - Float(i), fv = v - Float(j)
            fu = fu * fu * (3 - 2 * fu)
            fv = fv * fv * (3 - 2 * fv)
            let a = lattice(i, j, seed: seed), b = lattice(i + 1, j, seed: seed)
            let c = lattice(i, j + 1, seed: seed), d = lattice(i + 1, j + 1, seed: seed)
            return (a * (1 - fu) + b * fu) * (1 - fv) + (c * (1 - fu) + d * fu) * fv
        }
    }

    /// Signed distances in pixels (negative inside) and their 1 px antialiased coverage.
    enum Shape {
        static func coverage(_ signedDistance: Float) -> Float { min(max(0.5 - signedDistance, 0), 1) }

        static func union(_ a: Float, _ b: Float) -> Float { min(a, b) }

        /// Approximate signed distance to an ellipse (exact for circles).
        static func ellipse(_ x: Float, _ y: Float, cx: Float, cy: Float, rx: Float, ry: Float) -> Float {
            let nx = (x - cx) / rx, ny = (y - cy) / ry
            let r = (nx * nx + ny * ny).squareRoot()
            return (r - 1) * min(rx, ry)
        }

        static func roundedBox(_ x: Float, _ y: Float, x0: Float, y0: Float, x1: Float, y1: Float, r: Float) -> Float {
            let cx = (x0 + x1) / 2, cy = (y0 + y1) / 2
            let qx = abs(x - cx) - ((x1 - x0) / 2 - r), qy = abs(y - cy) - ((y1 - y0) / 2 - r)
            let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
            return outside + min(max(qx, qy), 0) - r
        }

        static func segment(_ x: Float, _ y: Float, ax: Float, ay: Float, bx: Float, by: Float, halfWidth: Float) -> Float {
            let px = x - ax, py = y - ay, dx = bx - ax, dy = by - ay
            let t = min(max((px * dx + py * dy) / (dx * dx + dy * dy), 0), 1)
            let ex = px - t * dx, ey = py - t * dy
            return (ex * ex + ey * ey).squareRoot() - halfWidth
        }
    }

    enum Texture {
        /// Vertical stripes (7 px) and horizontal bands (11 px) over two-scale noise, mixing two colours.
        static func stripesAndNoise(seed: UInt64, a: SIMD3<Float>, b: SIMD3<Float>) -> RGBATexture {
            RGBATexture(width: ReferenceScenes.width, height: ReferenceScenes.height) { x, y in
                let mix = Noise.value(x, y, cell: 13, seed: seed)
                let stripes = 0.65 + 0.35 * sin(2 * Float.pi * x / 7) * sin(2 * Float.pi * y / 11 + 1)
                let grain = 0.8 + 0.4 * Noise.value(x, y, cell: 2, seed: seed + 1)
                return ((a * (1 - mix) + b * mix) * stripes * grain, 1)
            }
        }

        /// Diagonal stripes (period 6 px) over noise.
        static func diagonalStripesAndNoise(seed: UInt64, a: SIMD3<Float>, b: SIMD3<Float>) -> RGBATexture {
            RGBATexture(width: ReferenceScenes.width, height: ReferenceScenes.height) { x, y in
                let stripe: Float = (x + y).truncatingRemainder(dividingBy: 6) < 3 ? 1 : 0
                let grain = 0.75 + 0.5 * Noise.value(x, y, cell: 3, seed: seed)
                return ((a * (1 - stripe) + b * stripe) * grain, 1)
            }
        }

        /// 5 px checks over two-scale noise.
        static func checksAndNoise(seed: UInt64, a: SIMD3<Float>, b: SIMD3<Float>) -> RGBATexture {
            RGBATexture(width: ReferenceScenes.width, height: ReferenceScenes.height) { x, y in
                let check = (Int(x / 5) + Int(y / 5)) & 1 == 0
                let grain = 0.7 + 0.6 * Noise.value(x, y, cell: 9, seed: seed) * Noise.value(x, y, cell: 2, seed: seed + 1)
                return ((check ? a : b) * grain, 1)
            }
        }

        /// Bricks 14 × 6 px with 1 px mortar, each brick its own shade; `highContrast`: 1.5 px
        /// near-white mortar and dark to bright bricks.
        static func bricks(seed: UInt64, highContrast: Bool = false) -> RGBATexture {
            let joint: Float = highContrast ? 1.5 : 1
            let mortarColour: SIMD3<Float> = highContrast ? [0.85, 0.84, 0.80] : [0.55, 0.55, 0.52]
            let brickColour: SIMD3<Float> = highContrast ? [0.55, 0.20, 0.10] : [0.45, 0.16, 0.09]
            let (darkest, grainSpan): (Float, Float) = highContrast ? (0.15, 0.4) : (0.6, 0.3)
            return RGBATexture(width: ReferenceScenes.width, height: ReferenceScenes.height) { x, y in
                let row = Int(y / 6)
                let shifted = x + (row & 1 == 0 ? 0 : 7)
                let column = Int(shifted / 14)
                let mortar = y.truncatingRemainder(dividingBy: 6) < joint || shifted.truncatingRemainder(dividingBy: 14) < joint
                if mortar { return (mortarColour, 1) }
                let shade = darkest + (1 - darkest) * Noise.lattice(column, row, seed: seed)
                let grain = 1 - grainSpan / 2 + grainSpan * Noise.value(x, y, cell: 2, seed: seed + 1)
                return (brickColour * shade * grain, 1)
            }
        }

        /// A shape (signed distance) filled with checks of `checker` px between two colours, with grain
        /// (smooth noise of 4 px cells, ± grain/2).
        static func shape(
            seed: UInt64, checker: Float, a: SIMD3<Float>, b: SIMD3<Float>, grain: Float = 0.4, _ distance: (Float, Float) -> Float
        ) -> RGBATexture {
            RGBATexture(width: ReferenceScenes.width, height: ReferenceScenes.height) { x, y in
                let check = (Int(x / checker) + Int(y / checker)) & 1 == 0
                let grain = 1 - grain / 2 + grain * Noise.value(x, y, cell: 4, seed: seed)
                return ((check ? a : b) * grain, Shape.coverage(distance(x, y)))
            }
        }
    }
}
