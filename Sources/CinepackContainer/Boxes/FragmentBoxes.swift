// ISO/IEC 14496-12 §8.8: movie fragments.

/// `mehd` (§8.8.2): the duration of the whole fragmented movie.
package struct MovieExtendsHeaderBox: ParsableBox, Equatable {
    package var fragmentDuration: UInt64
    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, _) = try r.fullBoxHeader()
        return MovieExtendsHeaderBox(
            fragmentDuration: version == 1 ? try r.u64("fragment_duration") : UInt64(try r.u32("fragment_duration")))
    }
    package var fields: [(String, InspectValue)] { [("fragment_duration", .int(fragmentDuration))] }
}

/// `trex` (§8.8.3): per-track defaults for fragments.
package struct TrackExtendsBox: ParsableBox, Equatable {
    package var trackID: UInt32
    package var defaultSampleDescriptionIndex: UInt32
    package var defaultSampleDuration: UInt32
    package var defaultSampleSize: UInt32
    package var defaultSampleFlags: UInt32
    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        return TrackExtendsBox(
            trackID: try r.u32("track_ID"), defaultSampleDescriptionIndex: try r.u32(),
            defaultSampleDuration: try r.u32(), defaultSampleSize: try r.u32(),
            defaultSampleFlags: try r.u32())
    }
    package var fields: [(String, InspectValue)] {
        [
            ("track_id", .int(trackID)), ("default_sample_duration", .int(defaultSampleDuration)),
            ("default_sample_size", .int(defaultSampleSize)),
            ("default_sample_flags", .string("0x" + String(defaultSampleFlags, radix: 16))),
        ]
    }
}

/// `mfhd` (§8.8.5).
package struct MovieFragmentHeaderBox: ParsableBox, Equatable {
    package var sequenceNumber: UInt32
    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        return MovieFragmentHeaderBox(sequenceNumber: try r.u32("sequence_number"))
    }
    package var fields: [(String, InspectValue)] { [("sequence_number", .int(sequenceNumber))] }
}

/// `tfhd` (§8.8.7).
package struct TrackFragmentHeaderBox: ParsableBox, Equatable {
    package var flags: UInt32
    package var trackID: UInt32
    package var baseDataOffset: UInt64?
    package var sampleDescriptionIndex: UInt32?
    package var defaultSampleDuration: UInt32?
    package var defaultSampleSize: UInt32?
    package var defaultSampleFlags: UInt32?
    package var durationIsEmpty: Bool { flags & 0x1_0000 != 0 }
    package var defaultBaseIsMoof: Bool { flags & 0x2_0000 != 0 }

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (_, flags) = try r.fullBoxHeader()
        var box = TrackFragmentHeaderBox(flags: flags, trackID: try r.u32("track_ID"))
        if flags & 0x01 != 0 { box.baseDataOffset = try r.u64("base_data_offset") }
        if flags & 0x02 != 0 { box.sampleDescriptionIndex = try r.u32("sample_description_index") }
        if flags & 0x08 != 0 { box.defaultSampleDuration = try r.u32("default_sample_duration") }
        if flags & 0x10 != 0 { box.defaultSampleSize = try r.u32("default_sample_size") }
        if flags & 0x20 != 0 { box.defaultSampleFlags = try r.u32("default_sample_flags") }
        return box
    }

    package var fields: [(String, InspectValue)] {
        var f: [(String, InspectValue)] = [("flags", .string("0x" + String(flags, radix: 16))), ("track_id", .int(trackID))]
        if let v = baseDataOffset { f.append(("base_data_offset", .int(v))) }
        if let v = defaultSampleDuration { f.append(("default_sample_duration", .int(v))) }
        if let v = defaultSampleSize { f.append(("default_sample_size", .int(v))) }
        return f
    }
}

/// `tfdt` (§8.8.12).
package struct TrackFragmentDecodeTimeBox: ParsableBox, Equatable {
    package var baseMediaDecodeTime: UInt64
    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, _) = try r.fullBoxHeader()
        return TrackFragmentDecodeTimeBox(
            baseMediaDecodeTime: version == 1 ? try r.u64("baseMediaDecodeTime") : UInt64(try r.u32("baseMediaDecodeTime")))
    }
    package var fields: [(String, InspectValue)] { [("base_media_decode_time", .int(baseMediaDecodeTime))] }
}

