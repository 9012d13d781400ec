import CinepackContainer
import CinepackEDL
import CinepackFormat
import CinepackTime

/// A render of a program to a movie file, exactly as `cinepack render -o OUT` makes it: the codec
/// (asked for, or chosen from the source's bit depth and the output's name), built-in PNG or ffmpeg
/// encoding with the same verification, the program's audio (cut and retimed), a farm part's
/// record, and decoding, rendering and writing overlapped (`FramePipeline`) with bounded memory.
///
/// Two steps, so a caller can show the choices before the long work: `init` checks everything and
/// fixes the codec and the part; `run` renders. Any failure or cancellation leaves no file.
public struct MovieExport {
    /// A farm part to render instead of the whole program (spec/farm.md).
    public enum Part: Sendable, Equatable {
        /// Part `index` (1-based) of `count`, cut on sync frames.
        case shard(index: Int, count: Int)
        /// Program frames `A..<B` (A must be a sync frame).
        case frames(Range<Int64>)
    }

    public struct Options: Sendable {
        /// nil: chosen from the source (`ExportCodec.choose`), see `codecNote`.
        public var codec: ExportCodec?
        public var crf: Int?
        public var bitrate: String?
        public var preset: String?
        public var pixelFormat: String?
        public var quality: RenderQuality
        public var part: Part?
        /// Further settings a farm part records (options that change pixels), `key=value`.
        public var extraSettings: [String]
        public init(
            codec: ExportCodec? = nil, crf: Int? = nil, bitrate: String? = nil, preset: String? = nil, pixelFormat: String? = nil,
            quality: RenderQuality = .export, part: Part? = nil, extraSettings: [String] = []
        ) {
            self.codec = codec
            self.crf = crf
            self.bitrate = bitrate
            self.preset = preset
            self.pixelFormat = pixelFormat
            self.quality = quality
            self.part = part
            self.extraSettings = extraSettings
        }
    }

    /// The plan rendered: the program, or the part's frames of it.
    public let plan: RenderPlan
    public let codec: ExportCodec
    /// Why `codec` was chosen when none was asked for and the source is deeper than 8 bits.
    public let codecNote: ExportCodec.Choice?
    public let settings: ExportSettings
    /// The record written into a farm part; nil for a whole render.
    public let part: RenderPartRecord?
    private let target: OutputTarget
    private let decoder: PictureDecoder
    private let quality: RenderQuality
    private let syncInterval: Int
    private let rate: FrameRate

    /// Checks the request against the movie (codec and picture size, rate control and parts) and
    /// fixes the codec and the part. Nothing is written.
    public init(edits: MovieEdits, plan: RenderPlan, decoder: PictureDecoder, target: OutputTarget, options: Options) throws {
        let movie = plan.movie
        guard let rate = movie.frameRate else { throw FormatError("\(movie.path): frames are not evenly spaced") }
        let source = decoder.format
        let (chosen, reason) = ExportCodec.choose(requested: options.codec, output: target.path, source: source)
        let settings = try ExportSettings(
            codec: chosen, crf: options.crf, bitrate: options.bitrate, preset: options.preset, pixelFormat: options.pixelFormat,
            colour: source.colour, inputBitDepth: plan.outputBitDepth, colourSpace: plan.colourSpace)
        try settings.check(width: movie.width, height: movie.height)
        let farm = try FarmRender(
            edits: edits, plan: plan, settings: settings, quality: options.quality, extraSettings: options.extraSettings)
        var part: RenderPartRecord?
        if let request = options.part {
            try farm.checkPartable()
            switch request {
            case .shard(let k, let n): part = farm.record(frames: try farm.shards.shard(k, of: n), shard: (k, n))
            case .frames(let frames):
                part = farm.record(frames: try farm.shards.frames(frames, codec: farm.codec.rawValue), shard: nil)
            }
        }
        self.plan = part.map { plan.restricted(to: $0.frames) } ?? plan
        self.codec = chosen
        self.codecNote = reason
        self.settings = settings
        self.part = part
        self.target = target
        self.decoder = decoder
        self.quality = options.quality
        self.syncInterval = farm.shards.syncInterval
        self.rate = rate
    }

