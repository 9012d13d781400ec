/// How strictly to read.
public struct MovieReadOptions: Sendable {
    /// Treat every warning as an error.
    public var strict: Bool
    public var limits: ReaderLimits
    public init(strict: Bool = false, limits: ReaderLimits = .default) {
        self.strict = strict
        self.limits = limits
    }
}

/// A QuickTime / ISO-BMFF movie: the box tree plus the tracks and sample indexes built from it.
public struct Movie: Sendable {
    public var tree: BoxTree
    public var fileType: FileTypeBox?
    public var header: MovieHeaderBox
    /// The `moov` box, or the one decompressed from `cmov`.
    public var moov: Box
    /// The `moov` as it stands in the file (differs from `moov` when compressed).
    public var moovInFile: Box
    public var tracks: [Track]
    public var fragmentCount: Int
    public var diagnostics: [Diagnostic]

    public var fileSize: Int64 { tree.fileSize }
    public var isFragmented: Bool { fragmentCount > 0 || moov.child("mvex") != nil }
    public var isCompressed: Bool { moov.header.offset != moovInFile.header.offset || moov.origin != moovInFile.origin }
    public var timescale: UInt32 { header.timescale }

    /// Movie duration in the movie timescale: `mvhd`; for fragmented files `mehd`, else at least the
    /// longest track (rounded to the nearest movie tick). A fragmented movie's `mvhd` counts only the
    /// samples in `moov`; without `mehd` the fragments say how long the movie is (ISO/IEC 14496-12 §8.8.2).
    public var duration: Int64 {
        if let mehd = moov.child("mvex")?.child("mehd")?.content(as: MovieExtendsHeaderBox.self), mehd.fragmentDuration > 0 {
            return Int64(clamping: mehd.fragmentDuration)
        }
        if header.duration != .max, !isFragmented { return Int64(clamping: header.duration) }
        let longest = tracks.compactMap { Self.rescale($0.mediaDuration, from: $0.timescale, to: timescale) }.max() ?? 0
        return max(header.duration == .max ? 0 : Int64(clamping: header.duration), longest)
    }

    /// `value` (≥ 0) ticks of timescale `from` in ticks of `to`, rounded to nearest, in exact integer
    /// arithmetic and clamped to `Int64.max`; nil when `from` is 0.
    static func rescale(_ value: Int64, from: UInt32, to: UInt32) -> Int64? {
        guard from > 0 else { return nil }
        let (whole, part) = UInt64(max(value, 0)).quotientAndRemainder(dividingBy: UInt64(from))
        let (scaled, o1) = whole.multipliedReportingOverflow(by: UInt64(to))
        // part < from ≤ 2^32 - 1, so part × to + from / 2 fits in 64 bits.
        let (sum, o2) = scaled.addingReportingOverflow((part * UInt64(to) + UInt64(from) / 2) / UInt64(from))
        return o1 || o2 ? .max : Int64(clamping: sum)
    }

    public var durationSeconds: Double { timescale > 0 ? Double(duration) / Double(timescale) : 0 }

    public func track(id: UInt32) -> Track? { tracks.first { $0.id == id } }

    public static func read(path: String, options: MovieReadOptions = .init()) throws(ContainerError) -> Movie {
        try read(source: FileByteSource(path: path), options: options)
    }

    public static func read(source: any ByteSource, options: MovieReadOptions = .init()) throws(ContainerError) -> Movie {
        let tree = try BoxReader(source: source, limits: options.limits).readTree()
        let movie = try Movie(tree: tree)
        if options.strict, let first = movie.diagnostics.first { throw first.error }
        return movie
    }

