// ISO/IEC 14496-12 §4.3 and §8.2–8.4, §8.6.6: the file type, movie, track and media headers.

/// `ftyp` (ISO/IEC 14496-12 §4.3).
public struct FileTypeBox: ParsableBox, SerializableBox, Equatable {
    public static let boxType: FourCC = "ftyp"
    public var majorBrand: FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [FourCC]

    public init(majorBrand: FourCC, minorVersion: UInt32, compatibleBrands: [FourCC]) {
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let major = try r.fourCC("major_brand")
        let minor = try r.u32("minor_version")
        var brands: [FourCC] = []
        while r.remaining >= 4 { brands.append(try r.fourCC("compatible_brand")) }
        return FileTypeBox(majorBrand: major, minorVersion: minor, compatibleBrands: brands)
    }

    public func writePayload(to w: inout ByteWriter) {
        w.fourCC(majorBrand)
        w.u32(minorVersion)
        compatibleBrands.forEach { w.fourCC($0) }
    }

    public var fields: [(String, InspectValue)] {
        [
            ("major_brand", .fourCC(majorBrand)), ("minor_version", .int(minorVersion)),
            ("compatible_brands", .list(compatibleBrands.map { .fourCC($0) })),
        ]
    }
}

/// `mvhd` (ISO/IEC 14496-12 §8.2.2).
public struct MovieHeaderBox: ParsableBox, SerializableBox, Equatable {
    public static let boxType: FourCC = "mvhd"
    public var version: UInt8 = 0
    public var creationTime: UInt64 = 0
    public var modificationTime: UInt64 = 0
    public var timescale: UInt32
    public var duration: UInt64
    public var rate: Double = 1
    public var volume: Double = 1
    public var matrix: [Int32] = MovieHeaderBox.identityMatrix
    public var nextTrackID: UInt32

    public static let identityMatrix: [Int32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]

    public init(timescale: UInt32, duration: UInt64, nextTrackID: UInt32) {
        self.timescale = timescale
        self.duration = duration
        self.nextTrackID = nextTrackID
        version = duration > UInt32.max ? 1 : 0
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, _) = try r.fullBoxHeader()
        guard version <= 1 else { throw r.error("unsupported mvhd version \(version)", clause: "ISO/IEC 14496-12 §8.2.2") }
        var box = MovieHeaderBox(timescale: 0, duration: 0, nextTrackID: 0)
        box.version = version
        if version == 1 {
            box.creationTime = try r.u64()
            box.modificationTime = try r.u64()
            box.timescale = try r.u32("timescale")
            box.duration = try r.u64("duration")
        } else {
            box.creationTime = UInt64(try r.u32())
            box.modificationTime = UInt64(try r.u32())
            box.timescale = try r.u32("timescale")
            let d = try r.u32("duration")
            box.duration = d == UInt32.max ? UInt64.max : UInt64(d)
        }
        box.rate = try r.fixed16_16("rate")
        box.volume = try r.fixed8_8("volume")
        try r.skip(10, "reserved")
        box.matrix = []
        for _ in 0..<9 { box.matrix.append(try r.i32("matrix")) }
        try r.skip(24, "pre_defined")
        box.nextTrackID = try r.u32("next_track_ID")
        return box
    }

    public func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: version, flags: 0)
        if version == 1 {
            w.u64(creationTime); w.u64(modificationTime); w.u32(timescale); w.u64(duration)
        } else {
            w.u32(UInt32(truncatingIfNeeded: creationTime)); w.u32(UInt32(truncatingIfNeeded: modificationTime))
            w.u32(timescale); w.u32(UInt32(truncatingIfNeeded: duration))
        }
        w.fixed16_16(rate); w.fixed8_8(volume); w.zeros(10)
        matrix.forEach { w.i32($0) }
        w.zeros(24)
        w.u32(nextTrackID)
    }

    public var fields: [(String, InspectValue)] {
        [
            ("version", .int(version)), ("timescale", .int(timescale)),
            ("duration", duration == .max ? .null : .int(duration)), ("rate", .double(rate)),
            ("next_track_id", .int(nextTrackID)),
        ]
    }
}

/// `tkhd` (ISO/IEC 14496-12 §8.3.2).
public struct TrackHeaderBox: ParsableBox, SerializableBox, Equatable {
    public static let boxType: FourCC = "tkhd"
    public var version: UInt8 = 0
    public var flags: UInt32
    public var creationTime: UInt64 = 0
    public var modificationTime: UInt64 = 0
    public var trackID: UInt32
    public var duration: UInt64
    public var layer: Int16 = 0
    public var alternateGroup: Int16 = 0
    public var volume: Double = 0
    public var matrix: [Int32] = MovieHeaderBox.identityMatrix
    public var width: Double
    public var height: Double

    public static let enabledFlag: UInt32 = 0x1
    public static let inMovieFlag: UInt32 = 0x2
    public static let inPreviewFlag: UInt32 = 0x4

    public var isEnabled: Bool { flags & Self.enabledFlag != 0 }

