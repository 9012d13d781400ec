/// Pointers to the planes of a level (`LevelPlane`), fetched once per task.
struct LevelPointers {
    let stride: Int
    let farR, farG, farB, farA, farC, farI: UnsafeMutablePointer<Float>
    let allR, allG, allB, allA: UnsafeMutablePointer<Float>
    let nearR, nearG, nearB, nearA, nearC, nearI: UnsafeMutablePointer<Float>
    let maxFar, maxNear: UnsafeMutablePointer<Float>

    init(_ p: Planes<LevelPlane>) {
        stride = p.stride
        farR = p.origin(.farRed)
        farG = p.origin(.farGreen)
        farB = p.origin(.farBlue)
        farA = p.origin(.farAlpha)
        farC = p.origin(.farRadius)
        farI = p.origin(.farInverseArea)
        allR = p.origin(.fillRed)
        allG = p.origin(.fillGreen)
        allB = p.origin(.fillBlue)
        allA = p.origin(.fillAlpha)
        nearR = p.origin(.nearRed)
        nearG = p.origin(.nearGreen)
        nearB = p.origin(.nearBlue)
        nearA = p.origin(.nearAlpha)
        nearC = p.origin(.nearRadius)
        nearI = p.origin(.nearInverseArea)
        maxFar = p.origin(.maxFar)
        maxNear = p.origin(.maxNear)
    }

    @inline(__always) func index(_ x: Int, _ y: Int) -> Int { y * stride + x }

    /// Stores eight cells' far group from its sums: the colour and alpha sums times `scale`
    /// (1 / the cells' weights), the radius `c` (cells) and 1 / its area in `area`.
    @inline(__always) func storeFar(
        _ q: Int, red: SIMD8<Float>, green: SIMD8<Float>, blue: SIMD8<Float>, alpha: SIMD8<Float>, scale: SIMD8<Float>,
        radius c: SIMD8<Float>, area: DiskArea.Table
    ) {
        store8(farR + q, scale * red)
        store8(farG + q, scale * green)
        store8(farB + q, scale * blue)
        store8(farA + q, scale * alpha)
        store8(farC + q, c)
        store8(farI + q, DiskArea.inverse(c, area))
    }

    /// Stores eight cells' fill group (the far field without exclusion) from its sums, times
    /// `scale`.
    @inline(__always) func storeFill(
        _ q: Int, red: SIMD8<Float>, green: SIMD8<Float>, blue: SIMD8<Float>, alpha: SIMD8<Float>, scale: SIMD8<Float>
    ) {
        store8(allR + q, scale * red)
        store8(allG + q, scale * green)
        store8(allB + q, scale * blue)
        store8(allA + q, scale * alpha)
    }

    /// Zeroes the near group and the largest near radius of `count` cells from index `q`: what a
    /// cell without near pixels below holds (a reused level is not cleared where it is built).
    /// Eight cells are written only where some plane is not zero already: a level reused from
    /// a frame without near pixels there then keeps its cache lines clean (no write back to
    /// memory), and the values are the same either way.
    @inline(__always) func clearNear(_ q: Int, count: Int) {
        if count == 8 {
            @inline(__always) func bits(_ p: UnsafeMutablePointer<Float>) -> SIMD8<UInt32> {
                UnsafeRawPointer(p + q).loadUnaligned(as: SIMD8<UInt32>.self)
            }
            // Any bit set, −0 included (it is not the +0 written).
            let set = bits(nearR) | bits(nearG) | bits(nearB) | bits(nearA) | bits(nearC) | bits(nearI) | bits(maxNear)
            let half = set.lowHalf | set.highHalf
            if half[0] | half[1] | half[2] | half[3] == 0 { return }
            store8(nearR + q, SIMD8())
            store8(nearG + q, SIMD8())
            store8(nearB + q, SIMD8())
            store8(nearA + q, SIMD8())
            store8(nearC + q, SIMD8())
            store8(nearI + q, SIMD8())
            store8(maxNear + q, SIMD8())
            return
        }
        (nearR + q).update(repeating: 0, count: count)
        (nearG + q).update(repeating: 0, count: count)
        (nearB + q).update(repeating: 0, count: count)
        (nearA + q).update(repeating: 0, count: count)
        (nearC + q).update(repeating: 0, count: count)
        (nearI + q).update(repeating: 0, count: count)
        (maxNear + q).update(repeating: 0, count: count)
    }
}
