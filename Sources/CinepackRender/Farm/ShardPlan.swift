/// How the program frames of a render are cut into parts (spec/farm.md §1). The program is
/// divided into segments of `syncInterval` frames from its first frame (1 for intra-only codecs,
/// one second of frames for codecs with groups of pictures); a shard is a run of whole segments,
/// so every part starts on a sync frame. Shard K of N takes segments ⌊(K−1)·S/N⌋ up to ⌊K·S/N⌋
/// of the S segments: the same frames on every machine, for any N the segments of different
/// shards never overlap, and together they are the whole program.
package struct ShardPlan: Sendable, Equatable {
    package let program: Range<Int64>
    package let syncInterval: Int

    package init(program: Range<Int64>, syncInterval: Int) {
        self.program = program
        self.syncInterval = max(1, syncInterval)
    }

    /// Number of sync segments in the program.
    package var segmentCount: Int64 {
        let frames = program.upperBound - program.lowerBound
        return (frames + Int64(syncInterval) - 1) / Int64(syncInterval)
    }

    /// The program frames of shard `k` (1-based) of `n`.
    package func shard(_ k: Int, of n: Int) throws(FarmError) -> Range<Int64> {
        guard n >= 1, (1...n).contains(k) else { throw .badShard("\(k)/\(n)") }
        let s = segmentCount
        // Multiplying first keeps the split exact; (k·s) cannot overflow for any real program.
        let first = s * Int64(k - 1) / Int64(n), end = s * Int64(k) / Int64(n)
        guard first < end else { throw .emptyShard(index: k, count: n, segments: s, syncInterval: syncInterval) }
        return frame(ofSegment: first)..<frame(ofSegment: end)
    }

    /// Checks a range of program frames asked for directly (`--frames`): inside the program and
    /// starting and ending on segment boundaries (or the program's end).
    package func frames(_ requested: Range<Int64>, codec: String) throws(FarmError) -> Range<Int64> {
        guard program.contains(requested.lowerBound), requested.upperBound <= program.upperBound else {
            throw .framesOutsideProgram(requested, program: program)
        }
        for boundary in [requested.lowerBound, requested.upperBound] where boundary != program.upperBound {
            guard (boundary - program.lowerBound) % Int64(syncInterval) == 0 else {
                throw .unalignedBoundary(frame: boundary, codec: codec, syncInterval: syncInterval, program: program)
            }
        }
        return requested
    }

    /// The shards (1-based) of `n` that cover any of `frames`.
    package func shards(covering frames: Range<Int64>, of n: Int) -> [Int] {
        (1...max(1, n)).filter { k in
            guard let r = try? shard(k, of: n) else { return false }
            return r.overlaps(frames)
        }
    }

    private func frame(ofSegment i: Int64) -> Int64 { min(program.upperBound, program.lowerBound + i * Int64(syncInterval)) }

    /// Parses `K/N`.
    package static func parseShard(_ text: String) throws(FarmError) -> (index: Int, count: Int) {
        let pieces = text.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == 2, let k = Int(pieces[0]), let n = Int(pieces[1]), n >= 1, n <= 1_000_000, (1...n).contains(k) else {
            throw .badShard(text)
        }
        return (k, n)
    }

    /// Parses `A..B` (program frames, half-open).
    package static func parseFrames(_ text: String) throws(FarmError) -> Range<Int64> {
        guard let dots = text.range(of: ".."), let a = Int64(text[..<dots.lowerBound]), let b = Int64(text[dots.upperBound...]),
            a >= 0, a < b
        else { throw .badFrames(text) }
        return a..<b
    }
}
