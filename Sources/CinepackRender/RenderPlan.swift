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
    /// Program frames to render, in order.
    public let outputFrames: Range<Int64>
    public let overlay: FocusOverlay?

    public struct Options: Sendable {
        public var fNumber: Float?
        public var focalLength35mm: Float?
        /// Program time range; nil = the whole program.
        public var range: TimeRangeExpression?
        /// A focus aid drawn over every rendered frame; nil = none.
        public var overlay: FocusOverlay?
        public init(
            fNumber: Float? = nil, focalLength35mm: Float? = nil, range: TimeRangeExpression? = nil, overlay: FocusOverlay? = nil
        ) {
            self.fNumber = fNumber
            self.focalLength35mm = focalLength35mm
            self.range = range
            self.overlay = overlay
        }
    }

    public init(edits: MovieEdits, options: Options = .init()) throws(FormatError) {
        movie = edits.movie
        let capture = try CaptureTimeline(movie: edits.movie)
        script = FocusScript(capture: capture, edl: edits.edl)
        do { timeline = try EditTimeline(edl: edits.edl) } catch { throw FormatError("\(movie.path): \(error)") }
        let p = movie.parameters
        let fNumber = options.fNumber ?? edits.edl.fNumber ?? p.defaultFNumber
        guard fNumber.isFinite, fNumber > 0 else { throw FormatError("f-number must be > 0 (got \(fNumber))") }
        let focal = options.focalLength35mm ?? p.focalLength35mm
        guard focal.isFinite, focal > 0, focal < 2000 else { throw FormatError("focal length must be 0…2000 mm (got \(focal))") }
        lens = LensModel(focalLength35mm: focal, fNumber: fNumber, width: movie.width)
        overlay = options.overlay
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
        let focus = focusDisparity(sourceFrame: n)
        let out = SRGB.picture(renderer.render(picture: linear, disparity: map, focusDisparity: focus, lens: lens))
        guard let overlay else { return out }
        let full =
            map.width == linear.width && map.height == linear.height
            ? DisparityUpsampler.filled(map.values, width: map.width, height: map.height)
            : DisparityUpsampler.upsample(map, guide: linear)
        let valid = map.values.filter(\.isFinite)
        let range = movie.quantization ?? DisparityQuantization(minimum: valid.min() ?? 0, maximum: valid.max() ?? 1)
        return overlay.draw(on: out, disparity: full, focus: focus, lens: lens, range: range)
    }
}
