import CinepackContainer
import CinepackEDL
import CinepackFormat
import CinepackRender
import CinepackTime
import Foundation

/// What `CinematicDocument.export` wrote.
public struct ExportResult: Sendable {
    public var frames: Int
    public var codec: ExportCodec
    /// Why the codec was chosen, when none was asked for and the source is deeper than 8 bits.
    public var codecNote: String?
    /// The record of a farm part; nil for a whole render.
    public var part: RenderPartRecord?
    /// The plan rendered (the part's frames of it for a farm part).
    public var plan: RenderPlan
}

/// One frame rendered with the document's focus and aperture.
public struct RenderedFrame: Sendable {
    /// RGB in the output's colour: 8-bit sRGB from 8-bit sources, 16 bits per sample from deep ones.
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
        try await renderFrame(at: time, plan: .init(fNumber: fNumber), quality: quality)
    }

    /// The same with every render option `cinepack render --at` takes (aperture, focal length,
    /// overlay, lens look, colour space), rendered exactly as it renders them. Pictures the
    /// library does not decode (H.264, HEVC, ProRes…) are decoded through ffmpeg.
    public func renderFrame(
        at time: TimeExpression, plan options: RenderPlan.Options, quality: RenderQuality = .export
    ) async throws(DocumentError) -> RenderedFrame {
        if Task.isCancelled { throw .cancelled }
        let snapped = try frame(at: time)
        let n = Int(snapped.frame)
        let movie = edits.movie
        let decoder: PictureDecoder
        do { decoder = try PictureDecoder(movie: movie) } catch { throw .frameUnreadable(frame: n, cause: error) }
        var options = options
        options.source = decoder.format
        let plan: RenderPlan
        do { plan = try RenderPlan(movie: movie, edl: edl, options: options) } catch { throw .planning(error, frame: n) }
        let image: PixelImage
        do { image = try plan.render(picture: try decoder.picture(n), sourceFrame: n, renderer: BokehRenderer(quality: quality)) } catch {
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

    /// Renders the program the edits make (trims and speed, focus and aperture) to a movie at
    /// `path` (replacing any file there), with the codec chosen from the source (PNG for 8-bit
    /// sources). `progress` gets (frames done, total) after each frame. Cancelling the task stops
    /// at the next frame and leaves no file; so does any failure. Returns the number of frames written.
    @discardableResult
    public func renderMovie(
        to path: String, quality: RenderQuality = .export, range: TimeRangeExpression? = nil,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws(DocumentError) -> Int {
        try await export(
            to: OutputTarget(path: path, overwrite: true), plan: .init(range: range), export: .init(quality: quality), progress: progress
        ).frames
    }

    /// Renders the program the edits make (saved or not) to `target`, exactly as `cinepack render`
    /// does (`MovieExport`): the render options (aperture, focal length, range, overlay, frame
    /// sampling, lens look) and the export's (codec, rate control, quality, farm part). Pictures
    /// the library does not decode (H.264, HEVC…) are decoded through ffmpeg. `progress` gets
    /// (frames done, total) after each frame. Cancelling the task stops at the next frame and
    /// leaves no file; so does any failure.
    public func export(
        to target: OutputTarget, plan options: RenderPlan.Options = .init(), export exportOptions: MovieExport.Options = .init(),
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws(DocumentError) -> ExportResult {
        if Task.isCancelled { throw .cancelled }
        let movie = edits.movie
        let decoder: PictureDecoder
        do { decoder = try PictureDecoder(movie: movie) } catch { throw .frameUnreadable(frame: -1, cause: error) }
        var options = options
        options.source = decoder.format
        let plan: RenderPlan
        do { plan = try RenderPlan(movie: movie, edl: edl, options: options) } catch { throw .planning(error, frame: -1) }
        do {
            let export = try MovieExport(edits: edits, plan: plan, decoder: decoder, target: target, options: exportOptions)
            let frames = try await CancellationFlag.running { isCancelled in try export.run(progress: progress, isCancelled: isCancelled) }
            return ExportResult(
                frames: frames, codec: export.codec, codecNote: export.codecNote?.description, part: export.part, plan: export.plan)
        } catch is CancellationError {
            throw .cancelled
        } catch let error as DocumentError {
            throw error
        } catch let error as RenderPlanError {
            throw .render(error)
        } catch {
            // An output rule's refusal, however deep it was raised, is a write failure with its case.
            if let output = (error as? OutputError) ?? (error as? FormatError)?.output ?? (error as? EncoderError)?.outputRefusal {
                throw .writeFailed(path: target.path, cause: output)
            }
            throw .exportFailed(path: target.path, cause: error)
        }
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
