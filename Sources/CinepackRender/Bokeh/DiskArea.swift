/// The discrete area of a soft disk, `Σ profile(c + 0.5 − |o|)` over integer offsets `o`, so that
/// a sample spread with weights `profile / area` sums to exactly one (energy preserved).
/// `inverse` reads a table (radius steps of 1/64, up to the table's `limit`); hot loops fetch it
/// once.
enum DiskArea {
    static let step: Float = 1.0 / 64
    /// The round aperture's tables: its levels gather up to 6 cells (a radius past the limit
    /// takes the continuous disk's area).
    static let limit: Float = 16
    /// A shaped aperture's: a cell past the largest radius its levels gather
    /// (`DiskTaps.maxRadius`), where its area is not the disk's.
    static let shapedLimit = Float(DiskTaps.maxRadius + 1)
    struct Table: @unchecked Sendable {
        let storage: RawBuffer<Float>
        /// `storage`'s values, for the hot loops.
        let p: UnsafeMutablePointer<Float>
        /// Smallest radius the profile gives a point (coarse levels: half a cell).
        let floor: Float
        /// The radius (cells) the table runs to.
        let limit: Float
    }

    static func make(_ profile: EdgeProfile) -> Table {
        make(profile) { x, y in (x * x + y * y).squareRoot() }
    }

    /// The same for a shaped aperture, `gauge` standing for the distance (spec/render.md §5);
    /// its shape reaches `extent` times as far as a disk.
    static func make(_ profile: EdgeProfile, extent: Float = 1, limit: Float = limit, gauge: (Float, Float) -> Float) -> Table {
        let n = Int(limit / step) + 2
        let storage = RawBuffer<Float>(count: n)
        let t = storage.base
        for i in 0..<n {
            let c = Float(i) * step
            let reach = Int(extent * (c + 1.5)) + 1
            var sum: Float = 0
            for dy in -reach...reach {
                for dx in -reach...reach {
                    sum += profile.scalar(c + 0.5 - gauge(Float(dx), Float(dy)))
                }
            }
            t[i] = 1 / sum
        }
        return Table(storage: storage, p: t, floor: profile == .coarse ? 0.5 : 0, limit: limit)
    }

    static let table = make(.coarse)
    static let fine = make(.fine)

    /// 1 / area for a radius in cells.
    @inline(__always) static func inverse(_ radius: Float, _ table: Table) -> Float {
        let c = max(radius, table.floor)
        let limit = table.limit
        if !(c < limit) { return c.isFinite ? 1 / (Float.pi * (c * c + 1.0 / 12)) : 0 }
        let f = c / step
        let i = Int(f)
        let t = f - Float(i)
        return table.p[i] * (1 - t) + table.p[i + 1] * t
    }

    /// The same for eight radii (never NaN), lane for lane the scalar's arithmetic, so the same
    /// values; only the table reads are done per lane.
    @inline(always) static func inverse(_ radius: SIMD8<Float>, _ table: Table) -> SIMD8<Float> {
        let c = vmax(radius, SIMD8(repeating: table.floor))
        let limit = table.limit
        // Radii past the table read its last step; their lanes take the continuous area below.
        let f = vmin(SIMD8(repeating: limit / step), c * (1 / step))
        // The scalar's Int(f) is floor(f) here, taken without a trapping conversion: rounded to an
        // integer at 2^23 (exact), one less where that rounded up; that float's low bits index.
        let magic = SIMD8<Float>(repeating: 8_388_608)
        let nearest = (f + magic) - magic
        var whole = nearest
        for k in 0..<8 { whole[k] = nearest[k] > f[k] ? nearest[k] - 1 : nearest[k] }
        let t = f - whole
        // The bits as integer lanes (`Float.bitPattern` per lane was a call into the runtime).
        let bits = unsafeBitCast(whole + magic, to: SIMD8<UInt32>.self) & 0x7F_FFFF
        @inline(always) func at(_ k: Int) -> Int { Int(bits[k]) }
        let p = table.p
        let low = SIMD8(p[at(0)], p[at(1)], p[at(2)], p[at(3)], p[at(4)], p[at(5)], p[at(6)], p[at(7)])
        let q = p + 1
        let high = SIMD8(q[at(0)], q[at(1)], q[at(2)], q[at(3)], q[at(4)], q[at(5)], q[at(6)], q[at(7)])
        let inside = low * (1 - t) + high * t
        // Every lane within the table (the usual case at full resolution): the continuous area
        // and its division are not needed.
        if all(c .< limit) { return inside }
        // 0 for an infinite radius, as the scalar's.
        let outside = 1 / (Float.pi * (c * c + 1.0 / 12))
        var v = inside
        for k in 0..<8 { v[k] = c[k] < limit ? inside[k] : outside[k] }
        return v
    }

    static func inverse(_ radius: Float) -> Float { inverse(radius, table) }
}
