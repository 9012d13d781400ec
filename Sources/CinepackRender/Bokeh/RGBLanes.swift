/// Eight interleaved RGB pixels to and from three channel vectors by whole-vector loads, stores
/// and lane shuffles (three loads, blends and a permute per channel), where `strided` and
/// `storeInterleaved` move 24 single floats. The values are moved, never computed: bit for bit
/// the same.
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
