import Foundation

/// The tap tables and area tables of an aperture shape (spec/render.md §5). A shape is a gauge
/// `g(offset)`: the blur "circle" of radius r is `{o : g(o) < r}`. For the round aperture g is the
/// distance and the tables are exactly `DiskTaps` and `DiskArea`; a shaped aperture swaps the
/// distance for its gauge in the same soft-edge profiles, at every level (a gauge scales with the
/// offset, so one table serves every resolution). The unsqueezed shape is inscribed in the blur
/// circle; an anamorphic squeeze (area kept) reaches `extent` times further along its long axis,
/// and the renderer's schedule and padding account for it. Its own area tables keep every
/// sample's energy. With a cat's eye, every zone of the frame has its own tables (`CatEyeZones`).
final class ApertureTaps: @unchecked Sendable {
    let taps: [[DiskTaps.Tap]]
    let coarse: DiskArea.Table
    let fine: DiskArea.Table
    /// The shape's farthest reach in blur radii (√ of the anamorphic ratio or its inverse; 1 unsqueezed).
    let extent: Float
    /// The cat's-eye zones, nil without a cat's eye.
    let zones: CatEyeZones?

    private init(
        taps: [[DiskTaps.Tap]], coarse: DiskArea.Table, fine: DiskArea.Table, extent: Float = 1, zones: CatEyeZones? = nil
    ) {
        self.taps = taps
        self.coarse = coarse
        self.fine = fine
        self.extent = extent
        self.zones = zones
    }

    /// The round aperture: today's tables.
    static let circle = ApertureTaps(taps: DiskTaps.table, coarse: DiskArea.table, fine: DiskArea.fine)

    /// The tables of a look (the circle's when the look is round).
    static func make(_ look: LensLook) -> ApertureTaps {
        if look.isRound { return circle }
        let gauge = ApertureGauge(look)
        let m = tapReach(gauge.extent)
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
        let zones =
            look.clipsCatEyes
            ? CatEyeZones(
                catEye: CatEye(amount: look.catEye), squeeze: SIMD2(gauge.sx, gauge.sy), extent: gauge.extent,
                gauge: gauge.unsqueezed)
            : nil
        return ApertureTaps(
            taps: taps, coarse: DiskArea.make(.coarse, extent: gauge.extent, limit: DiskArea.shapedLimit, gauge: gauge.value),
            fine: DiskArea.make(.fine, extent: gauge.extent, limit: DiskArea.shapedLimit, gauge: gauge.value), extent: gauge.extent,
            zones: zones)
    }

    /// The largest tap offset (each axis) a shape reaching `extent` blur radii needs: the taps'
    /// gauge stops at `DiskTaps.steps / 4`.
    static func tapReach(_ extent: Float) -> Int { Int((extent * Float(DiskTaps.steps) / 4).rounded(.up)) }

    /// Runs `body` with the taps whose gauge is below `limit` (rounded up to a quarter, clamped to
    /// the table). A sample of radius e reaches e + 1 with the fine profile and e + 0.5 with the
    /// coarse one, so callers pass the largest radius plus that reach.
    @inline(__always) func within<R>(_ limit: Float, _ body: (UnsafeBufferPointer<DiskTaps.Tap>) -> R) -> R {
        let k = limit.isFinite ? min(max(Int((limit * 4).rounded(.up)), 0), DiskTaps.steps) : DiskTaps.steps
        return taps[k].withUnsafeBufferPointer(body)
    }

    /// The same in a cat's-eye zone (`zone(…)`; always 0 without a cat's eye).
    @inline(__always) func within<R>(_ limit: Float, zone: Int, _ body: (UnsafeBufferPointer<DiskTaps.Tap>) -> R) -> R {
        if let zones { return zones.within(limit, zone: zone, body) }
        return within(limit, body)
    }

    /// The zone of a point of a frame (0 without a cat's eye). A pixel gathering spots of
    /// `radius` receives them from samples nearer the centre than itself (a cat's eye reaches
    /// outward, its centroid about `amount · ρ · radius / 2` out): the zone is taken there, so
    /// that the spots a pixel draws and their normalisation are those of their samples.
    @inline(__always) func zone(_ x: Float, _ y: Float, _ frame: CatEye.Frame, radius: Float = 0) -> Int {
        guard let zones else { return 0 }
        return frame.zone(x, y, pull: zones.catEye.amount * radius * 0.5 * frame.rho(x, y))
    }

    /// The area tables of a zone.
    @inline(__always) func coarse(_ zone: Int) -> DiskArea.Table { zones?.coarse(zone) ?? coarse }
    @inline(__always) func fine(_ zone: Int) -> DiskArea.Table { zones?.fine(zone) ?? fine }
}
