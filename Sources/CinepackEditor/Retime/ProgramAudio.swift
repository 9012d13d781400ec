import CinepackEDL
import CinepackTime

/// The audio a program plays: for a range of program frames, which source audio spans play, one
/// after another, at which speed (spec/retime.md §6). A cut falls at the same rational time as the
/// picture's, rounded to the nearest audio sample; a speed change plays its span `N/D` times as
/// fast (tempo changed, pitch kept). The one computation every renderer of a program uses
/// (whole renders, shards, concatenation).
package struct ProgramAudio: Sendable, Equatable {
    /// One source span played at one speed.
    package struct Segment: Sendable, Equatable {
        package var sourceStart: MediaTime
        package var sourceEnd: MediaTime
        /// Source seconds per program second (2/1 = twice as fast).
        package var rateNumerator: Int64
        package var rateDenominator: Int64
        /// Where it plays, from the start of the rendered range.
        package var outputStart: MediaTime
        package var outputEnd: MediaTime

        package var rate: Double { Double(rateNumerator) / Double(rateDenominator) }
    }

    package let segments: [Segment]
    /// The rendered range's length: its frames times the frame duration. Audio past the last
    /// segment (a program whose end is not on a frame boundary) is silence.
    package let duration: MediaTime

    /// The audio of program frames `frames` of `timeline`.
    package init(timeline: EditTimeline, frames: Range<Int64>) {
        let grid = timeline.outputGrid
        let start = grid.time(ofFrame: frames.lowerBound)
        let end = grid.time(ofFrame: frames.upperBound)
        var segments: [Segment] = []
        for piece in timeline.pieces {
            let lo = max(start, piece.outputStart)
            let hi = min(end, piece.outputEnd)
            guard lo < hi else { continue }
            let rate = Double(piece.rateNumerator) / Double(piece.rateDenominator)
            func source(_ t: MediaTime) -> MediaTime {
                if t == piece.outputStart { return piece.sourceStart }
                if t == piece.outputEnd { return piece.sourceEnd }
                if let exact = timeline.sourceTime(ofOutput: t), t < piece.outputEnd { return exact }
                // Not representable exactly: the nearest microsecond.
                let seconds = piece.sourceStart.seconds + (t.seconds - piece.outputStart.seconds) * rate
                return MediaTime(value: Int64((seconds * 1_000_000).rounded()), timescale: 1_000_000)
            }
            segments.append(
                Segment(
                    sourceStart: source(lo), sourceEnd: source(hi), rateNumerator: piece.rateNumerator,
                    rateDenominator: piece.rateDenominator, outputStart: lo - start, outputEnd: hi - start))
        }
        self.segments = segments
        duration = end - start
    }

    /// Whether the audio is the source's from its start, untouched (a plain copy will do).
    package var isWholeSourceAtSpeedOne: Bool {
        segments.count == 1 && segments[0].sourceStart == .zero && segments[0].rateNumerator == segments[0].rateDenominator
    }

    /// The sample at which time `t` falls, rounded to the nearest.
    package static func sample(_ t: MediaTime, rate: Int) -> Int64 {
        Int64((t.seconds * Double(rate)).rounded())
    }

    /// An ffmpeg filter graph that makes this audio from the source audio on `input` (e.g.
    /// `1:a:0`) at `sampleRate`, labelled `output`: each segment cut sample-accurately
    /// (`atrim` on sample numbers), retimed with `atempo` (chained for speeds under 1/2), padded
    /// or cut to its exact length in samples, then the segments joined and the whole padded to
    /// the range's length.
    package func ffmpegFilter(input: String, sampleRate: Int, output: String) -> String {
        var chains: [String] = []
        let n = segments.count
        let total = Self.sample(duration, rate: sampleRate)
        guard n > 0 else {
            return "[\(input)]atrim=end_sample=0,apad=whole_len=\(total),atrim=end_sample=\(total)[\(output)]"
        }
        chains.append("[\(input)]asplit=\(n)" + (0..<n).map { "[src\($0)]" }.joined())
        for (i, s) in segments.enumerated() {
            let a = Self.sample(s.sourceStart, rate: sampleRate)
            let b = max(a, Self.sample(s.sourceEnd, rate: sampleRate))
            let length = Self.sample(s.outputEnd, rate: sampleRate) - Self.sample(s.outputStart, rate: sampleRate)
            var filters = ["atrim=start_sample=\(a):end_sample=\(b)", "asetpts=PTS-STARTPTS"]
            filters += Self.tempoFilters(s.rate)
            filters += ["apad=whole_len=\(length)", "atrim=end_sample=\(length)", "asetpts=PTS-STARTPTS"]
            chains.append("[src\(i)]" + filters.joined(separator: ",") + "[seg\(i)]")
        }
        let joined = (0..<n).map { "[seg\($0)]" }.joined()
        chains.append("\(joined)concat=n=\(n):v=0:a=1,apad=whole_len=\(total),atrim=end_sample=\(total)[\(output)]")
        return chains.joined(separator: ";")
    }

    /// `atempo` takes 0.5…100 per instance: slower speeds are a chain of halvings and a remainder.
    static func tempoFilters(_ rate: Double) -> [String] {
        guard rate != 1 else { return [] }
        var remaining = rate
        var filters: [String] = []
        while remaining < 0.5 {
            filters.append("atempo=0.5")
            remaining /= 0.5
        }
        while remaining > 100 {
            filters.append("atempo=100")
            remaining /= 100
        }
        filters.append("atempo=\(remaining)")
        return filters
    }
}