/// `trun` (§8.8.8).
package struct TrackRunBox: ParsableBox, Equatable {
    package struct Sample: Sendable, Equatable {
        package var duration: UInt32?
        package var size: UInt32?
        package var flags: UInt32?
        package var compositionOffset: Int64?
    }
    package var version: UInt8
    package var flags: UInt32
    package var dataOffset: Int32?
    package var firstSampleFlags: UInt32?
    package var samples: [Sample]

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, flags) = try r.fullBoxHeader()
        let at = r.absolutePosition
        let count = try r.u32("sample_count")
        var box = TrackRunBox(version: version, flags: flags, samples: [])
        if flags & 0x001 != 0 { box.dataOffset = try r.i32("data_offset") }
        if flags & 0x004 != 0 { box.firstSampleFlags = try r.u32("first_sample_flags") }
        let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count * 4
        if perSample > 0 {
            guard UInt64(count) * UInt64(perSample) <= UInt64(r.remaining) else {
                throw ContainerError.malformed(
                    "sample_count \(count) × \(perSample) bytes exceeds the \(r.remaining) bytes left in the box",
                    offset: at, path: r.path, clause: Clause.trackRun)
            }
        } else if count > 1 << 24 {
            // With no per-sample fields the box cannot bound the count; cap it instead.
            throw ContainerError.limit("trun sample_count \(count) with no per-sample fields", offset: at, path: r.path)
        }
        box.samples.reserveCapacity(Int(count))
        for _ in 0..<count {
            var s = Sample()
            if flags & 0x100 != 0 { s.duration = try r.u32("sample_duration") }
            if flags & 0x200 != 0 { s.size = try r.u32("sample_size") }
            if flags & 0x400 != 0 { s.flags = try r.u32("sample_flags") }
            if flags & 0x800 != 0 {
                let raw = try r.u32("sample_composition_time_offset")
                s.compositionOffset = version == 0 ? Int64(raw) : Int64(Int32(bitPattern: raw))
            }
            box.samples.append(s)
        }
        return box
    }

    package var fields: [(String, InspectValue)] {
        var f: [(String, InspectValue)] = [("flags", .string("0x" + String(flags, radix: 16))), ("sample_count", .int(samples.count))]
        if let d = dataOffset { f.append(("data_offset", .int(d))) }
        return f
    }
}

/// `mfro` (§8.8.11): size of the enclosing `mfra`, written last so a reader can find it from the end.
package struct MovieFragmentRandomAccessOffsetBox: ParsableBox, Equatable {
    package var mfraSize: UInt32
    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        return MovieFragmentRandomAccessOffsetBox(mfraSize: try r.u32("size"))
    }
    package var fields: [(String, InspectValue)] { [("mfra_size", .int(mfraSize))] }
}

/// `tfra` (§8.8.10): random-access points of one track's fragments.
package struct TrackFragmentRandomAccessBox: ParsableBox, Equatable {
    package struct Entry: Sendable, Equatable {
        package var time: UInt64
        package var moofOffset: UInt64
    }
    package var trackID: UInt32
    package var entries: [Entry]

    package static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, _) = try r.fullBoxHeader()
        let trackID = try r.u32("track_ID")
        let lengths = try r.u32("length sizes")
        let sizes = [Int((lengths >> 4) & 3) + 1, Int((lengths >> 2) & 3) + 1, Int(lengths & 3) + 1]
        let entrySize = (version == 1 ? 16 : 8) + sizes.reduce(0, +)
        let n = try r.entryCount(entrySize: entrySize, clause: "ISO/IEC 14496-12 §8.8.10", "number_of_entry")
        var entries = [Entry](boundedCapacity: n, available: r.remaining, entrySize: entrySize)
        for _ in 0..<n {
            let time = version == 1 ? try r.u64("time") : UInt64(try r.u32("time"))
            let offset = version == 1 ? try r.u64("moof_offset") : UInt64(try r.u32("moof_offset"))
            for width in sizes { try r.skip(width, "traf/trun/sample number") }
            entries.append(Entry(time: time, moofOffset: offset))
        }
        return TrackFragmentRandomAccessBox(trackID: trackID, entries: entries)
    }

    package var fields: [(String, InspectValue)] { [("track_id", .int(trackID)), ("entry_count", .int(entries.count))] }
}
