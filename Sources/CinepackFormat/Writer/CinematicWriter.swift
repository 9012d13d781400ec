import CinepackContainer
import CinepackTime

/// Which built-in codec stores the picture.
public enum BuiltInVideoCodec: String, Sendable, CaseIterable {
    case png
    case raw

    var sampleEntryType: FourCC { self == .png ? "png " : "raw " }
}

/// A track of an existing movie whose samples are copied, not decoded.
public struct CarriedTrack: Sendable {
    public var movie: Movie
    public var track: Track
    public var source: any ByteSource

    public init(movie: Movie, track: Track, source: any ByteSource) {
        self.movie = movie
        self.track = track
        self.source = source
    }

    /// The track's edit list converted to another movie timescale; nil when it has none.
    func editList(movieTimescale: UInt32) -> [EditListBox.Entry]? {
        guard let elst = track.editList else { return nil }
        return elst.entries.map {
            EditListBox.Entry(
                segmentDuration: UInt64(
                    max(0, TrackBoxes.rescale(Int64(clamping: $0.segmentDuration), from: movie.timescale, to: movieTimescale))),
                mediaTime: $0.mediaTime, mediaRate: $0.mediaRate)
        }
    }

    /// The sample entry box exactly as the source file has it.
    func sampleEntryBytes() throws(FormatError) -> [UInt8] {
        guard let entry = track.sampleEntries.first?.box, entry.origin == .file else {
            throw FormatError("track \(track.id) of \(source.name) has no sample description that can be copied")
        }
        do { return try source.read(at: entry.header.offset, count: Int(entry.header.size)) } catch {
            throw .container(error, file: source.name)
        }
    }
}

/// What a new cinematic movie holds.
public struct CinematicWriterConfiguration: Sendable {
    public enum Video: Sendable {
        /// Pictures passed to `append` are encoded with a built-in codec.
        case encoded(BuiltInVideoCodec, width: Int, height: Int, rate: FrameRate)
        /// The samples of an existing track are copied byte for byte.
        case carried(CarriedTrack)
    }

    public var video: Video
    /// Size and quantization of the disparity maps; nil for a movie without depth.
    public var disparity: (width: Int, height: Int, quantization: DisparityQuantization)?
    public var writesMetadata: Bool
    /// False writes a plain movie (a rendered export): no `cnpk` brand, no movie parameters, no EDL
    /// slots, so it cannot be mistaken for a refocusable file.
    public var isCinematic = true
    public var parameters: CinematicParameters
    public var audio: CarriedTrack?
    /// zlib level for PNG samples (1 fastest … 9 smallest).
    public var compressionLevel: Int32 = 6
    /// PNG row filters for encoded pictures (adaptive: smallest files; one fixed filter: faster).
    public var pictureFilter: PNGFilterStrategy = .adaptive
    /// Whole boxes to put in `moov/udta` (e.g. the record of a render part, spec/farm.md).
    public var userData: [[UInt8]] = []
    /// Extra movie-level metadata items (spec/format.md §7 keys of other names), e.g. how the
    /// depth input was calibrated.
    public var metadataItems: [MovieMetadataItem] = []
    /// Written as the encoded picture track's `colr` box (`nclx`) when set.
    public var pictureColour: ColourDescription?

    public init(
        video: Video, disparity: (width: Int, height: Int, quantization: DisparityQuantization)?, writesMetadata: Bool = true,
        parameters: CinematicParameters = .init(), audio: CarriedTrack? = nil
    ) {
        self.video = video
        self.disparity = disparity
        self.writesMetadata = writesMetadata
        self.parameters = parameters
        self.audio = audio
    }
}

/// What `finish` wrote.
public struct CinematicWriteSummary: Sendable {
    public var path: String
    public var frames: Int
    public var bytes: Int64
    public var duration: MediaTime
}

/// Streams a cinematic movie to disk (spec/format.md): `ftyp wide mdat moov`. Each frame's video,
/// disparity, metadata (and the audio up to the frame's end) are written as they arrive, so
/// memory is bounded by a frame, not the clip. The file appears under its name only when
/// `finish` succeeds; a failure or `cancel` leaves nothing behind.
public final class CinematicWriter {
    public let path: String
    public let configuration: CinematicWriterConfiguration
    private let file: AtomicFileWriter
    private let mdatOffset: Int64
    private var video = SampleTableWriter()
    private var disparity = SampleTableWriter()
    private var metadata = SampleTableWriter()
    private var audio = SampleTableWriter()
    private var audioNext = 0
    private var frames = 0
    private let timescale: UInt32
    private let frameDelta: UInt32
    private var carriedPresentation: [(time: Int64, duration: Int64)] = []
    private var finished = false

