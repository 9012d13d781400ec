import CinepackContainer
import CinepackTime

/// A cinematic movie opened for reading: the tracks found by role (spec/format.md §3), random
/// access to each frame's picture, disparity and metadata, and the movie parameters.
public struct CinematicMovie: Sendable {
    public let path: String
    package let movie: Movie
    package let source: any ByteSource
    public let video: Track
    public let disparity: Track?
    public let metadata: Track?
    public let audio: Track?
    public let parameters: CinematicParameters
    /// The `org.cinepack.version` value, nil for a movie that is not a cinepack file.
    public let formatVersion: String?
    /// Why the movie is not a cinepack movie (spec/format.md §2: the `cnpk` brand and the
    /// `org.cinepack.version` key), nil when it is. Such a movie is read as a plain movie: its
    /// picture and sound only, no disparity, focus metadata or parameters.
    public let identificationProblem: String?
    public let quantization: DisparityQuantization?
    /// Local id → key name of the metadata track.
    public let metadataKeys: [UInt32: String]
    /// Presentation order of video samples: frame n is sample `frameOrder[n]`.
    private let frameOrder: [Int]
    /// Presentation start time of each frame, in the video timescale, first frame at 0.
    private let frameTimes: [Int64]

    public var frameCount: Int { frameOrder.count }
    public var timescale: UInt32 { video.timescale }
    public var width: Int { Int(video.visual?.width ?? 0) }
    public var height: Int { Int(video.visual?.height ?? 0) }
    public var isCinepackFile: Bool { identificationProblem == nil }

    /// The frame grid when frames are evenly spaced (always for files cinepack writes).
    public var frameRate: FrameRate? {
        guard frameCount > 0, let first = video.samples.sample(at: 0), first.duration > 0,
            let rate = FrameRate(frames: Int64(timescale), per: first.duration)
        else { return nil }
        return rate
    }

    /// For a movie that looks cinematic (`looksCinematic`) but fails identification: the warning
    /// `cinepack inspect` prints, and `--strict` turns into an error.
    public var identificationWarning: String? {
        identificationProblem.map {
            "\(path) has cinematic tracks or keys but is not a cinepack movie: \($0); it is read as a plain movie "
                + "(spec/format.md §2)"
        }
    }

    /// Whether a movie claims to be cinematic: our brand, a disparity track or a focus-metadata track.
    public static func looksCinematic(_ movie: Movie) -> Bool {
        movie.fileType?.compatibleBrands.contains("cnpk") == true
            || movie.tracks.contains { $0.sampleEntries.first?.box.child("cpdq") != nil }
            || movie.tracks.contains { $0.metadataKeys.contains { $0.key.hasPrefix("org.cinepack.") } }
    }

    public static func open(path: String, options: MovieReadOptions = .init()) throws(FormatError) -> CinematicMovie {
        let source: FileByteSource
        let movie: Movie
        do {
            source = try FileByteSource(path: path)
            movie = try Movie.read(source: source, options: options)
        } catch {
            throw .container(error, file: path)
        }
        return try CinematicMovie(path: path, movie: movie, source: source)
    }

