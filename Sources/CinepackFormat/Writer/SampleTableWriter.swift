import CinepackContainer

/// Collects one track's samples as they are written and emits its compact sample tables.
/// Runs are merged as they arrive (stts, ctts, stsc), and sizes stay a single number while they
/// are all equal, so a long PCM track costs a few bytes, not a record per audio frame.
struct SampleTableWriter {
    private(set) var sampleCount = 0
    private(set) var totalDuration: Int64 = 0
    private var timeRuns: [TimeToSampleBox.Entry] = []
    private var offsetRuns: [CompositionOffsetBox.Entry] = []
    private var hasCompositionOffsets = false
    private var constantSize: UInt32?
    private var sizes: [UInt32] = []
    private var chunkOffsets: [UInt64] = []
    private var chunkRuns: [SampleToChunkBox.Entry] = []
    private var syncSamples: [UInt32] = []
    private var allSync = true

    /// Starts a chunk at `offset`; the samples added until the next call belong to it.
    mutating func beginChunk(at offset: Int64) {
        chunkOffsets.append(UInt64(offset))
        pendingChunkSamples = 0
    }

    private var pendingChunkSamples: UInt32 = 0

    /// Closes the current chunk, recording its sample count.
    mutating func endChunk() {
        guard pendingChunkSamples > 0 else {
            chunkOffsets.removeLast()
            return
        }
        let chunkNumber = UInt32(chunkOffsets.count)
        if chunkRuns.last?.samplesPerChunk != pendingChunkSamples {
            chunkRuns.append(SampleToChunkBox.Entry(firstChunk: chunkNumber, samplesPerChunk: pendingChunkSamples))
        }
    }

    mutating func add(size: UInt32, duration: UInt32, compositionOffset: Int64 = 0, isSync: Bool = true) {
        sampleCount += 1
        pendingChunkSamples += 1
        totalDuration += Int64(duration)
        if let last = timeRuns.last, last.delta == duration, last.count < UInt32.max {
            timeRuns[timeRuns.count - 1].count += 1
        } else {
            timeRuns.append(TimeToSampleBox.Entry(count: 1, delta: duration))
        }
        if compositionOffset != 0 { hasCompositionOffsets = true }
        if let last = offsetRuns.last, last.offset == compositionOffset, last.count < UInt32.max {
            offsetRuns[offsetRuns.count - 1].count += 1
        } else {
            offsetRuns.append(CompositionOffsetBox.Entry(count: 1, offset: compositionOffset))
        }
        switch constantSize {
        case nil where sampleCount == 1: constantSize = size
        case let c? where c == size: break
        case let c?:
            sizes = [UInt32](repeating: c, count: sampleCount - 1)
            sizes.append(size)
            constantSize = nil
        default: sizes.append(size)
        }
        if isSync { syncSamples.append(UInt32(sampleCount)) } else { allSync = false }
    }

    /// `stbl` with the given sample entry box bytes.
    func stbl(sampleEntry: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.box("stbl") { w in
            w.box("stsd") { w in
                w.fullBoxHeader(version: 0, flags: 0)
                w.u32(1)
                w.bytes(sampleEntry)
            }
            w.bytes(TimeToSampleBox(entries: timeRuns).serialized())
            if hasCompositionOffsets {
                let signed = offsetRuns.contains { $0.offset < 0 }
                w.bytes(CompositionOffsetBox(version: signed ? 1 : 0, entries: offsetRuns).serialized())
            }
            if !allSync { w.bytes(SyncSampleBox(sampleNumbers: syncSamples).serialized()) }
            w.bytes(SampleToChunkBox(entries: chunkRuns).serialized())
            let sizeBox =
                constantSize.map { SampleSizeBox(constantSize: $0, sampleCount: UInt32(sampleCount), sizes: []) }
                ?? SampleSizeBox(constantSize: 0, sampleCount: UInt32(sampleCount), sizes: sizes)
            w.bytes(sizeBox.serialized())
            w.bytes(ChunkOffsetBox(offsets: chunkOffsets).serialized())
        }
        return w.bytes
    }
}
