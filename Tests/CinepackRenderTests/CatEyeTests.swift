import CinepackFormat
import Foundation
import Testing

@testable import CinepackRender

/// Cat's-eye clipping (spec/render.md §5) on a grid of point lights, against shapes rasterised
/// here from the spec's geometry: the aperture intersected with a disc of the blur radius whose
/// centre is displaced by `amount · ρ · r` away from the frame centre.
@Suite struct CatEyeTests {
    static let width = 224
    static let height = 160
    /// Blur radius of every light, pixels.
    static let radius: Float = 11
    /// Light positions (pixels): a grid symmetric about the frame centre (pixel x ↔ width − 1 − x).
    static let xs = [18, 56, 94, 129, 167, 205]
    static let ys = [18, 55, 104, 141]

    /// The frame centre in pixel coordinates (pixel centres at x + 0.5).
    static let centre = SIMD2(Float(width) / 2, Float(height) / 2)
    static var halfDiagonal: Float { (centre * centre).sum().squareRoot() }

    /// Every light `radius` px out of focus on black; `look` the lens look.
    static func render(_ look: LensLook, quality: RenderQuality = .export) -> LinearImage {
        var picture = LinearImage(width: width, height: height)
        for y in ys { for x in xs { picture.setPixel(x, y, SIMD3(repeating: 400)) } }
        picture.setPixel(width / 2, height / 2, SIMD3(repeating: 400))
        let lens = LensModel(focalLength35mm: 26, fNumber: 2, width: width)
        let d = 1 - 2 * radius / lens.scale(focusDisparity: 1)
        var renderer = BokehRenderer(quality: quality)
        renderer.look = look
        return renderer.render(
            picture: picture, fullResolutionDisparity: [Float](repeating: d, count: width * height), focusDisparity: 1, lens: lens)
    }

    /// The footprint of the spot of the light at pixel (x, y): offsets (−w…w)² from the light's
    /// pixel brighter than half the median of the spot's lit pixels.
    static func spot(_ image: LinearImage, _ x: Int, _ y: Int, reach w: Int = 17) -> [Bool] {
        var values: [Float] = []
        for dy in -w...w {
            for dx in -w...w {
                let (px, py) = (x + dx, y + dy)
                values.append(px >= 0 && py >= 0 && px < image.width && py < image.height ? image.values[3 * (py * image.width + px)] : 0)
            }
        }
        let lit = values.filter { $0 > 1e-3 }.sorted()
        let level = lit.isEmpty ? 1 : lit[lit.count / 2] * 0.5
        return values.map { $0 > level }
    }

