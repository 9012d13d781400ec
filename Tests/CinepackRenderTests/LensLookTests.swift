import CinepackFormat
import Foundation
import Testing

@testable import CinepackRender

/// The lens look (spec/render.md §5): shaped apertures seen on a point light, the highlight
/// rebuild's energy. Expectations are drawn independently: polygons rasterised here from their
/// corners, ellipses from their axes.
@Suite struct LensLookTests {
    static let size = 112
    /// Blur radius of the point light, pixels.
    static let radius: Float = 22

    /// A black picture with one bright point at the centre, everything `radius` px out of focus.
    static func pointLight(
        _ look: LensLook, quality: RenderQuality = .export, radius: Float = radius, size n: Int = size
    ) -> (image: LinearImage, centre: Float) {
        let c = n / 2
        return (PointLight.render(look, radius: radius, size: n, x: c, y: c, quality: quality), Float(c))
    }

    /// Pixels brighter than half the spot's peak (the kernel's footprint): a flat spot's rim, soft
    /// on both sides alike, crosses half its height where the sharp shape's edge is, however wide
    /// the rim. (Half the median of the lit pixels moved outward with a longer faint rim.)
    static func footprint(_ image: LinearImage, level share: Float = 0.5) -> [Bool] {
        let v = (0..<(image.width * image.height)).map { image.values[3 * $0] }
        let level = share * (v.max() ?? 1)
        return v.map { $0 > level }
    }

    /// Inside test of a regular polygon with its corners at `radius` from the centre, the first
    /// one up rotated `degrees` clockwise on screen.
    static func insidePolygon(_ x: Float, _ y: Float, blades: Int, degrees: Float, radius: Float) -> Bool {
        let corners = (0..<blades).map { k -> SIMD2<Float> in
            let a = -Float.pi / 2 + degrees * .pi / 180 + Float(k) * 2 * .pi / Float(blades)
            return SIMD2(radius * cos(a), radius * sin(a))
        }
        for k in 0..<blades {
            let p = corners[k]
            let q = corners[(k + 1) % blades]
            // The centre is inside: a point is too when it is on the centre's side of every edge.
            let ex: Float = q.x - p.x
            let ey: Float = q.y - p.y
            let cross: Float = ex * (y - p.y) - ey * (x - p.x)
            let centre: Float = ex * (-p.y) - ey * (-p.x)
            if cross * centre < 0 { return false }
        }
        return true
    }

    static func overlap(_ mask: [Bool], size: Int = size, centre: Float, _ inside: (Float, Float) -> Bool) -> Float {
        var both = 0
        var either = 0
        for y in 0..<size {
            for x in 0..<size {
                let expected = inside(Float(x) - centre, Float(y) - centre)
                let got = mask[y * size + x]
                if expected && got { both += 1 }
                if expected || got { either += 1 }
            }
        }
        return Float(both) / Float(max(either, 1))
    }

    @Test(arguments: [(6, Float(0)), (6, Float(10)), (5, Float(-20))])
    func bladesGiveAPolygon(blades: Int, rotation: Float) {
        let (image, centre) = Self.pointLight(LensLook(blades: blades, bladeRotation: rotation))
        let mask = Self.footprint(image)
        let iou = Self.overlap(mask, centre: centre) {
            Self.insidePolygon($0, $1, blades: blades, degrees: rotation, radius: Self.radius)
        }
        // The hexagon of the check to 90 %; other blade counts' corners are sharper and
        // lose a little more to the soft rim.
        #expect(iou >= (blades == 6 ? 0.9 : 0.85), "overlap with the rasterised \(blades)-gon: \(iou)")
        // The rotation that fits best is the one asked for (within 2°), and the polygon is not
        // upside down (half a period off fits worse).
        var best: (Float, Float) = (-1, 0)
        for step in -12...12 {
            let r = rotation + Float(step) * 0.5
            let score = Self.overlap(mask, centre: centre) {
                Self.insidePolygon($0, $1, blades: blades, degrees: r, radius: Self.radius)
            }
            if score > best.0 { best = (score, r) }
        }
        #expect(abs(best.1 - rotation) <= 2, "best-fitting rotation \(best.1)°, asked \(rotation)°")
        let flipped = Self.overlap(mask, centre: centre) {
            Self.insidePolygon($0, $1, blades: blades, degrees: rotation + 180 / Float(blades), radius: Self.radius)
        }
        #expect(flipped < iou - 0.05)
        // The round aperture is not a polygon: the test can tell them apart.
        let round = Self.footprint(Self.pointLight(LensLook()).image)
        let roundRotated = Self.overlap(round, centre: centre) { x, y in
            Self.insidePolygon(x, y, blades: blades, degrees: rotation, radius: Self.radius)
        }
        #expect(roundRotated < iou)
    }

