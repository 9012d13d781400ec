// Sample entries inside `stsd` (ISO/IEC 14496-12 §8.5.2, §12.1–12.3; QTFF sound and timed
// metadata sample descriptions). The fixed part depends on the track's handler; child boxes follow.

/// A sample entry's fixed fields; the entry's child boxes (`avcC`, `pasp`, `keys`, …) are in the tree.
public protocol SampleEntry: ParsableBox {
    var dataReferenceIndex: UInt16 { get }
    /// Where child boxes start, in bytes from the start of the payload.
    var childrenOffset: Int { get }
}

/// `stsd` header (§8.5.2): full box + entry count; the entries are its children.
public struct SampleDescriptionBox: ParsableBox, Equatable {
    public var entryCount: UInt32
    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        return SampleDescriptionBox(entryCount: try r.u32("entry_count"))
    }
    public var fields: [(String, InspectValue)] { [("entry_count", .int(entryCount))] }
}

/// Visual sample entry (§12.1.3): picture tracks and auxiliary video (`auxv`, e.g. depth).
public struct VisualSampleEntry: SampleEntry, Equatable {
    public var dataReferenceIndex: UInt16
    public var width: UInt16
    public var height: UInt16
    public var horizontalResolution: Double
    public var verticalResolution: Double
    public var frameCount: UInt16
    public var compressorName: String
    public var depth: UInt16
    public var childrenOffset: Int { 78 }

    public init(width: UInt16, height: UInt16, compressorName: String = "", depth: UInt16 = 24) {
        dataReferenceIndex = 1
        self.width = width
        self.height = height
        horizontalResolution = 72
        verticalResolution = 72
        frameCount = 1
        self.compressorName = compressorName
        self.depth = depth
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        try r.skip(6, "reserved")
        let dref = try r.u16("data_reference_index")
        try r.skip(16, "pre_defined")
        var entry = VisualSampleEntry(width: try r.u16("width"), height: try r.u16("height"))
        entry.dataReferenceIndex = dref
        entry.horizontalResolution = try r.fixed16_16("horizresolution")
        entry.verticalResolution = try r.fixed16_16("vertresolution")
        try r.skip(4, "reserved")
        entry.frameCount = try r.u16("frame_count")
        entry.compressorName = try r.pascalString(fieldWidth: 32, "compressorname")
        entry.depth = try r.u16("depth")
        try r.skip(2, "pre_defined")
        return entry
    }

    /// The fixed part; the caller appends child boxes.
    public func writeFixedFields(to w: inout ByteWriter) {
        w.zeros(6); w.u16(dataReferenceIndex); w.zeros(16)
        w.u16(width); w.u16(height); w.fixed16_16(horizontalResolution); w.fixed16_16(verticalResolution)
        w.zeros(4); w.u16(frameCount)
        let name = Array(compressorName.utf8.prefix(31))
        w.u8(UInt8(name.count)); w.bytes(name); w.zeros(31 - name.count)
        w.u16(depth); w.i16(-1)
    }

    public var fields: [(String, InspectValue)] {
        [
            ("width", .int(width)), ("height", .int(height)), ("depth", .int(depth)),
            ("compressor", .string(compressorName)),
        ]
    }
}

/// Audio sample entry: ISO (§12.2.3) or QuickTime sound description versions 0, 1 and 2.
public struct AudioSampleEntry: SampleEntry, Equatable {
    public var dataReferenceIndex: UInt16
    /// QuickTime sound description version (0 in ISO files).
    public var version: UInt16
    public var channelCount: UInt32
    public var sampleSize: UInt32
    public var sampleRate: Double
    /// Version 1: frames per packet; version 2: constant frames per packet.
    public var framesPerPacket: UInt32?
    public var bytesPerFrame: UInt32?
    public var childrenOffset: Int

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        try r.skip(6, "reserved")
        let dref = try r.u16("data_reference_index")
        let version = try r.u16("version")
        try r.skip(6, "revision and vendor")
        var entry = AudioSampleEntry(
            dataReferenceIndex: dref, version: version, channelCount: UInt32(try r.u16("channelcount")),
            sampleSize: UInt32(try r.u16("samplesize")), sampleRate: 0, childrenOffset: 28)
        try r.skip(4, "compression_id and packet_size")
        let rate = try r.u32("samplerate")
        entry.sampleRate = Double(rate >> 16)
        switch version {
        case 1:
            entry.framesPerPacket = try r.u32("samples per packet")
            try r.skip(4, "bytes per packet")
            entry.bytesPerFrame = try r.u32("bytes per frame")
            try r.skip(4, "bytes per sample")
            entry.childrenOffset = 44
        case 2:
            try r.skip(4, "sizeOfStructOnly")
            entry.sampleRate = try r.f64("audioSampleRate")
            entry.channelCount = try r.u32("numAudioChannels")
            try r.skip(4, "always7F000000")
            entry.sampleSize = try r.u32("constBitsPerChannel")
            try r.skip(4, "formatSpecificFlags")
            entry.bytesPerFrame = try r.u32("constBytesPerAudioPacket")
            entry.framesPerPacket = try r.u32("constLPCMFramesPerAudioPacket")
            entry.childrenOffset = 72
        default:
            break
        }
        return entry
    }

    public var fields: [(String, InspectValue)] {
        var f: [(String, InspectValue)] = [
            ("version", .int(version)), ("channels", .int(channelCount)), ("sample_size", .int(sampleSize)),
            ("sample_rate", .double(sampleRate)),
        ]
        if let b = bytesPerFrame { f.append(("bytes_per_packet", .int(b))) }
        return f
    }
}

/// Timed metadata sample entry `mebx` (QTFF): reserved, data reference index, then a `keys` box.
public struct MetadataSampleEntry: SampleEntry, Equatable {
    public var dataReferenceIndex: UInt16
    public var childrenOffset: Int { 8 }
    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        try r.skip(6, "reserved")
        return MetadataSampleEntry(dataReferenceIndex: try r.u16("data_reference_index"))
    }
    public var fields: [(String, InspectValue)] { [] }
}

/// Any other sample entry: the common 8 bytes; the rest is kept in the file, not interpreted.
public struct GenericSampleEntry: SampleEntry, Equatable {
    public var dataReferenceIndex: UInt16
    /// Generic entries have no child boxes we can find reliably (`tmcd`, `tx3g` lay out fields first).
    public var childrenOffset: Int { Int.max }
    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        try r.skip(6, "reserved")
        return GenericSampleEntry(dataReferenceIndex: try r.u16("data_reference_index"))
    }
    public var fields: [(String, InspectValue)] { [] }
}
