import CinepackTime

/// The program an EDL's trims and speed changes make of the source clip (spec/retime.md §1): kept
/// source ranges played one after another in playback order, each source instant `[start, end)` of a
/// speed segment played at `N/D` (2/1 = twice as fast). Maps source time to output (program) time and
/// back, exactly: every value is a rational, never a `Double`.
///
/// Output frames use the source's frame rate; output frame `k` shows the source frame that contains
/// the source time of the output instant `k · frameDuration` (sample and hold). At 1/1 that is a
/// frame-for-frame copy; at 2/1 every other frame is shown; at 1/2 every frame is shown twice.
public struct EditTimeline: Sendable, Equatable {
    /// A run of source frames inside one kept range played at one speed.
    public struct Piece: Sendable, Equatable {
        /// Which kept range (index into `keptRanges`) the piece belongs to.
        public var rangeIndex: Int
        /// Source frames `[startFrame, endFrame)`.
        public var startFrame: Int64
        public var endFrame: Int64
        public var sourceStart: MediaTime
        public var sourceEnd: MediaTime
        /// The speed as stored in the segment (1/1 outside speed segments).
        public var rateNumerator: Int64
        public var rateDenominator: Int64
        /// Where the piece plays in the program: `[outputStart, outputEnd)`.
        public var outputStart: MediaTime
        public var outputEnd: MediaTime
    }

    /// The same piece with exact values.
    package struct ExactPiece: Sendable, Equatable {
        package var rangeIndex: Int
        package var startFrame: Int64
        package var endFrame: Int64
        package var sourceStart: ExactRatio
        package var sourceEnd: ExactRatio
        /// Source seconds per output second.
        package var rate: ExactRatio
        package var outputStart: ExactRatio
        package var outputEnd: ExactRatio

        func output(ofSource s: ExactRatio) -> ExactRatio? {
            guard let d = s.subtracting(sourceStart), let o = d.divided(by: rate) else { return nil }
            return outputStart.adding(o)
        }

        func source(ofOutput t: ExactRatio) -> ExactRatio? {
            guard let d = t.subtracting(outputStart), let s = d.multiplied(by: rate) else { return nil }
            return sourceStart.adding(s)
        }
    }

    /// The source clip's frame grid (with its frame count).
    public let sourceGrid: FrameGrid
    /// The kept source ranges in playback order: the EDL's, or the whole clip when it has none.
    public let keptRanges: [SourceRange]
    public let speedSegments: [SpeedSegment]
    /// The program, piece by piece, in playback order; consecutive pieces are back to back.
    public let pieces: [Piece]
    /// The exact program length (not necessarily a whole number of frames, see `outputGrid`).
    public let outputDuration: MediaTime
    /// The program's frames: the source rate, from 0, `ceil(outputDuration / frameDuration)` frames.
    public let outputGrid: FrameGrid

    package let exact: [ExactPiece]
    package let frameDuration: ExactRatio
    package let gridStart: ExactRatio
    package let exactOutputDuration: ExactRatio
    /// Timescale output times are written in when it holds them exactly (the grid's frame timescale).
    package let preferredTimescale: Int32

    public var outputFrameCount: Int64 { outputGrid.frameCount ?? 0 }

    /// The program of an EDL, on the grid of its `<media>`.
    public init(edl: EditDecisionList) throws(RetimeError) {
        guard let media = edl.media else {
            throw RetimeError("an EDL with a timeline needs <media>, whose frame grid its times are on (spec/retime.md §1)")
        }
        try self.init(
            sourceRanges: edl.sourceRanges, speedSegments: edl.speedSegments,
            grid: FrameGrid(rate: media.frameRate, frameCount: Int64(media.frameCount)))
    }