    public init(path: String, movie: Movie, source: any ByteSource) throws(FormatError) {
        self.path = path
        self.movie = movie
        self.source = source
        func fail(_ message: String, _ clause: String) -> FormatError { .spec("\(path): \(message)", clause: clause) }

        let disparityTrack = movie.tracks.first { $0.kind == .video && $0.sampleEntries.first?.box.child("cpdq") != nil }
        let videos = movie.tracks.filter { $0.kind == .video && $0.id != disparityTrack?.id && $0.referencedTracks("auxl").isEmpty }
        guard let video = videos.first(where: \.isEnabled) ?? videos.first else {
            throw fail("no video track", "§3")
        }
        self.video = video
        audio = movie.tracks.first { $0.kind == .audio }

        // Identification (§2) and movie parameters (§7). A movie that is not ours is read as a
        // plain movie: nothing it holds is taken for cinematic data.
        let hasBrand = movie.fileType?.compatibleBrands.contains(Self.brand) == true
        var read: MovieParameters?
        if movie.moov.child("meta") != nil {
            do { read = try MovieParametersBox.read(moov: movie.moov) } catch {
                if hasBrand { throw .container(error, file: path) }
            }
        }
        formatVersion = read?.version
        identificationProblem = Self.identificationProblem(hasBrand: hasBrand, version: read?.version)
        guard identificationProblem == nil else {
            parameters = CinematicParameters()
            disparity = nil
            metadata = nil
            quantization = nil
            metadataKeys = [:]
            (frameOrder, frameTimes) = Self.presentationOrder(video)
            return
        }
        parameters = read?.parameters ?? CinematicParameters()
        if let version = formatVersion, let major = Int(version.split(separator: ".").first ?? ""), major > 1 {
            throw fail("format version \(version) is newer than this cinepack reads (1)", "§9")
        }
        disparity = disparityTrack
        // §3: a `mebx` track is the focus-metadata track only when its keys declare detections
        // and focus; any other `mebx` track is someone else's timed metadata.
        let focusTracks = movie.tracks.filter { $0.kind == .metadata && $0.codec == "mebx" && Self.declaresFocusKeys($0) }
        metadata = focusTracks.first { !$0.referencedTracks("cdsc").isEmpty } ?? focusTracks.first

        // Disparity quantization (§5).
        if let track = disparity {
            guard let box = track.sampleEntries.first?.box.child("cpdq") else { throw fail("disparity track without cpdq", "§5") }
            quantization = try Self.readQuantization(box, source: source, path: path)
            if !track.referencedTracks("auxl").contains(video.id) {
                throw fail("disparity track \(track.id) does not reference the video track \(video.id) with 'auxl'", "§3")
            }
        } else {
            quantization = nil
        }
        var keys: [UInt32: String] = [:]
        for key in metadata?.metadataKeys ?? [] where key.namespace == "mdta" { keys[key.localID] = key.key }
        metadataKeys = keys
        // §6.1: a known key declared twice, at a reserved id or with another well-known type
        // (`dtyp`) cannot be read safely; the track is refused.
        if let track = metadata {
            do { _ = try FocusMetadataKeyMap(keys: track.metadataKeys) } catch {
                throw .container(error, file: "\(path): focus-metadata track \(track.id)")
            }
        }

        (frameOrder, frameTimes) = Self.presentationOrder(video)

        // One disparity map and one metadata sample per video frame (§5, §6.2).
        for (role, track) in [("disparity", disparity), ("metadata", metadata)] {
            guard let track else { continue }
            if track.samples.count != frameCount {
                throw fail(
                    "\(role) track \(track.id) has \(track.samples.count) samples for \(frameCount) video frames",
                    role == "disparity" ? "§5" : "§6.2")
            }
            if track.timescale != video.timescale {
                throw fail("\(role) track \(track.id) timescale \(track.timescale) differs from the video's \(video.timescale)", "§3")
            }
        }
    }

    /// The compatible brand that marks a cinepack movie (§2).
    public static let brand: FourCC = "cnpk"

    /// Why a movie with these marks is not a cinepack movie (§2), nil when it is one.
    public static func identificationProblem(hasBrand: Bool, version: String?) -> String? {
        switch (hasBrand, version != nil) {
        case (true, true): nil
        case (false, true): "no 'cnpk' compatible brand in ftyp"
        case (true, false): "no 'org.cinepack.version' key in moov/meta"
        case (false, false): "no 'cnpk' compatible brand in ftyp and no 'org.cinepack.version' key in moov/meta"
        }
    }

    /// Whether a `mebx` track declares the keys every focus-metadata sample carries (§3, §6.2).
    static func declaresFocusKeys(_ track: Track) -> Bool {
        let names = Set(track.metadataKeys.filter { $0.namespace == "mdta" }.map(\.key))
        return FocusMetadataKey.allCases.filter(\.isRequired).allSatisfy { names.contains($0.name) }
    }

    /// Frame n is the n-th video sample in presentation order (§4); times from the first frame.
    static func presentationOrder(_ video: Track) -> (order: [Int], times: [Int64]) {
        var order: [(time: Int64, index: Int)] = []
        video.samples.forEach { order.append(($0.compositionTime, $0.index)) }
        order.sort { $0.time < $1.time || ($0.time == $1.time && $0.index < $1.index) }
        let first = order.first?.time ?? 0
        return (order.map(\.index), order.map { $0.time - first })
    }

    /// `cpdq` (§5) is ours, not the container layer's: its 16 payload bytes are read here.
    static func readQuantization(_ box: Box, source: any ByteSource, path: String) throws(FormatError) -> DisparityQuantization {
        guard box.origin == .file, box.header.payloadSize >= 16 else {
            throw .spec("\(path): cpdq box at byte \(box.header.offset) is \(box.header.payloadSize) bytes, expected 16", clause: "§5")
        }
        do {
            var r = ByteReader(
                try source.read(at: box.header.payloadOffset, count: 16), baseOffset: box.header.payloadOffset,
                path: box.path)
            let (version, _) = try r.fullBoxHeader()
            let q = DisparityQuantization(minimum: try r.f32("minimum"), maximum: try r.f32("maximum"))
            let encoding = try r.u32("encoding")
            guard version == 0 else { throw FormatError.spec("\(path): cpdq version \(version) is not 0", clause: "§5") }
            guard encoding == 1 else {
                throw FormatError.spec("\(path): disparity encoding \(encoding) is unknown (1 = linear 16-bit)", clause: "§5")
            }
            guard q.isValid else {
                throw FormatError.spec(
                    "\(path): disparity range \(q.minimum)…\(q.maximum) D is not valid (need 0 ≤ min < max)", clause: "§5")
            }
            return q
        } catch {
            throw .from(error, file: path)
        }
    }

    // MARK: - Frames

