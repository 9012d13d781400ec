import CinepackContainer
import CinepackTime
import Dispatch
import Foundation

/// `cinepack pack` as a library call: image sequences (or a carried video), disparity maps and
/// detections into one cinematic movie.
public struct PackRequest: Sendable {
    public enum DisparityFormat: String, Sendable, CaseIterable {
        /// 16-bit grey PNG: code 0 = no depth, 1…65535 linear on the range (spec/format.md §5).
        case png16
        /// One-channel float PFM holding diopters directly; NaN/inf mark invalid pixels.
        case pfm
    }

    public enum PictureSource: Sendable {
        case frames(ImageSequence, codec: BuiltInVideoCodec, rate: FrameRate)
        case video(path: String)
    }

    public var output: String
    public var pictures: PictureSource
    /// The depth input: a numbered pattern or one file holding every frame (spec/depth-input.md).
    public var depth: String
    public var depthOptions: DepthInputOptions
    /// Per-frame detections and focus, indexed by frame; disparities the input leaves out are
    /// measured from that frame's map (median inside a rectangle, the value at a point).
    /// Frames past the end of the list get empty metadata.
    public var metadata: [FrameInput]
    public var parameters: CinematicParameters
    public var audioPath: String?
    /// Replace an existing output file (`--force`); an output that is one of the inputs is
    /// refused whatever this says.
    public var overwrite = false

    /// Every file the pack reads.
    public var inputPaths: [String] {
        // A frame pattern names one file per frame; any other depth source is one file.
        let isPattern = depth.range(of: #"%0?[0-9]*d"#, options: .regularExpression) != nil
        var paths = isPattern ? ((try? ImageSequence(pattern: depth, input: .maps(depthOptions.kind)).paths) ?? []) : [depth]
        switch pictures {
        case .frames(let sequence, _, _): paths += sequence.paths
        case .video(let path): paths.append(path)
        }
        if let audioPath { paths.append(audioPath) }
        return paths
    }

    /// Where the movie goes and the rules it obeys (`OutputTarget`).
    public var outputTarget: OutputTarget { OutputTarget(path: output, inputs: inputPaths, overwrite: overwrite) }

    public init(
        output: String, pictures: PictureSource, depth: String, options: DepthInputOptions, metadata: [FrameInput] = [],
        parameters: CinematicParameters = .init(), audioPath: String? = nil
    ) {
        self.output = output
        self.pictures = pictures
        self.depth = depth
        self.depthOptions = options
        self.metadata = metadata
        self.parameters = parameters
        self.audioPath = audioPath
    }

    /// Disparity maps in diopters from a numbered sequence on a declared range.
    public init(
        output: String, pictures: PictureSource, disparity: ImageSequence, disparityFormat: DisparityFormat,
        disparityRange: DisparityQuantization, metadata: [FrameInput] = [], parameters: CinematicParameters = .init(),
        audioPath: String? = nil
    ) {
        self.init(
            output: output, pictures: pictures, depth: disparity.pattern,
            options: DepthInputOptions(kind: .disparity, range: disparityRange),
            metadata: metadata, parameters: parameters, audioPath: audioPath)
    }
}

public enum Packer {
    /// Largest disparity map side, whatever the picture: a map is never larger than the picture
    /// either (spec/depth-input.md §3), so memory per frame stays bounded.
    public static let maxMapSide = 8192

    /// Packs the movie in a task: `progress(done, total)` after every frame, `planned` before the
    /// first. Cancelling the task stops at the next frame with `FormatError.cancelled` (its
    /// `isCancellation` set) and leaves no file, as any failure does.
    @discardableResult
    public static func pack(
        _ request: PackRequest, progress: (Int, Int) -> Void = { _, _ in }, planned: (DepthPlan) -> Void = { _ in }
    ) async throws(FormatError) -> CinematicWriteSummary {
        if Task.isCancelled { throw .cancelled }
        do {
            return try await CancellationFlag.running { isCancelled in
                try pack(request, progress: progress, planned: planned, isCancelled: isCancelled)
            }
        } catch { throw FormatError.from(error) }
    }

