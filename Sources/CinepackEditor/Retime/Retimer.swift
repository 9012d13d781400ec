import CinepackEDL
import CinepackTime

/// Retiming edits on an EDL (spec/retime.md §3): move a decision, shift the decisions of a range, trim,
/// change speed. Each is a pure function returning the new EDL and a report of every change; a refused
/// edit throws and changes nothing. Decisions are never dropped silently: those a trim hides stay in
/// the EDL and are reported as inactive. Undo history is not touched (the caller records the step).
package struct Retimer: Sendable {
    package let edl: EditDecisionList
    /// The EDL's media grid: every time of the EDL is a frame start of it.
    package let grid: FrameGrid
    /// The program the EDL makes now.
    package let timeline: EditTimeline

    /// - Throws: when the EDL has no `<media>` or its timeline breaks spec/edl.md §7.
    package init(_ edl: EditDecisionList) throws(RetimeError) {
        guard let media = edl.media else {
            throw RetimeError("an EDL with decisions or a timeline needs <media>, whose frame grid its times are on (spec/retime.md §3)")
        }
        self.edl = edl
        grid = FrameGrid(rate: media.frameRate, frameCount: Int64(media.frameCount))
        timeline = try EditTimeline(edl: edl)
    }

    var frameCount: Int64 { grid.frameCount ?? 0 }

    // MARK: Inactive decisions

    /// The decisions no kept range shows, in EDL order (spec/retime.md §2).
    package func inactiveDecisions() -> [InactiveDecision] {
        Retimer.inactive(edl.decisions, timeline)
    }

    static func inactive(_ decisions: [UserDecision], _ timeline: EditTimeline) -> [InactiveDecision] {
        decisions.enumerated().filter { !timeline.isKept(sourceFrame: $0.element.frame) }.map {
            InactiveDecision(index: $0.offset, decision: $0.element)
        }
    }

    // MARK: Helpers

    /// The start of frame `n`, in `like`'s timescale when that holds it exactly (the stored timescale
    /// is information, spec/edl.md §12), else in the grid's.
    func time(ofFrame n: Int64, like: MediaTime) -> MediaTime {
        let t = grid.time(ofFrame: n)
        if let same = t.converted(to: like.timescale, rounding: .towardZero), same == t { return same }
        return t
    }

    /// A report with the durations filled in and the inactive decisions of the result.
    func finish(_ edl: EditDecisionList, _ report: RetimeReport, timeline: EditTimeline) -> RetimeResult {
        var report = report
        report.outputDurationAfter = timeline.outputDuration
        report.inactive = Retimer.inactive(edl.decisions, timeline)
        for d in report.inactive {
            report.messages.append(
                "decision \(d.index + 1) at frame \(d.decision.frame) is outside the kept ranges: kept in the EDL, inactive for output")
        }
        if report.outputDurationBefore != report.outputDurationAfter {
            report.messages.append(
                "the program lasts \(report.outputDurationAfter.formattedSeconds()) (was \(report.outputDurationBefore.formattedSeconds()))"
            )
        }
        return RetimeResult(edl: edl, report: report)
    }

    func newReport() -> RetimeReport {
        RetimeReport(outputDurationBefore: timeline.outputDuration, outputDurationAfter: timeline.outputDuration)
    }

    /// Sorts decisions by frame (stable) and returns where each original index went.
    static func sorted(_ decisions: [(original: Int?, decision: UserDecision)]) -> [(original: Int?, decision: UserDecision)] {
        decisions.enumerated().sorted { ($0.element.decision.frame, $0.offset) < ($1.element.decision.frame, $1.offset) }.map(\.element)
    }

    // MARK: Move one decision

    /// Moves decision `index` to `time`, snapped to the nearest frame start (ties to the earlier frame;
    /// the report gives the requested and the snapped time). The decisions stay in time order, so the
    /// moved one may change index. Landing on another decision's frame is refused unless `replacing`,
    /// which removes that decision (reported). Landing on a trimmed-away frame is allowed and reported.
    package func moveDecision(_ index: Int, to time: MediaTime, replacing: Bool = false) throws(RetimeError) -> RetimeResult {
        guard edl.decisions.indices.contains(index) else {
            throw RetimeError("there is no decision at index \(index); the EDL has \(edl.decisions.count) (spec/retime.md §3.1)")
        }
        let what = "decision \(index + 1)"
        guard let snap = grid.checkedSnap(time) else {
            throw RetimeError("\(what): cannot move to \(time): far outside the media (spec/retime.md §3.1)")
        }
        guard grid.contains(frame: snap.frame) else {
            throw RetimeError(
                "\(what): cannot move to \(time) (frame \(snap.frame)): outside the media's frames 0…\(frameCount - 1) (spec/retime.md §3.1)"
            )
        }
        var report = newReport()
        report.snapped = snap
        if !snap.wasExact {
            report.messages.append("\(time) is not a frame start: snapped to frame \(snap.frame), at \(snap.time)")
        }
        let old = edl.decisions[index]
        var entries: [(original: Int?, decision: UserDecision)] = []
        for (i, d) in edl.decisions.enumerated() where i != index {
            if d.frame == snap.frame {
                guard replacing else {
                    throw RetimeError(
                        "\(what): frame \(snap.frame) already has decision \(i + 1); at most one decision per frame (move with replacing to replace it) (spec/retime.md §3.1)"
                    )
                }
                report.replaced.append(d)
                report.messages.append("decision \(i + 1) at frame \(d.frame) was replaced by the moved decision")
                continue
            }
            entries.append((i, d))
        }
        var moved = old
        if old.frame != snap.frame {
            moved.frame = snap.frame
            moved.time = self.time(ofFrame: snap.frame, like: old.time)
        }
        entries.append((index, moved))
        let result = Retimer.sorted(entries)
        var out = edl
        out.decisions = result.map(\.decision)
        let newIndex = result.firstIndex { $0.original == index }!
        if old.frame != snap.frame {
            report.moves.append(
                RetimeReport.Move(
                    fromIndex: index, toIndex: newIndex, fromFrame: old.frame, toFrame: moved.frame, fromTime: old.time, toTime: moved.time)
            )
            report.messages.append("\(what) moved from frame \(old.frame) (\(old.time)) to frame \(moved.frame) (\(moved.time))")
        } else {
            report.messages.append("\(what) is already at frame \(old.frame): nothing moved")
        }
        return finish(out, report, timeline: timeline)
    }

    // MARK: Shift a range

    /// Moves every decision whose time is in `range` (source time, half-open) by `offset`, snapped to a
    /// whole number of frames (ties to the earlier, i.e. smaller, count; reported). Refused, changing
    /// nothing, if a decision would leave the clip or land on the frame of a decision that does not move.
    /// Decisions stay in time order. Shifting the moved decisions back by the opposite offset restores
    /// the EDL (spec/retime.md §3.2).
    package func shift(range: Range<MediaTime>, by offset: MediaTime) throws(RetimeError) -> RetimeResult {
        guard let snapped = FrameGrid(rate: grid.rate).checkedSnap(offset) else {
            throw RetimeError("cannot shift by \(offset): far outside the media (spec/retime.md §3.2)")
        }
        var report = newReport()
        report.snapped = snapped
        let frames = snapped.frame
        if !snapped.wasExact {
            report.messages.append("offset \(offset) is not a whole number of frames: snapped to \(frames) frames (\(snapped.time))")
        }
        let moving = Set(edl.decisions.indices.filter { range.contains(edl.decisions[$0].time) })
        if moving.isEmpty || frames == 0 {
            report.messages.append(
                moving.isEmpty
                    ? "no decision lies in \(range.lowerBound)..<\(range.upperBound): nothing moved"
                    : "the offset is 0 frames: nothing moved"
            )
            return finish(edl, report, timeline: timeline)
        }
        let staying = Dictionary(
            edl.decisions.indices.filter { !moving.contains($0) }.map { (edl.decisions[$0].frame, $0) }, uniquingKeysWith: { a, _ in a })
        var entries: [(original: Int?, decision: UserDecision)] = []
        for (i, d) in edl.decisions.enumerated() {
            guard moving.contains(i) else {
                entries.append((i, d))
                continue
            }
            let (target, overflow) = d.frame.addingReportingOverflow(frames)
            guard !overflow, grid.contains(frame: target) else {
                throw RetimeError(
                    "decision \(i + 1) at frame \(d.frame) would move to frame \(overflow ? "beyond Int64" : String(target)), outside the media's frames 0…\(frameCount - 1); nothing was shifted (spec/retime.md §3.2)"
                )
            }
            if let other = staying[target] {
                throw RetimeError(
                    "decision \(i + 1) at frame \(d.frame) would land on frame \(target), which has decision \(other + 1) (not in the range); nothing was shifted (spec/retime.md §3.2)"
                )
            }
            var moved = d
            moved.frame = target
            moved.time = time(ofFrame: target, like: d.time)
            entries.append((i, moved))
        }
        let result = Retimer.sorted(entries)
        var out = edl
        out.decisions = result.map(\.decision)
        for (newIndex, entry) in result.enumerated() {
            guard let i = entry.original, moving.contains(i) else { continue }
            let old = edl.decisions[i]
            report.moves.append(
                RetimeReport.Move(
                    fromIndex: i, toIndex: newIndex, fromFrame: old.frame, toFrame: entry.decision.frame, fromTime: old.time,
                    toTime: entry.decision.time))
        }
        report.moves.sort { $0.fromIndex < $1.fromIndex }
        for m in report.moves {
            report.messages.append(
                "decision \(m.fromIndex + 1) moved from frame \(m.fromFrame) (\(m.fromTime)) to frame \(m.toFrame) (\(m.toTime))")
        }
        return finish(out, report, timeline: timeline)
    }

    // MARK: Trim

    /// Keeps exactly these source ranges, in this playback order (an empty list restores the whole
    /// clip). Each must have `start < end`, both frame starts inside the clip; ranges may not overlap
    /// unless `allowingRepeats` (a shot used twice, which spec/edl.md §7 allows). Decisions are never
    /// changed: those no kept range shows are reported as inactive (spec/retime.md §3.3).
    package func trim(keep ranges: [SourceRange], allowingRepeats: Bool = false) throws(RetimeError) -> RetimeResult {
        var frames: [Range<Int64>] = []
        for (i, r) in ranges.enumerated() {
            let span = try EditTimeline.frames(of: r.start, r.end, grid: grid, what: "range \(i + 1)")
            if !allowingRepeats, let j = frames.firstIndex(where: { $0.overlaps(span) }) {
                throw RetimeError(
                    "range \(i + 1) (\(r.start)..<\(r.end)) overlaps range \(j + 1) (\(ranges[j].start)..<\(ranges[j].end)); a trim keeps each source frame once (use allowingRepeats to play a shot twice) (spec/retime.md §3.3)"
                )
            }
            frames.append(span)
        }
        var out = edl
        out.sourceRanges = ranges
        let newTimeline = try EditTimeline(edl: out)
        var report = newReport()
        report.messages.append(
            ranges.isEmpty
                ? "no trim: the whole clip plays"
                : "keeping \(ranges.count) source range\(ranges.count == 1 ? "" : "s"): "
                    + ranges.map { "\($0.start)..<\($0.end)" }.joined(separator: ", "))
        return finish(out, report, timeline: newTimeline)
    }

    // MARK: Speed

    /// Plays source `[segment.start, segment.end)` at `segment`'s rate. Bounds must be frame starts inside
    /// the clip, `start < end`, both rate parts ≥ 1. Overlapping an existing speed segment is refused
    /// unless `replacing`, which cuts the existing ones back to the parts outside the new one (reported).
    /// A rate equal to 1 is normal speed: nothing is stored for it (with `replacing`, it clears the span).
    /// Refused when the program's times would not be representable (spec/retime.md §3.4).
    package func setSpeed(_ segment: SpeedSegment, replacing: Bool = false) throws(RetimeError) -> RetimeResult {
        let what = "speed \(segment.start)..<\(segment.end)"
        let span = try EditTimeline.frames(of: segment.start, segment.end, grid: grid, what: what)
        guard segment.rateNumerator >= 1, segment.rateDenominator >= 1 else {
            throw RetimeError(
                "\(what): rate \(segment.rateNumerator)/\(segment.rateDenominator) is not a speed; both parts are 1 or more (spec/retime.md §3.4)"
            )
        }
        var report = newReport()
        var kept: [SpeedSegment] = []
        for (i, s) in edl.speedSegments.enumerated() {
            let other = try EditTimeline.frames(of: s.start, s.end, grid: grid, what: "speed \(i + 1)")
            guard other.overlaps(span) else {
                kept.append(s)
                continue
            }
            guard replacing else {
                throw RetimeError(
                    "\(what) overlaps speed \(i + 1) (\(s.start)..<\(s.end) at \(s.rateNumerator)/\(s.rateDenominator)); speed changes do not overlap (set it with replacing to replace that part) (spec/retime.md §3.4)"
                )
            }
            report.replacedSpeedSegments.append(s)
            var parts: [String] = []
            if other.lowerBound < span.lowerBound {
                var left = s
                left.end = time(ofFrame: span.lowerBound, like: s.end)
                kept.append(left)
                parts.append("\(left.start)..<\(left.end)")
            }
            if other.upperBound > span.upperBound {
                var right = s
                right.start = time(ofFrame: span.upperBound, like: s.start)
                kept.append(right)
                parts.append("\(right.start)..<\(right.end)")
            }
            report.messages.append(
                "speed \(i + 1) (\(s.start)..<\(s.end) at \(s.rateNumerator)/\(s.rateDenominator)) "
                    + (parts.isEmpty ? "was replaced" : "was cut back to " + parts.joined(separator: " and ")))
        }
        if segment.rateNumerator == segment.rateDenominator {
            report.messages.append("\(what) plays at normal speed: no speed segment stored")
        } else {
            kept.append(segment)
            report.messages.append("\(what) plays at \(segment.rateNumerator)/\(segment.rateDenominator)")
        }
        kept.sort { $0.start < $1.start }
        var out = edl
        out.speedSegments = kept
        let newTimeline = try EditTimeline(edl: out)
        // A speed that does not give whole frames moves the frame phase of everything after it.
        for p in newTimeline.exact where p.startFrame >= span.lowerBound && p.endFrame <= span.upperBound {
            if let frames = p.outputEnd.subtracting(p.outputStart)?.divided(by: newTimeline.frameDuration), !frames.isInteger {
                report.messages.append(
                    "source frames \(p.startFrame)..<\(p.endFrame) last \(frames) program frames, not a whole number: the pieces after it start between program frame starts"
                )
            }
        }
        return finish(out, report, timeline: newTimeline)
    }
}
