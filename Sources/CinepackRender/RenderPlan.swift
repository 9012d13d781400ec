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
    public let lens: LensModel
    /// The f-number asked for (option, EDL or the movie's default); `lens.fNumber` is it clamped to
    /// the movie's range.
    public let requestedFNumber: Float
    /// Program frames to render, in order.
    public let outputFrames: Range<Int64>

    public struct Options: Sendable {
        public var fNumber: Float?
        public var focalLength35mm: Float?
        /// Program time range; nil = the whole program.
        public var range: TimeRangeExpression?
        public init(fNumber: Float? = nil, focalLength35mm: Float? = nil, range: TimeRangeExpression? = nil) {
            self.fNumber = fNumber
            self.focalLength35mm = focalLength35mm
            self.range = range
        }
    }

    public init(edits: MovieEdits, options: Options = .init()) throws(FormatError) {
        movie = edits.movie
        let capture = try CaptureTimeline(movie: edits.movie)
        script = FocusScript(capture: capture, edl: edits.edl)
        do { timeline = try EditTimeline(edl: edits.edl) } catch { throw FormatError("\(movie.path): \(error)") }
        let p = movie.parameters
        // One rule with `aperture` (LensRules): any f-number > 0 is taken and clamped to the movie's range.
        requestedFNumber = options.fNumber ?? edits.edl.fNumber ?? p.defaultFNumber
        let fNumber = LensRules.clampedFNumber(try LensRules.fNumber(Double(requestedFNumber)), for: p).applied
        let focal = try LensRules.focalLength(Double(options.focalLength35mm ?? p.focalLength35mm))
        lens = LensModel(focalLength35mm: focal, fNumber: fNumber, width: movie.width)
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
        let out = renderer.render(picture: linear, disparity: map, focusDisparity: focusDisparity(sourceFrame: n), lens: lens)
        return SRGB.picture(out)
    }
}