    /// A viewer thresholds the picture as stored, not linear light: half an sRGB spot's peak is 21 %
    /// of its linear peak. The rim must be sharp enough that the hexagon holds there too, at radii
    /// across the reduced levels (a level's smallest circles span the fewest of its cells).
    @Test(arguments: [Float(20), 24, 30, 40, 48])
    func aHexagonHoldsItsShapeAtAViewersThreshold(radius: Float) {
        let size = 2 * Int(1.5 * radius) + 32
        let rotation: Float = 10
        let (image, centre) = Self.pointLight(
            LensLook(blades: 6, bladeRotation: rotation), radius: radius, size: size)
        // sRGB's 0.5 decodes to 0.214 linear.
        for share in [Float(0.5), 0.214] {
            let mask = Self.footprint(image, level: share)
            func fit(_ degrees: Float) -> Float {
                Self.overlap(mask, size: size, centre: centre) {
                    Self.insidePolygon($0, $1, blades: 6, degrees: degrees, radius: radius)
                }
            }
            let iou = fit(rotation)
            #expect(iou >= 0.9, "radius \(radius), footprint over \(share) of the peak: overlap \(iou)")
            let best = (-12...12).map { rotation + Float($0) * 0.5 }.max { fit($0) < fit($1) }!
            #expect(abs(best - rotation) <= 2, "radius \(radius), over \(share) of the peak: best rotation \(best)°")
        }
    }

    @Test(arguments: [Float(2), Float(1.5), Float(0.5), Float(4)])
    func anamorphicGivesAnOvalOfTheRatioWithTheCirclesArea(ratio: Float) {
        let (image, centre) = Self.pointLight(LensLook(anamorphic: ratio))
        let mask = Self.footprint(image)
        // Second moments of the footprint: for an ellipse, sqrt(Iyy / Ixx) = height / width.
        var sxx: Float = 0
        var syy: Float = 0
        for y in 0..<Self.size {
            for x in 0..<Self.size where mask[y * Self.size + x] {
                sxx += (Float(x) - centre) * (Float(x) - centre)
                syy += (Float(y) - centre) * (Float(y) - centre)
            }
        }
        let measured = (syy / sxx).squareRoot()
        #expect(abs(measured / ratio - 1) < 0.1, "height : width \(measured), asked \(ratio)")
        // The circle's area is kept (±5 %): half-axes r / √R and r · √R.
        let circle = Float.pi * Self.radius * Self.radius
        let area = Float(mask.filter { $0 }.count)
        #expect(abs(area / circle - 1) <= 0.05, "area \(area) px, the circle's \(circle) px")
        let (a, b) = (Self.radius / ratio.squareRoot(), Self.radius * ratio.squareRoot())
        let iou = Self.overlap(mask, centre: centre) { x, y in (x / a) * (x / a) + (y / b) * (y / b) < 1 }
        #expect(iou >= 0.85, "overlap with the ellipse: \(iou)")
    }

    @Test(arguments: RenderQuality.allCases)
    func shapedBokehKeepsTheLightsEnergy(quality: RenderQuality) {
        for look in [LensLook(), LensLook(blades: 6), LensLook(blades: 7, bladeCurvature: 0.5), LensLook(anamorphic: 2)] {
            let (image, _) = Self.pointLight(look, quality: quality)
            let total = stride(from: 0, to: image.values.count, by: 3).reduce(Float(0)) { $0 + image.values[$1] }
            #expect(abs(total / 400 - 1) < 0.03, "\(look): energy \(total) of 400")
        }
    }

