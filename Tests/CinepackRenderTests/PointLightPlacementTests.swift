import Testing

@testable import CinepackRender

/// A point light's spot lies where the light is, wherever the light falls on the coarse levels'
/// grids (spec/render.md §3): a moving light's bokeh moves with it. Expectation: the exact
/// thin-lens spot is centred on the light, so the centroid of the rendered energy must be too.
@Suite struct PointLightPlacementTests {
    static let size = 128

    /// A black frame, `radius` px out of focus, with one bright pixel at (x, y).
    static func render(_ look: LensLook, radius: Float, x: Int, y: Int, quality: RenderQuality = .export) -> LinearImage {
        PointLight.render(look, radius: radius, size: size, x: x, y: y, quality: quality)
    }

    /// The centroid of the red channel's energy.
    static func centroid(_ image: LinearImage) -> SIMD2<Float> {
        var sum = SIMD2<Float>()
        var total: Float = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let v = image.values[3 * (y * image.width + x)]
                sum += SIMD2(Float(x), Float(y)) * v
                total += v
            }
        }
        return sum / total
    }

    /// Radii served by level 1 (10 px), level 2 (24 px) and level 3 (40 px), round and hexagonal
    /// (whose schedule differs); the light moves one pixel at a time across eight, through every
    /// place in a level-3 cell, and down in a different order.
    @Test(arguments: [(Float(10), 0), (24, 0), (40, 0), (24, 6), (40, 6)])
    func aPointLightsSpotIsCentredOnIt(radius: Float, blades: Int) {
        var previous: Float?
        for k in 0..<8 {
            let (x, y) = (60 + k, 60 + (3 * k) % 8)
            let offset = Self.centroid(Self.render(LensLook(blades: blades), radius: radius, x: x, y: y)) - SIMD2(Float(x), Float(y))
            // Level 1's 2 × 2 cells place a light to within half a pixel; every coarser level keeps
            // that (the 2 × 2 box there put it anywhere in a cell of 4, 8 or 16 pixels).
            #expect(abs(offset.x) <= 0.55 && abs(offset.y) <= 0.55, "r \(radius), blades \(blades), light at \(x),\(y): off by \(offset)")
            // So the spot follows the light step by step, never standing still for a cell and then
            // jumping.
            let at = Float(x) + offset.x
            if let previous {
                #expect(at - previous >= -0.05 && at - previous <= 2.05, "r \(radius): spot moved \(at - previous) px for 1 px")
            }
            previous = at
        }
    }

    /// Preview renders from cells of 4 × 4 pixels, so a background light's spot lies at the centre
    /// of its cell: within 1.5 px of the light, stepping a cell at a time (spec/render.md §3,
    /// preview). Its reduced render builds the far field of its half-resolution level under the
    /// tent too; from 2 × 2 boxes of cells the spot sat at the centre of a block of 8 × 8 pixels,
    /// up to 3.5 px off.
    @Test(arguments: [Float(12), 24, 40])
    func previewPutsABackgroundLightsSpotInItsCell(radius: Float) {
        for k in 0..<8 {
            let (x, y) = (60 + k, 60 + (3 * k) % 8)
            let image = Self.render(LensLook(), radius: radius, x: x, y: y, quality: .preview)
            let offset = Self.centroid(image) - SIMD2(Float(x), Float(y))
            #expect(abs(offset.x) <= 1.55 && abs(offset.y) <= 1.55, "r \(radius), light at \(x),\(y): off by \(offset)")
        }
    }
}