    public init(trackID: UInt32, duration: UInt64, width: Double, height: Double, flags: UInt32) {
        self.trackID = trackID
        self.duration = duration
        self.width = width
        self.height = height
        self.flags = flags
        version = duration > UInt32.max ? 1 : 0
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, flags) = try r.fullBoxHeader()
        guard version <= 1 else { throw r.error("unsupported tkhd version \(version)", clause: "ISO/IEC 14496-12 §8.3.2") }
        var box = TrackHeaderBox(trackID: 0, duration: 0, width: 0, height: 0, flags: flags)
        box.version = version
        if version == 1 {
            box.creationTime = try r.u64(); box.modificationTime = try r.u64()
            box.trackID = try r.u32("track_ID"); try r.skip(4, "reserved"); box.duration = try r.u64("duration")
        } else {
            box.creationTime = UInt64(try r.u32()); box.modificationTime = UInt64(try r.u32())
            box.trackID = try r.u32("track_ID"); try r.skip(4, "reserved")
            let d = try r.u32("duration")
            box.duration = d == UInt32.max ? UInt64.max : UInt64(d)
        }
        try r.skip(8, "reserved")
        box.layer = try r.i16("layer")
        box.alternateGroup = try r.i16("alternate_group")
        box.volume = try r.fixed8_8("volume")
        try r.skip(2, "reserved")
        box.matrix = []
        for _ in 0..<9 { box.matrix.append(try r.i32("matrix")) }
        box.width = try r.fixed16_16("width")
        box.height = try r.fixed16_16("height")
        return box
    }

    public func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: version, flags: flags)
        if version == 1 {
            w.u64(creationTime); w.u64(modificationTime); w.u32(trackID); w.u32(0); w.u64(duration)
        } else {
            w.u32(UInt32(truncatingIfNeeded: creationTime)); w.u32(UInt32(truncatingIfNeeded: modificationTime))
            w.u32(trackID); w.u32(0); w.u32(UInt32(truncatingIfNeeded: duration))
        }
        w.zeros(8); w.i16(layer); w.i16(alternateGroup); w.fixed8_8(volume); w.zeros(2)
        matrix.forEach { w.i32($0) }
        w.fixed16_16(width); w.fixed16_16(height)
    }

    public var fields: [(String, InspectValue)] {
        [
            ("version", .int(version)), ("flags", .string("0x" + String(flags, radix: 16))),
            ("track_id", .int(trackID)), ("duration", duration == .max ? .null : .int(duration)),
            ("enabled", .bool(isEnabled)), ("width", .double(width)), ("height", .double(height)),
        ]
    }
}

/// `mdhd` (ISO/IEC 14496-12 §8.4.2).
public struct MediaHeaderBox: ParsableBox, SerializableBox, Equatable {
    public static let boxType: FourCC = "mdhd"
    public var version: UInt8 = 0
    public var creationTime: UInt64 = 0
    public var modificationTime: UInt64 = 0
    public var timescale: UInt32
    public var duration: UInt64
    /// ISO-639-2/T code packed as three 5-bit letters, or a QuickTime language number.
    public var language: UInt16 = 0x55C4  // "und"

    public init(timescale: UInt32, duration: UInt64) {
        self.timescale = timescale
        self.duration = duration
        version = duration > UInt32.max ? 1 : 0
    }

    public var languageCode: String {
        guard language >= 0x400 else { return "qt:\(language)" }
        let letters = [(language >> 10) & 0x1F, (language >> 5) & 0x1F, language & 0x1F]
        return String(letters.map { Character(Unicode.Scalar(UInt8($0 + 0x60))) })
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, _) = try r.fullBoxHeader()
        guard version <= 1 else { throw r.error("unsupported mdhd version \(version)", clause: "ISO/IEC 14496-12 §8.4.2") }
        var box = MediaHeaderBox(timescale: 0, duration: 0)
        box.version = version
        if version == 1 {
            box.creationTime = try r.u64(); box.modificationTime = try r.u64()
            box.timescale = try r.u32("timescale"); box.duration = try r.u64("duration")
        } else {
            box.creationTime = UInt64(try r.u32()); box.modificationTime = UInt64(try r.u32())
            box.timescale = try r.u32("timescale")
            let d = try r.u32("duration")
            box.duration = d == UInt32.max ? UInt64.max : UInt64(d)
        }
        box.language = try r.u16("language")
        try r.skip(2, "pre_defined")
        return box
    }

    public func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: version, flags: 0)
        if version == 1 {
            w.u64(creationTime); w.u64(modificationTime); w.u32(timescale); w.u64(duration)
        } else {
            w.u32(UInt32(truncatingIfNeeded: creationTime)); w.u32(UInt32(truncatingIfNeeded: modificationTime))
            w.u32(timescale); w.u32(UInt32(truncatingIfNeeded: duration))
        }
        w.u16(language); w.u16(0)
    }

    public var fields: [(String, InspectValue)] {
        [
            ("version", .int(version)), ("timescale", .int(timescale)),
            ("duration", duration == .max ? .null : .int(duration)), ("language", .string(languageCode)),
        ]
    }
}

