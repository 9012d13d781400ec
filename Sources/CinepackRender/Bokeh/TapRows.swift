import Foundation

/// The tap tables of an aperture whose tables list their offsets row by row (round or shaped,
/// without a cat's eye), back to back, with where each row of offsets starts in each table. A
/// coarse gather that knows which rows of samples can reach it (`SampleReach`) visits only those,
/// each through the smaller table their radii need: the taps it leaves out would add exactly
/// zero, so the sums are bit for bit those over the whole table.
final class TapRows: @unchecked Sendable {
    /// Every table's taps, table after table.
    let taps: RawBuffer<DiskTaps.Tap>
    /// Per table, `2 · reach + 2` absolute indices into `taps`: the first tap of each row
    /// `−reach … reach`, then the table's end.
    private let starts: RawBuffer<Int32>
    /// The largest row offset of any table.
    let reach: Int
    private let perTable: Int
    /// Per table, its largest row offset (−1 when empty).
    private let lastRow: RawBuffer<Int32>

    /// `nil` when some table does not list its offsets row by row (a cat's eye orders them by
    /// gauge).
    init?(_ tables: [[DiskTaps.Tap]]) {
        var reach = 0
        for table in tables {
            var previous = Int32.min
            for t in table {
                if t.dy < previous { return nil }
                previous = t.dy
                reach = max(reach, Int(abs(t.dy)))
            }
        }
        self.reach = reach
        perTable = 2 * reach + 2
        taps = RawBuffer(count: tables.reduce(0) { $0 + $1.count }, zeroed: false)
        starts = RawBuffer(count: tables.count * perTable, zeroed: false)
        lastRow = RawBuffer(count: tables.count, zeroed: false)
        var offset = 0
        for (k, table) in tables.enumerated() {
            let first = starts.base + k * perTable
            var i = 0
            for row in 0..<perTable {
                // Row `row − reach` starts at the first tap not above it (the last entry: the end).
                while i < table.count && Int(table[i].dy) < row - reach { i += 1 }
                first[row] = Int32(offset + i)
            }
            lastRow[k] = table.reduce(-1) { max($0, abs($1.dy)) }
            for t in table {
                taps[offset] = t
                offset += 1
            }
        }
    }

    /// The taps of row `dy` (within `−reach … reach`) of table `k`.
    @inline(__always) func row(_ k: Int, _ dy: Int) -> (start: Int, end: Int) {
        let p = starts.base + k * perTable + dy + reach
        return (Int(p[0]), Int(p[1]))
    }

    /// Runs `body` on the taps of table `k` row by row, in the table's order, leaving out the
    /// rows for which `rowTable(dy)` is negative and taking the others from that table (at most
    /// `k`, whose row it must contain every tap with weight of).
    @inline(__always) func forEach(
        table k: Int, _ rowTable: (Int) -> Int, _ body: (DiskTaps.Tap) -> Void
    ) {
        let last = Int(lastRow[k])
        guard last >= 0 else { return }
        let taps = self.taps.base
        for dy in -last...last {
            let table = rowTable(dy)
            if table < 0 { continue }
            let (start, end) = row(table, dy)
            for i in start..<end { body(taps[i]) }
        }
    }

    /// The table `ApertureTaps.within` takes for `limit`: the taps whose gauge is below it
    /// rounded up to a quarter, clamped to the tables.
    @inline(__always) static func table(_ limit: Float) -> Int {
        let x = limit * 4
        // Rounded up without a call: below 2^23 a float's integer part converts exactly.
        if x > 0 && x < 8_388_608 {
            let i = Int(x)
            return min(Float(i) < x ? i + 1 : i, DiskTaps.steps)
        }
        return limit.isFinite ? min(max(Int(x.rounded(.up)), 0), DiskTaps.steps) : DiskTaps.steps
    }

    /// The rows of an aperture's tables, or `nil` with a cat's eye (its zones' own tables are
    /// not listed row by row). Built once per aperture: the round one's are kept, and the last
    /// few shaped ones.
    static func of(_ aperture: ApertureTaps) -> TapRows? {
        if aperture.zones != nil { return nil }
        if aperture === ApertureTaps.circle { return circle }
        lock.lock()
        defer { lock.unlock() }
        if let found = recent.first(where: { $0.aperture === aperture }) { return found.rows }
        let rows = TapRows(aperture.taps)
        recent.append((aperture, rows))
        if recent.count > 4 { recent.removeFirst() }
        return rows
    }

    private static let circle = TapRows(ApertureTaps.circle.taps)
    private static let lock = NSLock()
    nonisolated(unsafe) private static var recent: [(aperture: ApertureTaps, rows: TapRows?)] = []
}
