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

/// Whether some lane is above / below `x`, for lanes that are never NaN (the standard library's
/// `any` over a comparison is a call per use in the hot loops).
@inline(__always) func anyAbove(_ v: SIMD8<Float>, _ x: Float) -> Bool { hmax(vmax(v.lowHalf, v.highHalf)) > x }
@inline(__always) func anyBelow(_ v: SIMD8<Float>, _ x: Float) -> Bool { -hmax(vmax(-v.lowHalf, -v.highHalf)) < x }

@inline(__always) func hmax(_ v: SIMD8<Float>) -> Float {
    let low = hmax(v.lowHalf)
    let high = hmax(v.highHalf)
    return high >= low ? high : low
}

/// Eight RGB pixels stored interleaved (the inverse of `strided`); the vectors are complete before
/// the first store, so the optimiser does not scalarise their computation into a lane loop.
@inline(__always) func storeInterleaved(_ p: UnsafeMutablePointer<Float>, _ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>) {
    for i in 0..<8 {
        p[3 * i] = r[i]
        p[3 * i + 1] = g[i]
        p[3 * i + 2] = b[i]
    }
}

/// Disparity and colour (interleaved RGB) of `count` ≤ 8 consecutive pixels from index `p0`, as
/// lanes; lanes past `count` hold `fill` disparity and black.
@inline(__always) func loadPixels8(
    _ picture: UnsafePointer<Float>, _ disparity: UnsafePointer<Float>, at p0: Int, count: Int, fill: Float
) -> (d: SIMD8<Float>, r: SIMD8<Float>, g: SIMD8<Float>, b: SIMD8<Float>) {
    if count == 8 {
        return (
            UnsafeRawPointer(disparity + p0).loadUnaligned(as: SIMD8<Float>.self), strided(picture + 3 * p0),
            strided(picture + 3 * p0 + 1), strided(picture + 3 * p0 + 2)
        )
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

/// Eight floats 3 apart (one channel of interleaved RGB).
@inline(__always) func strided(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
    SIMD8(p[0], p[3], p[6], p[9], p[12], p[15], p[18], p[21])
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
