// QuickTime File Format boxes: metadata keys, timed-metadata key descriptions, compressed movies,
// channel layouts.

/// `keys` inside a QuickTime `meta` (QTFF "Metadata item keys atom"): a full box listing keys.
public struct MetadataKeysBox: ParsableBox, Equatable {
    public struct Key: Sendable, Equatable {
        public var namespace: FourCC
        public var value: String
    }
    public var keys: [Key]

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        let n = try r.entryCount(entrySize: 8, clause: Clause.metadataKeys)
        var keys = [Key](boundedCapacity: n, available: r.remaining, entrySize: 8)
        for i in 0..<n {
            let at = r.absolutePosition
            let size = try r.u32("key_size")
            guard size >= 8, Int(size) - 4 <= r.remaining else {
                throw ContainerError.malformed(
                    "key \(i + 1) has size \(size), outside the box", offset: at, path: r.path,
                    clause: Clause.metadataKeys)
            }
            let ns = try r.fourCC("key_namespace")
            let value = try r.bytes(Int(size) - 8, "key_value")
            keys.append(Key(namespace: ns, value: String(decoding: value, as: UTF8.self)))
        }
        return MetadataKeysBox(keys: keys)
    }

    public var fields: [(String, InspectValue)] {
        [("keys", .list(keys.map { .string("\($0.namespace)/\($0.value)") }))]
    }
}

/// `keyd` inside a timed-metadata key (QTFF): the key's namespace and value.
public struct KeyDeclarationBox: ParsableBox, SerializableBox, Equatable {
    public static let boxType: FourCC = "keyd"
    public var namespace: FourCC
    public var value: [UInt8]
    public init(namespace: FourCC, value: [UInt8]) { self.namespace = namespace; self.value = value }

    /// `mdta` keys are reverse-DNS strings; other namespaces may be binary.
    public var keyString: String {
        if namespace == "mdta" || value.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return String(decoding: value, as: UTF8.self)
        }
        return value.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        KeyDeclarationBox(namespace: try r.fourCC("key_namespace"), value: r.rest())
    }
    public func writePayload(to w: inout ByteWriter) { w.fourCC(namespace); w.bytes(value) }
    public var fields: [(String, InspectValue)] { [("namespace", .fourCC(namespace)), ("key", .string(keyString))] }
}

/// `dtyp` inside a timed-metadata key (QTFF): the data type of its values.
public struct DataTypeBox: ParsableBox, SerializableBox, Equatable {
    public static let boxType: FourCC = "dtyp"
    /// 0 for the well-known types of QTFF table "Well-known data types".
    public var namespace: UInt32
    public var type: [UInt8]
    public init(namespace: UInt32, type: [UInt8]) { self.namespace = namespace; self.type = type }

    public var wellKnownType: UInt32? {
        guard namespace == 0, type.count == 4 else { return nil }
        return type.reduce(0) { $0 << 8 | UInt32($1) }
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        DataTypeBox(namespace: try r.u32("datatype_namespace"), type: r.rest())
    }
    public func writePayload(to w: inout ByteWriter) { w.u32(namespace); w.bytes(type) }
    public var fields: [(String, InspectValue)] {
        if let t = wellKnownType { return [("well_known_type", .int(t))] }
        return [("namespace", .int(namespace)), ("data_type", .string(String(decoding: type, as: UTF8.self)))]
    }
}

/// `data` inside an `ilst` item (QTFF "Value atom").
public struct MetadataValueBox: ParsableBox, Equatable {
    public var typeIndicator: UInt32
    public var locale: UInt32
    public var value: [UInt8]
    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        MetadataValueBox(typeIndicator: try r.u32("type indicator"), locale: try r.u32("locale"), value: r.rest())
    }
    /// UTF-8 (type 1) values as text; others by size. Not named `type`: that is the box's own
    /// type in the box listing (spec/inspect-json.md).
    public var fields: [(String, InspectValue)] {
        if typeIndicator & 0xFF_FFFF == 1 {
            return [("type_indicator", .int(typeIndicator)), ("value", .string(String(decoding: value.prefix(200), as: UTF8.self)))]
        }
        return [("type_indicator", .int(typeIndicator)), ("bytes", .int(value.count))]
    }
}

/// `dcom` in `cmov`: the compression algorithm (`zlib` is the only one in use).
public struct DataCompressionBox: ParsableBox, Equatable {
    public var algorithm: FourCC
    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        DataCompressionBox(algorithm: try r.fourCC("compression algorithm"))
    }
    public var fields: [(String, InspectValue)] { [("algorithm", .fourCC(algorithm))] }
}

/// `cmvd` in `cmov`: the claimed uncompressed size; the decompressed `moov` becomes its child.
public struct CompressedMovieDataBox: ParsableBox, Equatable {
    public var uncompressedSize: UInt32
    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        CompressedMovieDataBox(uncompressedSize: try r.u32("uncompressed size"))
    }
    public var fields: [(String, InspectValue)] { [("uncompressed_size", .int(uncompressedSize))] }
}

/// `chan` (QTFF / CoreAudio AudioChannelLayout): which speaker or ambisonic channel is which.
public struct ChannelLayoutBox: ParsableBox, Equatable {
    public var layoutTag: UInt32
    public var channelBitmap: UInt32
    public var channelLabels: [UInt32]

    /// The layout tag's high 16 bits name the layout, the low 16 the channel count.
    public var layoutName: String {
        switch layoutTag >> 16 {
        case 0: "use descriptions"
        case 1: "use bitmap"
        case 100: "mono"
        case 101: "stereo"
        // CoreAudioBaseTypes.h: kAudioChannelLayoutTag_Ambisonic_B_Format = 107 << 16 | 4,
        // HOA_ACN_SN3D = 190 << 16 and HOA_ACN_N3D = 191 << 16 (ORed with the channel count).
        case 107: "ambisonic B-format (W,X,Y,Z)"
        case 190: "ambisonic ACN/SN3D"
        case 191: "ambisonic ACN/N3D"
        default: "tag \(layoutTag >> 16)"
        }
    }

    public static func parse(_ r: inout ByteReader, context: BoxParseContext) throws(ContainerError) -> Self {
        _ = try r.fullBoxHeader()
        let tag = try r.u32("mChannelLayoutTag")
        let bitmap = try r.u32("mChannelBitmap")
        let n = try r.entryCount(entrySize: 20, clause: "QTFF, Audio channel layout atom", "mNumberChannelDescriptions")
        var labels = [UInt32](boundedCapacity: n, available: r.remaining, entrySize: 20)
        for _ in 0..<n {
            labels.append(try r.u32("mChannelLabel"))
            try r.skip(16, "channel flags and coordinates")
        }
        return ChannelLayoutBox(layoutTag: tag, channelBitmap: bitmap, channelLabels: labels)
    }

    public var fields: [(String, InspectValue)] {
        [
            ("layout", .string(layoutName)), ("layout_tag", .int(layoutTag)),
            ("channel_labels", .list(channelLabels.map { .int($0) })),
        ]
    }
}
