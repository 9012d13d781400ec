import CinepackContainer
import Foundation

/// The one way cinepack gets a movie's pictures: the built-in codecs (`png `, `raw `) are decoded
/// here; every other codec (H.264, HEVC, ProRes, DNxHR…) through ffmpeg (`FFmpegTool`, so
/// `CINEPACK_FFMPEG` is honoured). `extract`, `render`, `refocus` and library users all go
/// through it, so they accept the same sources and see the same pixels.
public final class PictureDecoder {
    public let movie: CinematicMovie
    /// Bit depth and colour of the source: what the renderer linearises with and writes back.
    public let format: SourcePictureFormat
    private let ffmpeg: FFmpegFrameDecoder?

    /// Reads the source's colour description (the container's `colr` first, else what the codec
    /// carries as ffmpeg reports it) and prepares to decode.
    public init(movie: CinematicMovie, environment: [String: String] = ProcessInfo.processInfo.environment) throws(FormatError) {
        self.movie = movie
        let container = try Self.containerColour(movie)
        if Self.isBuiltIn(movie) {
            let first = try movie.picture(0)
            format = SourcePictureFormat(
                bitDepth: first.bitDepth, colour: container ?? .unspecified, pixelFormat: first.bitDepth > 8 ? "rgb48be" : "rgb24")
            ffmpeg = nil
            return
        }
        do {
            let tool = try FFmpegTool.require("decoding '\(movie.video.codec?.description ?? "?")' video", environment: environment)
            var probed = try FFmpegFrameDecoder.probe(path: movie.path, ffmpeg: tool)
            if let container, container.isSpecified { probed.colour = container }
            format = probed
            ffmpeg = FFmpegFrameDecoder(path: movie.path, width: movie.width, height: movie.height, format: probed, ffmpeg: tool)
        } catch {
            throw FormatError("\(movie.path): \(error)")
        }
    }

    public static func isBuiltIn(_ movie: CinematicMovie) -> Bool {
        movie.video.codec == "png " || movie.video.codec == "raw "
    }

    /// The picture of frame `n`: 8-bit RGB for 8-bit sources, 16-bit RGB for deeper ones (a
    /// built-in PNG keeps its own depth). Fastest in increasing frame order.
    public func picture(_ n: Int) throws(FormatError) -> PixelImage {
        guard let ffmpeg else { return try movie.picture(n) }
        try movie.check(n)
        do { return try ffmpeg.frame(n) } catch { throw FormatError("\(error)") }
    }

    /// The colour description in the video sample entry's `colr` box, if it has one.
    public static func containerColour(_ movie: CinematicMovie) throws(FormatError) -> ColourDescription? {
        guard let box = movie.video.sampleEntries.first?.box.child("colr"), box.origin == .file else { return nil }
        let count = Int(min(box.header.payloadSize, 64))
        let payload: [UInt8]
        do { payload = try movie.source.read(at: box.header.payloadOffset, count: count) } catch {
            throw .container(error, file: movie.path)
        }
        do { return try ColourDescription.parse(colr: payload, at: box.header.offset, path: movie.path) } catch {
            throw FormatError("\(error)")
        }
    }
}
