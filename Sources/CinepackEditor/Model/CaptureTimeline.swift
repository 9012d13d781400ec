import CinepackEDL
import CinepackFormat
import CinepackTime

/// What capture recorded, frame by frame: the editor's input besides the EDL. Pure data, so the
/// focus script is a pure function (no I/O in the editor, ARCHITECTURE.md).
public struct CaptureTimeline: Sendable, Equatable {
    /// Frame n starts at `grid.time(ofFrame: n)`.
    public var grid: FrameGrid
    public var frameCount: Int
    /// Per frame: detections, captured focus state, captured decision, f-number, scene.
    public var frames: [FrameMetadata]
    /// Focus timing and aperture range (stored in the movie, spec/format.md §7).
    public var parameters: CinematicParameters

    public init(grid: FrameGrid, frames: [FrameMetadata], parameters: CinematicParameters) {
        self.grid = grid
        self.frameCount = frames.count
        self.frames = frames
        self.parameters = parameters
    }

    /// Seconds from the start to frame `n` (exact rational time as a Double).
    public func seconds(ofFrame n: Int) -> Double { grid.time(ofFrame: Int64(n)).seconds }

    /// Reads every frame's metadata of a movie (small: tens of bytes per detection).
    public init(movie: CinematicMovie) throws(FormatError) {
        guard let rate = movie.frameRate else {
            throw FormatError("\(movie.path): frames are not evenly spaced; the editor needs a constant frame rate")
        }
        var frames: [FrameMetadata] = []
        frames.reserveCapacity(movie.frameCount)
        for n in 0..<movie.frameCount { frames.append(try movie.metadata(n)) }
        self.init(grid: FrameGrid(rate: rate, frameCount: Int64(movie.frameCount)), frames: frames, parameters: movie.parameters)
    }
}
