import CinepackContainer
import CinepackFormat
import CinepackTime

/// Export of a cinematic movie and its EDL as an editorial timeline for other tools
/// (spec/interchange.md): OpenTimelineIO JSON and FCPXML 1.10. Both are pure functions of their
/// inputs, so the same movie and EDL always give the same bytes.
public enum TimelineExport {
    public enum Format: String, Sendable, CaseIterable {
        case otio, fcpxml
        /// The usual file extension, without the dot.
        public var fileExtension: String { rawValue }
    }

    /// The timeline as OpenTimelineIO JSON (`Timeline.1`, the schema versions opentimelineio 0.18 writes).
    /// `mediaURL` is what the clip's `ExternalReference` points at, e.g. from `fileURL(forPath:)`.
    public static func otio(movie: CinematicMovie, edl: EditDecisionList, mediaURL: String) throws(FormatError) -> [UInt8] {
        OTIOWriter.write(try TimelinePlan(movie: movie, edl: edl, mediaURL: mediaURL))
    }

    /// The timeline as FCPXML 1.10 (the subset in spec/fcpxml-subset.rng).
    public static func fcpxml(movie: CinematicMovie, edl: EditDecisionList, mediaURL: String) throws(FormatError) -> [UInt8] {
        FCPXMLWriter.write(try TimelinePlan(movie: movie, edl: edl, mediaURL: mediaURL))
    }

    public static func export(
        _ format: Format, movie: CinematicMovie, edl: EditDecisionList, mediaURL: String
    ) throws(FormatError) -> [UInt8] {
        switch format {
        case .otio: try otio(movie: movie, edl: edl, mediaURL: mediaURL)
        case .fcpxml: try fcpxml(movie: movie, edl: edl, mediaURL: mediaURL)
        }
    }

    /// The export written into `writer` as it is made (an OTIO timeline of many clips is large; it is
    /// never held whole in memory). The caller commits or abandons the writer.
    public static func export(
        _ format: Format, movie: CinematicMovie, edl: EditDecisionList, mediaURL: String, to writer: AtomicFileWriter
    ) throws(FormatError) {
        let plan = try TimelinePlan(movie: movie, edl: edl, mediaURL: mediaURL)
        func emit(_ bytes: [UInt8]) throws(FormatError) {
            do { try writer.write(bytes) } catch { throw FormatError.from(error, file: writer.path) }
        }
        switch format {
        case .otio: try OTIOWriter.write(plan, emit: emit)
        case .fcpxml: try emit(FCPXMLWriter.write(plan))
        }
    }

    /// A `file://` URL for a path (RFC 8089): relative paths are joined to `directory`, `.` and `..`
    /// are resolved lexically, and every byte outside the RFC 3986 unreserved set (and `/`) is
    /// percent-encoded, so spaces, `#`, `%` and non-ASCII names survive every reader.
    public static func fileURL(forPath path: String, relativeTo directory: String = "/") -> String {
        let joined = path.hasPrefix("/") ? path : directory + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "file:///" + parts.map { InterchangeText.percentEncoded(String($0)) }.joined(separator: "/")
    }
}

/// One focus decision placed on the timeline: a user decision from the EDL or one captured by the camera.
struct TimelineDecision: Equatable {
    enum Origin: String { case captured, user }
    var origin: Origin
    var frame: Int64
    /// Exact time as stored (the EDL's time, or the video track's time of the frame for captured ones).
    var time: MediaTime
    var target: FocusTarget
    var isStrong: Bool
    var minTransition: Double?
    var maxTransition: Double?

    var strength: String { isStrong ? "strong" : "weak" }

    /// e.g. `focus → detection 4 (weak)`; captured decisions say so first.
    var label: String {
        (origin == .captured ? "captured " : "") + "focus → \(target) (\(strength))"
    }
}

/// A run of source frames `[start, end)` played at one speed: one OTIO Clip.
struct TimelinePiece {
    var start: Int64
    var end: Int64
    /// Playback speed as a ratio (2/1 = twice as fast).
    var speed: (numerator: Int64, denominator: Int64)
    /// Which kept source range (trim) the piece belongs to.
    var rangeIndex: Int

    var frames: Int64 { end - start }
    var isUnitSpeed: Bool { speed.numerator == speed.denominator }
    func contains(_ frame: Int64) -> Bool { frame >= start && frame < end }
}

/// Everything both writers need, gathered once from the movie and the EDL. All times are frames
/// on the movie's constant frame grid, so both formats place every item exactly.
struct TimelinePlan {
    var name: String
    var mediaURL: String
    var rate: FrameRate
    var frameCount: Int64
    var width: Int
    var height: Int
    var hasAudio: Bool
    var hasDisparity: Bool
    var formatVersion: String?
    var parameters: CinematicParameters
    var edl: EditDecisionList
    /// The aperture the timeline uses: the EDL's choice, else the first captured f-number, else the
    /// movie's default (spec/format.md §7; a clip carries one aperture).
    var fNumber: Float
    /// Captured and user decisions in frame order (captured first on a shared frame: the user's overrides).
    var decisions: [TimelineDecision]
    /// Kept source frame ranges (trims), in playback order; the whole clip when the EDL has none.
    var keptRanges: [Range<Int64>]
    /// `keptRanges` split where the speed changes.
    var pieces: [TimelinePiece]

