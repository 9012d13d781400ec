// The gathers, eight horizontally adjacent cells at a time (SIMD8 over structure-of-arrays planes),
// over fixed dense disk taps. Each reads a plane group (`GroupPlane`) from the pointer to its first
// plane: far and near groups have all six planes, the fill group only colour and alpha.

/// Eight cells of `plane` in the group whose first plane is at `q` (planes `ps` floats apart).
@inline(__always) func load8(_ q: UnsafeMutablePointer<Float>, _ plane: GroupPlane, planeSize ps: Int) -> SIMD8<Float> {
    load8(q + plane.rawValue * ps)
}

/// Sums of weight × colour and weight × alpha for eight cells.
struct Accum8 {
    var r = SIMD8<Float>.zero
    var g = SIMD8<Float>.zero
    var b = SIMD8<Float>.zero
    var a = SIMD8<Float>.zero

    /// The first `count` lanes into the result planes of `field` at cells (x0 …, y).
    @inline(__always) func store(into planes: Planes<GatherPlane>, field: Int, _ x0: Int, _ y: Int, count: Int) {
        let q = planes.origin(GatherPlane.red(field: field)) + planes.index(x0, y)
        let ps = planes.planeSize
        if count == 8 {
            store8(q, r)
            store8(q + ps, g)
            store8(q + 2 * ps, b)
            store8(q + 3 * ps, a)
        } else {
            for k in 0..<count {
                q[k] = r[k]
                q[ps + k] = g[k]
                q[2 * ps + k] = b[k]
                q[3 * ps + k] = a[k]
            }
        }
    }
}

/// Far field, scatter as gather: a sample at distance `d` reaches a pixel of radius `rho` when
/// `d < min(sample radius, rho) + 0.5` (soft one-cell edge), with weight coverage / area of that
/// smaller disk. A sharper (nearer) sample therefore never spreads beyond its own blur, and a
/// blurrier (farther) one never beyond the pixel's.
@inline(__always)
func gatherFar(
    _ p: UnsafeMutablePointer<Float>, planeSize ps: Int, stride: Int, taps: UnsafeBufferPointer<DiskTaps.Tap>,
    rho: SIMD8<Float>, inverseArea: SIMD8<Float>, profile coverage: EdgeProfile = .coarse
) -> Accum8 {
    var acc = Accum8()
    for t in taps { acc.addFar(p, planeSize: ps, stride: stride, tap: t, rho: rho, inverseArea: inverseArea, profile: coverage) }
    return acc
}

/// Near field: every sample spreads over its own disk, weight coverage × (level share / area).
@inline(__always)
func gatherNear(
    _ p: UnsafeMutablePointer<Float>, planeSize ps: Int, stride: Int, taps: UnsafeBufferPointer<DiskTaps.Tap>,
    profile coverage: EdgeProfile = .coarse
) -> Accum8 {
    var acc = Accum8()
    for t in taps { acc.addNear(p, planeSize: ps, stride: stride, tap: t, profile: coverage) }
    return acc
}

/// `gatherNear` (coarse profile) over the rows of table `k` whose near samples reach
/// (`RowReach`), each through the table of the radius there: a sample of radius c gives no
/// weight at a gauge of c + 0.5 or more, so the sums are the whole table's bit for bit.
@inline(__always)
func gatherNear(
    _ p: UnsafeMutablePointer<Float>, planeSize ps: Int, stride: Int, rows: TapRows, table k: Int, reach: RowReach
) -> Accum8 {
    var acc = Accum8()
    rows.forEach(table: k, { reach.table($0, within: k) }) {
        acc.addNear(p, planeSize: ps, stride: stride, tap: $0, profile: .coarse)
    }
    return acc
}

/// The fill behind a blurred foreground: a plain soft-disk average of the far samples around,
/// weights coverage / area (so a fully covered disk sums to one).
@inline(__always)
func gatherFill(
    _ p: UnsafeMutablePointer<Float>, planeSize ps: Int, stride: Int, taps: UnsafeBufferPointer<DiskTaps.Tap>,
    rho: SIMD8<Float>, inverseArea: SIMD8<Float>, profile coverage: EdgeProfile = .coarse
) -> Accum8 {
    var acc = Accum8()
    for t in taps { acc.addFill(p, planeSize: ps, stride: stride, tap: t, rho: rho, inverseArea: inverseArea, profile: coverage) }
    return acc
}

/// `gatherFill` (coarse profile) over the rows of table `k` that hold a fill sample with colour or
/// alpha (`RowReach`): the others add exactly zero, so the sums are the whole table's bit for bit.
@inline(__always)
func gatherFill(
    _ p: UnsafeMutablePointer<Float>, planeSize ps: Int, stride: Int, rows: TapRows, table k: Int, reach: RowReach,
    rho: SIMD8<Float>, inverseArea: SIMD8<Float>
) -> Accum8 {
    var acc = Accum8()
    rows.forEach(table: k, { reach[$0] > 0 ? k : -1 }) {
        acc.addFill(p, planeSize: ps, stride: stride, tap: $0, rho: rho, inverseArea: inverseArea, profile: .coarse)
    }
    return acc
}