    /// The frame shown at `time` (snapped to the nearest frame, ties to the earlier), or an error
    /// naming the clip's extent.
    public func frame(at expression: TimeExpression) throws(FormatError) -> SnappedTime {
        guard let rate = frameRate else { throw FormatError("\(path): frames are not evenly spaced; give a frame number") }
        let grid = FrameGrid(rate: rate, frameCount: Int64(frameCount))
        let snapped: SnappedTime
        do { snapped = try expression.resolve(on: grid) } catch { throw FormatError("\(error)") }
        guard snapped.frame >= 0, snapped.frame < Int64(frameCount) else {
            let end = grid.time(ofFrame: Int64(frameCount))
            throw FormatError("\(expression) is outside the clip (frames 0…\(frameCount - 1), 0s…\(end.formattedSeconds()))")
        }
        return snapped
    }

    /// Presentation time of frame `n` in the video timescale.
    public func time(ofFrame n: Int) -> MediaTime {
        MediaTime(value: frameTimes[n], timescale: Int32(clamping: timescale))
    }

    /// Refuses a movie that is not a cinepack movie (§2), for work that needs its cinematic data.
    public func requireCinepack() throws(FormatError) {
        if let problem = identificationProblem { throw notCinepack(problem) }
    }

    func notCinepack(_ problem: String) -> FormatError {
        .spec("\(path) is not a cinepack movie: \(problem); it is read as a plain movie", clause: "§2")
    }

    func noDisparityTrack() -> FormatError {
        identificationProblem.map(notCinepack) ?? FormatError("\(path): the movie has no disparity track")
    }

    func check(_ frame: Int) throws(FormatError) {
        guard frame >= 0, frame < frameCount else {
            throw FormatError("\(path): frame \(frame) is outside the clip (0…\(frameCount - 1))")
        }
    }

    func sampleBytes(_ track: Track, _ index: Int) throws(FormatError) -> [UInt8] {
        guard let sample = track.samples.sample(at: index) else {
            throw FormatError("\(path): track \(track.id) has no sample \(index + 1)")
        }
        do { return try source.read(at: sample.offset, count: Int(sample.size)) } catch {
            throw .container(error, file: path)
        }
    }

    /// The picture of frame `n`, for the built-in codecs (`png `, `raw `).
    public func picture(_ n: Int) throws(FormatError) -> PixelImage {
        try check(n)
        let bytes = try sampleBytes(video, frameOrder[n])
        switch video.codec {
        case "png ":
            do { return try PNGDecoder.decode(bytes) } catch { throw FormatError("\(path): video frame \(n): \(error)") }
        case "raw ":
            guard bytes.count == width * height * 3 else {
                throw FormatError("\(path): video frame \(n) is \(bytes.count) bytes, expected \(width)×\(height)×3 for 'raw '")
            }
            do { return try PixelImage(width: width, height: height, layout: .rgb, samples: bytes) } catch {
                throw FormatError("\(path): video frame \(n): \(error)")
            }
        default:
            throw FormatError("\(path): the video codec is '\(video.codec?.description ?? "?")'; PictureDecoder decodes it through ffmpeg")
        }
    }

    /// The raw bytes of the picture sample of frame `n` (any codec).
    public func pictureSample(_ n: Int) throws(FormatError) -> [UInt8] {
        try check(n)
        return try sampleBytes(video, frameOrder[n])
    }

    /// The disparity map of frame `n`, in diopters (NaN where invalid).
    public func disparityMap(_ n: Int) throws(FormatError) -> DisparityMap {
        try check(n)
        guard let track = disparity, let q = quantization else { throw noDisparityTrack() }
        let image: PixelImage
        do { image = try PNGDecoder.decode(try sampleBytes(track, n)) } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError("\(path): disparity frame \(n): \(error)")
        }
        guard image.layout == .gray, let codes = image.samples16 else {
            throw .spec("\(path): disparity frame \(n) is not a 16-bit grey PNG", clause: "§5")
        }
        if let entry = track.visual, image.width != Int(entry.width) || image.height != Int(entry.height) {
            throw .spec(
                "\(path): disparity frame \(n) is \(image.width)×\(image.height), but its sample entry says \(entry.width)×\(entry.height)",
                clause: "§5")
        }
        return DisparityMap(codes: codes, width: image.width, height: image.height, quantization: q)
    }

    /// The raw 16-bit codes of frame `n`'s disparity map.
    public func disparityCodes(_ n: Int) throws(FormatError) -> PixelImage {
        try check(n)
        guard let track = disparity else { throw noDisparityTrack() }
        do { return try PNGDecoder.decode(try sampleBytes(track, n)) } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError("\(path): disparity frame \(n): \(error)")
        }
    }

    /// The focus metadata of frame `n`.
    public func metadata(_ n: Int) throws(FormatError) -> FrameMetadata {
        try check(n)
        guard let track = metadata else { return FrameMetadata() }
        let bytes = try sampleBytes(track, n)
        let offset = track.samples.sample(at: n)?.offset
        do { return try FocusMetadataCodec.decode(bytes, keys: metadataKeys, sampleIndex: n, fileOffset: offset) } catch {
            throw .container(error, file: path)
        }
    }
}