    /// A writer replacing whatever `path` holds (no output rules checked); commands use
    /// `init(target:configuration:)`.
    public convenience init(path: String, configuration: CinematicWriterConfiguration) throws(FormatError) {
        try self.init(target: OutputTarget(path: path, overwrite: true), configuration: configuration)
    }

    /// Checks the output rules of `target` (not an input, not an existing file unless
    /// overwriting, writable) before anything is written.
    public init(target: OutputTarget, configuration: CinematicWriterConfiguration) throws(FormatError) {
        let path = target.path
        self.path = path
        self.configuration = configuration
        switch configuration.video {
        case .encoded(_, let width, let height, let rate):
            guard width > 0, height > 0, width <= 16384, height <= 16384 else {
                throw FormatError("picture size \(width)×\(height) is outside 1…16384")
            }
            (timescale, frameDelta) = Self.timescale(for: rate)
        case .carried(let carried):
            guard carried.track.kind == .video else {
                throw FormatError("track \(carried.track.id) of \(carried.source.name) is \(carried.track.kind.rawValue), not video")
            }
            guard carried.track.samples.count > 0, carried.track.timescale > 0 else {
                throw FormatError("video track \(carried.track.id) of \(carried.source.name) has no samples")
            }
            timescale = carried.track.timescale
            frameDelta = 0
            // Disparity and metadata follow the picture in presentation order (spec/format.md §4).
            var times: [Int64] = []
            carried.track.samples.forEach { times.append($0.compositionTime) }
            times.sort()
            let end = times.last.map { $0 + (carried.track.samples.sample(at: carried.track.samples.count - 1)?.duration ?? 0) } ?? 0
            let first = times.first ?? 0
            for (i, t) in times.enumerated() {
                let next = i + 1 < times.count ? times[i + 1] : end
                carriedPresentation.append((t - first, max(1, next - t)))
            }
        }
        if let d = configuration.disparity {
            guard d.width > 0, d.height > 0, d.width <= 16384, d.height <= 16384 else {
                throw FormatError("disparity map size \(d.width)×\(d.height) is outside 1…16384")
            }
            guard d.quantization.isValid else {
                throw FormatError(
                    "disparity range \(d.quantization.minimum)…\(d.quantization.maximum) D is not a valid range (need 0 ≤ min < max, finite)"
                )
            }
        }
        do {
            file = try AtomicFileWriter(target: target)
            let brands: [FourCC] = configuration.isCinematic ? ["qt  ", "cnpk"] : ["qt  "]
            let ftyp = FileTypeBox(majorBrand: "qt  ", minorVersion: 0x2025_0100, compatibleBrands: brands)
            try file.write(ftyp.serialized())
            // `wide` reserves the 8 bytes a 64-bit mdat header needs (QTFF).
            try file.write([0, 0, 0, 8] + FourCC(stringLiteral: "wide").bytes)
            mdatOffset = file.bytesWritten
            try file.write([0, 0, 0, 8] + FourCC(stringLiteral: "mdat").bytes)
        } catch {
            throw .container(error)
        }
    }

    deinit { if !finished { file.abandon() } }

    /// Frames the carried video has (nil for encoded video).
    public var carriedFrameCount: Int? {
        if case .carried(let c) = configuration.video { return c.track.samples.count }
        return nil
    }

    /// Appends the next frame. `picture` is required for encoded video and must be nil for carried
    /// video; `disparity` and `metadata` are required when the configuration has them.
    public func append(picture: PixelImage?, disparity map: DisparityMap?, metadata frame: FrameMetadata?) throws(FormatError) {
        try append(picture: picture.map { .image($0) }, disparity: map, metadata: frame)
    }

    /// A picture for `append`: decoded, or a PNG file stored as it is (lossless and bit-exact;
    /// its size is checked against the configuration).
    public enum PictureInput {
        case image(PixelImage)
        case png([UInt8], width: Int, height: Int)
    }

    public func append(picture: PictureInput?, disparity map: DisparityMap?, metadata frame: FrameMetadata?) throws(FormatError) {
        try append(picture: picture, disparity: map, codes: nil, metadata: frame)
    }

