/// The weights a coarse level's eight cells (one group, `cx0 … cx0 + 7` of row `cy`) give their
/// children in the finer level: a tent of (1, 3, 3, 1) / 8 along each axis over the 4 × 4 children
/// around each cell (columns 2cx − 1 … 2cx + 2, rows 2cy − 1 … 2cy + 2). Unlike the 2 × 2 box, it
/// keeps the first moment of what it averages: a child's energy is shared between the two cells
/// either side of it in proportion to its nearness, so a point light's spot, gathered from a
/// coarse level, stays centred on the light instead of on its cell (a moving light's bokeh moves
/// with it rather than standing still and jumping a cell). Children outside the finer level weigh
/// nothing and each cell's weights are normalised over those present. Level 2 and coarser, and
/// the far field of level 1 in preview's reduced render (whose pixels are 4 of the picture's);
/// export keeps the 2 × 2 box at level 1, which is off by half a pixel at most, as a tent there
/// softens the rims of the smallest circles it serves (a 3-px silhouette spread 5.16 px against
/// the reference's 4.28, 4.67 with the box).
struct ChildTent {
    /// One row of children of the eight cells: columns 2cx − 1, 2cx, 2cx + 1, 2cx + 2 per lane.
    struct Row {
        var outerLeft, left, right, outerRight: SIMD8<Float>
    }

    /// Offsets of the four rows' first child (column 2·cx0) from a plane's cell (0, 0); a row
    /// outside the finer level repeats the nearest one, with no weight.
    let rows: (Int, Int, Int, Int)
    /// The four rows' weights: 1, 3, 3, 1, or 0 outside the finer level.
    let rowWeights: SIMD4<Float>
    /// The four columns' weights per lane.
    let columnWeights: Row
    /// 1 / the sum of each cell's weights (0 for a lane past the level's width).
    let inverse: SIMD8<Float>
    /// Every child of the eight cells inside the finer level: the weights are the constants.
    let interior: Bool

    /// The tent of the group at (`cx0`, `cy`) over a finer grid of `fw × fh` children, `stride`
    /// values a row.
    @inline(__always) init(cx0: Int, cy: Int, fineWidth fw: Int, fineHeight fh: Int, stride: Int) {
        self.init(cx0: cx0, cy: cy, fineWidth: fw, fineHeight: fh) { $0 * stride }
    }

    /// The same over rows that lie where `rowStart(y)` says (row y's column 0 from the planes'
    /// origin): rows kept in a ring rather than a whole plane (`FirstLevelRows`).
    @inline(__always) init(cx0: Int, cy: Int, fineWidth fw: Int, fineHeight fh: Int, rowStart: (Int) -> Int) {
        func row(_ k: Int) -> Int { rowStart(min(max(2 * cy - 1 + k, 0), fh - 1)) + 2 * cx0 }
        rows = (row(0), row(1), row(2), row(3))
        interior = cx0 > 0 && 2 * cx0 + 16 < fw && cy > 0 && 2 * cy + 2 < fh
        let tent = SIMD4<Float>(1, 3, 3, 1)
        if interior {
            rowWeights = tent
            columnWeights = Row(
                outerLeft: SIMD8(repeating: 1), left: SIMD8(repeating: 3), right: SIMD8(repeating: 3), outerRight: SIMD8(repeating: 1))
            inverse = SIMD8(repeating: 1 / 64)
            return
        }
        var present = SIMD4<Float>()
        for k in 0..<4 where (0..<fh).contains(2 * cy - 1 + k) { present[k] = 1 }
        rowWeights = tent * present
        func column(_ k: Int) -> SIMD8<Float> {
            var v = SIMD8<Float>()
            for i in 0..<8 where (0..<fw).contains(2 * (cx0 + i) - 1 + k) { v[i] = tent[k] }
            return v
        }
        let columns = Row(outerLeft: column(0), left: column(1), right: column(2), outerRight: column(3))
        let total = columns.total * rowWeights.sum()
        inverse = total.replacing(with: 1 / total, where: total .> 0)
        columnWeights = columns
    }

    /// Row `k` (0…3) of `plane`'s children.
    @inline(__always) func row(_ plane: UnsafeMutablePointer<Float>, _ k: Int) -> Row {
        let p = plane + offset(k)
        let (a, b, c) = (load8(p - 2), load8(p), load8(p + 2))
        let (d, e, f) = (load8(p + 6), load8(p + 8), load8(p + 10))
        return Row(
            outerLeft: SIMD8(lowHalf: a.oddHalf, highHalf: d.oddHalf), left: SIMD8(lowHalf: b.evenHalf, highHalf: e.evenHalf),
            right: SIMD8(lowHalf: b.oddHalf, highHalf: e.oddHalf), outerRight: SIMD8(lowHalf: c.evenHalf, highHalf: f.evenHalf))
    }

