/// The discrete area of a soft disk, `Σ profile(c + 0.5 − |o|)` over integer offsets `o`, so that
/// a sample spread with weights `profile / area` sums to exactly one (energy preserved).
/// `inverse` reads a table (radius steps of 1/64 up to 16 cells); hot loops fetch it once.
enum DiskArea {
    static let step: Float = 1.0 / 64
    static let limit: Float = 16
    struct Table: @unchecked Sendable {
        let storage: RawBuffer<Float>
        /// `storage`'s values, for the hot loops.
        let p: UnsafeMutablePointer<Float>
        /// Smallest radius the profile gives a point (coarse levels: half a cell).
        let floor: Float
    }

    static func make(_ profile: EdgeProfile) -> Table {
        make(profile) { x, y in (x * x + y * y).squareRoot() }
    }

    /// The same for a shaped aperture, `gauge` standing for the distance (spec/render.md §5);
    /// its shape reaches `extent` times as far as a disk.
    static func make(_ profile: EdgeProfile, extent: Float = 1, gauge: (Float, Float) -> Float) -> Table {
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
        return Table(storage: storage, p: t, floor: profile == .coarse ? 0.5 : 0)
    }

    static let table = make(.coarse)
    static let fine = make(.fine)

    /// 1 / area for a radius in cells.
    @inline(__always) static func inverse(_ radius: Float, _ table: Table) -> Float {
        let c = max(radius, table.floor)
        if !(c < limit) { return c.isFinite ? 1 / (Float.pi * (c * c + 1.0 / 12)) : 0 }
        let f = c / step
        let i = Int(f)
        let t = f - Float(i)
        return table.p[i] * (1 - t) + table.p[i + 1] * t
    }

    static func inverse(_ radius: Float) -> Float { inverse(radius, table) }
}
