import Foundation

/// The tap tables and area tables of an aperture shape (spec/render.md §5). A shape is a gauge
/// `g(offset)`: the blur "circle" of radius r is `{o : g(o) < r}`. For the round aperture g is the
/// distance and the tables are exactly `DiskTaps` and `DiskArea`; a shaped aperture swaps the
/// distance for its gauge in the same soft-edge profiles, at every level (a gauge scales with the
/// offset, so one table serves every resolution). The shape is inscribed in the blur circle (its
/// farthest point at the blur radius), so taps never reach beyond the planes' padding; its own
/// area tables keep every sample's energy.
final class ApertureTaps: @unchecked Sendable {
    let taps: [[DiskTaps.Tap]]
    let coarse: DiskArea.Table
    let fine: DiskArea.Table

    private init(taps: [[DiskTaps.Tap]], coarse: DiskArea.Table, fine: DiskArea.Table) {
        self.taps = taps
        self.coarse = coarse
        self.fine = fine
    }

    /// The round aperture: today's tables.
    static let circle = ApertureTaps(taps: DiskTaps.table, coarse: DiskArea.table, fine: DiskArea.fine)

    /// The tables of a look (the circle's when the look is round).
    static func make(_ look: LensLook) -> ApertureTaps {
        if look.isRound { return circle }
        let gauge = ApertureGauge(look)
        let m = DiskTaps.maxRadius
        // A gather reads the sample at offset o, whose shape must cover −o.
        let g = (-m...m).flatMap { dy in (-m...m).map { dx in gauge.value(Float(-dx), Float(-dy)) } }
        let taps: [[DiskTaps.Tap]] = (0...DiskTaps.steps).map { k in
            let limit = Float(k) / 4
            var list: [DiskTaps.Tap] = []
            for dy in -m...m {
                for dx in -m...m {
                    let d = g[(dy + m) * (2 * m + 1) + dx + m]
                    let ring = Int32(dx * dx + dy * dy > 2 ? 3 : dx * dx + dy * dy)
                    if d < limit { list.append(DiskTaps.Tap(dx: Int32(dx), dy: Int32(dy), half: 0.5 - d, ring: ring)) }
                }
            }
            return list
        }
        return ApertureTaps(
            taps: taps, coarse: DiskArea.make(.coarse, gauge: gauge.value), fine: DiskArea.make(.fine, gauge: gauge.value))
    }

    /// Runs `body` with the taps whose gauge is below `limit` (rounded up to a quarter, clamped to
    /// the table). A sample of radius e reaches e + 1 with the fine profile and e + 0.5 with the
    /// coarse one, so callers pass the largest radius plus that reach.
    @inline(__always) func within<R>(_ limit: Float, _ body: (UnsafeBufferPointer<DiskTaps.Tap>) -> R) -> R {
        let k = limit.isFinite ? min(max(Int((limit * 4).rounded(.up)), 0), DiskTaps.steps) : DiskTaps.steps
        return taps[k].withUnsafeBufferPointer(body)
    }
}
