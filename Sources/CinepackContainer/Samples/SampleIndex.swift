/// One sample: when it plays, where its bytes are.
public struct SampleInfo: Sendable, Equatable {
    /// 0-based.
    public var index: Int
    /// Decode time in the media timescale.
    public var decodeTime: Int64
    /// Decode time plus composition offset.
    public var compositionTime: Int64
    public var duration: Int64
    public var size: UInt32
    /// Absolute file offset.
    public var offset: Int64
    public var isSync: Bool
    /// 1-based index into `stsd`.
    public var descriptionIndex: UInt32

    public var byteRange: Range<Int64> { offset..<offset + Int64(size) }
}

/// Time ↔ sample ↔ byte range for one track, computed from the compact tables on demand rather than
/// expanded per sample, so a long PCM track does not cost a record per audio frame.
public struct SampleIndex: Sendable {
    struct TimeRun: Sendable { var firstSample: Int; var firstTime: Int64; var delta: Int64; var count: Int }
    struct OffsetRun: Sendable { var firstSample: Int; var offset: Int64 }
    struct ChunkRun: Sendable {
        var firstChunk: Int  // 0-based
        var chunkCount: Int
        var samplesPerChunk: Int
        var descriptionIndex: UInt32
        var firstSample: Int
    }

    public internal(set) var count: Int = 0
    public internal(set) var totalDuration: Int64 = 0
    public internal(set) var totalBytes: Int64 = 0
    var timeRuns: [TimeRun] = []
    var compositionRuns: [OffsetRun] = []
    var chunkRuns: [ChunkRun] = []
    var chunkOffsets: [UInt64] = []
    var constantSize: UInt32 = 0
    var sizes: [UInt32] = []
    /// `sizePrefix[i]` = bytes of samples `0..<i` (variable sizes only), so a sample's place in its chunk
    /// costs O(1) however many samples the chunk claims (a hostile `stsc` puts them all in one).
    var sizePrefix: [Int64] = []
    /// Sorted 0-based sync sample indices; nil when every sample is a sync sample.
    var syncSamples: [Int]?
    /// Fragmented tracks: explicit samples from `trun` boxes.
    var explicit: [SampleInfo]?

    public init() {}

    public var isEmpty: Bool { count == 0 }
    public var hasCompositionOffsets: Bool {
        !compositionRuns.isEmpty || (explicit?.contains { $0.compositionTime != $0.decodeTime } ?? false)
    }
    public var syncSampleCount: Int { syncSamples?.count ?? count }
    public var allSamplesAreSync: Bool { syncSamples == nil }

    /// The sample at a 0-based index.
    public func sample(at index: Int) -> SampleInfo? {
        guard index >= 0, index < count else { return nil }
        if let explicit { return explicit[index] }
        let run = timeRuns[Self.lastIndex(in: timeRuns, where: { $0.firstSample <= index })]
        let decode = run.firstTime + Int64(index - run.firstSample) * run.delta  // bounded by the checked total
        var composition = decode
        if !compositionRuns.isEmpty {
            composition &+= compositionRuns[Self.lastIndex(in: compositionRuns, where: { $0.firstSample <= index })].offset
        }
        let chunkRun = chunkRuns[Self.lastIndex(in: chunkRuns, where: { $0.firstSample <= index })]
        let inRun = index - chunkRun.firstSample
        let chunk = chunkRun.firstChunk + inRun / chunkRun.samplesPerChunk
        let firstInChunk = index - inRun % chunkRun.samplesPerChunk
        var offset = Int64(clamping: chunkOffsets[chunk])
        if constantSize != 0 {
            offset &+= Int64(index - firstInChunk) &* Int64(constantSize)
        } else {
            offset &+= sizePrefix[index] &- sizePrefix[firstInChunk]
        }
        return SampleInfo(
            index: index, decodeTime: decode, compositionTime: composition, duration: run.delta,
            size: constantSize != 0 ? constantSize : sizes[index], offset: offset,
            isSync: isSync(index), descriptionIndex: chunkRun.descriptionIndex)
    }

