import CinepackEDL
import CinepackTime
import Testing

@testable import CinepackEditor

/// The program's audio (spec/retime.md §6): segments against values worked out by hand, and the
/// ffmpeg filter graph's sample numbers.
@Suite struct ProgramAudioTests {
    typealias F = RetimeFixtures

    /// 30 fps, keep frames 0..<30 and 60..<90, frames 15..<30 at 2/1: pieces 0..<15 (0.5 s),
    /// 15..<30 at 2× (0.25 s), 60..<90 (1 s); 1.75 s, 53 frames (the last one cut short).
    static func timeline() throws -> EditTimeline {
        try EditTimeline(sourceRanges: [F.range(0, 30), F.range(60, 90)], speedSegments: [F.speed(15, 30, 2, 1)], grid: F.grid())
    }

    static func s(_ seconds: Double) -> MediaTime { MediaTime(value: Int64((seconds * 120).rounded()), timescale: 120) }

    @Test func segmentsFollowThePieces() throws {
        let timeline = try Self.timeline()
        let audio = ProgramAudio(timeline: timeline, frames: 0..<timeline.outputFrameCount)
        #expect(timeline.outputFrameCount == 53)
        #expect(audio.segments.count == 3)
        let expected: [(Double, Double, Int64, Double, Double)] = [(0, 0.5, 1, 0, 0.5), (0.5, 1, 2, 0.5, 0.75), (2, 3, 1, 0.75, 1.75)]
        for (segment, e) in zip(audio.segments, expected) {
            #expect(segment.sourceStart == Self.s(e.0) && segment.sourceEnd == Self.s(e.1), "\(segment)")
            #expect(segment.rateNumerator == e.2 && segment.rateDenominator == 1)
            #expect(segment.outputStart == Self.s(e.3) && segment.outputEnd == Self.s(e.4), "\(segment)")
        }
        // 53 frames: the program's last frame runs past the last piece; that part is silence.
        #expect(audio.duration == MediaTime(value: 53, timescale: 30))
    }

    @Test func aRangeOfFramesCutsInsidePieces() throws {
        let timeline = try Self.timeline()
        // Program frames 10..<40: 1/3 s … 4/3 s.
        let audio = ProgramAudio(timeline: timeline, frames: 10..<40)
        #expect(audio.segments.count == 3)
        #expect(audio.segments[0].sourceStart == MediaTime(value: 10, timescale: 30))
        #expect(audio.segments[0].outputStart == .zero)
        // Program 4/3 s is 4/3 − 0.75 = 7/12 s into the last piece: source 2 + 7/12 s.
        #expect(audio.segments[2].sourceEnd.seconds == 2 + 7.0 / 12)
        #expect(audio.segments[2].outputEnd == MediaTime(value: 1, timescale: 1))
        #expect(audio.duration == MediaTime(value: 1, timescale: 1))
    }

    @Test func filterCutsOnSampleNumbers() throws {
        let timeline = try Self.timeline()
        let audio = ProgramAudio(timeline: timeline, frames: 0..<timeline.outputFrameCount)
        let filter = audio.ffmpegFilter(input: "1:a:0", sampleRate: 48000, output: "aout")
        #expect(filter.hasPrefix("[1:a:0]asplit=3[src0][src1][src2];"))
        #expect(filter.contains("[src0]atrim=start_sample=0:end_sample=24000,asetpts=PTS-STARTPTS,apad=whole_len=24000,"))
        #expect(filter.contains("[src1]atrim=start_sample=24000:end_sample=48000,asetpts=PTS-STARTPTS,atempo=2.0,apad=whole_len=12000"))
        #expect(filter.contains("[src2]atrim=start_sample=96000:end_sample=144000,"))
        // 53 frames at 30 fps = 84 800 samples.
        #expect(filter.hasSuffix("concat=n=3:v=0:a=1,apad=whole_len=84800,atrim=end_sample=84800[aout]"))
        #expect(ProgramAudio.tempoFilters(0.2) == ["atempo=0.5", "atempo=0.5", "atempo=0.8"])
        #expect(!audio.isWholeSourceAtSpeedOne)
    }
}
