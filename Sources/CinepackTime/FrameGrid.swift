/// A grid of frames: frame `n` starts at `start + n * rate.frameDuration`.
///
/// All positions are computed exactly, in "ticks" of `1/lcm(start.timescale, rate.frames)` seconds, with
/// 128-bit intermediates. The methods that cannot fail for ordinary media (`time(ofFrame:)`, `snap(_:)`,
/// `frame(containing:)`) trap when a result is not representable; each has a `checked…` form returning nil,
/// which is what code handling user or file input uses.
public struct FrameGrid: Sendable, Hashable {
    public let rate: FrameRate
    /// The time of frame 0.
    public let start: MediaTime
    /// The number of frames, when known. Nothing here clamps to it; see `contains(frame:)`.
    public let frameCount: Int64?

    /// - Precondition: `frameCount` is nil or >= 0.
    public init(rate: FrameRate, start: MediaTime = .zero, frameCount: Int64? = nil) {
        precondition((frameCount ?? 0) >= 0, "FrameGrid.frameCount must not be negative, got \(frameCount ?? 0)")
        self.rate = rate
        self.start = start
        self.frameCount = frameCount
    }

    public var frameDuration: MediaTime { rate.frameDuration }

    /// Whether `n` is a frame of the clip: `0 <= n < frameCount` (any `n >= 0` when the count is unknown).
    public func contains(frame n: Int64) -> Bool {
        n >= 0 && n < (frameCount ?? Int64.max)
    }

    /// The grid in integer ticks of 1/lcm(start.timescale, rate.frames) s: ticks per second (<= 2^62),
    /// the start in ticks, and ticks per frame (<= 2^62).
    private var ticks: (perSecond: Int64, start: WideInt, perFrame: Int64) {
        let ts = Int64(start.timescale)
        let f = rate.frames
        let perSecond = ts / greatestCommonDivisor(ts, f) * f
        return (perSecond, WideInt.product(start.value, perSecond / ts), rate.seconds * (perSecond / f))
    }

    // MARK: Frame → time

    /// The exact start time of frame `n`; nil if it cannot be represented (beyond `Int64` ticks, or start and
    /// frame duration have no common timescale within `Int32`).
    public func checkedTime(ofFrame n: Int64) -> MediaTime? {
        let t = ticks
        guard let offset = WideInt(n).multiplied(by: t.perFrame), let total = t.start.adding(offset) else {
            return nil
        }
        return MediaTime(exactly: total, over: t.perSecond)
    }

    /// The exact start time of frame `n`, e.g. frame 369 at 30000/1001 is `369369/30000s`.
    /// - Precondition: the time is representable (see `checkedTime(ofFrame:)`).
    public func time(ofFrame n: Int64) -> MediaTime {
        guard let t = checkedTime(ofFrame: n) else {
            preconditionFailure("FrameGrid: time of frame \(n) at \(rate) fps from \(start) is not representable")
        }
        return t
    }

    // MARK: Time → frame

    /// Where `t` falls: the frame containing it (floor), the nearest frame (ties to the earlier one),
    /// and whether it is exactly on a frame start. Nil if the frame index does not fit in `Int64`.
    private func position(of t: MediaTime) -> (floor: Int64, nearest: Int64, exact: Bool)? {
        let g = ticks
        let tts = Int64(t.timescale)
        // (t - start) in ticks is n / tts, where n = t.value * perSecond - start * tts (below 2^127).
        guard let scaledStart = g.start.multiplied(by: tts),
            let n = WideInt.product(t.value, g.perSecond).subtracting(scaledStart)
        else { return nil }
        // floor(n / (tts * perFrame)) in two floor divisions, which compose exactly for positive divisors.
        let (q1, r1) = n.floorDivided(by: tts)
        let (q2, r2) = q1.floorDivided(by: g.perFrame)
        guard let frame = q2.int64 else { return nil }
        // The part past `frame`, as a fraction of a frame: (r2 * tts + r1) / (tts * perFrame), in [0, 1).
        guard let past = WideInt.product(r2, tts).adding(WideInt(r1)) else { return nil }
        let whole = WideInt.product(tts, g.perFrame)
        guard let rest = whole.subtracting(past) else { return nil }
        // Strictly more than half way goes forward; exactly half way stays on the earlier frame (spec/time.md §3).
        if past > rest {
            let (next, overflow) = frame.addingReportingOverflow(1)
            guard !overflow else { return nil }
            return (frame, next, false)
        }
        return (frame, frame, r1 == 0 && r2 == 0)
    }

    /// `t` snapped to the nearest frame, ties to the earlier frame; nil if not representable.
    /// The frame index is not clamped: it may be negative or past `frameCount`.
    public func checkedSnap(_ t: MediaTime) -> SnappedTime? {
        guard let p = position(of: t), let time = checkedTime(ofFrame: p.nearest) else { return nil }
        return SnappedTime(frame: p.nearest, time: time, requested: t, wasExact: p.exact)
    }

    /// The nearest frame to `t`; a time exactly halfway between two frames goes to the EARLIER frame
    /// (spec/time.md §3). Clamps nothing: the index may be negative or >= `frameCount`; callers check range.
    /// - Precondition: the result is representable (see `checkedSnap(_:)`).
    public func snap(_ t: MediaTime) -> SnappedTime {
        guard let s = checkedSnap(t) else {
            preconditionFailure("FrameGrid: cannot snap \(t) to \(rate) fps from \(start): out of range")
        }
        return s
    }

    /// The frame whose interval `[time(n), time(n + 1))` contains `t` (floor); nil if out of range.
    public func checkedFrame(containing t: MediaTime) -> Int64? {
        position(of: t)?.floor
    }

    /// The frame whose interval `[time(n), time(n + 1))` contains `t` (floor). Not clamped.
    /// - Precondition: the index fits in `Int64` (see `checkedFrame(containing:)`).
    public func frame(containing t: MediaTime) -> Int64 {
        guard let n = checkedFrame(containing: t) else {
            preconditionFailure("FrameGrid: frame containing \(t) at \(rate) fps is out of range")
        }
        return n
    }
}

/// A requested time and the frame it was snapped to; both are reported back to the user (spec/time.md §3).
public struct SnappedTime: Sendable, Hashable {
    /// Index on the grid; may be outside the clip.
    public var frame: Int64
    /// The exact start time of `frame`.
    public var time: MediaTime
    /// What was asked for.
    public var requested: MediaTime
    /// True when `requested` was exactly on a frame start, so nothing moved.
    public var wasExact: Bool

    public init(frame: Int64, time: MediaTime, requested: MediaTime, wasExact: Bool) {
        self.frame = frame
        self.time = time
        self.requested = requested
        self.wasExact = wasExact
    }
}