    /// `codes`, when given, are the map's 16-bit codes on the configured range (spec/format.md §5),
    /// stored as they are instead of quantizing `map` again.
    public func append(
        picture: PictureInput?, disparity map: DisparityMap?, codes given: [UInt16]?, metadata frame: FrameMetadata?
    ) throws(FormatError) {
        guard !finished else { throw FormatError("internal: append after finish") }
        let index = frames
        do {
            switch configuration.video {
            case .encoded(let codec, let width, let height, _):
                let bytes: [UInt8]
                switch picture {
                case nil:
                    throw FormatError("frame \(index): no picture")
                case .image(let picture):
                    guard picture.width == width, picture.height == height else {
                        throw FormatError("frame \(index): picture is \(picture.width)×\(picture.height), expected \(width)×\(height)")
                    }
                    bytes = try encode(picture, codec: codec, frame: index)
                case .png(let png, let w, let h):
                    guard codec == .png else { throw FormatError("frame \(index): a PNG sample needs the png codec") }
                    guard w == width, h == height else {
                        throw FormatError("frame \(index): picture is \(w)×\(h), expected \(width)×\(height)")
                    }
                    bytes = png
                }
                video.beginChunk(at: file.bytesWritten)
                try file.write(bytes)
                video.add(size: UInt32(bytes.count), duration: frameDelta)
                video.endChunk()
            case .carried(let carried):
                guard index < carried.track.samples.count, let sample = carried.track.samples.sample(at: index) else {
                    throw FormatError("frame \(index): the carried video has only \(carried.track.samples.count) frames")
                }
                let bytes = try carried.source.read(at: sample.offset, count: Int(sample.size))
                video.beginChunk(at: file.bytesWritten)
                try file.write(bytes)
                video.add(
                    size: sample.size, duration: UInt32(clamping: sample.duration),
                    compositionOffset: sample.compositionTime - sample.decodeTime, isSync: sample.isSync)
                video.endChunk()
            }
            let delta = frameDuration(index)
            if let spec = configuration.disparity {
                guard let map else { throw FormatError("frame \(index): no disparity map") }
                guard map.width == spec.width, map.height == spec.height else {
                    throw FormatError("frame \(index): disparity map is \(map.width)×\(map.height), expected \(spec.width)×\(spec.height)")
                }
                let codes: [UInt16]
                if let given, given.count == map.values.count {
                    codes = given
                } else {
                    do { codes = try map.codes(spec.quantization) } catch { throw FormatError("frame \(index): \(error.message)") }
                }
                let image: PixelImage
                do { image = try PixelImage(width: map.width, height: map.height, layout: .gray, samples: codes) } catch {
                    throw FormatError("frame \(index): \(error)")
                }
                let png: [UInt8]
                do { png = try PNGEncoder.encode(image, compressionLevel: configuration.compressionLevel) } catch {
                    throw FormatError("frame \(index): cannot encode disparity: \(error)")
                }
                disparity.beginChunk(at: file.bytesWritten)
                try file.write(png)
                disparity.add(size: UInt32(png.count), duration: delta)
                disparity.endChunk()
            }
            if configuration.writesMetadata {
                let frame = frame ?? FrameMetadata()
                do { try FocusMetadataCodec.validate(frame, frameIndex: index) } catch { throw FormatError("frame \(index): \(error)") }
                let sample = FocusMetadataCodec.encode(frame)
                metadata.beginChunk(at: file.bytesWritten)
                try file.write(sample)
                metadata.add(size: UInt32(sample.count), duration: delta)
                metadata.endChunk()
            }
            frames += 1
            try copyAudio(upTo: presentationEnd(index))
        } catch {
            throw .from(error)
        }
    }

    /// Writes the tables and commits the file. Returns what was written.
    @discardableResult
    public func finish() throws(FormatError) -> CinematicWriteSummary {
        guard !finished else { throw FormatError("internal: finish called twice") }
        guard frames > 0 else { throw FormatError("no frames to write") }
        if let total = carriedFrameCount, frames != total {
            throw FormatError("the carried video has \(total) frames but \(frames) were written")
        }
        do {
            try copyAudio(upTo: Int64.max)
            let mdatSize = file.bytesWritten - mdatOffset
            if mdatSize <= Int64(UInt32.max) {
                try file.overwrite([UInt8](bigEndian: UInt32(mdatSize)), at: mdatOffset)
            } else {
                // Turn `wide` + 8-byte header into one 16-byte header with a 64-bit size.
                var header = [UInt8](bigEndian: UInt32(1)) + FourCC(stringLiteral: "mdat").bytes
                header += [UInt8](bigEndian: UInt64(mdatSize + 8))
                try file.overwrite(header, at: mdatOffset - 8)
            }
            try file.write(try moov())
            try file.commit()
            finished = true
            return CinematicWriteSummary(
                path: path, frames: frames, bytes: file.bytesWritten,
                duration: MediaTime(value: video.totalDuration, timescale: Int32(clamping: timescale)))
        } catch {
            cancel()
            throw .from(error)
        }
    }