    /// Renders and writes every frame; `progress` gets (frames done, total) after each. Stops with
    /// `CancellationError` at the next frame once `isCancelled` says so. Returns the frames written.
    @discardableResult
    public func run(progress: (Int, Int) -> Void = { _, _ in }, isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> Int {
        var renderer = BokehRenderer(quality: quality)
        renderer.look = plan.look
        let movie = plan.movie
        // Farm parts carry no audio: concat adds the program's audio once.
        let withAudio = part == nil
        var done = 0
        if codec.isBuiltIn {
            let depth = codec == .png16 ? 16 : 8
            let audio = withAudio ? try ProgramAudioTrack.make(plan, besides: target.path) : nil
            defer { audio?.remove() }
            var configuration = CinematicWriterConfiguration(
                video: .encoded(.png, width: movie.width, height: movie.height, rate: rate), disparity: nil, writesMetadata: false,
                audio: audio?.track)
            configuration.isCinematic = false
            configuration.pictureColour =
                settings.outputColour.isSpecified || decoder.format.colour.isSpecified ? settings.outputColour : nil
            // An intermediate: encoding speed matters more than the last few per cent of size.
            configuration.compressionLevel = 1
            configuration.pictureFilter = .sub
            configuration.userData = part.map { [$0.serialized()] } ?? []
            let writer = try CinematicWriter(target: target, configuration: configuration)
            do {
                try renderFrames(renderer, done: &done, progress: progress, isCancelled: isCancelled) { frame in
                    let picture = frame.bitDepth == depth ? frame : try frame.converted(toBitDepth: depth)
                    try writer.append(picture: .image(picture), disparity: nil, metadata: nil)
                }
                try writer.finish()
            } catch {
                writer.cancel()
                throw error
            }
        } else {
            let encoder = try FFmpegEncoder(
                target: target, settings: settings, syncInterval: syncInterval, width: movie.width, height: movie.height, rate: rate,
                audio: withAudio ? EncoderAudio(programOf: plan) : nil,
                finishing: { [part] path in
                    if let part { try UserDataAppender.append(part.serialized(), toFileAt: path) }
                    // ffmpeg labels the audio with a layout of its own: the source's goes back on.
                    if withAudio { try ProgramChannelLayout.restore(from: movie, intoFileAt: path) }
                })
            do {
                try renderFrames(renderer, done: &done, progress: progress, isCancelled: isCancelled) { frame in
                    try encoder.write(frame)
                }
                try encoder.finish()
            } catch {
                encoder.abandon()
                throw error
            }
        }
        return done
    }

    /// Every output frame of the plan through `write`, in order: decoding the next frame and
    /// writing the previous one overlap the render of this one (`FramePipeline`).
    private func renderFrames(
        _ renderer: BokehRenderer, done: inout Int, progress: (Int, Int) -> Void, isCancelled: @escaping @Sendable () -> Bool,
        write: @escaping (PixelImage) throws -> Void
    ) throws {
        let plan = self.plan
        let decoder = self.decoder
        let first = plan.outputFrames.lowerBound
        let total = plan.outputFrames.count
        try FramePipeline.run(
            count: total,
            read: { i -> ([(PixelImage, Float)], DisparityMap, Int) in
                if isCancelled() { throw CancellationError() }
                let samples = try plan.sourceSamples(ofOutput: first + Int64(i))
                // Decoded in frame order: the decoder streams forward.
                var decoded: [Int: PixelImage] = [:]
                for n in samples.map(\.frame).sorted() { decoded[n] = try decoder.picture(n) }
                let pictures = samples.map { (decoded[$0.frame]!, $0.weight) }
                return (pictures, try plan.movie.disparityMap(samples[0].frame), samples[0].frame)
            },
            render: { _, input in
                if isCancelled() { throw CancellationError() }
                return plan.render(pictures: input.0, disparity: input.1, sourceFrame: input.2, renderer: renderer)
            },
            write: write,
            rendered: { n in
                done = n
                progress(n, total)
            })
    }
}
