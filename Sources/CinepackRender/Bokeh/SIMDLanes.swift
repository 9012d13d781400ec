// Lane-wise helpers written as lane loops, which the optimiser turns into minps / maxps (the
// standard library's `pointwiseMin` / `pointwiseMax`, `replacing(with:where:)` and reductions are
// not inlined into the hot loops). NaN handling follows x86: `vmax(a, b)` keeps `a` when either
// is NaN.
@inline(__always) func vmin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    var r = a
    for i in 0..<8 { r[i] = b[i] < a[i] ? b[i] : a[i] }
    return r
}

@inline(__always) func vmax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    var r = a
    for i in 0..<8 { r[i] = b[i] > a[i] ? b[i] : a[i] }
    return r
}

@inline(__always) func vmin(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    var r = a
    for i in 0..<4 { r[i] = b[i] < a[i] ? b[i] : a[i] }
    return r
}

@inline(__always) func vmax(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    var r = a
    for i in 0..<4 { r[i] = b[i] > a[i] ? b[i] : a[i] }
    return r
}

/// Lane-wise square root (`SIMD8.squareRoot()` calls `sqrtf` once per lane here).
@inline(__always) func vsqrt(_ v: SIMD8<Float>) -> SIMD8<Float> {
    var r = v
    for i in 0..<8 { r[i] = v[i].squareRoot() }
    return r
}

@inline(__always) func vsaturate(_ v: SIMD8<Float>) -> SIMD8<Float> { vmin(vmax(SIMD8(), v), SIMD8(repeating: 1)) }
@inline(__always) func vsaturate(_ v: SIMD4<Float>) -> SIMD4<Float> { vmin(vmax(SIMD4(), v), SIMD4(repeating: 1)) }
@inline(__always) func vabs(_ v: SIMD8<Float>) -> SIMD8<Float> { vmax(v, -v) }
@inline(__always) func vabs(_ v: SIMD4<Float>) -> SIMD4<Float> { vmax(v, -v) }

/// 1 where `v > 0` (and not vanishingly small), else 0.
@inline(__always) func vpositive(_ v: SIMD4<Float>) -> SIMD4<Float> { vsaturate(v * 1e30) }
@inline(__always) func vpositive(_ v: SIMD8<Float>) -> SIMD8<Float> { vsaturate(v * 1e30) }

/// The largest lane, as `Swift.max` picks (written out: the generic `max` is not always inlined).
@inline(__always) func hmax(_ v: SIMD4<Float>) -> Float {
    @inline(__always) func larger(_ a: Float, _ b: Float) -> Float { b >= a ? b : a }
    return larger(larger(v[0], v[1]), larger(v[2], v[3]))
}

/// Whether some lane is above / below `x` (a NaN lane is neither): a compare and one test of its
/// mask. Where it decides a branch taken per tap or per group this measured faster than a
/// reduction to a float (`hmax`), which puts a float on the way to the branch.
@inline(__always) func anyAbove(_ v: SIMD8<Float>, _ x: Float) -> Bool { any(v .> x) }
@inline(__always) func anyBelow(_ v: SIMD8<Float>, _ x: Float) -> Bool { any(v .< x) }

@inline(__always) func hmax(_ v: SIMD8<Float>) -> Float {
    let low = hmax(v.lowHalf)
    let high = hmax(v.highHalf)
    return high >= low ? high : low
}

/// Disparity and colour (interleaved RGB) of `count` ≤ 8 consecutive pixels from index `p0`, as
/// lanes; lanes past `count` hold `fill` disparity and black.
@inline(__always) func loadPixels8(
    _ picture: UnsafePointer<Float>, _ disparity: UnsafePointer<Float>, at p0: Int, count: Int, fill: Float
) -> (d: SIMD8<Float>, r: SIMD8<Float>, g: SIMD8<Float>, b: SIMD8<Float>) {
    if count == 8 {
        let (r, g, b) = loadRGB8(picture + 3 * p0)
        return (UnsafeRawPointer(disparity + p0).loadUnaligned(as: SIMD8<Float>.self), r, g, b)
    }
    var d = SIMD8<Float>(repeating: fill)
    var r = SIMD8<Float>()
    var g = SIMD8<Float>()
    var b = SIMD8<Float>()
    for k in 0..<count {
        d[k] = disparity[p0 + k]
        r[k] = picture[3 * (p0 + k)]
        g[k] = picture[3 * (p0 + k) + 1]
        b[k] = picture[3 * (p0 + k) + 2]
    }
    return (d, r, g, b)
}

@inline(__always) func load8(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
}

@inline(__always) func load4(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
}

@inline(__always) func store4(_ p: UnsafeMutablePointer<Float>, _ v: SIMD4<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
}

@inline(__always) func store8(_ p: UnsafeMutablePointer<Float>, _ v: SIMD8<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
}

/// Eight interleaved RGB pixels to and from three channel vectors by whole-vector loads, stores
/// and lane shuffles (three loads, blends and a permute per channel), not 24 single floats moved
/// one by one. The values are moved, never computed.
@inline(__always) func loadRGB8(_ p: UnsafePointer<Float>) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
    let raw = UnsafeRawPointer(p)
    let a = raw.loadUnaligned(as: SIMD8<Float>.self)
    let b = raw.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
    let c = raw.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self)
    return (
        SIMD8(a[0], a[3], a[6], b[1], b[4], b[7], c[2], c[5]),
        SIMD8(a[1], a[4], a[7], b[2], b[5], c[0], c[3], c[6]),
        SIMD8(a[2], a[5], b[0], b[3], b[6], c[1], c[4], c[7])
    )
}

/// The inverse of `loadRGB8`: each channel permuted so that its lanes sit where the three output
/// vectors take them, then the outputs blended from the three.
@inline(__always) func storeRGB8(_ p: UnsafeMutablePointer<Float>, _ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>) {
    let rp = SIMD8(r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5])
    let gp = SIMD8(g[5], g[0], g[3], g[6], g[1], g[4], g[7], g[2])
    let bp = SIMD8(b[2], b[5], b[0], b[3], b[6], b[1], b[4], b[7])
    let raw = UnsafeMutableRawPointer(p)
    raw.storeBytes(of: SIMD8(rp[0], gp[1], bp[2], rp[3], gp[4], bp[5], rp[6], gp[7]), as: SIMD8<Float>.self)
    raw.storeBytes(of: SIMD8(bp[0], rp[1], gp[2], bp[3], rp[4], gp[5], bp[6], rp[7]), toByteOffset: 32, as: SIMD8<Float>.self)
    raw.storeBytes(of: SIMD8(gp[0], bp[1], rp[2], gp[3], bp[4], rp[5], gp[6], bp[7]), toByteOffset: 64, as: SIMD8<Float>.self)
}
