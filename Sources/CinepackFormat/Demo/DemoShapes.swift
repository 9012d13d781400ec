/// Analytic 2-D shapes and paints the demo subjects are built from.
///
/// Coordinates are *scene units*: y runs from 0 (top) to 1 (bottom of the frame) and x from 0 to the
/// aspect ratio (width / height), so one unit is the frame height in both directions and circles stay
/// round at any aspect. The picture and the disparity map sample the very same signed distances: a
/// point belongs to a shape where its distance is negative. The picture blends one pixel of
/// anti-aliasing across that boundary, so edges in the picture and in the map line up.

typealias DemoPoint = SIMD2<Float>
typealias DemoColour = SIMD3<Float>  // sRGB, 0…255

struct DemoShape: Sendable {
    enum Kind: Sendable { case ellipse, capsule, roundedRect }

    var kind: Kind
    /// Ellipse or rectangle centre; capsule start.
    var p: DemoPoint
    /// Ellipse radii; rectangle half size; capsule end.
    var q: DemoPoint
    /// Capsule radius; rectangle corner radius.
    var r: Float

    static func ellipse(_ center: DemoPoint, _ radii: DemoPoint) -> DemoShape {
        DemoShape(kind: .ellipse, p: center, q: DemoPoint(max(radii.x, 1e-6), max(radii.y, 1e-6)), r: 0)
    }

    static func circle(_ center: DemoPoint, _ radius: Float) -> DemoShape {
        ellipse(center, DemoPoint(radius, radius))
    }

    static func capsule(_ from: DemoPoint, _ to: DemoPoint, _ radius: Float) -> DemoShape {
        DemoShape(kind: .capsule, p: from, q: to, r: radius)
    }

    static func roundedRect(_ center: DemoPoint, _ halfSize: DemoPoint, _ corner: Float) -> DemoShape {
        DemoShape(kind: .roundedRect, p: center, q: halfSize, r: min(corner, halfSize.x, halfSize.y))
    }

    /// Signed distance in scene units (negative inside). Exact for capsules and rounded rectangles;
    /// for ellipses a first-order approximation whose sign is exact.
    @inline(__always)
    func distance(_ x: Float, _ y: Float) -> Float {
        switch kind {
        case .ellipse:
            let ux = (x - p.x) / q.x, uy = (y - p.y) / q.y
            let k0 = (ux * ux + uy * uy).squareRoot()
            let vx = ux / q.x, vy = uy / q.y
            let k1 = (vx * vx + vy * vy).squareRoot()
            if k1 == 0 { return -min(q.x, q.y) }
            return k0 * (k0 - 1) / k1
        case .capsule:
            let pax = x - p.x, pay = y - p.y
            let bax = q.x - p.x, bay = q.y - p.y
            let denominator = bax * bax + bay * bay
            let h = denominator > 0 ? min(max((pax * bax + pay * bay) / denominator, 0), 1) : 0
            let dx = pax - bax * h, dy = pay - bay * h
            return (dx * dx + dy * dy).squareRoot() - r
        case .roundedRect:
            let dx = abs(x - p.x) - q.x + r, dy = abs(y - p.y) - q.y + r
            let ox = max(dx, 0), oy = max(dy, 0)
            return (ox * ox + oy * oy).squareRoot() + min(max(dx, dy), 0) - r
        }
    }

    /// Axis-aligned bounds of the inside.
    var bounds: (min: DemoPoint, max: DemoPoint) {
        switch kind {
        case .ellipse, .roundedRect: return (p - q, p + q)
        case .capsule:
            let lo = DemoPoint(min(p.x, q.x), min(p.y, q.y)), hi = DemoPoint(max(p.x, q.x), max(p.y, q.y))
            return (lo - DemoPoint(r, r), hi + DemoPoint(r, r))
        }
    }
}

/// How a part is coloured. Patterns are anchored to the subject, so texture moves with it.
struct DemoPaint: Sendable {
    enum Pattern: Sendable {
        case flat
        /// Bands of `alt` across y (horizontal stripes) or across x (vertical stripes), `period` wide.
        case stripes(horizontal: Bool)
        /// A shaded ball with rotating panels: `origin` is the centre, `period` the radius.
        case ball(cos: Float, sin: Float)
    }

    var base: DemoColour
    var alt: DemoColour = .zero
    var pattern: Pattern = .flat
    var period: Float = 1
    var origin: DemoPoint = .zero
    /// Amplitude (sRGB units) of a fine grain tied to the subject, for visible texture when sharp.
    var grain: Float = 0
    var key: UInt32 = 0

    static func flat(_ c: DemoColour, grain: Float = 0, origin: DemoPoint = .zero, key: UInt32 = 0) -> DemoPaint {
        DemoPaint(base: c, origin: origin, grain: grain, key: key)
    }

    /// Grain cell, scene units (about a pixel at 720p).
    static let grainCell: Float = 1.0 / 600

    /// Colour at a scene point; `pixel` is the pixel size in scene units (for anti-aliased stripes).
    @inline(__always)
    func colour(_ x: Float, _ y: Float, pixel: Float) -> DemoColour {
        var c: DemoColour
        switch pattern {
        case .flat:
            c = base
        case .stripes(let horizontal):
            let t = ((horizontal ? y - origin.y : x - origin.x)) / period
            let a = demoLineCoverage(t, line: 0.5, footprint: pixel / period)
            c = base + (alt - base) * a
        case .ball(let cs, let sn):
            let lx = (x - origin.x) / period, ly = (y - origin.y) / period
            let nz = max(0, 1 - lx * lx - ly * ly).squareRoot()
            // Panels on the rotated sphere: seen from the front, bands across u, a blue belt along v.
            let u = lx * cs + ly * sn, v = -lx * sn + ly * cs
            let bend = u / (0.45 + 0.55 * nz)
            let panel = demoLineCoverage(bend * 1.6 + 8, line: 0.5, footprint: pixel / period * 1.6 / (0.45 + 0.55 * nz))
            var pc = base + (alt - base) * panel
            if abs(v) < 0.16 { pc = DemoColour(40, 80, 190) }
            // Light from the upper left, a little in front.
            let lambert = max(0, -0.45 * lx - 0.55 * ly + 0.70 * nz)
            c = pc * (0.30 + 0.80 * lambert)
            // Specular: n·h with h ≈ normalize(L + view).
            var s = max(0, (-0.24 * lx - 0.30 * ly + 0.92 * nz))
            s *= s; s *= s; s *= s; s *= s; s *= s  // ^32
            c += DemoColour(repeating: 230 * s)
        }
        if grain > 0 {
            let g = demoHashSigned(demoCell((x - origin.x) / Self.grainCell), demoCell((y - origin.y) / Self.grainCell), key)
            c += DemoColour(repeating: g * grain)
        }
        return c
    }
}

struct DemoPart: Sendable {
    var shape: DemoShape
    var paint: DemoPaint
}

/// A detection box of a figure, in scene units, before clipping and the visibility rules.
struct DemoBox: Sendable {
    var id: UInt32
    var groupID: UInt32
    var type: DetectionType
    var min: DemoPoint
    var max: DemoPoint
    var confidence: Float
}

/// One subject in one frame: flat (one disparity), made of parts drawn in order.
struct DemoFigure: Sendable {
    var subject: Int
    var disparity: Float
    var parts: [DemoPart]
    var boxes: [DemoBox]

    /// Signed distance to the union of the parts.
    @inline(__always)
    func distance(_ x: Float, _ y: Float) -> Float {
        var d = Float.infinity
        for part in parts { d = min(d, part.shape.distance(x, y)) }
        return d
    }
}
