/// Which resolution renders which blur radius. Level 0 is full resolution and takes radii up to
/// `r0`; level ℓ ≥ 1 (2^ℓ-times smaller) takes radii up to `rt · 2^ℓ`, i.e. at most `rt` cells, so
/// the work per output pixel is bounded whatever the blur. Over the top quarter of a level's range
/// the weight moves linearly to the next level: membership is continuous (no flicker when a
/// radius crosses a boundary during a rack focus). The far and near fields each have one; at
/// export the near field keeps larger circles at full resolution.
struct BokehSchedule: Sendable {
    /// Top radius of level 0, full-resolution pixels.
    let r0: Float
    /// Top radius of the coarse levels, in their own cells.
    let rt: Float
    /// Number of coarse levels (the coarsest takes every larger radius, clamped to its top).
    let levels: Int
    static let blend: Float = 0.25
    /// Radii at or below this (a blur circle under half a pixel across) pass the pixel through.
    static let passThrough: Float = 0.25

    /// The schedule of a quality for the far field (and the fill behind near samples), or with
    /// `nearField` for near samples spreading over what lies behind them. A `shaped` aperture
    /// (spec/render.md §5) gathers more cells per level (at export up to `DiskTaps.maxRadius`, four
    /// times the round aperture's radius in cells): its corners and straight sides are drawn on
    /// enough cells to read as such, and its rim, about a cell and a half wide at any level, stays
    /// a small part of its radius (a viewer's threshold, at 21 % of the peak on an sRGB picture,
    /// sees the shape and not a rounded, swollen one).
    init(quality: RenderQuality, width: Int, height: Int, nearField: Bool = false, shaped: Bool = false) {
        switch quality {
        case .export:
            // Far circles from about 1.7 px of radius already blend into half resolution, whose
            // soft rim is invisible under the blur; near ones keep full resolution up to 3 px.
            r0 = nearField ? 3 : 2.25
            rt = shaped ? Float(DiskTaps.maxRadius) : 6
        case .preview:
            r0 = 2
            rt = shaped ? 6 : 3
        }
        var l = 0
        var w = width
        var h = height
        // Stop when the level would be tiny or already covers any radius the frame can show.
        while l < 10, (w + 1) / 2 >= 3, (h + 1) / 2 >= 3, rt * Float(1 << l) < Float(max(width, height)) {
            l += 1
            w = (w + 1) / 2
            h = (h + 1) / 2
        }
        levels = l
    }

    /// Top radius of level `l` in full-resolution pixels.
    @inline(always) func top(_ l: Int) -> Float { l == 0 ? r0 : rt * Float(1 << l) }

    /// Lowest radius level `l` serves (it starts sharing weight with level `l − 1` there).
    @inline(always) func low(_ l: Int) -> Float { l == 0 ? Self.passThrough : (1 - Self.blend) * top(l - 1) }

    /// The largest radius rendered; larger ones are clamped to it.
    var maxRadius: Float { top(levels) }

    /// The level serving radius `rho` and the weight `t` that moves to the next level.
    @inline(__always) func split(_ rho: Float) -> (level: Int, t: Float) {
        var l = 0
        while l < levels, rho > top(l) { l += 1 }
        if l == levels { return (l, 0) }
        let start = (1 - Self.blend) * top(l)
        return (l, min(max((rho - start) / (Self.blend * top(l)), 0), 1))
    }

    /// Weight of level `l` for radius `rho` (the weights of all levels sum to one).
    @inline(__always) func weight(_ rho: Float, level l: Int) -> Float {
        let (k, t) = split(rho)
        if k == l { return 1 - t }
        if k + 1 == l { return t }
        return 0
    }
}
