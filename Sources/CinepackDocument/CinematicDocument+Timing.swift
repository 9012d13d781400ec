import CinepackEDL
import CinepackEditor
import CinepackTime

/// What setting the aperture did.
public struct ApertureChange: Sendable, Equatable {
    public var requested: Float
    /// The f-number stored: `requested` clamped to the movie's range.
    public var applied: Float
    /// The edited f-number before (nil: the captured default applied).
    public var previous: Float?
    public var wasClamped: Bool { applied != requested }
}

extension CinematicDocument {
    /// Sets the f-number renders use, clamped to the movie's aperture range (spec/format.md §7).
    @discardableResult
    public mutating func setAperture(_ fNumber: Float) throws(DocumentError) -> ApertureChange {
        guard fNumber.isFinite, fNumber > 0 else { throw .badFNumber(fNumber) }
        let applied = min(max(fNumber, parameters.minFNumber), parameters.maxFNumber)
        let previous = edl.fNumber
        try apply("aperture f/\(applied)") { $0.fNumber = applied }
        return ApertureChange(requested: fNumber, applied: applied, previous: previous)
    }

    /// Sets the lens look renders use (spec/render.md §5), stored in the EDL's `<aperture>`: the
    /// values `look` holds replace the stored ones, the others are kept; `replacing` starts from
    /// the default look instead. Undoable like every edit. Returns the look now stored.
    @discardableResult
    public mutating func setLens(_ look: ApertureLook, replacing: Bool = false) throws(DocumentError) -> ApertureLook {
        let next = (replacing ? ApertureLook() : edl.look).overridden(by: look)
        if let (attribute, reason) = next.problem { throw .badLensLook(attribute: attribute, reason: reason) }
        try apply(next.isEmpty ? "lens look reset" : "lens look") { $0.look = next }
        return next
    }

    /// Moves user decision `number` (from 1) to the frame `time` falls on; onto another decision's
    /// frame only when `replacing`.
    @discardableResult
    public mutating func retimeDecision(
        number: Int, to time: TimeExpression, replacing: Bool = false
    ) throws(DocumentError)
        -> RetimeReport
    {
        try retime("retime decision \(number)") { retimer throws(DocumentError) in
            let target = try Self.resolved(time, on: retimer.grid).time
            return try Self.timeline { () throws(RetimeError) in try retimer.moveDecision(number - 1, to: target, replacing: replacing) }
        }
    }

    /// Shifts every user decision in the source range by `offset` (seconds as given; frames and
    /// timecode as whole frames).
    @discardableResult
    public mutating func shiftDecisions(
        in range: TimeRangeExpression, by offset: TimeOffsetExpression
    ) throws(DocumentError)
        -> RetimeReport
    {
        try retime("shift \(offset) in \(range)") { retimer throws(DocumentError) in
            let r = try Self.sourceRange(range, on: retimer.grid)
            let by = try Self.offset(offset, on: retimer.grid)
            return try Self.timeline { () throws(RetimeError) in try retimer.shift(range: r.start..<r.end, by: by) }
        }
    }

    /// Keeps only these source ranges, in this order (empty: the whole clip again).
    @discardableResult
    public mutating func trim(
        keep ranges: [TimeRangeExpression], allowingRepeats: Bool = false
    ) throws(DocumentError)
        -> RetimeReport
    {
        let name = ranges.isEmpty ? "trim: whole clip" : "trim \(ranges.map(\.description).joined(separator: ", "))"
        return try retime(name) { retimer throws(DocumentError) in
            var kept: [SourceRange] = []
            for r in ranges { kept.append(try Self.sourceRange(r, on: retimer.grid)) }
            return try Self.timeline { () throws(RetimeError) in try retimer.trim(keep: kept, allowingRepeats: allowingRepeats) }
        }
    }

    /// Plays a source range at `rate` (2 = twice as fast); cuts back overlapped segments when `replacing`.
    @discardableResult
    public mutating func setSpeed(
        in range: TimeRangeExpression, rate: FrameRate, replacing: Bool = false
    ) throws(DocumentError)
        -> RetimeReport
    {
        try retime("speed \(rate) in \(range)") { retimer throws(DocumentError) in
            let r = try Self.sourceRange(range, on: retimer.grid)
            let segment = SpeedSegment(start: r.start, end: r.end, rateNumerator: rate.frames, rateDenominator: rate.seconds)
            return try Self.timeline { () throws(RetimeError) in try retimer.setSpeed(segment, replacing: replacing) }
        }
    }

    /// Runs a `Retimer` operation on the edits and records its EDL as one step.
    private mutating func retime(
        _ description: String, _ operation: (Retimer) throws(DocumentError) -> RetimeResult
    )
        throws(DocumentError) -> RetimeReport
    {
        let retimer = try Self.timeline { () throws(RetimeError) in try Retimer(edl) }
        let result = try operation(retimer)
        try apply(description) { $0 = result.edl }
        return result.report
    }

    private static func timeline<T>(_ body: () throws(RetimeError) -> T) throws(DocumentError) -> T {
        do { return try body() } catch { throw .timeline(error) }
    }

    static func resolved(_ time: TimeExpression, on grid: FrameGrid) throws(DocumentError) -> SnappedTime {
        do { return try time.resolve(on: grid) } catch { throw .badTime(requested: time.description, cause: error) }
    }

    static func sourceRange(_ range: TimeRangeExpression, on grid: FrameGrid) throws(DocumentError) -> SourceRange {
        do {
            let r = try range.resolve(on: grid)
            return SourceRange(start: r.start.time, end: r.end.time)
        } catch { throw .badTime(requested: range.description, cause: error) }
    }

    /// A signed offset on the grid: seconds as given, frames and timecode as whole frames.
    static func offset(_ offset: TimeOffsetExpression, on grid: FrameGrid) throws(DocumentError) -> MediaTime {
        let magnitude: MediaTime
        switch offset.magnitude {
        case .seconds(let t): magnitude = t
        default:
            do { magnitude = try offset.magnitude.resolve(on: FrameGrid(rate: grid.rate)).time } catch {
                throw .badTime(requested: offset.description, cause: error)
            }
        }
        return offset.negative ? (magnitude.negated() ?? magnitude) : magnitude
    }
}