    /// The program of these trims and speed changes over `grid`, which must know its frame count.
    /// Checks the rules of spec/edl.md §7 (bounds on frame starts, inside the clip, `start < end`, speed
    /// segments in order without overlaps, rates ≥ 1/…) and that the program's times are representable.
    /// Kept ranges may overlap or repeat (a shot used twice).
    public init(sourceRanges: [SourceRange], speedSegments: [SpeedSegment], grid: FrameGrid) throws(RetimeError) {
        guard let frameCount = grid.frameCount else {
            throw RetimeError("the source frame grid needs a frame count (spec/retime.md §1)")
        }
        sourceGrid = grid
        frameDuration = ExactRatio(grid.frameDuration)
        gridStart = ExactRatio(grid.start)
        preferredTimescale = Int32(grid.rate.frames)
        let ranges =
            sourceRanges.isEmpty
            ? [SourceRange(start: grid.time(ofFrame: 0), end: grid.time(ofFrame: frameCount))] : sourceRanges
        keptRanges = ranges
        self.speedSegments = speedSegments

        var rangeFrames: [Range<Int64>] = []
        for (i, r) in ranges.enumerated() {
            rangeFrames.append(try EditTimeline.frames(of: r.start, r.end, grid: grid, what: "range \(i + 1)"))
        }
        var speeds: [(frames: Range<Int64>, rate: ExactRatio, segment: SpeedSegment)] = []
        for (i, s) in speedSegments.enumerated() {
            let what = "speed \(i + 1)"
            let frames = try EditTimeline.frames(of: s.start, s.end, grid: grid, what: what)
            guard s.rateNumerator >= 1, s.rateDenominator >= 1, let rate = ExactRatio(s.rateNumerator, s.rateDenominator) else {
                throw RetimeError(
                    "\(what): rate \(s.rateNumerator)/\(s.rateDenominator) is not a speed; both parts are 1 or more (spec/retime.md §1)")
            }
            if let previous = speeds.last, frames.lowerBound < previous.frames.upperBound {
                throw RetimeError(
                    "\(what): starts at \(s.start), before speed \(i) ends (\(previous.segment.end)); speed changes are in time order and do not overlap (spec/retime.md §1)"
                )
            }
            speeds.append((frames, rate, s))
        }

        var exact: [ExactPiece] = []
        var segments: [SpeedSegment?] = []
        let speedFrames = speeds.map(\.frames)
        var position = ExactRatio.zero
        for (index, frames) in rangeFrames.enumerated() {
            // Cut the range wherever a speed segment starts or ends inside it. Segments are sorted and
            // disjoint (checked above), so only those from the first one ending after the range's start
            // can cut it: found by binary search, the work stays linear in the EDL's size.
            var cuts: [(frame: Int64, segment: Int?)] = []
            var a = frames.lowerBound
            var k = EditTimeline.firstSpeed(endingAfter: a, in: speedFrames)
            while a < frames.upperBound {
                if k < speeds.count, speeds[k].frames.lowerBound <= a {
                    let b = min(speeds[k].frames.upperBound, frames.upperBound)
                    cuts.append((a, k))
                    a = b
                    k += 1
                } else {
                    cuts.append((a, nil))
                    a = k < speeds.count ? min(speeds[k].frames.lowerBound, frames.upperBound) : frames.upperBound
                }
            }
            cuts.append((frames.upperBound, nil))
            for (cut, next) in zip(cuts, cuts.dropFirst()) {
                let (a, b) = (cut.frame, next.frame)
                let rate = cut.segment.map { speeds[$0].rate } ?? .one
                guard let sa = EditTimeline.time(ofFrame: a, start: gridStart, frameDuration: frameDuration),
                    let sb = EditTimeline.time(ofFrame: b, start: gridStart, frameDuration: frameDuration),
                    let length = sb.subtracting(sa)?.divided(by: rate), let end = position.adding(length)
                else {
                    throw RetimeError(
                        "range \(index + 1): the program time of source frames \(a)..<\(b) cannot be represented exactly (spec/retime.md §1)"
                    )
                }
                exact.append(
                    ExactPiece(
                        rangeIndex: index, startFrame: a, endFrame: b, sourceStart: sa, sourceEnd: sb, rate: rate,
                        outputStart: position, outputEnd: end))
                segments.append(cut.segment.map { speeds[$0].segment })
                position = end
            }
        }
        self.exact = exact
        exactOutputDuration = position

        var pieces: [Piece] = []
        for (p, segment) in zip(exact, segments) {
            guard let os = p.outputStart.mediaTime(preferring: preferredTimescale),
                let oe = p.outputEnd.mediaTime(preferring: preferredTimescale),
                let ss = p.sourceStart.mediaTime(preferring: preferredTimescale),
                let se = p.sourceEnd.mediaTime(preferring: preferredTimescale)
            else {
                throw RetimeError(
                    "range \(p.rangeIndex + 1): the program time of source frames \(p.startFrame)..<\(p.endFrame) needs a timescale above \(Int32.max); choose a simpler speed (spec/retime.md §1)"
                )
            }
            pieces.append(
                Piece(
                    rangeIndex: p.rangeIndex, startFrame: p.startFrame, endFrame: p.endFrame, sourceStart: ss, sourceEnd: se,
                    rateNumerator: segment?.rateNumerator ?? 1, rateDenominator: segment?.rateDenominator ?? 1, outputStart: os,
                    outputEnd: oe))
        }
        self.pieces = pieces
        guard let duration = position.mediaTime(preferring: preferredTimescale),
            let frames = position.divided(by: frameDuration)?.ceiling
        else {
            throw RetimeError("the program's duration cannot be represented exactly (spec/retime.md §1)")
        }
        outputDuration = duration
        outputGrid = FrameGrid(rate: grid.rate, frameCount: frames)
    }