    /// Packs the movie. `progress(done, total)` is called after every frame (and during a first
    /// pass over the depth, when one is needed); `planned` receives the range and calibration
    /// before any frame is written. Once `isCancelled` says so, stops at the next frame with
    /// `FormatError.cancelled` and leaves no file.
    @discardableResult
    public static func pack(
        _ request: PackRequest, progress: (Int, Int) -> Void = { _, _ in }, planned: (DepthPlan) -> Void = { _ in },
        isCancelled: () -> Bool = { false }
    ) throws(FormatError)
        -> CinematicWriteSummary
    {
        // Refused before any work: an output that is an input, or exists without `overwrite`.
        do { try request.outputTarget.validate() } catch { throw .output(error) }
        let frameCount: Int
        let video: CinematicWriterConfiguration.Video
        var firstImage: PixelImage?
        let picture: (width: Int, height: Int)
        var rate: FrameRate?
        switch request.pictures {
        case .frames(let sequence, let codec, let frameRate):
            frameCount = sequence.paths.count
            let first = try loadPicture(sequence.paths[0])
            firstImage = first.image
            picture = (first.image.width, first.image.height)
            rate = frameRate
            video = .encoded(codec, width: first.image.width, height: first.image.height, rate: frameRate)
        case .video(let path):
            let carried = try carriedTrack(path, kind: .video, input: .video)
            frameCount = carried.track.samples.count
            let visual = carried.track.visual
            picture = (Int(visual?.width ?? UInt16(carried.track.header.width)), Int(visual?.height ?? UInt16(carried.track.header.height)))
            if let first = carried.track.samples.sample(at: 0), first.duration > 0 {
                rate = FrameRate(frames: Int64(carried.track.timescale), per: Int64(first.duration))
            }
            video = .carried(carried)
        }
        let options = request.depthOptions
        let source: any DepthFrameSource
        let plan: DepthPlan
        do throws(DepthInputError) {
            source = try DepthSources.open(request.depth, options: options)
            guard source.frameCount == frameCount else {
                throw DepthInputError(file: source.name, .frameCount(maps: source.frameCount, frames: frameCount))
            }
            try checkSize(source, picture: picture, fit: options.fit)
            if request.metadata.count > frameCount {
                throw DepthInputError(
                    file: "detections",
                    .value("they name frame \(request.metadata.count - 1), but the clip has \(frameCount) frames (0…\(frameCount - 1))"))
            }
            if DepthPlan.needsFirstPass(options) {
                plan = try DepthPlan.prepare(source, options: options, detections: request.metadata, rate: rate, progress: progress)
            } else {
                plan = DepthPlan(range: options.range!)
            }
        } catch {
            throw .depthInput(error)
        }
        planned(plan)
        let audio = try request.audioPath.map { (path) throws(FormatError) in try carriedTrack(path, kind: .audio, input: .audio) }
        var configuration = CinematicWriterConfiguration(
            video: video, disparity: (source.width, source.height, plan.range), writesMetadata: true,
            parameters: request.parameters, audio: audio)
        configuration.compressionLevel = 6
        if let text = plan.metadataText {
            configuration.metadataItems = [
                MovieMetadataItem(
                    key: DepthPlan.metadataKey, values: [.init(typeIndicator: MovieParametersBox.typeUTF8, bytes: Array(text.utf8))])
            ]
        }
        let writer = try CinematicWriter(target: request.outputTarget, configuration: configuration)
        // Frames are read and checked (full PNG decode, disparity range) in parallel batches and
        // written in order, so memory stays a few frames whatever the clip length. Sequential
        // depth sources (video, deflated .npz) are read in order before each batch.
        let batch = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
        let firstFrame = firstImage
        let context = FrameContext(request: request, source: source, plan: plan, converter: DepthConverter(options: options))
        do throws(FormatError) {
            var start = 0
            while start < frameCount {
                let count = min(batch, frameCount - start)
                let loaded = LoadedBatch(count: count)
                let base = start
                var raws: [RawDepthFrame?] = Array(repeating: nil, count: count)
                if !source.isRandomAccess {
                    for i in 0..<count {
                        do { raws[i] = try source.read(base + i) } catch { throw FormatError(error.description) }
                    }
                }
                let preread = raws
                DispatchQueue.concurrentPerform(iterations: count) { i in
                    loaded.set(
                        i, Result { () throws(FormatError) in try loadFrame(base + i, context, raw: preread[i], first: firstFrame) })
                }
                for i in 0..<count {
                    if isCancelled() { throw FormatError.cancelled }
                    let index = base + i
                    let (picture, map, codes) = try loaded.get(i)
                    let input = index < request.metadata.count ? request.metadata[index] : FrameInput()
                    let frame = input.resolved(
                        measureRect: { map.median(in: $0) },
                        measurePoint: { x, y in
                            let v = map.value(atNormalizedX: x, y: y); return v.isNaN ? nil : v
                        })
                    try writer.append(picture: picture, disparity: map, codes: codes, metadata: frame)
                    progress(index + 1, frameCount)
                }
                start += count
            }
            return try writer.finish()
        } catch {
            writer.cancel()
            throw error
        }
    }

    /// What every frame load needs, shared by the worker threads.
    struct FrameContext: @unchecked Sendable {
        var request: PackRequest
        var source: any DepthFrameSource
        var plan: DepthPlan
        var converter: DepthConverter
    }

    /// A map must have the picture's aspect ratio (within a pixel of rounding) unless stretched,
    /// and is never larger than the picture or `maxMapSide`: checked from headers, before any
    /// pixel is decoded.
    static func checkSize(
        _ source: any DepthFrameSource, picture: (width: Int, height: Int), fit: DepthInputOptions.Fit
    ) throws(DepthInputError) {
        let (w, h) = (source.width, source.height)
        guard w <= picture.width, h <= picture.height, w <= maxMapSide, h <= maxMapSide else {
            throw DepthInputError(
                file: source.file(0), frame: 0,
                .size(
                    "the map is \(w)×\(h), larger than the \(picture.width)×\(picture.height) picture; maps may be at most the picture's size (and \(maxMapSide) per side)"
                ))
        }
        let mismatch = abs(w * picture.height - h * picture.width)
        if fit == .exact, mismatch > max(picture.width, picture.height) {
            throw DepthInputError(
                file: source.file(0), frame: 0,
                .aspectRatio(mapWidth: w, mapHeight: h, pictureWidth: picture.width, pictureHeight: picture.height))
        }
    }

