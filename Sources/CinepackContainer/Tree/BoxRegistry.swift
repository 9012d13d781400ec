/// How the reader treats a box type: the one table of every box the layer knows.
package enum BoxLayout: Sendable {
    /// Only child boxes, starting `childrenOffset` bytes into the payload.
    case container(childrenOffset: Int = 0)
    /// Parsed into a struct; with `childrenOffset`, child boxes follow the fields.
    case parsed(any ParsableBox.Type, childrenOffset: Int? = nil)
    /// Known, kept in the tree, contents not interpreted.
    case leaf
    /// Media or padding: the payload is never read (`mdat`, `free`, …).
    case opaque
    /// `meta`: a full box in ISO files, a plain container in QuickTime files.
    case meta
    /// A child of `stsd`: its fields depend on the track's handler.
    case sampleEntry
    /// `cmvd`: a zlib-compressed `moov`.
    case compressedMovieData
}

package struct BoxDefinition: Sendable {
    package var type: FourCC
    package var layout: BoxLayout
    package var clause: String
    /// A parse failure here is an error; elsewhere a warning that leaves the box unparsed.
    package var essential: Bool

    init(_ type: FourCC, _ layout: BoxLayout, _ clause: String, essential: Bool = true) {
        self.type = type
        self.layout = layout
        self.clause = clause
        self.essential = essential
    }
}

