/// Integer offsets of a disk, in a fixed order, with `0.5 − distance` precomputed: the taps of
/// every gather (deterministic, no random taps). `taps[r]` holds the offsets with distance < r + 0.5.
enum DiskTaps {
    struct Tap {
        let dx: Int32
        let dy: Int32
        let half: Float  // 0.5 − distance
        /// 0 centre, 1 side, 2 diagonal neighbour, 3 farther.
        let ring: Int32
    }

    /// The largest radius, in cells, any level gathers: a shaped aperture's top at export
    /// (`BokehSchedule`); round ones stop at 6.
    static let maxRadius = 24
    /// Quarter-pixel steps of the reach: `table[k]` holds the taps closer than k / 4, up to
    /// `maxRadius + 0.5` (a disk no larger than a profile needs, so no tap of zero weight is
    /// visited in a ring up to a pixel wide).
    static let steps = 4 * maxRadius + 2
    static let table: [[Tap]] = (0...steps).map { k in
        let limit = Float(k) / 4
        var taps: [Tap] = []
        for dy in -maxRadius...maxRadius {
            for dx in -maxRadius...maxRadius {
                let d = Float(dx * dx + dy * dy).squareRoot()
                let ring = Int32(dx * dx + dy * dy > 2 ? 3 : dx * dx + dy * dy)
                if d < limit { taps.append(Tap(dx: Int32(dx), dy: Int32(dy), half: 0.5 - d, ring: ring)) }
            }
        }
        return taps
    }
}