    /// Reads and checks frame `index`: its picture (decoded, same size as frame 0) and its
    /// disparity map (inside the stored range). Errors name the file and frame.
    static func loadFrame(
        _ index: Int, _ context: FrameContext, raw: RawDepthFrame?, first: PixelImage?
    ) throws(FormatError)
        -> LoadedFrame
    {
        let request = context.request
        var picture: CinematicWriter.PictureInput?
        if case .frames(let sequence, let codec, _) = request.pictures, let first {
            let path = sequence.paths[index]
            let loaded = try loadPicture(path)
            guard loaded.image.width == first.width, loaded.image.height == first.height else {
                throw FormatError("\(path): \(loaded.image.width)×\(loaded.image.height), but frame 0 is \(first.width)×\(first.height)")
            }
            // spec/format.md §4: a video sample is an RGB or RGBA PNG. A truecolour file is stored as
            // it is; a palette file (decoded to RGB/RGBA) is re-encoded, pixel for pixel; grey is refused.
            guard loaded.image.layout == .rgb || loaded.image.layout == .rgba else {
                throw FormatError("\(path): \(loaded.image.bitDepth)-bit \(loaded.image.layout) PNG; frames must be RGB or RGBA")
            }
            let truecolour = (try? PNGDecoder.header(of: loaded.bytes)).map { $0.colorType == .rgb || $0.colorType == .rgba } ?? false
            switch codec {
            case .png:
                picture = truecolour ? .png(loaded.bytes, width: loaded.image.width, height: loaded.image.height) : .image(loaded.image)
            case .raw:
                do { picture = .image(try rgb8(loaded.image)) } catch { throw FormatError("\(path): \(error.message)") }
            }
        }
        let source = context.source
        let file = source.file(index)
        do throws(DepthInputError) {
            let frame: RawDepthFrame
            if let raw { frame = raw } else { frame = try source.read(index) }
            let working = try context.converter.working(frame, file: file, index: index)
            let map = DisparityMap(width: frame.width, height: frame.height, values: context.plan.diopters(working, frame: index))
            do { _ = try map.codes(context.plan.range) } catch {
                throw DepthInputError(file: file, frame: index, .value(error.message))
            }
            // spec/format.md §5 codes already: kept exactly (a float round trip is exact only for
            // ranges not much narrower than their minimum).
            let exact = context.converter.options.kind == .disparity && frame.integerMaximum == 65535
            return (picture, map, exact ? frame.values.map { UInt16($0) } : nil)
        } catch {
            throw .depthInput(error)
        }
    }

    static func loadPicture(_ path: String) throws(FormatError) -> (bytes: [UInt8], image: PixelImage) {
        let bytes = try readFile(path)
        do {
            let image = try PNGDecoder.decode(bytes)
            return (bytes, image)
        } catch {
            throw FormatError("\(path): \(error)")
        }
    }

    /// 8-bit RGB for the `raw ` codec.
    static func rgb8(_ image: PixelImage) throws(FormatError) -> PixelImage {
        guard image.layout == .rgb else { throw FormatError("raw video needs RGB frames, not \(image.layout)") }
        if image.bitDepth == 8 { return image }
        do { return try image.converted(toBitDepth: 8) } catch { throw FormatError("\(error)") }
    }

    static func readFile(_ path: String) throws(FormatError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FormatError("\(path): cannot read the file")
        }
        return Array(data)
    }

    static func carriedTrack(_ path: String, kind: TrackKind, input: PackInput) throws(FormatError) -> CarriedTrack {
        do {
            let source = try FileByteSource(path: path)
            let movie = try Movie.read(source: source)
            guard
                let track = movie.tracks.first(where: { $0.kind == kind && $0.isEnabled }) ?? movie.tracks.first(where: { $0.kind == kind })
            else {
                throw FormatError.packInput(.noTrack(input, path: path, kind: kind))
            }
            return CarriedTrack(movie: movie, track: track, source: source)
        } catch {
            throw .from(error, file: path)
        }
    }
}

/// One loaded frame: the picture, the map in diopters, and, for 16-bit PNG disparity (codes on the
/// stored range already), those codes, stored as they are.
typealias LoadedFrame = (picture: CinematicWriter.PictureInput?, map: DisparityMap, codes: [UInt16]?)

/// Results of a parallel batch of frame loads, filled from worker threads.
final class LoadedBatch: @unchecked Sendable {
    private var slots: [Result<LoadedFrame, FormatError>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Result<LoadedFrame, FormatError>) {
        lock.lock()
        slots[i] = value
        lock.unlock()
    }
    func get(_ i: Int) throws(FormatError) -> LoadedFrame {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = slots[i] else { throw FormatError("internal: frame slot \(i) empty") }
        return try slot.get()
    }
}
