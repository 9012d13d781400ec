/// The tap and area tables of every cat's-eye zone (spec/render.md §5) of one aperture: the
/// aperture's gauge clipped by each zone's displaced disc. Built once per look; a gather picks
/// its zone's tables per group of eight cells, so the hot loops are those of any shape.
///
/// A zone's taps are ordered by quarter steps of their gauge (row by row within a step): the
/// taps below a limit are a prefix, so one list per zone serves every reach.
final class CatEyeZones: @unchecked Sendable {
    let catEye: CatEye
    private let taps: [DiskTaps.Tap]
    /// Per zone, `DiskTaps.steps + 1` prefix ends into `taps` (absolute indices).
    private let ends: [Int]
    private let storage: RawBuffer<Float>
    private let coarse: [DiskArea.Table]
    private let fine: [DiskArea.Table]

    /// `gauge(u)` is the unclipped aperture's gauge on unsqueezed offsets, `squeeze` the anamorphic
    /// scale of x and y (a screen offset o is `u = (o.x · squeeze.x, o.y · squeeze.y)`), `extent`
    /// the farthest screen reach of the shape in blur radii.
    init(
        catEye: CatEye, squeeze: SIMD2<Float>, extent: Float, gauge: (SIMD2<Float>) -> Float, threads: Int? = nil
    ) {
        self.catEye = catEye
        let steps = DiskTaps.steps
        let m = ApertureTaps.tapReach(extent)
        let reach = Float(steps) / 4
        // Area tables run to DiskArea.shapedLimit plus the fine profile's reach; taps to the last step.
        let g = Int((extent * (DiskArea.shapedLimit + 2)).rounded(.up))
        let side = 2 * g + 1
        let unsqueezed = (-g...g).flatMap { dy in (-g...g).map { dx in SIMD2(Float(dx) * squeeze.x, Float(dy) * squeeze.y) } }
        let aperture = unsqueezed.map(gauge)
        let entries = Int(DiskArea.shapedLimit / DiskArea.step) + 2
        let zones = CatEye.zoneCount
        let storage = RawBuffer<Float>(count: 2 * zones * entries, zeroed: false)
        self.storage = storage
        let store = Shared(storage.base)
        var zoneTaps = [[DiskTaps.Tap]](repeating: [], count: zones)
        var zoneEnds = [[Int]](repeating: [], count: zones)
        zoneTaps.withUnsafeMutableBufferPointer { tapsOut in
            zoneEnds.withUnsafeMutableBufferPointer { endsOut in
                let tapsShared = Shared(tapsOut.baseAddress!)
                let endsShared = Shared(endsOut.baseAddress!)
                parallelFor(zones, threads: threads) { z in
                    let s = catEye.displacement(z)
                    var clipped = [Float](repeating: 0, count: side * side)
                    for i in 0..<(side * side) {
                        clipped[i] = z == 0 ? aperture[i] : max(aperture[i], CatEye.discGauge(unsqueezed[i], s))
                    }
                    // A gather reads the sample at offset o, whose spot must cover −o.
                    var list: [(step: Int, tap: DiskTaps.Tap)] = []
                    for dy in -m...m {
                        for dx in -m...m {
                            let d = clipped[(g - dy) * side + g - dx]
                            guard d < reach else { continue }
                            let ring = Int32(dx * dx + dy * dy > 2 ? 3 : dx * dx + dy * dy)
                            list.append((Int(d * 4) + 1, DiskTaps.Tap(dx: Int32(dx), dy: Int32(dy), half: 0.5 - d, ring: ring)))
                        }
                    }
                    // Row order within a quarter step (a stable counting sort by step).
                    var firsts = [Int](repeating: 0, count: steps + 2)
                    for entry in list { firsts[entry.step + 1] += 1 }
                    for k in 0...steps { firsts[k + 1] += firsts[k] }
                    endsShared.p[z] = Array(firsts[1...])
                    var ordered = [DiskTaps.Tap](repeating: DiskTaps.Tap(dx: 0, dy: 0, half: 0, ring: 0), count: list.count)
                    for entry in list {
                        ordered[firsts[entry.step]] = entry.tap
                        firsts[entry.step] += 1
                    }
                    tapsShared.p[z] = ordered
                    Self.fillAreas(store.p + 2 * z * entries, .coarse, clipped)
                    Self.fillAreas(store.p + (2 * z + 1) * entries, .fine, clipped)
                }
            }
        }
        var flat: [DiskTaps.Tap] = []
        var ends: [Int] = []
        for z in 0..<zones {
            let start = flat.count
            flat += zoneTaps[z]
            ends += zoneEnds[z].map { start + $0 }
        }
        taps = flat
        self.ends = ends
        coarse = (0..<zones).map {
            DiskArea.Table(storage: storage, p: storage.base + 2 * $0 * entries, floor: 0.5, limit: DiskArea.shapedLimit)
        }
        fine = (0..<zones).map {
            DiskArea.Table(storage: storage, p: storage.base + (2 * $0 + 1) * entries, floor: 0, limit: DiskArea.shapedLimit)
        }
    }