    /// The index of the first of `sorted` (ascending, disjoint) whose end is after `frame`; `count` if none.
    static func firstSpeed(endingAfter frame: Int64, in sorted: [Range<Int64>]) -> Int {
        var lo = 0
        var hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid].upperBound <= frame { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The frames `[start, end)` spans; both must be frame starts inside the clip and `start < end`.
    package static func frames(of start: MediaTime, _ end: MediaTime, grid: FrameGrid, what: String) throws(RetimeError) -> Range<Int64> {
        let a = try frame(of: start, grid: grid, what: what)
        let b = try frame(of: end, grid: grid, what: what)
        guard a < b else { throw RetimeError("\(what): start \(start) is not before end \(end) (spec/retime.md §1)") }
        let count = grid.frameCount ?? Int64.max
        guard a >= 0 else { throw RetimeError("\(what): start \(start) is before the start of the media (spec/retime.md §1)") }
        guard b <= count else {
            throw RetimeError("\(what): end \(end) is past the end of the media, \(grid.time(ofFrame: count)) (spec/retime.md §1)")
        }
        return a..<b
    }

    /// The frame `t` starts, or an error naming the nearest frame when `t` is not a frame start.
    package static func frame(of t: MediaTime, grid: FrameGrid, what: String) throws(RetimeError) -> Int64 {
        guard let snap = grid.checkedSnap(t) else { throw RetimeError("\(what): time \(t) is far outside the media (spec/retime.md §1)") }
        guard snap.wasExact else {
            throw RetimeError(
                "\(what): time \(t) is not on the frame grid of \(grid.rate) fps; the nearest frame is \(snap.frame), at \(snap.time) (spec/retime.md §1)"
            )
        }
        return snap.frame
    }

    package static func time(ofFrame n: Int64, start: ExactRatio, frameDuration: ExactRatio) -> ExactRatio? {
        guard let offset = frameDuration.multiplied(by: ExactRatio(n)) else { return nil }
        return start.adding(offset)
    }

    package func sourceTime(ofFrame n: Int64) -> ExactRatio? {
        EditTimeline.time(ofFrame: n, start: gridStart, frameDuration: frameDuration)
    }

    /// The source frame containing `s` (floor).
    package func sourceFrame(containing s: ExactRatio) -> Int64? {
        s.subtracting(gridStart)?.divided(by: frameDuration)?.floor
    }

    package func time(_ r: ExactRatio) -> MediaTime? { r.mediaTime(preferring: preferredTimescale) }

    // MARK: Source → output

    /// Where source time `t` plays in the program: its first occurrence in playback order (a source
    /// range used twice plays it twice; see `outputTimes(ofSource:)`). Nil when no kept range holds `t`
    /// (trimmed away), or, only for times off the source grid, when the result is not representable.
    public func outputTime(ofSource t: MediaTime) -> MediaTime? {
        let s = ExactRatio(t)
        guard let p = exact.first(where: { $0.sourceStart <= s && s < $0.sourceEnd }), let o = p.output(ofSource: s) else { return nil }
        return time(o)
    }

    /// Every program time at which source time `t` plays, in playback order; empty when trimmed away.
    public func outputTimes(ofSource t: MediaTime) -> [MediaTime] {
        let s = ExactRatio(t)
        return exact.filter { $0.sourceStart <= s && s < $0.sourceEnd }.compactMap { p in p.output(ofSource: s).flatMap(time) }
    }

    /// Whether a kept range holds source time `t`.
    public func isKept(source t: MediaTime) -> Bool {
        let s = ExactRatio(t)
        return exact.contains { $0.sourceStart <= s && s < $0.sourceEnd }
    }

    /// Whether a kept range holds source frame `n`.
    public func isKept(sourceFrame n: Int64) -> Bool {
        exact.contains { $0.startFrame <= n && n < $0.endFrame }
    }

    /// The first program frame at or after the moment source frame `n` starts, in its first occurrence:
    /// `ceil(outputTime / frameDuration)`. From that frame on, the program has reached the source frame's
    /// start (a focus decision on frame `n` has arrived). At 1/1 and slow motion it is the frame showing
    /// `n`; at 2/1 an odd frame is never shown and this is the frame after its moment. Nil when `n` is
    /// trimmed away or its moment comes after the program's last frame starts.
    public func outputFrame(ofSourceFrame n: Int64) -> Int64? {
        guard let p = exact.first(where: { $0.startFrame <= n && n < $0.endFrame }), let s = sourceTime(ofFrame: n),
            let o = p.output(ofSource: s), let k = o.divided(by: frameDuration)?.ceiling
        else { return nil }
        return k < outputFrameCount ? k : nil
    }

    // MARK: Output → source

    /// The piece playing at program time `t` (`outputStart <= t < outputEnd`).
    package func piece(atOutput t: ExactRatio) -> ExactPiece? {
        guard t >= .zero, t < exactOutputDuration else { return nil }
        // Binary search: pieces are back to back in output order.
        var lo = 0
        var hi = exact.count
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if exact[mid].outputStart <= t { lo = mid } else { hi = mid }
        }
        return exact[lo]
    }