    var frameDuration: MediaTime { rate.frameDuration }

    /// The exact time of a source frame on the grid, in the FCPXML/CMTime sense: `n·seconds/frames`.
    func time(ofFrame n: Int64) -> MediaTime {
        MediaTime(value: n * rate.seconds, timescale: Int32(rate.frames))
    }

    /// Decisions no kept range shows (trimmed away): they get no marker and are counted in the summary.
    var omittedDecisions: Int {
        // Mark each decision a kept range holds; ranges may overlap, so count each decision once.
        var shown = [Bool](repeating: false, count: decisions.count)
        for range in keptRanges {
            for i in decisionIndices(in: range) { shown[i] = true }
        }
        return shown.count { !$0 }
    }

    /// The indices of `decisions` (in frame order) on frames of `range`, found by binary search so an
    /// export stays linear in the EDL's size.
    func decisionIndices(in range: Range<Int64>) -> Range<Int> {
        func firstIndex(atOrAfter frame: Int64) -> Int {
            var lo = 0
            var hi = decisions.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if decisions[mid].frame < frame { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        return firstIndex(atOrAfter: range.lowerBound)..<firstIndex(atOrAfter: range.upperBound)
    }

    init(movie: CinematicMovie, edl: EditDecisionList, mediaURL: String) throws(FormatError) {
        guard let rate = movie.frameRate else {
            throw FormatError("\(movie.path): frames are not evenly spaced; a timeline export needs a constant frame rate")
        }
        var captured: [TimelineDecision] = []
        var capturedFNumber: Float?
        // Captured decisions live in the per-frame metadata; only a movie with a metadata track has any.
        if movie.metadata != nil {
            for n in 0..<movie.frameCount {
                let frame = try movie.metadata(n)
                if capturedFNumber == nil { capturedFNumber = frame.fNumber }
                guard let decision = frame.decision else { continue }
                captured.append(
                    TimelineDecision(
                        origin: .captured, frame: Int64(n), time: movie.time(ofFrame: n),
                        target: decision.target, isStrong: decision.isStrong))
            }
        }
        try self.init(
            name: InterchangeText.fileStem(movie.path), mediaURL: mediaURL, rate: rate,
            frameCount: Int64(movie.frameCount), width: movie.width, height: movie.height,
            hasAudio: movie.audio != nil, hasDisparity: movie.disparity != nil,
            formatVersion: movie.formatVersion, parameters: movie.parameters, edl: edl, captured: captured,
            capturedFNumber: capturedFNumber)
    }

    init(
        name: String, mediaURL: String, rate: FrameRate, frameCount: Int64, width: Int, height: Int, hasAudio: Bool,
        hasDisparity: Bool, formatVersion: String?, parameters: CinematicParameters, edl: EditDecisionList,
        captured: [TimelineDecision], capturedFNumber: Float? = nil
    ) throws(FormatError) {
        // An EDL made for other media would put every marker and trim in the wrong place.
        if let media = edl.media, media.frameCount != Int(frameCount) || media.frameRate != rate {
            throw FormatError(
                "the EDL was made for \(media.frameCount) frames at \(media.frameRate) fps, "
                    + "but the movie has \(frameCount) frames at \(rate) fps")
        }
        self.name = name
        self.mediaURL = mediaURL
        self.rate = rate
        self.frameCount = frameCount
        self.width = width
        self.height = height
        self.hasAudio = hasAudio
        self.hasDisparity = hasDisparity
        self.formatVersion = formatVersion
        self.parameters = parameters
        self.edl = edl
        fNumber = edl.fNumber ?? capturedFNumber ?? parameters.defaultFNumber

        let user = edl.decisions.map {
            TimelineDecision(
                origin: .user, frame: $0.frame, time: $0.time, target: $0.target, isStrong: $0.strength == .strong,
                minTransition: $0.minTransition, maxTransition: $0.maxTransition)
        }
        // Stable sort: equal frames keep captured before user, and each list its own order.
        decisions = (captured + user).enumerated().sorted {
            ($0.element.frame, $0.element.origin == .captured ? 0 : 1, $0.offset)
                < ($1.element.frame, $1.element.origin == .captured ? 0 : 1, $1.offset)
        }.map(\.element)

        // The program is the one every command plays (spec/retime.md §1): bounds on frame starts, speed
        // segments in order, every time exact; an EDL that `validate` accepts always has one.
        guard frameCount > 0 else {
            keptRanges = []
            pieces = []
            return
        }
        let program: EditTimeline
        do {
            program = try EditTimeline(
                sourceRanges: edl.sourceRanges, speedSegments: edl.speedSegments, grid: FrameGrid(rate: rate, frameCount: frameCount))
        } catch {
            throw FormatError(error.message)
        }
        pieces = program.pieces.map {
            TimelinePiece(
                start: $0.startFrame, end: $0.endFrame, speed: ($0.rateNumerator, $0.rateDenominator), rangeIndex: $0.rangeIndex)
        }
        // A kept range's pieces are consecutive and cover it.
        var kept: [Range<Int64>] = []
        for (i, piece) in pieces.enumerated() {
            if i > 0, pieces[i - 1].rangeIndex == piece.rangeIndex {
                kept[kept.count - 1] = kept[kept.count - 1].lowerBound..<piece.end
            } else {
                kept.append(piece.start..<piece.end)
            }
        }
        keptRanges = kept
    }
}