    /// The spec's spot at pixel (x, y) for a look given as the unclipped aperture's inside test
    /// (on unsqueezed offsets of radius 1) and the anamorphic ratio.
    static func expected(
        _ x: Int, _ y: Int, amount: Float, ratio: Float = 1, reach w: Int = 17, aperture: (Float, Float) -> Bool = { $0 * $0 + $1 * $1 < 1 }
    ) -> [Bool] {
        let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5) - centre
        let rho = (p * p).sum().squareRoot() / halfDiagonal
        let u = rho > 0 ? p / (p * p).sum().squareRoot() : .zero
        let shift = amount * rho * u
        var mask: [Bool] = []
        for dy in -w...w {
            for dx in -w...w {
                // Undo the squeeze (x / √R, y · √R), then the radius.
                let ox = Float(dx) * ratio.squareRoot() / radius
                let oy = Float(dy) / ratio.squareRoot() / radius
                let inDisc = (ox - shift.x) * (ox - shift.x) + (oy - shift.y) * (oy - shift.y) < 1
                mask.append(aperture(ox, oy) && inDisc)
            }
        }
        return mask
    }

    static func overlap(_ a: [Bool], _ b: [Bool]) -> Float {
        let both = zip(a, b).filter { $0 && $1 }.count
        let either = zip(a, b).filter { $0 || $1 }.count
        return Float(both) / Float(max(either, 1))
    }

    /// The best overlap of `a` with `b` moved by at most a pixel: a spot gathered at half
    /// resolution is centred on its cell, up to half a pixel off its light in each axis.
    static func alignedOverlap(_ a: [Bool], _ b: [Bool], reach w: Int = 17) -> Float {
        let side = 2 * w + 1
        var best: Float = 0
        for sy in -1...1 {
            for sx in -1...1 {
                var moved = [Bool](repeating: false, count: b.count)
                for y in 0..<side {
                    for x in 0..<side where b[y * side + x] {
                        let (mx, my) = (x + sx, y + sy)
                        if mx >= 0, my >= 0, mx < side, my < side { moved[my * side + mx] = true }
                    }
                }
                best = max(best, overlap(a, moved))
            }
        }
        return best
    }

    /// Mean offset of a footprint from the light's pixel.
    static func centroid(_ mask: [Bool], reach w: Int = 17) -> SIMD2<Float> {
        var sum = SIMD2<Float>.zero
        var n: Float = 0
        for (i, m) in mask.enumerated() where m {
            sum += SIMD2(Float(i % (2 * w + 1) - w), Float(i / (2 * w + 1) - w))
            n += 1
        }
        return sum / max(n, 1)
    }

    @Test func spotsAreFullAtTheCentreAndClippedTowardTheCornersFacingTheCentre() {
        let amount: Float = 1
        let image = Self.render(LensLook(catEye: amount))
        // The centre light: a full circle.
        let middle = Self.spot(image, Self.width / 2, Self.height / 2)
        let circle = Self.expected(Self.width / 2, Self.height / 2, amount: 0)
        #expect(Self.alignedOverlap(middle, circle) >= 0.8, "centre: \(Self.alignedOverlap(middle, circle))")
        let (got, disc) = (Float(middle.filter { $0 }.count), Float(circle.filter { $0 }.count))
        #expect(abs(got / disc - 1) < 0.2, "centre: \(got) px, the circle \(disc) px")
        var byDistance: [(rho: Float, area: Int)] = []
        for y in Self.ys {
            for x in Self.xs {
                let mask = Self.spot(image, x, y)
                let want = Self.expected(x, y, amount: amount)
                let iou = Self.alignedOverlap(mask, want)
                #expect(iou >= 0.8, "light at \(x),\(y): overlap with the clipped circle \(iou)")
                let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5) - Self.centre
                let rho = (p * p).sum().squareRoot() / Self.halfDiagonal
                byDistance.append((rho, mask.filter { $0 }.count))
                // The area, against the centre's full circle, is the lens-shaped intersection's
                // share of the circle: (2 acos(δ/2) − (δ/2)·√(4 − δ²)) / π for δ = amount · ρ.
                let delta = amount * rho
                let share = (2 * acos(delta / 2) - delta / 2 * (4 - delta * delta).squareRoot()) / .pi
                let measured = Float(mask.filter { $0 }.count) / got
                #expect(abs(measured - share) < 0.12, "light at \(x),\(y): area share \(measured), expected \(share)")
                // The clipped side faces the centre: the spot's centroid moves away from it, by
                // the rasterised shape's own shift (within the half-pixel offset of its cell and
                // the zones' approximation, spec/render.md §5).
                let c = Self.centroid(mask)
                let e = Self.centroid(want)
                #expect(((c - e) * (c - e)).sum().squareRoot() < 3, "light at \(x),\(y): centroid \(c), expected \(e)")
                if rho > 0.4 { #expect((c * p).sum() > 0, "light at \(x),\(y): centroid \(c) does not move outward") }
                // Symmetric about the centre: the mirrored light's spot is this one turned 180°.
                let mirror = Self.spot(image, Self.width - 1 - x, Self.height - 1 - y)
                let turned = Self.alignedOverlap(mask, mirror.reversed())
                #expect(turned >= 0.85, "light at \(x),\(y) and its mirror: \(turned)")
                let areas = (mask.filter { $0 }.count, mirror.filter { $0 }.count)
                #expect(abs(areas.0 - areas.1) <= max(areas.0, areas.1) / 8, "light at \(x),\(y) and its mirror: areas \(areas)")
            }
        }
        // The area shrinks with the distance from the centre (lights at clearly different ρ).
        let sorted = byDistance.sorted { $0.rho < $1.rho }
        for (a, b) in zip(sorted, sorted.dropFirst()) where b.rho - a.rho > 0.1 {
            #expect(b.area < a.area, "area \(a.area) at ρ \(a.rho), \(b.area) at ρ \(b.rho)")
        }
        let full = middle.filter { $0 }.count
        #expect(Float(sorted.last!.area) < 0.7 * Float(full), "corner spot \(sorted.last!.area) px, centre \(full) px")
    }

    @Test func catEyesClipBladesAndAnamorphicOvalsToo() {
        let amount: Float = 1
        let hexagon = Self.render(LensLook(blades: 6, catEye: amount))
        let oval = Self.render(LensLook(anamorphic: 1.5, catEye: amount))
        for (x, y) in [(18, 18), (205, 55), (94, 141)] {
            let hex = Self.expected(x, y, amount: amount) { ox, oy in
                LensLookTests.insidePolygon(ox, oy, blades: 6, degrees: 0, radius: 1)
            }
            let iouHex = Self.alignedOverlap(Self.spot(hexagon, x, y), hex)
            #expect(iouHex >= 0.8, "hexagon at \(x),\(y): \(iouHex)")
            let ellipse = Self.expected(x, y, amount: amount, ratio: 1.5)
            let iouOval = Self.alignedOverlap(Self.spot(oval, x, y), ellipse)
            #expect(iouOval >= 0.8, "oval at \(x),\(y): \(iouOval)")
        }
    }

    /// The energy a clipped spot carries is the light's within the bound spec/render.md §5
    /// gives for the zones' approximation (25 % at amount 1), and exact without a cat's eye.
    @Test(arguments: RenderQuality.allCases)
    func catEyeSpotsKeepTheLightsEnergyWithinTheSpecsBound(quality: RenderQuality) {
        let lights = Float(Self.xs.count * Self.ys.count + 1) * 400
        for (amount, bound) in [(Float(1), Float(0.25)), (0.3, 0.1)] {
            let image = Self.render(LensLook(catEye: amount), quality: quality)
            let total = stride(from: 0, to: image.values.count, by: 3).reduce(Float(0)) { $0 + image.values[$1] }
            #expect(abs(total / lights - 1) < bound, "amount \(amount): energy \(total) of \(lights)")
        }
    }

    @Test func previewShowsTheCatsEyesToo() {
        let image = Self.render(LensLook(catEye: 1), quality: .preview)
        for (x, y) in [(18, 18), (205, 141)] {
            let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5) - Self.centre
            let c = Self.centroid(Self.spot(image, x, y))
            #expect((c * p).sum() > 0, "light at \(x),\(y): centroid \(c) does not move outward")
        }
        let corner = Self.spot(image, 18, 18).filter { $0 }.count
        let middle = Self.spot(image, Self.width / 2, Self.height / 2).filter { $0 }.count
        #expect(Float(corner) < 0.8 * Float(middle), "preview: corner \(corner) px, centre \(middle) px")
    }

    @Test func amountZeroIsExactlyNoCatEye() {
        for look in [LensLook(), LensLook(blades: 6), LensLook(anamorphic: 2)] {
            var clipped = look
            clipped.catEye = 0
            #expect(Self.render(clipped) == Self.render(look), "\(look)")
        }
    }
}
