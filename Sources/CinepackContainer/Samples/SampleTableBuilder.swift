/// Builds a `SampleIndex` from a track's `stbl`, checking that the tables agree with each other
/// and with the file, with overflow-checked arithmetic throughout.
extension SampleIndex {
    /// `fileSize` bounds the chunk offsets; `warn` receives problems a lenient reader can live with.
    package static func build(stbl: Box, fileSize: Int64, warn: (ContainerError) -> Void) throws(ContainerError) -> SampleIndex {
        var index = SampleIndex()
        let path = stbl.path
        guard
            let stsz = stbl.child("stsz")?.content(as: SampleSizeBox.self)
                ?? stbl.child("stz2")?.content(as: SampleSizeBox.self)
        else {
            if stbl.child("stts") == nil, stbl.child("stsz") == nil, stbl.child("stz2") == nil { return index }
            throw ContainerError.malformed("sample table has no stsz or stz2", path: path, clause: Clause.sampleSize)
        }
        let stts = stbl.child("stts")?.content(as: TimeToSampleBox.self) ?? TimeToSampleBox(entries: [])
        let stsc = stbl.child("stsc")?.content(as: SampleToChunkBox.self) ?? SampleToChunkBox(entries: [])
        let chunkBox = stbl.child("stco") ?? stbl.child("co64")
        let offsets = chunkBox?.content(as: ChunkOffsetBox.self)?.offsets ?? []
        let count = Int(stsz.sampleCount)
        if count == 0 { return index }

        // Decoding times: the run totals must fit in 63 bits.
        var time: Int64 = 0
        var sample = 0
        for (i, entry) in stts.entries.enumerated() where entry.count > 0 {
            index.timeRuns.append(TimeRun(firstSample: sample, firstTime: time, delta: Int64(entry.delta), count: Int(entry.count)))
            let (span, o1) = Int64(entry.count).multipliedReportingOverflow(by: Int64(entry.delta))
            let (next, o2) = time.addingReportingOverflow(span)
            guard !o1, !o2 else {
                throw ContainerError.malformed(
                    "stts entry \(i + 1) takes the total duration past 2^63",
                    path: ParseSession.join(path, "stts"), clause: Clause.decodingTime)
            }
            time = next
            sample += Int(entry.count)
        }
        guard sample == count else {
            throw ContainerError.malformed(
                "stts describes \(sample) samples but stsz has \(count)",
                path: ParseSession.join(path, "stts"), clause: Clause.decodingTime)
        }
        index.count = count
        index.totalDuration = time

        // Composition offsets.
        if let ctts = stbl.child("ctts")?.content(as: CompositionOffsetBox.self) {
            var first = 0
            for entry in ctts.entries where entry.count > 0 {
                index.compositionRuns.append(OffsetRun(firstSample: first, offset: entry.offset))
                first += Int(entry.count)
            }
            if first < count {
                warn(
                    .malformed(
                        "ctts covers \(first) of \(count) samples", path: ParseSession.join(path, "ctts"),
                        clause: Clause.compositionOffset))
            }
        }

        // Sizes.
        index.constantSize = stsz.constantSize
        index.sizes = stsz.sizes
        if stsz.constantSize == 0 {
            var prefix = [Int64](repeating: 0, count: stsz.sizes.count + 1)
            for (i, size) in stsz.sizes.enumerated() { prefix[i + 1] = prefix[i] + Int64(size) }
            index.sizePrefix = prefix
        }
        // At most 2^32 samples of 2^32 bytes: the product can pass 2^63, the sum of a table cannot.
        let (bytes, overflow) =
            stsz.constantSize != 0
            ? Int64(stsz.constantSize).multipliedReportingOverflow(by: Int64(count))
            : (stsz.sizes.reduce(Int64(0)) { $0 + Int64($1) }, false)
        guard !overflow else {
            throw ContainerError.malformed(
                "\(count) samples of \(stsz.constantSize) bytes overflow any file size",
                path: ParseSession.join(path, "stsz"), clause: Clause.sampleSize)
        }
        index.totalBytes = bytes

        // Chunks.
        guard !stsc.entries.isEmpty, !offsets.isEmpty else {
            throw ContainerError.malformed(
                "\(count) samples but no chunks (stsc or stco empty)", path: path,
                clause: Clause.sampleToChunk)
        }
        var first = 0
        for (i, entry) in stsc.entries.enumerated() {
            let firstChunk = Int(entry.firstChunk) - 1
            guard firstChunk < offsets.count else {
                warn(
                    .malformed(
                        "stsc entry \(i + 1) starts at chunk \(entry.firstChunk) but there are only \(offsets.count) chunks",
                        path: ParseSession.join(path, "stsc"), clause: Clause.sampleToChunk))
                break
            }
            let end = i + 1 < stsc.entries.count ? min(Int(stsc.entries[i + 1].firstChunk) - 1, offsets.count) : offsets.count
            guard entry.samplesPerChunk > 0 || end == firstChunk else {
                throw ContainerError.malformed(
                    "stsc entry \(i + 1) has samples_per_chunk 0",
                    path: ParseSession.join(path, "stsc"), clause: Clause.sampleToChunk)
            }
            if end > firstChunk, entry.samplesPerChunk > 0 {
                index.chunkRuns.append(
                    ChunkRun(
                        firstChunk: firstChunk, chunkCount: end - firstChunk,
                        samplesPerChunk: Int(entry.samplesPerChunk),
                        descriptionIndex: entry.sampleDescriptionIndex, firstSample: first))
            }
            let (run, o1) = (end - firstChunk).multipliedReportingOverflow(by: Int(entry.samplesPerChunk))
            let (next, o2) = first.addingReportingOverflow(run)
            guard !o1, !o2 else {
                throw ContainerError.malformed(
                    "stsc sample counts overflow", path: ParseSession.join(path, "stsc"),
                    clause: Clause.sampleToChunk)
            }
            first = next
            if first >= count { break }
        }
        guard first >= count else {
            throw ContainerError.malformed(
                "stsc and stco hold \(first) samples but stsz has \(count)",
                path: ParseSession.join(path, "stsc"), clause: Clause.sampleToChunk)
        }
        index.chunkOffsets = offsets

        // Sync samples.
        if let stss = stbl.child("stss")?.content(as: SyncSampleBox.self) {
            var sync: [Int] = []
            sync.reserveCapacity(stss.sampleNumbers.count)
            for number in stss.sampleNumbers {
                guard number >= 1, Int(number) <= count, Int(number) - 1 > (sync.last ?? -1) else {
                    warn(
                        .malformed(
                            "stss lists sample \(number), out of order or outside 1…\(count)",
                            path: ParseSession.join(path, "stss"), clause: Clause.syncSample))
                    continue
                }
                sync.append(Int(number) - 1)
            }
            index.syncSamples = sync
        }

        // Every byte range must lie inside the file.
        var outside = 0
        var firstOutside: SampleInfo?
        index.forEach { info in
            if info.offset < 0 || info.offset > fileSize || Int64(info.size) > fileSize - info.offset {
                outside += 1
                if firstOutside == nil { firstOutside = info }
            }
        }
        if let bad = firstOutside {
            warn(
                .malformed(
                    "\(outside) of \(count) samples lie outside the file (sample \(bad.index + 1) at byte \(bad.offset), \(bad.size) bytes, file is \(fileSize) bytes)",
                    path: ParseSession.join(path, chunkBox?.type.description ?? "stco"), clause: Clause.chunkOffset))
        }
        return index
    }
}
