import Foundation

/// Cat's-eye clipping (optical vignetting, spec/render.md §5): a blur spot at normalised distance
/// ρ from the frame centre is the aperture intersected with a disc of the same circumradius
/// displaced by `amount · ρ` radii away from the centre, so the clipped side faces the centre.
/// The renderer precomputes it in zones: ρ rounded to sixteenths, the direction to 32 sectors.
struct CatEye: Sendable, Equatable {
    static let distanceSteps = 16
    static let directions = 32
    /// Zone 0 is the unclipped centre; then 32 directions for each of the 16 distances.
    static let zoneCount = 1 + distanceSteps * directions

    /// Displacement of the clipping disc in the frame's corners, in blur radii (0…1).
    let amount: Float

    /// Positions of one frame (a picture or one of its reduced levels) to zones.
    struct Frame: Sendable {
        let centreX: Float
        let centreY: Float
        let inverseHalfDiagonal: Float

        /// A frame `width × height` (in its own pixels or cells).
        init(width: Int, height: Int) {
            centreX = Float(width) / 2
            centreY = Float(height) / 2
            inverseHalfDiagonal = 2 / max(Float(width * width + height * height).squareRoot(), 1)
        }

        /// The normalised distance of `(x, y)` from the centre.
        @inline(__always) func rho(_ x: Float, _ y: Float) -> Float {
            let dx = x - centreX
            let dy = y - centreY
            return (dx * dx + dy * dy).squareRoot() * inverseHalfDiagonal
        }

        /// The zone of the point `(x, y)` (edges of pixels at whole numbers, so a pixel's centre
        /// is at `x + 0.5`), moved `pull` toward the centre.
        @inline(__always) func zone(_ x: Float, _ y: Float, pull: Float = 0) -> Int {
            let dx = x - centreX
            let dy = y - centreY
            let rho = max((dx * dx + dy * dy).squareRoot() * inverseHalfDiagonal - pull * inverseHalfDiagonal, 0)
            let i = min(Int((rho * Float(CatEye.distanceSteps)).rounded()), CatEye.distanceSteps)
            guard i > 0 else { return 0 }
            var k = Int((atan2(dy, dx) * (Float(CatEye.directions) / (2 * .pi))).rounded())
            k = (k % CatEye.directions + CatEye.directions) % CatEye.directions
            return 1 + (i - 1) * CatEye.directions + k
        }
    }

    /// The clipping disc's displacement in a zone, in blur radii, on screen axes (y down).
    func displacement(_ zone: Int) -> SIMD2<Float> {
        guard zone > 0 else { return .zero }
        let i = (zone - 1) / Self.directions + 1
        let k = (zone - 1) % Self.directions
        let angle = Float(k) * 2 * .pi / Float(Self.directions)
        let m = amount * Float(i) / Float(Self.distanceSteps)
        return SIMD2(m * cos(angle), m * sin(angle))
    }

    /// Gauge of the clipping disc: the radius t at which `u` lies on the circle of radius t
    /// centred at `t · s` (`|s| ≤ 1`), i.e. the positive root of `(1 − |s|²) t² + 2 (u·s) t − |u|²`,
    /// written so it stays exact as |s| reaches 1 (then directions facing away from s are outside
    /// at every radius).
    static func discGauge(_ u: SIMD2<Float>, _ s: SIMD2<Float>) -> Float {
        let uu = (u * u).sum()
        guard uu > 0 else { return 0 }
        let b = (u * s).sum()
        let k = max(1 - (s * s).sum(), 0)
        let denominator = b + (b * b + k * uu).squareRoot()
        return denominator > 0 ? uu / denominator : .infinity
    }
}