    /// The cell's own 2 × 2 children of `plane` (top left, top right, bottom left, bottom right),
    /// 0 outside the finer level: what the pixels below the cell hold, not its content.
    @inline(__always) func own(_ plane: UnsafeMutablePointer<Float>) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let (top, bottom) = (row(plane, 1), row(plane, 2))
        if interior { return (top.left, top.right, bottom.left, bottom.right) }
        // The inner columns' and rows' weights are 3 where present.
        let (left, right) = (vpositive(columnWeights.left), vpositive(columnWeights.right))
        let (upper, lower) = (rowWeights[1] > 0 ? 1 : 0, rowWeights[2] > 0 ? 1 : 0) as (Float, Float)
        return (top.left * left * upper, top.right * right * upper, bottom.left * left * lower, bottom.right * right * lower)
    }

    /// How many of each cell's own 2 × 2 children lie in the finer level.
    @inline(__always) var ownCount: SIMD8<Float> {
        if interior { return SIMD8(repeating: 4) }
        let rows: Float = (rowWeights[1] > 0 ? 1 : 0) + (rowWeights[2] > 0 ? 1 : 0)
        return (vpositive(columnWeights.left) + vpositive(columnWeights.right)) * rows
    }

    /// The weights of row `k`'s children, times `factor` child by child (interior groups take the
    /// tent across instead, below).
    @inline(__always) func weights(_ k: Int, _ factor: Row) -> Row {
        let w = rowWeights[k]
        let c = columnWeights
        return Row(
            outerLeft: w * c.outerLeft * factor.outerLeft, left: w * c.left * factor.left, right: w * c.right * factor.right,
            outerRight: w * c.outerRight * factor.outerRight)
    }

    /// The weighted sum (not normalised) of `plane`'s children.
    @inline(__always) func sum(_ plane: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        if interior {
            var (lo, hi) = across(plane, 0)
            for k in 1..<4 {
                let (a, b) = across(plane, k)
                let w: Float = k == 3 ? 1 : 3
                lo += w * a
                hi += w * b
            }
            return Self.cells(lo, hi)
        }
        var total = SIMD8<Float>()
        for k in 0..<4 where rowWeights[k] > 0 {
            total += weights(k, row(plane, k)).total
        }
        return total
    }

    // MARK: Interior groups

    // Across an interior group the tent is taken at the finer level's columns, without
    // rearranging lanes: each of the group's 16 columns j gets x[j − 1] + 2x[j] + x[j + 1] (whole
    // vectors read one column apart), and adding a cell's two columns gives its (1, 3, 3, 1).
    // Per child factors that depend on the cell (the far share) take the cell's value in both of
    // its columns' lanes.

    /// Offset of row `k`'s first child from a plane's cell (0, 0).
    @inline(__always) func offset(_ k: Int) -> Int { k == 0 ? rows.0 : k == 1 ? rows.1 : k == 2 ? rows.2 : rows.3 }

    /// Row `k` of `plane` as (1, 2, 1) across the group's 16 columns, the first eight and the rest.
    @inline(__always) func across(_ plane: UnsafeMutablePointer<Float>, _ k: Int) -> (SIMD8<Float>, SIMD8<Float>) {
        let p = plane + offset(k)
        return (load8(p - 1) + 2 * load8(p) + load8(p + 1), load8(p + 7) + 2 * load8(p + 8) + load8(p + 9))
    }

    /// The group's 16 columns to its eight cells: each cell's two added.
    @inline(__always) static func cells(_ lo: SIMD8<Float>, _ hi: SIMD8<Float>) -> SIMD8<Float> {
        SIMD8(lowHalf: lo.evenHalf + lo.oddHalf, highHalf: hi.evenHalf + hi.oddHalf)
    }

    /// Each lane's pair (0 and 1, 2 and 3, …) given the larger of the two: a cell's value in
    /// both of its columns.
    @inline(__always) static func pairMax(_ v: SIMD8<Float>) -> SIMD8<Float> {
        vmax(v, SIMD8(v[1], v[0], v[3], v[2], v[5], v[4], v[7], v[6]))
    }
}

extension ChildTent.Row {
    /// Child by child product.
    @inline(__always) static func * (a: Self, b: Self) -> Self {
        Self(outerLeft: a.outerLeft * b.outerLeft, left: a.left * b.left, right: a.right * b.right, outerRight: a.outerRight * b.outerRight)
    }

    /// The sum of the four children.
    @inline(__always) var total: SIMD8<Float> { outerLeft + left + right + outerRight }

    /// `f` applied to each child.
    @inline(__always) func map(_ f: (SIMD8<Float>) -> SIMD8<Float>) -> Self {
        Self(outerLeft: f(outerLeft), left: f(left), right: f(right), outerRight: f(outerRight))
    }
}
