import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackTime

/// How a program frame between two source frames (a speed change) is made.
public enum FrameSampling: String, Sendable, CaseIterable {
    /// The source frame containing the program time (sample and hold).
    case nearest
    /// The two source frames around the program time, mixed in linear light by nearness.
    case blend
}

/// What an export renders, frame by frame: the program frames of the EDL's timeline (trims and
/// speed), each showing a source frame with the focus the focus script gives it, through the
/// lens with the chosen aperture. Pure planning; pixels come from `render`.
public struct RenderPlan: Sendable {
    public let movie: CinematicMovie
    public let script: FocusScript
    public let timeline: EditTimeline
    /// The lens of the first program frame (for reports); `lens(sourceFrame:)` gives each frame's.
    public let lens: LensModel
    /// The f-number every frame is rendered at, when one applies to all (an `--f-number` option or
    /// the EDL's `<aperture>`); nil when each frame takes its captured f-number (spec/format.md §6.2).
    public let fixedFNumber: Float?
    /// The captured f-number of each source frame, nil where the frame has none.
    private let capturedFNumbers: [Float?]
    /// The f-number this render asked for (its option, else the EDL's aperture) before clamping to
    /// the movie's range; nil when frames take their captured f-numbers.
    public let requestedFNumber: Float?
    /// Program frames to render, in order.
    public private(set) var outputFrames: Range<Int64>
    public let overlay: FocusOverlay?
    /// The source's transfer: pictures are linearised with it and encoded back with it.
    package let light: LinearLightCodec
    /// The conversion to the colour space asked for (`Options.colourSpace`), applied in linear
    /// light after the bokeh; nil when the source's primaries are kept.
    package let gamut: GamutConversion?
    /// The colour space asked for (`Options.colourSpace`), nil when the source's primaries are
    /// kept; exports tag their output with it.
    public let colourSpace: ColourSpace?
    /// Bits per sample of the rendered pictures: 8 for 8-bit sources, 16 for deeper ones.
    public let outputBitDepth: Int
    public let frameSampling: FrameSampling
    /// The lens look: the EDL's `<aperture>` look under this render's options (spec/render.md §5).
    public let look: LensLook

    public struct Options: Sendable {
        public var fNumber: Float?
        public var focalLength35mm: Float?
        /// Program time range; nil = the whole program.
        public var range: TimeRangeExpression?
        /// A focus aid drawn over every rendered frame; nil = none.
        public var overlay: FocusOverlay?
        /// Bit depth and colour of the source pictures (`PictureDecoder.format`); nil = 8-bit sRGB.
        public var source: SourcePictureFormat?
        public var frameSampling: FrameSampling = .nearest
        /// The colour space to convert the pictures to; nil keeps the source's primaries
        /// (spec/colour.md §5). `ExportSettings.colourSpace` tags the output to match.
        public var colourSpace: ColourSpace?
        /// Lens-look values that override the EDL's, one by one.
        public var look: ApertureLook
        public init(
            fNumber: Float? = nil, focalLength35mm: Float? = nil, range: TimeRangeExpression? = nil, overlay: FocusOverlay? = nil,
            source: SourcePictureFormat? = nil, frameSampling: FrameSampling = .nearest, look: ApertureLook = ApertureLook(),
            colourSpace: ColourSpace? = nil
        ) {
            self.colourSpace = colourSpace
            self.look = look
            self.fNumber = fNumber
            self.focalLength35mm = focalLength35mm
            self.range = range
            self.overlay = overlay
            self.source = source
            self.frameSampling = frameSampling
        }
    }

    public init(edits: MovieEdits, options: Options = .init()) throws(RenderPlanError) {
        try self.init(movie: edits.movie, edl: edits.edl, options: options)
    }

    /// A plan for `movie` with edits `edl` (which need not be stored yet).
    public init(movie: CinematicMovie, edl: EditDecisionList, options: Options = .init()) throws(RenderPlanError) {
        do { try self.init(planning: movie, edl: edl, options: options) } catch let error as RenderPlanError { throw error } catch {
            throw .format(FormatError.from(error, file: movie.path))
        }
    }

