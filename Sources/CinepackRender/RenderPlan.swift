import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackTime

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
    /// Program frames to render, in order.
    public private(set) var outputFrames: Range<Int64>
    public let overlay: FocusOverlay?
    /// The lens look: the EDL's `<aperture>` look under this render's options (spec/render.md §5).
    public let look: LensLook

    public struct Options: Sendable {
        public var fNumber: Float?
        public var focalLength35mm: Float?
        /// Program time range; nil = the whole program.
        public var range: TimeRangeExpression?
        /// A focus aid drawn over every rendered frame; nil = none.
        public var overlay: FocusOverlay?
        /// Lens-look values that override the EDL's, one by one.
        public var look: ApertureLook
        public init(
            fNumber: Float? = nil, focalLength35mm: Float? = nil, range: TimeRangeExpression? = nil, overlay: FocusOverlay? = nil,
            look: ApertureLook = ApertureLook()
        ) {
            self.look = look
            self.fNumber = fNumber
            self.focalLength35mm = focalLength35mm
            self.range = range
            self.overlay = overlay
        }
    }

    public init(edits: MovieEdits, options: Options = .init()) throws(FormatError) {
        try self.init(movie: edits.movie, edl: edits.edl, options: options)
    }

    /// A plan for `movie` with edits `edl` (which need not be stored yet).
    public init(movie: CinematicMovie, edl: EditDecisionList, options: Options = .init()) throws(FormatError) {
        self.movie = movie
        let capture = try CaptureTimeline(movie: movie)
        script = FocusScript(capture: capture, edl: edl)
        do { timeline = try EditTimeline(edl: edl) } catch { throw FormatError("\(movie.path): \(error)") }
        let p = movie.parameters
        // Precedence (spec/format.md §7): this render's option, the EDL's aperture, the frame's
        // captured f-number, the movie default.
        fixedFNumber = options.fNumber ?? edl.fNumber
        capturedFNumbers = capture.frames.map(\.fNumber)
        if let fNumber = fixedFNumber, !(fNumber.isFinite && fNumber > 0) {
            throw FormatError("f-number must be > 0 (got \(fNumber))")
        }
        let focal = options.focalLength35mm ?? p.focalLength35mm
        guard focal.isFinite, focal > 0, focal < 2000 else { throw FormatError("focal length must be 0…2000 mm (got \(focal))") }
        overlay = options.overlay
        do { look = try LensLook(edl.look.overridden(by: options.look)) } catch { throw FormatError("lens look: \(error)") }
        let total = timeline.outputFrameCount
        if let range = options.range {
            let resolved: (start: SnappedTime, end: SnappedTime)
            do { resolved = try range.resolve(on: timeline.outputGrid) } catch { throw FormatError("--range: \(error)") }
            let start = max(0, resolved.start.frame), end = min(total, resolved.end.frame)
            guard start < end else {
                throw FormatError("--range \(range) holds no frames of the program (0s…\(timeline.outputDuration.formattedSeconds()))")
            }
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

    /// The audio that goes with the rendered program, copied as it is: the source's audio track
    /// when the plan renders the whole source unchanged (no trims, no speed changes, no range);
    /// nil otherwise. Every writer of program audio (render, concat) takes it from here.
    public func programAudio(edl: EditDecisionList) -> CarriedTrack? {
        guard edl.sourceRanges.isEmpty, edl.speedSegments.isEmpty, outputFrames == 0..<timeline.outputFrameCount,
            let track = movie.audio
        else { return nil }
        return CarriedTrack(movie: movie.movie, track: track, source: movie.source)
    }

    /// The source frame program frame `k` shows.
    public func sourceFrame(ofOutput k: Int64) -> Int {
        Int(timeline.sourceFrame(ofOutputFrame: k) ?? 0)
    }

    public func focusDisparity(sourceFrame n: Int) -> Float {
        let d = script.frame(n).focusDisparity
        return d.isFinite ? d : 0
    }

    /// Renders source frame `n` from its picture (8- or 16-bit RGB) to an 8-bit sRGB picture.
    public func render(picture: PixelImage, sourceFrame n: Int, renderer: BokehRenderer) throws(FormatError) -> PixelImage {
        render(picture: picture, disparity: try movie.disparityMap(n), sourceFrame: n, renderer: renderer)
    }

    /// The same with the frame's disparity map already read (no file access: a pipeline can read
    /// the next frame meanwhile).
    public func render(picture: PixelImage, disparity map: DisparityMap, sourceFrame n: Int, renderer: BokehRenderer) -> PixelImage {
        let linear = SRGB.linear(picture)
        let focus = focusDisparity(sourceFrame: n)
        let frameLens = lens(sourceFrame: n)
        var renderer = renderer
        renderer.look = look  // a no-op when the caller's renderer already has it (the tables are built once)
        let out = SRGB.picture(renderer.render(picture: linear, disparity: map, focusDisparity: focus, lens: frameLens))
        guard let overlay else { return out }
        let full =
            map.width == linear.width && map.height == linear.height
            ? DisparityUpsampler.filled(map.values, width: map.width, height: map.height)
            : DisparityUpsampler.upsample(map, guide: linear)
        let valid = map.values.filter(\.isFinite)
        let range = movie.quantization ?? DisparityQuantization(minimum: valid.min() ?? 0, maximum: valid.max() ?? 1)
        return overlay.draw(on: out, disparity: full, focus: focus, lens: frameLens, range: range)
    }
}