package enum BoxRegistry {
    private static let iso = "ISO/IEC 14496-12"
    private static let qt = "QTFF"

    /// The table.
    package static let definitions: [FourCC: BoxDefinition] = {
        var table: [FourCC: BoxDefinition] = [:]
        func add(_ type: FourCC, _ layout: BoxLayout, _ clause: String, essential: Bool = true) {
            table[type] = BoxDefinition(type, layout, clause, essential: essential)
        }
        // File level.
        add("ftyp", .parsed(FileTypeBox.self), "\(iso) §4.3")
        add("styp", .parsed(FileTypeBox.self), "\(iso) §8.16.2")
        add("mdat", .opaque, "\(iso) §8.1.1")
        add("free", .opaque, "\(iso) §8.1.2")
        add("skip", .opaque, "\(iso) §8.1.2")
        add("wide", .opaque, "\(qt), wide atom")
        add("pnot", .opaque, "\(qt), preview atom")
        add("uuid", .leaf, "\(iso) §4.2")
        // Movie structure.
        add("moov", .container(), "\(iso) §8.2.1")
        add("mvhd", .parsed(MovieHeaderBox.self), "\(iso) §8.2.2")
        add("trak", .container(), "\(iso) §8.3.1")
        add("tkhd", .parsed(TrackHeaderBox.self), "\(iso) §8.3.2")
        add("tref", .container(), "\(iso) §8.3.3")
        add("edts", .container(), "\(iso) §8.6.5")
        add("elst", .parsed(EditListBox.self), "\(iso) §8.6.6")
        add("mdia", .container(), "\(iso) §8.4.1")
        add("mdhd", .parsed(MediaHeaderBox.self), "\(iso) §8.4.2")
        add("hdlr", .parsed(HandlerBox.self), "\(iso) §8.4.3")
        add("minf", .container(), "\(iso) §8.4.4")
        add("vmhd", .leaf, "\(iso) §12.1.2")
        add("smhd", .leaf, "\(iso) §12.2.2")
        add("nmhd", .leaf, "\(iso) §8.4.5.2")
        add("sthd", .leaf, "\(iso) §12.6.2")
        add("gmhd", .container(), "\(qt), base media information header")
        add("gmin", .leaf, "\(qt), base media info atom")
        add("dinf", .container(), "\(iso) §8.7.1")
        add("dref", .container(childrenOffset: 8), "\(iso) §8.7.2")
        add("url ", .leaf, "\(iso) §8.7.2")
        add("alis", .leaf, "\(qt), data reference")
        add("udta", .container(), "\(iso) §8.10.1")
        add("meta", .meta, "\(iso) §8.11.1")
        add("ilst", .container(), "\(qt), metadata item list atom")
        add("keys", .parsed(MetadataKeysBox.self), Clause.metadataKeys, essential: false)
        add("tapt", .container(), "\(qt), track aperture mode dimensions")
        // Sample tables.
        add("stbl", .container(), "\(iso) §8.5.1")
        add("stsd", .parsed(SampleDescriptionBox.self, childrenOffset: 8), Clause.sampleDescription)
        add("stts", .parsed(TimeToSampleBox.self), Clause.decodingTime)
        add("ctts", .parsed(CompositionOffsetBox.self), Clause.compositionOffset)
        add("stss", .parsed(SyncSampleBox.self), Clause.syncSample)
        add("stsz", .parsed(SampleSizeBox.self), Clause.sampleSize)
        add("stz2", .parsed(SampleSizeBox.self), Clause.sampleSize)
        add("stsc", .parsed(SampleToChunkBox.self), Clause.sampleToChunk)
        add("stco", .parsed(ChunkOffsetBox.self), Clause.chunkOffset)
        add("co64", .parsed(ChunkOffsetBox.self), Clause.chunkOffset)
        add("sdtp", .leaf, "\(iso) §8.6.4")
        add("sgpd", .leaf, "\(iso) §8.9.3")
        add("sbgp", .leaf, "\(iso) §8.9.2")
        add("stps", .leaf, "\(qt), partial sync sample atom")
        // Sample-entry children worth naming.
        for type: FourCC in [
            "avcC", "hvcC", "av1C", "vpcC", "pasp", "colr", "clap", "btrt", "esds", "fiel", "gama", "dOps", "dac3", "dec3", "SA3D", "ccst",
        ] {
            add(type, .leaf, "\(iso) / codec binding", essential: false)
        }
        add("wave", .container(), "\(qt), sound sample description extension", essential: false)
        add("chan", .parsed(ChannelLayoutBox.self), "\(qt), audio channel layout atom", essential: false)
        add("keyd", .parsed(KeyDeclarationBox.self), Clause.timedMetadata, essential: false)
        add("dtyp", .parsed(DataTypeBox.self), Clause.timedMetadata, essential: false)
        add("data", .parsed(MetadataValueBox.self), "\(qt), value atom", essential: false)
        add("sinf", .container(), "\(iso) §8.12.1", essential: false)
        add("schi", .container(), "\(iso) §8.12.6", essential: false)
        // Fragments.
        add("mvex", .container(), "\(iso) §8.8.1")
        add("mehd", .parsed(MovieExtendsHeaderBox.self), "\(iso) §8.8.2")
        add("trex", .parsed(TrackExtendsBox.self), "\(iso) §8.8.3")
        add("moof", .container(), "\(iso) §8.8.4")
        add("mfhd", .parsed(MovieFragmentHeaderBox.self), "\(iso) §8.8.5")
        add("traf", .container(), "\(iso) §8.8.6")
        add("tfhd", .parsed(TrackFragmentHeaderBox.self), Clause.trackFragment)
        add("trun", .parsed(TrackRunBox.self), Clause.trackRun)
        add("tfdt", .parsed(TrackFragmentDecodeTimeBox.self), "\(iso) §8.8.12")
        add("mfra", .container(), "\(iso) §8.8.9")
        add("tfra", .parsed(TrackFragmentRandomAccessBox.self), "\(iso) §8.8.10", essential: false)
        add("mfro", .parsed(MovieFragmentRandomAccessOffsetBox.self), "\(iso) §8.8.11", essential: false)
        add("sidx", .leaf, "\(iso) §8.16.3")
        // cinepack's own boxes (spec/format.md).
        add("cpdq", .leaf, "cinepack spec/format.md §5")
        add("cpED", .container(), "cinepack spec/format.md §8")
        add("cpES", .leaf, "cinepack spec/format.md §8")
        add("cpRP", .leaf, "cinepack spec/farm.md §2")
        // Compressed movie.
        add("cmov", .container(), Clause.compressedMovie)
        add("dcom", .parsed(DataCompressionBox.self), Clause.compressedMovie)
        add("cmvd", .compressedMovieData, Clause.compressedMovie)
        return table
    }()

    /// The definition for `type` where it stands. Some types mean different things under
    /// different parents; those rules are here and nowhere else.
    package static func definition(for type: FourCC, parent: FourCC?, grandparent: FourCC?) -> BoxDefinition? {
        switch parent {
        case "stsd":
            return BoxDefinition(type, .sampleEntry, Clause.sampleDescription)
        case "tref":
            return BoxDefinition(type, .parsed(TrackReferenceTypeBox.self), "ISO/IEC 14496-12 §8.3.3")
        case "ilst":
            // Item atoms are named by key index or by four-character code; they hold `data`.
            return BoxDefinition(type, .container(), "QTFF, metadata item atom", essential: false)
        case "mebx" where type == "keys":
            // In a timed-metadata sample entry, `keys` holds one box per key, named by its local id.
            return BoxDefinition(type, .container(), Clause.timedMetadata)
        case "keys" where grandparent == "mebx":
            return BoxDefinition(type, .container(), Clause.timedMetadata)
        default:
            return definitions[type]
        }
    }

    /// Types that are containers at the top level of a file, read into memory to parse.
    static func isTopLevelMetadata(_ layout: BoxLayout) -> Bool {
        switch layout {
        case .container, .meta, .parsed: true
        default: false
        }
    }
}
