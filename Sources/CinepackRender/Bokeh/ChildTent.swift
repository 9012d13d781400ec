/// The weights a coarse level's eight cells (one group, `cx0 … cx0 + 7` of row `cy`) give their
/// children in the finer level: a tent of (1, 3, 3, 1) / 8 along each axis over the 4 × 4 children
/// around each cell (columns 2cx − 1 … 2cx + 2, rows 2cy − 1 … 2cy + 2). Unlike the 2 × 2 box, it
/// keeps the first moment of what it averages: a child's energy is shared between the two cells
/// either side of it in proportion to its nearness, so a point light's spot, gathered from a
/// coarse level, stays centred on the light instead of on its cell (a moving light's bokeh moves
/// with it rather than standing still and jumping a cell). Children outside the finer level weigh
/// nothing and each cell's weights are normalised over those present. Level 2 and coarser: level
/// 1 keeps the 2 × 2 box, which is off by half a pixel at most, as a tent there softens the rims
/// of the smallest circles it serves (a 3-px silhouette spread 5.16 px against the reference's
/// 4.28, 4.67 with the box).
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

    /// The tent of the group at (`cx0`, `cy`) over a finer grid of `fw × fh` children whose row
    /// `y` starts `rowStart(y)` values from a plane's origin.
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
        let offset = k == 0 ? rows.0 : k == 1 ? rows.1 : k == 2 ? rows.2 : rows.3
        let p = plane + offset
        let (a, b, c) = (load8(p - 2), load8(p), load8(p + 2))
        let (d, e, f) = (load8(p + 6), load8(p + 8), load8(p + 10))
        return Row(
            outerLeft: SIMD8(lowHalf: a.oddHalf, highHalf: d.oddHalf), left: SIMD8(lowHalf: b.evenHalf, highHalf: e.evenHalf),
            right: SIMD8(lowHalf: b.oddHalf, highHalf: e.oddHalf), outerRight: SIMD8(lowHalf: c.evenHalf, highHalf: f.evenHalf))
    }

    /// The weights of row `k`'s children, times `factor` child by child.
    @inline(__always) func weights(_ k: Int, _ factor: Row) -> Row {
        let w = rowWeights[k]
        if interior {
            return Row(
                outerLeft: w * factor.outerLeft, left: 3 * w * factor.left, right: 3 * w * factor.right, outerRight: w * factor.outerRight)
        }
        let c = columnWeights
        return Row(
            outerLeft: w * c.outerLeft * factor.outerLeft, left: w * c.left * factor.left, right: w * c.right * factor.right,
            outerRight: w * c.outerRight * factor.outerRight)
    }

    /// The weighted sum (not normalised) of `plane`'s children.
    @inline(__always) func sum(_ plane: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        var total = SIMD8<Float>()
        for k in 0..<4 where rowWeights[k] > 0 {
            let v = row(plane, k)
            let across: SIMD8<Float>
            if interior {
                across = v.outerLeft + v.outerRight + 3 * (v.left + v.right)
            } else {
                let c = columnWeights
                across = c.outerLeft * v.outerLeft + c.left * v.left + c.right * v.right + c.outerRight * v.outerRight
            }
            total += rowWeights[k] * across
        }
        return total
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
