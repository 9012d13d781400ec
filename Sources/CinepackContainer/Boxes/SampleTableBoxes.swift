// ISO/IEC 14496-12 §8.6–8.7: the sample tables. Every count is checked against the bytes the
// box actually holds before anything is allocated (Stagefright CVE-2015-1538, FFmpeg CVE-2016-6164).

/// `stts` (§8.6.1.2): runs of samples with equal duration.
package struct TimeToSampleBox: ParsableBox, SerializableBox, Equatable {
    package static let boxType: FourCC = "stts"
    package struct Entry: Sendable, Equatable {
        package var count: UInt32
        package var delta: UInt32
        package init(count: UInt32, delta: UInt32) { self.count = count; self.delta = delta }
    }
    package var entries: [Entry]
    package init(entries: [Entry]) { self.entries = entries }

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        let n = try r.entryCount(entrySize: 8, clause: Clause.decodingTime)
        var entries = [Entry](boundedCapacity: n, available: r.remaining, entrySize: 8)
        for _ in 0..<n { entries.append(Entry(count: try r.u32("sample_count"), delta: try r.u32("sample_delta"))) }
        return TimeToSampleBox(entries: entries)
    }

    package func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: 0, flags: 0)
        w.u32(UInt32(entries.count))
        entries.forEach {
            w.u32($0.count); w.u32($0.delta)
        }
    }

    package var fields: [(String, InspectValue)] {
        let samples = entries.reduce(UInt64(0)) { $0 + UInt64($1.count) }
        return [("entry_count", .int(entries.count)), ("sample_count", .int(samples))]
    }
}

/// `ctts` (§8.6.1.3): composition offsets; version 1 makes them signed.
package struct CompositionOffsetBox: ParsableBox, SerializableBox, Equatable {
    package static let boxType: FourCC = "ctts"
    package struct Entry: Sendable, Equatable {
        package var count: UInt32
        package var offset: Int64
        package init(count: UInt32, offset: Int64) { self.count = count; self.offset = offset }
    }
    package var version: UInt8
    package var entries: [Entry]
    package init(version: UInt8, entries: [Entry]) { self.version = version; self.entries = entries }

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, _) = try r.fullBoxHeader()
        let n = try r.entryCount(entrySize: 8, clause: Clause.compositionOffset)
        var entries = [Entry](boundedCapacity: n, available: r.remaining, entrySize: 8)
        for _ in 0..<n {
            let count = try r.u32("sample_count")
            // Version 0 is unsigned by the letter of the spec, but writers put negative
            // values there; QuickTime and FFmpeg read them as signed, and so do we.
            let raw = try r.u32("sample_offset")
            entries.append(Entry(count: count, offset: Int64(Int32(bitPattern: raw))))
        }
        return CompositionOffsetBox(version: version, entries: entries)
    }

    package func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: version, flags: 0)
        w.u32(UInt32(entries.count))
        entries.forEach {
            w.u32($0.count); w.i32(Int32(truncatingIfNeeded: $0.offset))
        }
    }

    package var fields: [(String, InspectValue)] { [("version", .int(version)), ("entry_count", .int(entries.count))] }
}

/// `stss` (§8.6.2): the sync samples, 1-based, strictly increasing.
package struct SyncSampleBox: ParsableBox, SerializableBox, Equatable {
    package static let boxType: FourCC = "stss"
    package var sampleNumbers: [UInt32]
    package init(sampleNumbers: [UInt32]) { self.sampleNumbers = sampleNumbers }

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        let n = try r.entryCount(entrySize: 4, clause: Clause.syncSample)
        var numbers = [UInt32](boundedCapacity: n, available: r.remaining, entrySize: 4)
        for _ in 0..<n { numbers.append(try r.u32("sample_number")) }
        return SyncSampleBox(sampleNumbers: numbers)
    }

    package func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: 0, flags: 0)
        w.u32(UInt32(sampleNumbers.count))
        sampleNumbers.forEach { w.u32($0) }
    }

    package var fields: [(String, InspectValue)] { [("entry_count", .int(sampleNumbers.count))] }
}