    /// `1 / Σ profile(c + 0.5 − g(o))` over the integer offsets, for the radii of `DiskArea`'s
    /// tables: the gauges are bucketed by table step, so each radius sums only its soft rim.
    private static func fillAreas(_ out: UnsafeMutablePointer<Float>, _ profile: EdgeProfile, _ gauges: [Float]) {
        let entries = Int(DiskArea.shapedLimit / DiskArea.step) + 2
        let perStep = 1 / DiskArea.step
        let rim = Int((profile.reach + 0.5) * perStep)
        let buckets = entries + rim + 1
        var counts = [Int](repeating: 0, count: buckets + 1)
        for v in gauges where v.isFinite {
            let b = Int(v * perStep)
            if b < buckets { counts[b + 1] += 1 }
        }
        for b in 0..<buckets { counts[b + 1] += counts[b] }
        var sorted = [Float](repeating: 0, count: counts[buckets])
        var fill = counts
        for v in gauges where v.isFinite {
            let b = Int(v * perStep)
            if b < buckets {
                sorted[fill[b]] = v
                fill[b] += 1
            }
        }
        // The area is summed exactly every `every` table steps and interpolated between (it is
        // smooth in the radius: within 1 % at 1/16 of a cell), which keeps the 513 zones' tables
        // quick to build.
        let every = 4
        func area(_ i: Int) -> Float {
            let c = Float(i) * DiskArea.step
            // Buckets wholly inside the profile's full part count 1 each; the rim is summed.
            let low = max(i - rim, 0)
            let high = min(i + rim + 1, buckets)
            var sum = Float(counts[low])
            for k in counts[low]..<counts[high] { sum += profile.scalar(c + 0.5 - sorted[k]) }
            return sum
        }
        var previous = area(0)
        out[0] = previous > 0 ? 1 / previous : 0
        var i = 0
        while i + 1 < entries {
            let next = min(i + every, entries - 1)
            let sum = area(next)
            for j in (i + 1)...next {
                let t = Float(j - i) / Float(next - i)
                let a = previous + (sum - previous) * t
                out[j] = a > 0 ? 1 / a : 0
            }
            previous = sum
            i = next
        }
    }

    /// The coarse and fine area tables of a zone.
    @inline(__always) func coarse(_ zone: Int) -> DiskArea.Table { coarse[zone] }
    @inline(__always) func fine(_ zone: Int) -> DiskArea.Table { fine[zone] }

    /// Runs `body` with the zone's taps whose gauge is below `limit` (rounded up to a quarter,
    /// clamped to the table), as `ApertureTaps.within`.
    @inline(__always) func within<R>(_ limit: Float, zone: Int, _ body: (UnsafeBufferPointer<DiskTaps.Tap>) -> R) -> R {
        let k = limit.isFinite ? min(max(Int((limit * 4).rounded(.up)), 0), DiskTaps.steps) : DiskTaps.steps
        let start = zone == 0 ? 0 : ends[zone * (DiskTaps.steps + 1) - 1]
        let end = ends[zone * (DiskTaps.steps + 1) + k]
        return taps.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }
}