    private init(planning movie: CinematicMovie, edl: EditDecisionList, options: Options) throws {
        self.movie = movie
        let capture = try CaptureTimeline(movie: movie)
        script = FocusScript(capture: capture, edl: edl)
        do { timeline = try EditTimeline(edl: edl) } catch { throw FormatError("\(movie.path): \(error)") }
        let p = movie.parameters
        // Precedence (spec/format.md §7): this render's option, the EDL's aperture, the frame's
        // captured f-number, the movie default. One rule with `aperture` (LensRules): any f-number
        // > 0 is taken and clamped to the movie's range.
        requestedFNumber = options.fNumber ?? edl.fNumber
        if let requested = requestedFNumber {
            fixedFNumber = LensRules.clampedFNumber(try LensRules.fNumber(Double(requested)), for: p).applied
        } else {
            fixedFNumber = nil
        }
        capturedFNumbers = capture.frames.map(\.fNumber)
        let focal = try LensRules.focalLength(Double(options.focalLength35mm ?? p.focalLength35mm))
        overlay = options.overlay
        let source = options.source ?? SourcePictureFormat(bitDepth: 8, colour: .unspecified, pixelFormat: "rgb24")
        do { light = LinearLightCodec(transfer: try TransferFunction(code: source.colour.transfer), sourceBitDepth: source.bitDepth) } catch
        {
            throw FormatError("\(movie.path): \(error)")
        }
        colourSpace = options.colourSpace
        do {
            gamut = try options.colourSpace.flatMap { target throws(ColourModelError) in
                try GamutConversion(sourcePrimaries: source.colour.primaries, to: target)
            }
        } catch {
            throw RenderPlanError.colourSpace(file: movie.path, target: options.colourSpace!, cause: error)
        }
        outputBitDepth = source.isHighPrecision ? 16 : 8
        frameSampling = options.frameSampling
        do { look = try LensLook(edl.look.overridden(by: options.look)) } catch { throw FormatError("lens look: \(error)") }
        let total = timeline.outputFrameCount
        if let range = options.range {
            let resolved: (start: SnappedTime, end: SnappedTime)
            do { resolved = try range.resolve(on: timeline.outputGrid) } catch { throw RenderPlanError.badRange(range, cause: error) }
            let start = max(0, resolved.start.frame), end = min(total, resolved.end.frame)
            guard start < end else { throw RenderPlanError.emptyRange(range, programDuration: timeline.outputDuration) }
            outputFrames = start..<end
        } else {
            outputFrames = 0..<total
        }
        let first = timeline.sourceFrame(ofOutputFrame: outputFrames.lowerBound).map { Int($0) } ?? 0
        lens = LensModel(
            focalLength35mm: focal,
            fNumber: Self.fNumber(fixed: fixedFNumber, captured: capturedFNumbers, frame: first, default: p.defaultFNumber),
            width: movie.width)
    }

    /// The f-number source frame `n` is rendered at (spec/format.md §7).
    public func fNumber(sourceFrame n: Int) -> Float {
        Self.fNumber(fixed: fixedFNumber, captured: capturedFNumbers, frame: n, default: movie.parameters.defaultFNumber)
    }

    /// The lens source frame `n` is rendered through: `lens` with that frame's f-number.
    public func lens(sourceFrame n: Int) -> LensModel {
        var frameLens = lens
        frameLens.fNumber = fNumber(sourceFrame: n)
        return frameLens
    }

    static func fNumber(fixed: Float?, captured: [Float?], frame n: Int, default fallback: Float) -> Float {
        if let fixed { return fixed }
        if captured.indices.contains(n), let f = captured[n] { return f }
        return fallback
    }

    /// The same plan rendering only `frames` of the program (a farm part, spec/farm.md).
    public func restricted(to frames: Range<Int64>) -> RenderPlan {
        var copy = self
        copy.outputFrames = frames.clamped(to: outputFrames)
        return copy
    }

    /// Whether the program plays the whole source at speed 1 from its start (no trims, speed
    /// changes or range): its audio is then the source's audio track, copied as it is.
    public var playsSourceAudioUnchanged: Bool {
        let audio = ProgramAudio(timeline: timeline, frames: outputFrames)
        return outputFrames == 0..<timeline.outputFrameCount && audio.isWholeSourceAtSpeedOne
            && audio.segments.first?.sourceEnd == timeline.sourceGrid.time(ofFrame: Int64(movie.frameCount))
    }

    /// The source frame program frame `k` shows; a frame outside the program is an error, never
    /// some other frame.
    public func sourceFrame(ofOutput k: Int64) throws(RenderPlanError) -> Int {
        guard let n = timeline.sourceFrame(ofOutputFrame: k) else {
            throw .outOfRange(frame: k, program: 0..<timeline.outputFrameCount)
        }
        return Int(n)
    }