    public func isSync(_ index: Int) -> Bool {
        if let explicit { return explicit[index].isSync }
        guard let syncSamples else { return true }
        return Self.binarySearch(syncSamples, index)
    }

    /// The sample whose decode interval contains `time` (media timescale); nil outside the track.
    public func sampleIndex(atDecodeTime time: Int64) -> Int? {
        guard count > 0, time >= 0, time < totalDuration else { return nil }
        if let explicit {
            let i = Self.lastIndex(in: explicit, where: { $0.decodeTime <= time })
            return i
        }
        let run = timeRuns[Self.lastIndex(in: timeRuns, where: { $0.firstTime <= time && $0.count > 0 })]
        guard run.delta > 0 else { return run.firstSample }
        return min(run.firstSample + Int((time - run.firstTime) / run.delta), run.firstSample + run.count - 1)
    }

    /// The last sync sample at or before `index` (where decoding must start to show it).
    public func syncSample(atOrBefore index: Int) -> Int? {
        guard index >= 0, index < count else { return nil }
        if let explicit { return (0...index).reversed().first { explicit[$0].isSync } }
        guard let syncSamples else { return index }
        let i = Self.lastIndex(in: syncSamples, where: { $0 <= index })
        return syncSamples.indices.contains(i) && syncSamples[i] <= index ? syncSamples[i] : nil
    }

    /// Visits every sample in order in O(count) total.
    public func forEach(_ body: (SampleInfo) throws -> Void) rethrows {
        if let explicit { try explicit.forEach(body); return }
        var index = 0
        var syncCursor = 0
        var cttsRun = 0
        for (r, chunkRun) in chunkRuns.enumerated() {
            let lastChunk = r + 1 < chunkRuns.count ? chunkRuns[r + 1].firstChunk : chunkRun.firstChunk + chunkRun.chunkCount
            for chunk in chunkRun.firstChunk..<lastChunk {
                // The table may claim more samples than stsz has (up to 2^32 per chunk): stop at the last.
                guard index < count else { return }
                var offset = Int64(clamping: chunkOffsets[chunk])
                for _ in 0..<min(chunkRun.samplesPerChunk, count - index) {
                    let timeRun = timeRuns[Self.lastIndex(in: timeRuns, where: { $0.firstSample <= index })]
                    let decode = timeRun.firstTime + Int64(index - timeRun.firstSample) * timeRun.delta
                    while cttsRun + 1 < compositionRuns.count && compositionRuns[cttsRun + 1].firstSample <= index { cttsRun += 1 }
                    let composition = decode &+ (compositionRuns.isEmpty ? 0 : compositionRuns[cttsRun].offset)
                    var sync = true
                    if let syncSamples {
                        while syncCursor < syncSamples.count && syncSamples[syncCursor] < index { syncCursor += 1 }
                        sync = syncCursor < syncSamples.count && syncSamples[syncCursor] == index
                    }
                    let size = constantSize != 0 ? constantSize : sizes[index]
                    try body(
                        SampleInfo(
                            index: index, decodeTime: decode, compositionTime: composition, duration: timeRun.delta,
                            size: size, offset: offset, isSync: sync, descriptionIndex: chunkRun.descriptionIndex))
                    offset &+= Int64(size)
                    index += 1
                }
            }
        }
    }

    /// Index of the last element satisfying a predicate that is true for a prefix of `array`.
    static func lastIndex<T>(in array: [T], where isBefore: (T) -> Bool) -> Int {
        var low = 0, high = array.count
        while low < high {
            let mid = (low + high) / 2
            if isBefore(array[mid]) { low = mid + 1 } else { high = mid }
        }
        return max(0, low - 1)
    }

    static func binarySearch(_ array: [Int], _ value: Int) -> Bool {
        let i = lastIndex(in: array, where: { $0 <= value })
        return array.indices.contains(i) && array[i] == value
    }
}
