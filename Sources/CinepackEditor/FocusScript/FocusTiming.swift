import CinepackFormat
import CinepackTime

/// The focus timing parameters of a movie, made safe to compute with, and the frame grid in seconds
/// (spec/focus.md §1).
struct FocusTiming: Sendable {
    /// Times compared with parameter durations may differ by this much and still count as equal
    /// (parameters are binary32, frame times binary64 approximations of exact rationals).
    static let tolerance = 1e-6
    /// Longest duration any parameter is taken to mean, seconds (a day): keeps frame counts finite.
    static let longest = 86_400.0

    let maxDisparityRate: Double
    let minTransition: Double
    let maxTransition: Double
    let gapBridge: Double
    let weakSuppression: Double
    /// B: the most missing frames a track bridges (whole frames whose total duration ≤ gapBridge).
    let bridgeFrames: Int
    /// Frames from a lost subject's last observation to the revert: max(B, 1).
    let revertFrames: Int

    private let origin: Double
    private let rateFrames: Double
    private let rateSeconds: Double

    init(parameters p: CinematicParameters, grid: FrameGrid) {
        maxDisparityRate = p.maxDisparityRate.isFinite ? max(Double(p.maxDisparityRate), 0) : 0
        minTransition = Self.duration(p.minTransition)
        maxTransition = Self.duration(p.maxTransition)
        gapBridge = Self.duration(p.gapBridge)
        weakSuppression = Self.duration(p.weakSuppression)
        origin = grid.start.seconds
        rateFrames = Double(grid.rate.frames)
        rateSeconds = Double(grid.rate.seconds)
        bridgeFrames = Int((gapBridge * rateFrames / rateSeconds + Self.tolerance).rounded(.down))
        revertFrames = max(bridgeFrames, 1)
    }

    /// A duration parameter as seconds in [0, a day]; non-finite values count as 0.
    static func duration(_ value: Float) -> Double {
        value.isFinite ? min(max(Double(value), 0), longest) : 0
    }

    static func duration(_ value: Double?) -> Double? {
        guard let value else { return nil }
        return value.isFinite ? min(max(value, 0), longest) : nil
    }

    /// Seconds of frame `n`'s start (one rounding: exact for the grids in use up to binary64 precision).
    func seconds(ofFrame n: Int) -> Double { origin + Double(n) * rateSeconds / rateFrames }

    /// The nominal rack duration for a disparity change: |change| / rate, clamped to [min, max]; when
    /// min > max, max wins. Per-decision bounds replace the movie's.
    func transitionDuration(change: Float, minimum: Double?, maximum: Double?) -> Double {
        let low = Self.duration(minimum) ?? minTransition
        let high = Self.duration(maximum) ?? maxTransition
        let size = Double(abs(change))
        let raw: Double
        if size == 0 {
            raw = 0
        } else if maxDisparityRate > 0, size.isFinite {
            raw = size / maxDisparityRate
        } else {
            raw = .infinity
        }
        return min(max(raw, low), high)
    }
}