    public func focusDisparity(sourceFrame n: Int) -> Float {
        let d = script.frame(n).focusDisparity
        return d.isFinite ? d : 0
    }

    /// The source frames program frame `k` is made of, with their weights (summing to 1): the one
    /// frame it shows, or with `.blend` the two frames around its source time, weighted by
    /// nearness (only when both are kept in the program). The first is the frame whose disparity
    /// and focus the render uses.
    public func sourceSamples(ofOutput k: Int64) throws(RenderPlanError) -> [(frame: Int, weight: Float)] {
        let n = try sourceFrame(ofOutput: k)
        guard frameSampling == .blend, let t = timeline.sourceTime(ofOutput: timeline.outputGrid.time(ofFrame: k)) else {
            return [(n, 1)]
        }
        let grid = timeline.sourceGrid
        let f0 = grid.frame(containing: t)
        let w = Float((t.seconds - grid.time(ofFrame: f0).seconds) / grid.frameDuration.seconds)
        guard w > 1e-6, f0 + 1 < Int64(movie.frameCount), timeline.isKept(sourceFrame: f0 + 1) else { return [(Int(f0), 1)] }
        return w <= 0.5 ? [(Int(f0), 1 - w), (Int(f0) + 1, w)] : [(Int(f0) + 1, w), (Int(f0), 1 - w)]
    }

    /// Renders source frame `n` from its picture (8- or 16-bit RGB) to a picture in the source's
    /// transfer at `outputBitDepth`.
    package func render(picture: PixelImage, sourceFrame n: Int, renderer: BokehRenderer) throws(FormatError) -> PixelImage {
        render(picture: picture, disparity: try movie.disparityMap(n), sourceFrame: n, renderer: renderer)
    }

    /// The same with the frame's disparity map already read (no file access: a pipeline can read
    /// the next frame meanwhile).
    package func render(picture: PixelImage, disparity map: DisparityMap, sourceFrame n: Int, renderer: BokehRenderer) -> PixelImage {
        render(linear: light.linear(picture), disparity: map, sourceFrame: n, renderer: renderer)
    }

    /// Several source pictures mixed in linear light with their weights (`sourceSamples`), then
    /// rendered with the disparity and focus of source frame `n`.
    package func render(
        pictures: [(PixelImage, Float)], disparity map: DisparityMap, sourceFrame n: Int, renderer: BokehRenderer
    )
        -> PixelImage
    {
        guard pictures.count > 1 else { return render(picture: pictures[0].0, disparity: map, sourceFrame: n, renderer: renderer) }
        var mixed = light.linear(pictures[0].0)
        for i in mixed.values.indices { mixed.values[i] *= pictures[0].1 }
        for (picture, weight) in pictures.dropFirst() {
            let other = light.linear(picture)
            for i in mixed.values.indices { mixed.values[i] += other.values[i] * weight }
        }
        return render(linear: consume mixed, disparity: map, sourceFrame: n, renderer: renderer)
    }

    /// `linear` is handed on to the renderer, which reuses it as the engine's input.
    func render(linear: consuming LinearImage, disparity map: DisparityMap, sourceFrame n: Int, renderer: BokehRenderer) -> PixelImage {
        let focus = focusDisparity(sourceFrame: n)
        let frameLens = lens(sourceFrame: n)
        var renderer = renderer
        renderer.look = look  // a no-op when the caller's renderer already has it (the tables are built once)
        // The overlay is drawn from the disparity the render worked from (computed once for both).
        var rendered: LinearImage
        var full: [Float]? = nil
        if overlay != nil {
            (rendered, full) = renderer.renderKeepingDisparity(
                picture: consume linear, disparity: map, focusDisparity: focus, lens: frameLens)
        } else {
            rendered = renderer.render(picture: consume linear, disparity: map, focusDisparity: focus, lens: frameLens)
        }
        gamut?.apply(to: &rendered)
        let out = light.picture(rendered, bitDepth: outputBitDepth)
        guard let overlay, let full else { return out }
        let valid = map.values.filter(\.isFinite)
        let range = movie.quantization ?? DisparityQuantization(minimum: valid.min() ?? 0, maximum: valid.max() ?? 1)
        return overlay.draw(on: out, disparity: full, focus: focus, lens: frameLens, range: range)
    }
}
