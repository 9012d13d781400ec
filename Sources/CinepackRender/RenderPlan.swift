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
    public let lens: LensModel
    /// Program frames to render, in order.
    public let outputFrames: Range<Int64>
    /// The source's transfer: pictures are linearised with it and encoded back with it.
    public let light: LinearLightCodec
    /// Bits per sample of the rendered pictures: 8 for 8-bit sources, 16 for deeper ones.
    public let outputBitDepth: Int
    public let frameSampling: FrameSampling

    public struct Options: Sendable {
        public var fNumber: Float?
        public var focalLength35mm: Float?
        /// Program time range; nil = the whole program.
        public var range: TimeRangeExpression?
        /// Bit depth and colour of the source pictures (`PictureDecoder.format`); nil = 8-bit sRGB.
        public var source: SourcePictureFormat?
        public var frameSampling: FrameSampling = .nearest
        public init(
            fNumber: Float? = nil, focalLength35mm: Float? = nil, range: TimeRangeExpression? = nil, source: SourcePictureFormat? = nil,
            frameSampling: FrameSampling = .nearest
        ) {
            self.fNumber = fNumber
            self.focalLength35mm = focalLength35mm
            self.range = range
            self.source = source
            self.frameSampling = frameSampling
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
        let source = options.source ?? SourcePictureFormat(bitDepth: 8, colour: .unspecified, pixelFormat: "rgb24")
        do { light = LinearLightCodec(transfer: try TransferFunction(code: source.colour.transfer), sourceBitDepth: source.bitDepth) } catch
        {
            throw FormatError("\(movie.path): \(error)")
        }
        outputBitDepth = source.isHighPrecision ? 16 : 8
        frameSampling = options.frameSampling
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

    /// The source frames program frame `k` is made of, with their weights (summing to 1): the one
    /// frame it shows, or with `.blend` the two frames around its source time, weighted by
    /// nearness (only when both are kept in the program). The first is the frame whose disparity
    /// and focus the render uses.
    public func sourceSamples(ofOutput k: Int64) -> [(frame: Int, weight: Float)] {
        let n = sourceFrame(ofOutput: k)
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
    public func render(picture: PixelImage, sourceFrame n: Int, renderer: BokehRenderer) throws(FormatError) -> PixelImage {
        render(picture: picture, disparity: try movie.disparityMap(n), sourceFrame: n, renderer: renderer)
    }

    /// The same with the frame's disparity map already read (no file access: a pipeline can read
    /// the next frame meanwhile).
    public func render(picture: PixelImage, disparity map: DisparityMap, sourceFrame n: Int, renderer: BokehRenderer) -> PixelImage {
        render(linear: light.linear(picture), disparity: map, sourceFrame: n, renderer: renderer)
    }

    /// Several source pictures mixed in linear light with their weights (`sourceSamples`), then
    /// rendered with the disparity and focus of source frame `n`.
    public func render(
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
        return render(linear: mixed, disparity: map, sourceFrame: n, renderer: renderer)
    }

    func render(linear: LinearImage, disparity map: DisparityMap, sourceFrame n: Int, renderer: BokehRenderer) -> PixelImage {
        let out = renderer.render(picture: linear, disparity: map, focusDisparity: focusDisparity(sourceFrame: n), lens: lens)
        return light.picture(out, bitDepth: outputBitDepth)
    }
}