/// `stsz` (§8.7.3.2) or `stz2` (§8.7.3.3): sample sizes, constant or one per sample.
package struct SampleSizeBox: ParsableBox, SerializableBox, Equatable {
    package static let boxType: FourCC = "stsz"
    /// Non-zero when every sample has this size.
    package var constantSize: UInt32
    package var sampleCount: UInt32
    /// One per sample when `constantSize == 0`.
    package var sizes: [UInt32]
    /// 0 for `stsz`; 4, 8 or 16 for `stz2`.
    package var compactFieldSize: UInt8 = 0

    package init(constantSize: UInt32, sampleCount: UInt32, sizes: [UInt32]) {
        self.constantSize = constantSize
        self.sampleCount = sampleCount
        self.sizes = sizes
    }

    package func size(ofSample index: Int) -> UInt32 { constantSize != 0 ? constantSize : sizes[index] }

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        if context.header.type == "stz2" {
            try r.skip(3, "reserved")
            let fieldSize = try r.u8("field_size")
            guard [4, 8, 16].contains(fieldSize) else {
                throw r.error("stz2 field_size \(fieldSize) is not 4, 8 or 16", clause: Clause.sampleSize)
            }
            let at = r.absolutePosition
            let count = try r.u32("sample_count")
            let needed = (UInt64(count) * UInt64(fieldSize) + 7) / 8
            guard needed <= UInt64(r.remaining) else {
                throw ContainerError.malformed(
                    "sample_count \(count) needs \(needed) bytes, box has \(r.remaining)",
                    offset: at, path: r.path, clause: Clause.sampleSize)
            }
            var sizes = [UInt32](boundedCapacity: Int(count), available: r.remaining * 2, entrySize: 1)
            var i: UInt32 = 0
            while i < count {
                switch fieldSize {
                case 4:
                    let byte = try r.u8("entry_size")
                    sizes.append(UInt32(byte >> 4))
                    if i + 1 < count { sizes.append(UInt32(byte & 0xF)) }
                    i += 2
                case 8: sizes.append(UInt32(try r.u8("entry_size"))); i += 1
                default: sizes.append(UInt32(try r.u16("entry_size"))); i += 1
                }
            }
            var box = SampleSizeBox(constantSize: 0, sampleCount: count, sizes: sizes)
            box.compactFieldSize = fieldSize
            return box
        }
        let constant = try r.u32("sample_size")
        let at = r.absolutePosition
        let count = try r.u32("sample_count")
        if constant != 0 { return SampleSizeBox(constantSize: constant, sampleCount: count, sizes: []) }
        let needed = UInt64(count) * 4
        guard needed <= UInt64(r.remaining) else {
            throw ContainerError.malformed(
                "sample_count \(count) × 4 bytes = \(needed) bytes, but the box has only \(r.remaining) left",
                offset: at, path: r.path, clause: Clause.sampleSize)
        }
        var sizes = [UInt32](boundedCapacity: Int(count), available: r.remaining, entrySize: 4)
        for _ in 0..<count { sizes.append(try r.u32("entry_size")) }
        return SampleSizeBox(constantSize: 0, sampleCount: count, sizes: sizes)
    }

    package func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: 0, flags: 0)
        w.u32(constantSize)
        w.u32(sampleCount)
        if constantSize == 0 { sizes.forEach { w.u32($0) } }
    }

    package var fields: [(String, InspectValue)] {
        var f: [(String, InspectValue)] = [("sample_size", .int(constantSize)), ("sample_count", .int(sampleCount))]
        if compactFieldSize != 0 { f.append(("field_size", .int(compactFieldSize))) }
        return f
    }
}

/// `stsc` (§8.7.4): runs of chunks with the same number of samples.
package struct SampleToChunkBox: ParsableBox, SerializableBox, Equatable {
    package static let boxType: FourCC = "stsc"
    package struct Entry: Sendable, Equatable {
        package var firstChunk: UInt32
        package var samplesPerChunk: UInt32
        package var sampleDescriptionIndex: UInt32
        package init(firstChunk: UInt32, samplesPerChunk: UInt32, sampleDescriptionIndex: UInt32 = 1) {
            self.firstChunk = firstChunk
            self.samplesPerChunk = samplesPerChunk
            self.sampleDescriptionIndex = sampleDescriptionIndex
        }
    }
    package var entries: [Entry]
    package init(entries: [Entry]) { self.entries = entries }

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        let n = try r.entryCount(entrySize: 12, clause: Clause.sampleToChunk)
        var entries = [Entry](boundedCapacity: n, available: r.remaining, entrySize: 12)
        for i in 0..<n {
            let at = r.absolutePosition
            let entry = Entry(
                firstChunk: try r.u32("first_chunk"), samplesPerChunk: try r.u32("samples_per_chunk"),
                sampleDescriptionIndex: try r.u32("sample_description_index"))
            if entry.firstChunk == 0 {
                throw ContainerError.malformed(
                    "stsc entry \(i + 1) has first_chunk 0 (chunks are numbered from 1)",
                    offset: at, path: r.path, clause: Clause.sampleToChunk)
            }
            if let previous = entries.last, entry.firstChunk <= previous.firstChunk {
                throw ContainerError.malformed(
                    "stsc entry \(i + 1) has first_chunk \(entry.firstChunk), not above the previous entry's \(previous.firstChunk)",
                    offset: at, path: r.path, clause: Clause.sampleToChunk)
            }
            entries.append(entry)
        }
        return SampleToChunkBox(entries: entries)
    }

    package func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: 0, flags: 0)
        w.u32(UInt32(entries.count))
        entries.forEach {
            w.u32($0.firstChunk); w.u32($0.samplesPerChunk); w.u32($0.sampleDescriptionIndex)
        }
    }

    package var fields: [(String, InspectValue)] { [("entry_count", .int(entries.count))] }
}

/// `stco` or `co64` (§8.7.5): absolute file offsets of the chunks.
package struct ChunkOffsetBox: ParsableBox, Equatable {
    package var offsets: [UInt64]
    package var is64Bit: Bool
    package init(offsets: [UInt64], is64Bit: Bool? = nil) {
        self.offsets = offsets
        self.is64Bit = is64Bit ?? (offsets.max() ?? 0 > UInt64(UInt32.max))
    }

    package var boxType: FourCC { is64Bit ? "co64" : "stco" }

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        let wide = context.header.type == "co64"
        let n = try r.entryCount(entrySize: wide ? 8 : 4, clause: Clause.chunkOffset)
        var offsets = [UInt64](boundedCapacity: n, available: r.remaining, entrySize: wide ? 8 : 4)
        for _ in 0..<n { offsets.append(wide ? try r.u64("chunk_offset") : UInt64(try r.u32("chunk_offset"))) }
        return ChunkOffsetBox(offsets: offsets, is64Bit: wide)
    }

    package func serialized() -> [UInt8] {
        var w = ByteWriter()
        w.box(boxType) { w in
            w.fullBoxHeader(version: 0, flags: 0)
            w.u32(UInt32(offsets.count))
            offsets.forEach { is64Bit ? w.u64($0) : w.u32(UInt32(truncatingIfNeeded: $0)) }
        }
        return w.bytes
    }

    package var fields: [(String, InspectValue)] { [("entry_count", .int(offsets.count))] }
}