    @Test func highlightGainMultipliesAClippedHighlightsEnergy() {
        // A clipped light (linear 1.0) on a grey wall, both out of focus.
        let n = 64
        var picture = LinearImage(width: n, height: n, fill: 0.2)
        for y in 30...33 { for x in 30...33 { picture.setPixel(x, y, SIMD3(repeating: 1)) } }
        let lens = LensModel(focalLength35mm: 26, fNumber: 2, width: n)
        let d = 1 - 2 * 8 / lens.scale(focusDisparity: 1)
        let disparity = [Float](repeating: d, count: n * n)
        func energy(_ look: LensLook) -> Float {
            var renderer = BokehRenderer(quality: .export)
            renderer.look = look
            let out = renderer.render(picture: picture, fullResolutionDisparity: disparity, focusDisparity: 1, lens: lens)
            return stride(from: 0, to: out.values.count, by: 3).reduce(Float(0)) { $0 + out.values[$1] - 0.2 }
        }
        let plain = energy(LensLook())
        for gain in [Float(2), 4, 8] {
            let boosted = energy(LensLook(highlightThreshold: 0.9, highlightGain: gain))
            // The light's own energy above the wall, (1·gain − 0.2)·16, against (1 − 0.2)·16.
            let expected = (gain - 0.2) / 0.8
            #expect(abs(boosted / plain / expected - 1) < 0.02, "gain \(gain): ratio \(boosted / plain), expected \(expected)")
        }
        // Below the threshold nothing changes.
        #expect(energy(LensLook(highlightThreshold: 1, highlightGain: 4)) == plain)
    }

    /// A custom aperture: a triangle pointing up (no point symmetry, so a kernel rendered upside
    /// down fails), drawn into a PNG, renders to that triangle scaled so its farthest corner from
    /// its centroid lies at the blur radius.
    @Test func aKernelImageGivesItsShape() throws {
        let n = 64
        let corners: [SIMD2<Float>] = [SIMD2(32, 6), SIMD2(58, 54), SIMD2(8, 50)]
        func inTriangle(_ x: Float, _ y: Float) -> Bool {
            var sign: Float = 0
            for k in 0..<3 {
                let p = corners[k]
                let q = corners[(k + 1) % 3]
                let ex: Float = q.x - p.x
                let ey: Float = q.y - p.y
                let c: Float = ex * (y - p.y) - ey * (x - p.x)
                if sign == 0 { sign = c } else if c * sign < 0 { return false }
            }
            return true
        }
        var samples = [UInt8](repeating: 0, count: n * n)
        for y in 0..<n { for x in 0..<n where inTriangle(Float(x), Float(y)) { samples[y * n + x] = 255 } }
        let kernel = try ApertureKernel(
            image: try PixelImage(width: n, height: n, layout: .gray, samples: samples), source: "triangle")
        let (image, centre) = Self.pointLight(LensLook(kernel: kernel))
        let mask = Self.footprint(image)
        let centroid = (corners[0] + corners[1] + corners[2]) / 3
        let far = corners.map { (($0 - centroid) * ($0 - centroid)).sum().squareRoot() }.max()!
        let scale = far / Self.radius
        let iou = Self.overlap(mask, centre: centre) { x, y in inTriangle(centroid.x + x * scale, centroid.y + y * scale) }
        // 60° corners lose more to the soft rim than a hexagon's 120° ones.
        #expect(iou >= 0.8, "overlap with the triangle: \(iou)")
        let flipped = Self.overlap(mask, centre: centre) { x, y in inTriangle(centroid.x + x * scale, centroid.y - y * scale) }
        #expect(flipped < iou - 0.1)
        // An image with nothing bright is refused, saying so.
        #expect(throws: LensLookError.self) {
            try ApertureKernel(
                image: try PixelImage(width: 4, height: 4, layout: .gray, samples: [UInt8](repeating: 20, count: 16)), source: "dark")
        }
    }

    /// A kernel path that cannot be used says why: a typo, a folder and a file of another format
    /// need different fixes.
    @Test func aKernelThatCannotBeLoadedSaysWhy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kernel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = folder.appendingPathComponent("k.jpg").path
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]).write(to: URL(fileURLWithPath: jpeg))
        for (path, why) in [(folder.path + "/missing.png", "no such file"), (folder.path, "a folder"), (jpeg, "not a PNG image")] {
            #expect(throws: LensLookError.self) { try ApertureKernel.load(path: path) }
            do {
                _ = try ApertureKernel.load(path: path)
            } catch {
                #expect(error.message.hasPrefix("kernel \(path): \(why)"), "\(error.message)")
            }
        }
    }

    @Test func theRoundLookRendersExactlyAsNoLook() {
        let scene = RendererTestScene.make(width: 96, height: 64)
        let lens = RendererTestScene.lens(width: 96, fNumber: 1)
        let plain = BokehRenderer(quality: .export).render(
            picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: 1, lens: lens)
        var renderer = BokehRenderer(quality: .export)
        renderer.look = LensLook(blades: 0, bladeRotation: 30, highlightGain: 1)
        #expect(renderer.render(picture: scene.picture, fullResolutionDisparity: scene.disparity, focusDisparity: 1, lens: lens) == plain)
    }
}
