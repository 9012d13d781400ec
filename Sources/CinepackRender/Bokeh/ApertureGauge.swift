import Foundation

/// The gauge of a shaped aperture: an anamorphic squeeze undone first (x times √ratio, y over
/// √ratio: an area-keeping map), then the distance over the boundary radius of the custom kernel
/// or the blade polygon at that angle (curved blades blend it towards the circle), scaled so the
/// unsqueezed shape's farthest point sits at gauge 1 (the squeezed one keeps its area).
struct ApertureGauge {
    let blades: Int
    let rotation: Float
    let curvature: Float
    let kernel: ApertureKernel?
    let sx: Float
    let sy: Float
    /// Farthest reach of the squeezed shape, in blur radii.
    let extent: Float
    private(set) var scale: Float

    init(_ look: LensLook) {
        blades = look.blades >= 3 ? look.blades : 0
        rotation = look.bladeRotation * .pi / 180
        curvature = look.bladeCurvature
        kernel = look.kernel
        let root = look.anamorphic.squareRoot()
        sx = root
        sy = 1 / root
        extent = max(root, 1 / root)
        scale = 1
        // The farthest point of the unsqueezed shape, found on a fine ring of directions.
        var far: Float = 0
        for i in 0..<3600 {
            let a = Float(i) * 2 * .pi / 3600
            far = max(far, boundary(a))
        }
        scale = far
    }

    /// Boundary radius of the (unsqueezed) blade polygon at image angle `theta` (y down), for a
    /// unit circumradius: a corner points up at rotation 0.
    func boundary(_ theta: Float) -> Float {
        if let kernel { return kernel.radius(theta) }
        guard blades >= 3 else { return 1 }
        let sector = 2 * Float.pi / Float(blades)
        let start = -Float.pi / 2 + rotation
        var u = (theta - start).truncatingRemainder(dividingBy: sector)
        if u < 0 { u += sector }
        let phi = u - sector / 2
        let polygon = cos(sector / 2) / cos(phi)
        return polygon + curvature * (1 - polygon)
    }

    /// The gauge on an unsqueezed offset.
    func unsqueezed(_ u: SIMD2<Float>) -> Float {
        let d = (u * u).sum().squareRoot()
        guard d > 0 else { return 0 }
        return d / boundary(atan2(u.y, u.x)) * scale
    }

    func value(_ x: Float, _ y: Float) -> Float { unsqueezed(SIMD2(x * sx, y * sy)) }
}