    /// Abandons the file: nothing is left under `path` (an existing file there is untouched).
    public func cancel() {
        file.abandon()
        finished = true
    }

    // MARK: - Internals

    /// A timescale in which the frame duration is whole: N·k / D·k for rate N/D, with k making the
    /// timescale at least 600 when both still fit in 31 bits (the timescale as `MediaTime` holds it; the
    /// frame duration as readers that take the sample delta as signed, ffmpeg among them, read it).
    /// k = 1 always fits: both parts of a rate are ≤ 2³¹−1 (spec/format.md §2).
    static func timescale(for rate: FrameRate) -> (UInt32, UInt32) {
        let n = UInt32(clamping: rate.frames), d = UInt32(clamping: rate.seconds)
        let wanted = (600 + n - 1) / max(n, 1)
        let k = max(1, min(wanted, UInt32(Int32.max) / max(n, 1), UInt32(Int32.max) / max(d, 1)))
        return (n * k, d * k)
    }

    private func frameDuration(_ index: Int) -> UInt32 {
        if frameDelta > 0 { return frameDelta }
        return UInt32(clamping: carriedPresentation[index].duration)
    }

    /// End of frame `index` in seconds·timescale of the video.
    private func presentationEnd(_ index: Int) -> Int64 {
        if frameDelta > 0 { return Int64(index + 1) * Int64(frameDelta) }
        return carriedPresentation[index].time + carriedPresentation[index].duration
    }

    private func encode(_ picture: PixelImage, codec: BuiltInVideoCodec, frame: Int) throws(FormatError) -> [UInt8] {
        switch codec {
        case .png:
            guard picture.layout == .rgb || picture.layout == .rgba else {
                throw FormatError("frame \(frame): the picture must be RGB or RGBA, not \(picture.layout)")
            }
            do {
                return try PNGEncoder.encode(picture, filter: configuration.pictureFilter, compressionLevel: configuration.compressionLevel)
            } catch {
                throw FormatError("frame \(frame): \(error)")
            }
        case .raw:
            guard picture.layout == .rgb, let samples = picture.samples8 else {
                throw FormatError("frame \(frame): raw video needs 8-bit RGB pictures")
            }
            return samples
        }
    }

    /// Copies carried audio samples that start before `end` (video timescale), coalescing
    /// adjacent samples into one read.
    private func copyAudio(upTo end: Int64) throws(ContainerError) {
        guard let carried = configuration.audio else { return }
        let samples = carried.track.samples
        let scale = Int64(carried.track.timescale)
        var began = false
        var pending: (offset: Int64, size: Int64)?
        func flush() throws(ContainerError) {
            if let run = pending {
                var done: Int64 = 0
                while done < run.size {
                    let n = Int(min(run.size - done, 4 << 20))
                    try file.write(try carried.source.read(at: run.offset + done, count: n))
                    done += Int64(n)
                }
                pending = nil
            }
        }
        while audioNext < samples.count, let s = samples.sample(at: audioNext) {
            // Compare s.decodeTime / scale < end / timescale without division.
            if end != Int64.max {
                let lhs = s.decodeTime.multipliedReportingOverflow(by: Int64(timescale))
                let rhs = end.multipliedReportingOverflow(by: scale)
                if !lhs.overflow, !rhs.overflow, lhs.partialValue >= rhs.partialValue { break }
            }
            if !began {
                audio.beginChunk(at: file.bytesWritten)
                began = true
            }
            if let run = pending, run.offset + run.size == s.offset {
                pending = (run.offset, run.size + Int64(s.size))
            } else {
                try flush()
                pending = (s.offset, Int64(s.size))
            }
            audio.add(
                size: s.size, duration: UInt32(clamping: s.duration), compositionOffset: s.compositionTime - s.decodeTime,
                isSync: s.isSync)
            audioNext += 1
        }
        try flush()
        if began { audio.endChunk() }
    }