    /// The source time playing at program time `t`; nil outside `[0, outputDuration)` (or, only for
    /// times off the program's grid, when the result is not representable).
    public func sourceTime(ofOutput t: MediaTime) -> MediaTime? {
        let o = ExactRatio(t)
        guard let p = piece(atOutput: o), let s = p.source(ofOutput: o) else { return nil }
        return time(s)
    }

    /// The source frame program frame `k` shows: the frame containing the source time of its start.
    /// Nil outside `0..<outputFrameCount`.
    public func sourceFrame(ofOutputFrame k: Int64) -> Int64? {
        guard k >= 0, k < outputFrameCount, let o = frameDuration.multiplied(by: ExactRatio(k)), let p = piece(atOutput: o),
            let s = p.source(ofOutput: o)
        else { return nil }
        return sourceFrame(containing: s)
    }

    /// The source spans that program time `[range.lowerBound, range.upperBound)` shows, one per kept
    /// range it touches, in playback order: what trimming the program to that window keeps. Pass them
    /// to `Retimer.trim(keep:)` (which needs them on the frame grid). Speed segments stay in source
    /// time, so the trimmed program plays these spans exactly as this one did (spec/retime.md §3.4).
    /// Nil when a bound is not representable.
    public func sourceRanges(ofOutput range: Range<MediaTime>) -> [SourceRange]? {
        let x = max(ExactRatio(range.lowerBound), .zero)
        let y = min(ExactRatio(range.upperBound), exactOutputDuration)
        var result: [SourceRange] = []
        guard x < y else { return result }
        var i = 0
        while i < exact.count {
            // The pieces of one kept range are consecutive.
            var j = i
            while j + 1 < exact.count, exact[j + 1].rangeIndex == exact[i].rangeIndex { j += 1 }
            let lo = max(x, exact[i].outputStart)
            let hi = min(y, exact[j].outputEnd)
            if lo < hi {
                // Map each bound with the piece that plays it; the end bound may be a piece's end.
                guard let a = exact[i...j].first(where: { $0.outputStart <= lo && lo < $0.outputEnd })?.source(ofOutput: lo),
                    let b = exact[i...j].first(where: { $0.outputStart < hi && hi <= $0.outputEnd })?.source(ofOutput: hi),
                    let start = time(a), let end = time(b)
                else { return nil }
                result.append(SourceRange(start: start, end: end))
            }
            i = j + 1
        }
        return result
    }
}