/// One row of `SampleReach` around a group at row `y`: the reach of row `y + dy`, rows `stride`
/// apart from `p` (the group's tile column), `height` of them. Rows past the frame read its
/// padding, which repeats the edge row.
struct RowReach {
    let p: UnsafePointer<Float>
    let stride: Int
    let y: Int
    let height: Int
    /// Where given, each row's `TapRows.table(reach + 0.5)` (−1 where none reaches), laid out
    /// as `p`: worked out once per row rather than by every group whose taps cross it.
    var tables: UnsafePointer<Int32>? = nil

    @inline(__always) private func offset(_ dy: Int) -> Int { min(max(y &+ dy, 0), height &- 1) &* stride }

    @inline(__always) subscript(_ dy: Int) -> Float { p[offset(dy)] }

    /// The table for row `dy` of samples whose radius is the reach there, at most `k`; −1 when
    /// none reaches.
    @inline(__always) func table(_ dy: Int, within k: Int) -> Int {
        if let tables {
            let t = Int(tables[offset(dy)])
            return t < 0 ? -1 : min(k, t)
        }
        let c = self[dy]
        return c > 0 ? min(k, TapRows.table(c + 0.5)) : -1
    }
}

extension Accum8 {
    /// Weight `w` times the colour and alpha of the eight samples of the group at `q`.
    @inline(__always) mutating func add(_ w: SIMD8<Float>, _ q: UnsafeMutablePointer<Float>, planeSize ps: Int) {
        r += w * load8(q, .red, planeSize: ps)
        g += w * load8(q, .green, planeSize: ps)
        b += w * load8(q, .blue, planeSize: ps)
        a += w * load8(q, .alpha, planeSize: ps)
    }

    // The taps' offsets stay within a level's padding: wrapping arithmetic spares the tap loops
    // an overflow check per tap.

    /// One far tap (`gatherFar`).
    @inline(__always) mutating func addFar(
        _ p: UnsafeMutablePointer<Float>, planeSize ps: Int, stride: Int, tap t: DiskTaps.Tap, rho: SIMD8<Float>,
        inverseArea: SIMD8<Float>, profile coverage: EdgeProfile
    ) {
        let q = p + (Int(t.dy) &* stride &+ Int(t.dx))
        let c = load8(q, .radius, planeSize: ps)
        let ia = load8(q, .inverseArea, planeSize: ps)
        let e = vmin(c, rho)
        let w: SIMD8<Float>
        if coverage == .fine {
            w = FineKernel.tapWeight(e, tap: t, area: vmax(ia, inverseArea))
        } else {
            w = EdgeProfile.coarseProfile(e + t.half) * vmax(ia, inverseArea)
        }
        add(w, q, planeSize: ps)
    }

    /// One near tap (`gatherNear`).
    @inline(__always) mutating func addNear(
        _ p: UnsafeMutablePointer<Float>, planeSize ps: Int, stride: Int, tap t: DiskTaps.Tap, profile coverage: EdgeProfile
    ) {
        let q = p + (Int(t.dy) &* stride &+ Int(t.dx))
        let c = load8(q, .radius, planeSize: ps)
        let ia = load8(q, .inverseArea, planeSize: ps)
        let w: SIMD8<Float>
        if coverage == .fine {
            w = FineKernel.tapWeight(c, tap: t, area: ia)
        } else {
            w = EdgeProfile.coarseProfile(c + t.half) * ia
        }
        add(w, q, planeSize: ps)
    }

    /// One fill tap (`gatherFill`).
    @inline(__always) mutating func addFill(
        _ p: UnsafeMutablePointer<Float>, planeSize ps: Int, stride: Int, tap t: DiskTaps.Tap, rho: SIMD8<Float>,
        inverseArea: SIMD8<Float>, profile coverage: EdgeProfile
    ) {
        let q = p + (Int(t.dy) &* stride &+ Int(t.dx))
        let w: SIMD8<Float>
        if coverage == .fine {
            let profile = EdgeProfile.fineProfile(rho + t.half)
            // The kernel behind a call here (`fineWeight`), unlike `FineKernel.tapWeight`.
            if FineKernel.splineOnly(t) {
                w = profile * inverseArea
            } else {
                w = fineWeight(rho, ring: t.ring, profile: profile, inverseArea: inverseArea)
            }
        } else {
            w = EdgeProfile.coarseProfile(rho + t.half) * inverseArea
        }
        add(w, q, planeSize: ps)
    }
}