    private func moov() throws(FormatError) -> [UInt8] {
        let movieTimescale = timescale
        var traks: [[UInt8]] = []
        var nextID: UInt32 = 1
        let videoID = nextID
        var width = 0.0, height = 0.0
        let videoEntry: [UInt8]
        var videoEdits: [EditListBox.Entry]?
        switch configuration.video {
        case .encoded(let codec, let w, let h, _):
            width = Double(w)
            height = Double(h)
            var entry = ByteWriter()
            entry.box(codec.sampleEntryType) { e in
                VisualSampleEntry(width: UInt16(w), height: UInt16(h), compressorName: codec == .png ? "PNG" : "None", depth: 24)
                    .writeFixedFields(to: &e)
                if let colour = configuration.pictureColour { e.bytes(colour.colrBox()) }
            }
            videoEntry = entry.bytes
        case .carried(let carried):
            videoEntry = try carried.sampleEntryBytes()
            width = carried.track.header.width
            height = carried.track.header.height
            videoEdits = carried.editList(movieTimescale: movieTimescale)
        }
        traks.append(
            TrackBoxes.trak(
                .init(
                    id: videoID, handler: "vide", handlerName: "cinepack video", enabled: true,
                    mediaTimescale: timescale, mediaDuration: video.totalDuration, movieTimescale: movieTimescale,
                    width: width, height: height, editList: videoEdits, stbl: video.stbl(sampleEntry: videoEntry))))
        nextID += 1
        // Disparity and metadata share the presentation timeline, so they take the video's edits
        // only when the video has a leading empty edit; otherwise none.
        let followerEdits = videoEdits?.first.flatMap { $0.mediaTime < 0 ? videoEdits : nil }
        if let spec = configuration.disparity {
            var entry = ByteWriter()
            entry.box("png ") { e in
                VisualSampleEntry(width: UInt16(spec.width), height: UInt16(spec.height), compressorName: "cinepack disparity", depth: 24)
                    .writeFixedFields(to: &e)
                e.box("cpdq") { q in
                    q.fullBoxHeader(version: 0, flags: 0)
                    q.f32(spec.quantization.minimum)
                    q.f32(spec.quantization.maximum)
                    q.u32(1)
                }
            }
            traks.append(
                TrackBoxes.trak(
                    .init(
                        id: nextID, handler: "vide", handlerName: "cinepack disparity", enabled: false,
                        mediaTimescale: timescale, mediaDuration: disparity.totalDuration,
                        movieTimescale: movieTimescale, width: Double(spec.width), height: Double(spec.height),
                        references: [("auxl", [videoID])], editList: followerEdits,
                        stbl: disparity.stbl(sampleEntry: entry.bytes))))
            nextID += 1
        }
        if configuration.writesMetadata {
            traks.append(
                TrackBoxes.trak(
                    .init(
                        id: nextID, handler: "meta", handlerName: "cinepack focus metadata", enabled: false,
                        mediaTimescale: timescale, mediaDuration: metadata.totalDuration,
                        movieTimescale: movieTimescale, references: [("cdsc", [videoID])], editList: followerEdits,
                        stbl: metadata.stbl(sampleEntry: FocusMetadataKeys.mebxSampleEntry()))))
            nextID += 1
        }
        if let carried = configuration.audio, audio.sampleCount > 0 {
            traks.append(
                TrackBoxes.trak(
                    .init(
                        id: nextID, handler: "soun", handlerName: "cinepack audio", enabled: true,
                        mediaTimescale: carried.track.timescale, mediaDuration: audio.totalDuration,
                        movieTimescale: movieTimescale, volume: 1,
                        editList: carried.editList(movieTimescale: movieTimescale),
                        stbl: audio.stbl(sampleEntry: try carried.sampleEntryBytes()))))
            nextID += 1
        }
        let duration = traks.isEmpty ? 0 : UInt64(max(0, video.totalDuration))
        var w = ByteWriter()
        w.box("moov") { w in
            w.bytes(MovieHeaderBox(timescale: movieTimescale, duration: duration, nextTrackID: nextID).serialized())
            traks.forEach { w.bytes($0) }
            if configuration.isCinematic {
                w.bytes(MovieParametersBox.serialized(configuration.parameters, preserving: configuration.metadataItems))
            }
            if configuration.isCinematic || !configuration.userData.isEmpty {
                w.box("udta") { w in
                    // Empty EDL slots, reserved now so that every later edit is an in-place slot write.
                    if configuration.isCinematic { w.bytes(EDLSlots.emptyContainer()) }
                    configuration.userData.forEach { w.bytes($0) }
                }
            }
        }
        return w.bytes
    }

}

extension [UInt8] {
    init<T: FixedWidthInteger>(bigEndian value: T) {
        var big = value.bigEndian
        self = Swift.withUnsafeBytes(of: &big) { Array($0) }
    }
}