/// `hdlr` (ISO/IEC 14496-12 §8.4.3; QuickTime adds a component type in `pre_defined`).
public struct HandlerBox: ParsableBox, SerializableBox, Equatable {
    public static let boxType: FourCC = "hdlr"
    /// QuickTime's component type (`mhlr`, `dhlr`); zero in ISO files.
    public var componentType: FourCC = FourCC(rawValue: 0)
    public var handlerType: FourCC
    public var name: String

    public init(handlerType: FourCC, name: String, componentType: FourCC = FourCC(rawValue: 0)) {
        self.handlerType = handlerType
        self.name = name
        self.componentType = componentType
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        let component = try r.fourCC("pre_defined")
        let handler = try r.fourCC("handler_type")
        try r.skip(12, "reserved")
        // ISO: NUL-terminated UTF-8. QuickTime: a Pascal string. Tell them apart by the length byte.
        var name = ""
        if r.remaining > 0 {
            let bytes = r.rest()
            if let first = bytes.first, Int(first) == bytes.count - 1, component.rawValue != 0 {
                name = String(decoding: bytes.dropFirst(), as: UTF8.self)
            } else {
                name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return HandlerBox(handlerType: handler, name: name, componentType: component)
    }

    public func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: 0, flags: 0)
        w.fourCC(componentType); w.fourCC(handlerType); w.zeros(12); w.cString(name)
    }

    public var fields: [(String, InspectValue)] {
        [("handler_type", .fourCC(handlerType)), ("name", .string(name))]
    }
}

/// `elst` (ISO/IEC 14496-12 §8.6.6).
public struct EditListBox: ParsableBox, SerializableBox, Equatable {
    public static let boxType: FourCC = "elst"
    public struct Entry: Sendable, Equatable {
        /// In the movie timescale.
        public var segmentDuration: UInt64
        /// In the media timescale; -1 is an empty edit.
        public var mediaTime: Int64
        public var mediaRate: Double
        public init(segmentDuration: UInt64, mediaTime: Int64, mediaRate: Double = 1) {
            self.segmentDuration = segmentDuration
            self.mediaTime = mediaTime
            self.mediaRate = mediaRate
        }
    }
    public var version: UInt8 = 0
    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
        version = entries.contains { $0.segmentDuration > UInt32.max || $0.mediaTime > Int32.max } ? 1 : 0
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        let (version, _) = try r.fullBoxHeader()
        guard version <= 1 else { throw r.error("unsupported elst version \(version)", clause: Clause.editList) }
        let count = try r.entryCount(entrySize: version == 1 ? 20 : 12, clause: Clause.editList)
        var entries = [Entry](boundedCapacity: count, available: r.remaining, entrySize: 12)
        for _ in 0..<count {
            let duration = version == 1 ? try r.u64("segment_duration") : UInt64(try r.u32("segment_duration"))
            let time = version == 1 ? try r.i64("media_time") : Int64(try r.i32("media_time"))
            let rate = try r.fixed16_16("media_rate")
            entries.append(Entry(segmentDuration: duration, mediaTime: time, mediaRate: rate))
        }
        var box = EditListBox(entries: entries)
        box.version = version
        return box
    }

    public func writePayload(to w: inout ByteWriter) {
        w.fullBoxHeader(version: version, flags: 0)
        w.u32(UInt32(entries.count))
        for e in entries {
            if version == 1 {
                w.u64(e.segmentDuration); w.i64(e.mediaTime)
            } else {
                w.u32(UInt32(truncatingIfNeeded: e.segmentDuration)); w.i32(Int32(truncatingIfNeeded: e.mediaTime))
            }
            w.fixed16_16(e.mediaRate)
        }
    }

    public var fields: [(String, InspectValue)] {
        [
            (
                "entries",
                .list(
                    entries.map {
                        .object([
                            ("duration", .int($0.segmentDuration)), ("media_time", .int($0.mediaTime)), ("rate", .double($0.mediaRate)),
                        ])
                    })
            )
        ]
    }
}

/// A child of `tref`: its type names the reference kind (`cdsc`, `auxl`, `vdep`, `chap`, …),
/// its payload lists the referenced track ids (ISO/IEC 14496-12 §8.3.3).
public struct TrackReferenceTypeBox: ParsableBox, Equatable {
    public var trackIDs: [UInt32]

    public init(trackIDs: [UInt32]) { self.trackIDs = trackIDs }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        var ids: [UInt32] = []
        while r.remaining >= 4 { ids.append(try r.u32("track_IDs")) }
        return TrackReferenceTypeBox(trackIDs: ids)
    }

    public func write(type: FourCC, to w: inout ByteWriter) {
        w.box(type) { w in trackIDs.forEach { w.u32($0) } }
    }

    public var fields: [(String, InspectValue)] { [("track_ids", .list(trackIDs.map { .int($0) }))] }
}