    public init(tree: BoxTree) throws(ContainerError) {
        self.tree = tree
        var diagnostics = tree.diagnostics
        let warn = { (e: ContainerError) in diagnostics.append(Diagnostic(e)) }

        let ftyps = tree.all("ftyp")
        fileType = ftyps.first?.content(as: FileTypeBox.self)
        if ftyps.isEmpty {
            warn(.malformed("no ftyp box (old QuickTime files omit it; ISO files must have one)", clause: Clause.fileType))
        } else if ftyps.count > 1 {
            warn(.malformed("\(ftyps.count) ftyp boxes; using the first", offset: ftyps[1].header.offset, clause: Clause.fileType))
        }
        if let first = ftyps.first, tree.boxes.first?.type != "ftyp" {
            warn(.malformed("ftyp is not the first box", offset: first.header.offset, clause: Clause.fileType))
        }

        let moovs = tree.all("moov")
        guard let moovBox = moovs.first else {
            let types = tree.boxes.prefix(8).map { "'\($0.type)'" }.joined(separator: ", ")
            throw ContainerError.malformed(
                "no moov box among the top-level boxes (\(types)): not a complete movie (recording interrupted, or not a movie file)",
                offset: 0, clause: Clause.movie)
        }
        guard moovs.count == 1 else {
            throw ContainerError.malformed(
                "\(moovs.count) moov boxes; a movie has exactly one", offset: moovs[1].header.offset,
                path: moovs[1].path, clause: Clause.movie)
        }
        moovInFile = moovBox
        // A compressed movie holds its real moov inside cmov/cmvd.
        if let inner = moovBox.child("cmov")?.child("cmvd")?.child("moov") {
            moov = inner
        } else {
            moov = moovBox
        }
        guard let mvhd = moov.child("mvhd")?.content(as: MovieHeaderBox.self) else {
            throw ContainerError.malformed("moov has no mvhd", offset: moov.header.offset, path: moov.path, clause: Clause.movie)
        }
        header = mvhd
        if mvhd.timescale == 0 { warn(.malformed("mvhd timescale is 0", path: moov.path + "/mvhd", clause: "ISO/IEC 14496-12 §8.2.2")) }

        let moofs = tree.all("moof")
        fragmentCount = moofs.count
        let trexes = moov.child("mvex")?.children("trex").compactMap { $0.content(as: TrackExtendsBox.self) } ?? []

        var tracks: [Track] = []
        for trak in moov.children("trak") {
            guard let tkhd = trak.child("tkhd")?.content(as: TrackHeaderBox.self) else {
                throw ContainerError.malformed(
                    "track has no tkhd", offset: trak.header.offset, path: trak.path,
                    clause: "ISO/IEC 14496-12 §8.3.2")
            }
            guard let mdia = trak.child("mdia"), let mdhd = mdia.child("mdhd")?.content(as: MediaHeaderBox.self) else {
                throw ContainerError.malformed(
                    "track \(tkhd.trackID) has no mdia/mdhd", offset: trak.header.offset, path: trak.path,
                    clause: "ISO/IEC 14496-12 §8.4.2")
            }
            if tracks.contains(where: { $0.id == tkhd.trackID }) {
                warn(
                    .malformed(
                        "two tracks with id \(tkhd.trackID)", offset: trak.header.offset, path: trak.path,
                        clause: "ISO/IEC 14496-12 §8.3.2"))
            }
            if mdhd.timescale == 0 {
                warn(
                    .malformed("track \(tkhd.trackID) has media timescale 0", path: mdia.path + "/mdhd", clause: "ISO/IEC 14496-12 §8.4.2"))
            }
            let stbl = mdia.descendant(["minf", "stbl"])
            let entries = stbl?.child("stsd")?.children.map { (type: $0.type, entry: $0.content as? any SampleEntry, box: $0) } ?? []
            var samples = SampleIndex()
            if let stbl {
                samples = try SampleIndex.build(stbl: stbl, fileSize: tree.fileSize, warn: warn)
            } else {
                warn(.malformed("track \(tkhd.trackID) has no sample table", path: mdia.path, clause: "ISO/IEC 14496-12 §8.5.1"))
            }
            if !moofs.isEmpty {
                samples = try SampleIndex.build(
                    fragments: moofs, trackID: tkhd.trackID, defaults: trexes.first { $0.trackID == tkhd.trackID },
                    fileSize: tree.fileSize, startingAfter: samples, warn: warn)
            }
            let references =
                trak.child("tref")?.children.compactMap { box -> (type: FourCC, trackIDs: [UInt32])? in
                    guard let content = box.content(as: TrackReferenceTypeBox.self) else { return nil }
                    return (box.type, content.trackIDs)
                } ?? []
            var keys: [TimedMetadataKey] = []
            if let mebx = entries.first(where: { $0.type == "mebx" })?.box, let keysBox = mebx.child("keys") {
                for key in keysBox.children {
                    guard let keyd = key.child("keyd")?.content(as: KeyDeclarationBox.self) else { continue }
                    keys.append(
                        TimedMetadataKey(
                            localID: key.type.rawValue, namespace: keyd.namespace, key: keyd.keyString,
                            dataType: key.child("dtyp")?.content(as: DataTypeBox.self)))
                }
            }
            let channelLayout =
                entries.first?.box.children.lazy.compactMap { $0.content(as: ChannelLayoutBox.self) }.first
                ?? entries.first?.box.child("wave")?.children.lazy.compactMap { $0.content(as: ChannelLayoutBox.self) }.first
            tracks.append(
                Track(
                    box: trak, header: tkhd, media: mdhd, handler: mdia.child("hdlr")?.content(as: HandlerBox.self),
                    sampleEntries: entries, editList: trak.child("edts")?.child("elst")?.content(as: EditListBox.self),
                    references: references, samples: samples, metadataKeys: keys, channelLayout: channelLayout))
        }
        for track in tracks {
            for reference in track.references {
                for id in reference.trackIDs where id != 0 && !tracks.contains(where: { $0.id == id }) {
                    warn(
                        .malformed(
                            "track \(track.id) '\(reference.type)' reference names track \(id), which does not exist",
                            path: track.box.path + "/tref", clause: "ISO/IEC 14496-12 §8.3.3"))
                }
            }
        }
        self.tracks = tracks
        self.diagnostics = diagnostics
    }
}
