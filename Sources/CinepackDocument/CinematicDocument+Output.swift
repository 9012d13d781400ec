import CinepackContainer
import CinepackEDL
import CinepackFormat
import CinepackRender
import CinepackTime

/// One frame rendered with the document's focus and aperture.
public struct RenderedFrame: Sendable {
    /// 8-bit sRGB RGB.
    public var image: PixelImage
    public var snapped: SnappedTime
    /// The focus plane it was rendered at (diopters).
    public var focusDisparity: Float
    public var fNumber: Float
    public var focalLength35mm: Float

    /// The frame as a PNG file's bytes.
    public func pngData() throws(DocumentError) -> [UInt8] {
        do { return try PNGEncoder.encode(image) } catch { throw .writeFailed(path: "PNG", cause: error) }
    }

    /// Writes the frame as a PNG at `path`, atomically (no partial file on failure).
    public func writePNG(to path: String) throws(DocumentError) {
        let bytes = try pngData()
        do {
            let writer = try AtomicFileWriter(path: path)
            try writer.write(bytes)
            try writer.commit()
        } catch { throw .writeFailed(path: path, cause: error) }
    }
}

extension CinematicDocument {
    /// Renders the source frame `time` falls on with the edits as they stand (saved or not): focus
    /// from the focus script, blur from the lens model at `fNumber` (default: the document's).
    /// Checks for cancellation before and after the work.
    public func renderFrame(
        at time: TimeExpression, quality: RenderQuality = .export, fNumber: Float? = nil
    ) async throws(DocumentError)
        -> RenderedFrame
    {
        if Task.isCancelled { throw .cancelled }
        let snapped = try frame(at: time)
        let n = Int(snapped.frame)
        let movie = edits.movie
        guard movie.video.codec == "png " || movie.video.codec == "raw " else {
            throw .cannotDecodePicture(codec: movie.video.codec.map { "\($0)" } ?? "none")
        }
        let plan: RenderPlan
        do { plan = try RenderPlan(movie: movie, edl: edl, options: .init(fNumber: fNumber)) } catch {
            throw .planning(error, frame: n)
        }
        let image: PixelImage
        do { image = try plan.render(picture: try movie.picture(n), sourceFrame: n, renderer: BokehRenderer(quality: quality)) } catch {
            throw .frameUnreadable(frame: n, cause: error)
        }
        if Task.isCancelled { throw .cancelled }
        return RenderedFrame(
            image: image, snapped: snapped, focusDisparity: plan.focusDisparity(sourceFrame: n), fNumber: plan.lens.fNumber,
            focalLength35mm: plan.lens.focalLength35mm)
    }

    public func renderFrame(at time: MediaTime, quality: RenderQuality = .export) async throws(DocumentError) -> RenderedFrame {
        try await renderFrame(at: .seconds(time), quality: quality)
    }

    /// Renders the program the edits make (trims and speed, focus and aperture) to a movie of PNG
    /// frames at `path`, frame by frame with bounded memory. `progress` gets (frames done, total)
    /// after each frame. Cancelling the task stops at the next frame and leaves no file; so does
    /// any failure. Returns the number of frames written.
    @discardableResult
    public func renderMovie(
        to path: String, quality: RenderQuality = .export, range: TimeRangeExpression? = nil,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws(DocumentError) -> Int {
        let movie = edits.movie
        guard movie.video.codec == "png " || movie.video.codec == "raw " else {
            throw .cannotDecodePicture(codec: movie.video.codec.map { "\($0)" } ?? "none")
        }
        let plan: RenderPlan
        do { plan = try RenderPlan(movie: movie, edl: edl, options: .init(range: range)) } catch {
            throw .planning(error, frame: -1)
        }
        var configuration = CinematicWriterConfiguration(
            video: .encoded(.png, width: width, height: height, rate: grid.rate), disparity: nil, writesMetadata: false)
        configuration.isCinematic = false
        let writer: CinematicWriter
        do { writer = try CinematicWriter(path: path, configuration: configuration) } catch {
            throw .writeFailed(path: path, cause: error)
        }
        let done: Int
        do { done = try await Self.write(plan, to: writer, path: path, quality: quality, progress: progress) } catch {
            writer.cancel()
            throw error
        }
        do { _ = try writer.finish() } catch {
            writer.cancel()
            throw .writeFailed(path: path, cause: error)
        }
        return done
    }

    /// Every program frame of `plan`, rendered and appended in order; stops when the task is cancelled.
    private static func write(
        _ plan: RenderPlan, to writer: CinematicWriter, path: String, quality: RenderQuality, progress: (Int, Int) -> Void
    ) async throws(DocumentError) -> Int {
        var renderer = BokehRenderer(quality: quality)
        renderer.look = plan.look  // the aperture's tables built once for the whole clip
        let total = plan.outputFrames.count
        var done = 0
        for k in plan.outputFrames {
            if Task.isCancelled { throw .cancelled }
            let n: Int
            do { n = try plan.sourceFrame(ofOutput: k) } catch { throw .render(error) }
            let frame: PixelImage
            do { frame = try plan.render(picture: try plan.movie.picture(n), sourceFrame: n, renderer: renderer) } catch {
                throw .frameUnreadable(frame: n, cause: error)
            }
            do { try writer.append(picture: frame, disparity: nil, metadata: nil) } catch { throw .writeFailed(path: path, cause: error) }
            done += 1
            progress(done, total)
            await Task.yield()
        }
        return done
    }

    /// The clip with its edits for editing tools: OpenTimelineIO or FCPXML (spec/interchange.md);
    /// `mediaURL` is where the timeline says the media is (default: this file).
    public func export(timeline format: TimelineExport.Format, mediaURL: String? = nil) throws(DocumentError) -> [UInt8] {
        let url = mediaURL ?? TimelineExport.fileURL(forPath: path)
        do { return try TimelineExport.export(format, movie: edits.movie, edl: edl, mediaURL: url) } catch {
            throw .frameUnreadable(frame: -1, cause: error)
        }
    }
}
