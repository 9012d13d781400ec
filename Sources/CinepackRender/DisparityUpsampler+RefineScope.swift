extension DisparityUpsampler {
    /// Where the refinement works and what it keeps between its two passes: the groups of eight
    /// pixels it refines (`groupList[groupStart[j]..<groupStart[j + 1]]` for map row `j`: those
    /// whose cell columns step, the same for every picture row of a map row), the slots of their
    /// results (row `y`'s from `pixelStart[y]` on, eight a group), the picture columns' map cells,
    /// and its colour weights, kept from its first pass for its second (the colours are the
    /// same, only the depths differ): one `SIMD8` a tap of every group refined eight pixels at
    /// once, `taps` slots a group, the groups of row `y` from `rowGroups[y]` on. No weight buffer
    /// when it would exceed `limit` bytes (a map stepping almost everywhere): the second pass then
    /// computes the weights again.
    final class RefineScope: @unchecked Sendable {
        static let limit = 128 << 20
        let groupList: RawBuffer<Int32>
        let groupStart: [Int]
        let pixelStart: [Int]
        let rowGroups: [Int]
        let taps: Int
        let buffer: RawBuffer<SIMD8<Float>>?
        /// Per picture column: the two map columns interpolated there, and the cell it lies in
        /// (whose layer model its pixels use).
        let cols: [(Int, Int)]
        let cellColumn: [Int]

        init(_ steps: [Bool], _ W: Int, _ H: Int, _ w: Int, _ h: Int) {
            let reach = refineReach(W, w)
            let perRow = 2 * reach / refineStride(reach) + 1
            taps = perRow * perRow
            let groups = (W + 7) / 8
            cols = (0..<W).map { bilinearCells($0, W, w) }
            let cellColumn = (0..<W).map { min(w - 1, $0 * w / W) }
            self.cellColumn = cellColumn
            var list: [Int32] = []
            var starts = [0]
            var perMapRow = [Int](repeating: 0, count: h)
            for j in 0..<h {
                // Most map rows hold no step: their groups need no look.
                if steps[(j * w)..<(j * w + w)].contains(true) {
                    for g in 0..<groups {
                        let x = 8 * g
                        let end = min(W, x + 8)
                        // A cell at least a pixel wide: the group's pixels lie in a run of
                        // neighbouring cells, each looked at once rather than once a pixel.
                        let stepping =
                            W >= w
                            ? (cellColumn[x]...cellColumn[end - 1]).contains(where: { steps[j * w + $0] })
                            : (x..<end).contains(where: { steps[j * w + cellColumn[$0]] })
                        guard stepping else { continue }
                        list.append(Int32(g))
                        if x + 8 <= W && x >= reach && x + 7 + reach < W { perMapRow[j] += 1 }
                    }
                }
                starts.append(list.count)
            }
            groupList = RawBuffer(count: max(1, list.count), zeroed: false)
            groupList.base.initialize(from: list, count: list.count)
            groupStart = starts
            var first = [Int](repeating: 0, count: H + 1)
            var pixels = [Int](repeating: 0, count: H + 1)
            for y in 0..<H {
                let j = min(h - 1, y * h / H)
                first[y + 1] = first[y] + perMapRow[j]
                pixels[y + 1] = pixels[y] + 8 * (starts[j + 1] - starts[j])
            }
            rowGroups = first
            pixelStart = pixels
            let bytes = first[H] * taps * MemoryLayout<SIMD8<Float>>.stride
            buffer = first[H] > 0 && bytes <= Self.limit ? RawBuffer(count: first[H] * taps, zeroed: false) : nil
        }
    }
}
