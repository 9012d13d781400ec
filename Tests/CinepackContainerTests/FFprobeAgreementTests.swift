import Foundation
import TestSupport
import Testing

@testable import CinepackContainer

/// The box reader against ffprobe, on small files ffmpeg writes at test time: faststart and
/// moov-last MP4, PNG in MOV, fragmented MP4 (with and without samples in moov), 4-channel PCM
/// in MOV, several kinds of edit list (B-frame delay, AAC priming, a leading empty edit, a stream
/// copy cut mid-GOP, one longer than its media), a timecode track and `mov_text` subtitles. For every stream ffprobe reports, our track at the same
/// position must have the same id, sample entry type, picture size, sample count and duration,
/// as exact integers; the movie duration must agree to one movie tick.
///
/// Runs whenever CI=true (failing if ffmpeg or ffprobe is missing); elsewhere skipped when
/// they are not installed.
struct FFprobeAgreementTests {
    /// One generated file: how ffmpeg makes it, and what it must show beyond agreeing with ffprobe
    /// (so that each case really exercises what its name says).
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// ffmpeg argument lists run in order; the last writes `name`.
        var steps: @Sendable (_ path: (String) -> String) -> [[String]]
        /// Applied to the bytes of the finished file, for the one case ffmpeg cannot write.
        var patch: (@Sendable (inout [UInt8]) throws -> Void)? = nil
        var checks: @Sendable (Movie) throws -> Void = { _ in }
        var testDescription: String { name }
    }

    static let video = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1"]
    static let sine = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1"]
    static let h264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
    /// x264's fastest preset turns B-frames off; this one keeps two.
    static let h264BFrames = ["-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-pix_fmt", "yuv420p"]
    static let fragmented = ["-movflags", "frag_keyframe+empty_moov+default_base_moof"]
    static let subtitles = """
        1
        00:00:00,000 --> 00:00:00,800
        Hello

        2
        00:00:01,000 --> 00:00:01,800
        World

        """

    static let cases: [Case] = [
        Case(
            name: "h264-faststart.mp4", steps: { p in [video + h264 + ["-movflags", "+faststart", p("h264-faststart.mp4")]] },
            checks: { movie in
                let order = movie.tree.boxes.map(\.type)
                let moov = try #require(order.firstIndex(of: "moov")), mdat = try #require(order.firstIndex(of: "mdat"))
                #expect(moov < mdat)
            }),
        Case(
            name: "h264-moov-last.mp4", steps: { p in [video + h264 + [p("h264-moov-last.mp4")]] },
            checks: { movie in
                let order = movie.tree.boxes.map(\.type)
                let moov = try #require(order.firstIndex(of: "moov")), mdat = try #require(order.firstIndex(of: "mdat"))
                #expect(moov > mdat)
            }),
        Case(
            name: "png.mov", steps: { p in [video + ["-c:v", "png", p("png.mov")]] },
            checks: { movie in #expect(movie.tracks.first?.codec == "png ") }),
        Case(
            name: "fragmented.mp4",
            steps: { p in [video + sine + h264 + ["-c:a", "aac"] + fragmented + [p("fragmented.mp4")]] },
            checks: { movie in
                #expect(movie.isFragmented)
                #expect(movie.fragmentCount >= 1)
                #expect(movie.header.duration == 0, "empty_moov: every sample is in a fragment")
            }),
        Case(
            name: "fragmented-duration.mp4",
            steps: { p in [video + h264 + ["-g", "5"] + fragmented + ["-frag_duration", "200000", p("fragmented-duration.mp4")]] },
            checks: { movie in
                #expect(movie.isFragmented)
                #expect(movie.fragmentCount == 5, "a keyframe every 5 frames, 0.2 s fragments")
            }),
        Case(
            name: "pcm-s16-4ch.mov",
            steps: { p in [video + sine + ["-c:v", "png", "-c:a", "pcm_s16le", "-ac", "4", p("pcm-s16-4ch.mov")]] },
            checks: { movie in
                let audio = try #require(movie.tracks.first { $0.kind == .audio })
                #expect(audio.codec == "sowt")
                #expect(audio.audio?.channelCount == 4)
            }),
        Case(
            name: "pcm-s24-4ch.mov", steps: { p in [sine + ["-c:a", "pcm_s24le", "-ac", "4", p("pcm-s24-4ch.mov")]] },
            checks: { movie in
                let audio = try #require(movie.tracks.first)
                #expect(audio.codec == "in24")
                #expect(audio.audio?.channelCount == 4)
            }),
        // Without empty_moov the first fragment's samples sit in moov's sample table, mvhd counts only
        // those, and there is no mehd: the movie lasts as long as its fragments say.
        Case(
            name: "fragmented-moov.mp4",
            steps: { p in
                [video + sine + h264BFrames + ["-g", "10", "-c:a", "aac", "-movflags", "frag_keyframe", p("fragmented-moov.mp4")]]
            },
            checks: { movie in
                #expect(movie.isFragmented)
                #expect(movie.moov.child("mvex")?.child("mehd") == nil)
                let video = try #require(movie.tracks.first)
                let inMoov = try #require(video.box.descendant(["mdia", "minf", "stbl", "stsz"])?.content(as: SampleSizeBox.self))
                #expect(inMoov.sampleCount > 0 && Int(inMoov.sampleCount) < video.samples.count)
                #expect(video.samples.hasCompositionOffsets && video.editList == nil)
                #expect(Int64(movie.header.duration) < movie.duration)
            }),
        // B-frames: ffmpeg delays composition by two frames in ctts and skips them with the edit.
        Case(
            name: "h264-bframes.mp4", steps: { p in [video + h264BFrames + [p("h264-bframes.mp4")]] },
            checks: { movie in
                let track = try #require(movie.tracks.first)
                #expect(track.samples.hasCompositionOffsets)
                #expect(track.editList?.entries.map(\.mediaTime) == [1024])
            }),
        // AAC: the edit skips the encoder's 1024 priming samples.
        Case(
            name: "aac.mp4", steps: { p in [video + sine + h264 + ["-c:a", "aac", p("aac.mp4")]] },
            checks: { movie in
                let audio = try #require(movie.tracks.first { $0.kind == .audio })
                #expect(audio.codec == "mp4a")
                #expect(audio.editList?.entries.map(\.mediaTime) == [1024])
            }),
        // A leading empty edit delays the audio by 0.3 s.
        Case(
            name: "itsoffset.mov",
            steps: { p in [video + ["-itsoffset", "0.3"] + sine + h264 + ["-c:a", "pcm_s16le", p("itsoffset.mov")]] },
            checks: { movie in
                let audio = try #require(movie.tracks.first { $0.kind == .audio })
                #expect(audio.editList?.entries.map(\.mediaTime) == [-1, 0])
            }),
        // A stream copy from 0.3 s: the edit starts mid-GOP (the samples from the keyframe stay) and
        // runs to the end of the copied media's composition times, past the end of its decode times.
        Case(
            name: "cut-mid-gop.mp4",
            steps: { p in
                [
                    ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2"] + h264BFrames + ["-g", "25", p("gop.mp4")],
                    ["-ss", "0.3", "-t", "0.8", "-i", p("gop.mp4"), "-c", "copy", p("cut-mid-gop.mp4")],
                ]
            },
            checks: { movie in
                let track = try #require(movie.tracks.first)
                let edit = try #require(track.editList?.entries.first)
                #expect(edit.mediaTime > 0)
                let media = rescale(Int64(edit.segmentDuration), from: movie.timescale, to: track.timescale)
                #expect(edit.mediaTime + media > track.mediaDuration, "the edit must end past the last decode time")
            }),
        // ffmpeg never writes an edit longer than its media; lengthen the one of a plain file to
        // 1.5 s of 1 s of media. Presentation can only show the media there is.
        Case(
            name: "edit-past-media.mp4", steps: { p in [video + h264 + ["-movflags", "+faststart", p("edit-past-media.mp4")]] },
            patch: { bytes in
                // With moov first, the first 'elst' bytes are the box type. Then come version and
                // flags, entry_count, and (version 0) the 32-bit segment_duration.
                let at = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual("elst".utf8) })
                try #require(
                    bytes[at + 4..<at + 16].elementsEqual([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0x03, 0xE8]),
                    "version 0, one edit of 1000 movie ticks")
                bytes[at + 14] = 0x05
                bytes[at + 15] = 0xDC
            },
            checks: { movie in #expect(movie.tracks.first?.editList?.entries.first?.segmentDuration == 1500) }),
        Case(
            name: "timecode.mov", steps: { p in [video + ["-c:v", "png", "-timecode", "01:00:00:00", p("timecode.mov")]] },
            checks: { movie in
                let timecode = try #require(movie.tracks.first { $0.kind == .timecode })
                #expect(timecode.codec == "tmcd")
                #expect(movie.tracks.first?.referencedTracks("tmcd") == [timecode.id])
            }),
        Case(
            name: "subtitles.mp4",
            steps: { p in [video + ["-i", p("subtitles.srt")] + h264 + ["-c:s", "mov_text", p("subtitles.mp4")]] },
            checks: { movie in #expect(movie.tracks.last?.kind == .text) }),
        Case(
            name: "subtitles.mov",
            steps: { p in [video + ["-i", p("subtitles.srt"), "-c:v", "png", "-c:s", "mov_text", p("subtitles.mov")]] },
            checks: { movie in #expect(movie.tracks.last?.kind == .text) }),
    ]

    @Test(arguments: cases)
    func agreesWithFFprobe(_ testCase: Case) throws {
        guard try Peers.available("ffmpeg"), try Peers.available("ffprobe") else { return }
        let dir = try Paths.temporaryDirectory("ffprobe-\(testCase.name)")
        try Self.subtitles.write(toFile: dir.file("subtitles.srt"), atomically: true, encoding: .utf8)
        let quiet = ["-hide_banner", "-v", "error", "-nostdin", "-y", "-fflags", "+bitexact", "-flags", "+bitexact"]
        for step in testCase.steps(dir.file) { try Peers.run("ffmpeg", quiet + step) }
        let path = dir.file(testCase.name)
        if let patch = testCase.patch {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            try patch(&bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }

        let movie = try Movie.read(path: path)
        let probe = try Self.probe(path)
        #expect(movie.diagnostics.isEmpty, "\(movie.diagnostics)")
        try testCase.checks(movie)

        try #require(movie.tracks.count == probe.streams.count)
        #expect(probe.format.nbStreams == movie.tracks.count)
        for (track, stream) in zip(movie.tracks, probe.streams) {
            let label = Comment(rawValue: "\(testCase.name) track \(track.id) (stream \(stream.index))")
            // ffprobe shows the MOV track id as the stream id, in hex.
            #expect(stream.id.flatMap { UInt32($0.dropFirst(2), radix: 16) } == track.id, label)

            // Both trimmed of trailing spaces ('png ', 'raw '), compared case-sensitively.
            let ours = try #require(track.codec, label).description
            #expect(Self.trimmed(ours) == Self.trimmed(stream.codecTagString), label)

            if stream.width != nil || stream.height != nil {
                let visual = try #require(track.visual, label)
                #expect(Int(visual.width) == stream.width, label)
                #expect(Int(visual.height) == stream.height, label)
            }
            // Channels and rate only where the sample entry is authoritative: for uncompressed
            // PCM. An MP4 'mp4a' entry carries the fixed template value 2 for channels; ffprobe
            // reports the count from the decoder configuration in 'esds'.
            if stream.codecType == "audio", let name = stream.codecName, name.hasPrefix("pcm_") {
                let audio = try #require(track.audio, label)
                #expect(Int(audio.channelCount) == stream.channels, label)
                #expect(audio.sampleRate == stream.sampleRate.flatMap(Double.init), label)
            }

            // nb_frames is the stsz sample count, and the one to compare: for PCM, nb_read_packets
            // counts ffmpeg's grouped reads, and for mov_text it leaves out empty samples. But in a
            // fragmented file nb_frames counts only the samples in moov (or is absent); there
            // nb_read_packets counts every sample of every fragment, one packet each.
            let frames = movie.isFragmented ? stream.nbReadPackets : stream.nbFrames ?? stream.nbReadPackets
            let count = try #require(frames.flatMap { Int($0) }, label)
            #expect(track.samples.count == count, label)

            // duration_ts is in the stream time base, which for MOV/MP4 is 1/(media timescale).
            #expect(stream.timeBase == "1/\(track.timescale)", label)
            let expected = try Self.presentation(of: track, movieTimescale: movie.timescale)
            #expect(stream.durationTs == expected.duration, label)
            #expect(stream.startPts == expected.start, label)
        }

        // format.duration is the movie duration in seconds (mvhd; for a fragmented file without
        // mehd, the longest stream), printed to the microsecond: within one of our movie ticks.
        let seconds = try #require(probe.format.duration.flatMap(Double.init))
        #expect(
            abs(seconds * Double(movie.timescale) - Double(movie.duration)) <= 1,
            "ffprobe \(seconds) s, ours \(movie.duration)/\(movie.timescale)")
    }

    /// The track's presentation in its media timescale: where it starts and how long it lasts.
    ///
    /// Without an edit list, the media timeline is the presentation: the track starts at its
    /// earliest composition time (after B-frame reordering, not 0) and lasts the sum of the sample
    /// durations (`mediaDuration`).
    ///
    /// With an edit list (ISO/IEC 14496-12 §8.6.6), leading empty edits are a delay before the
    /// track starts: ffprobe reports them as `start_pts`, not in `duration_ts`. Every later edit
    /// lasts its segment duration, converted from the movie to the media timescale (rounded to
    /// nearest, as FFmpeg's `av_rescale`), but a non-empty edit cannot show media that is not
    /// there: it is capped at the end of the track's composition timeline (latest composition time
    /// plus duration) minus its `media_time`. That cap is what ffprobe reports for a stream copy
    /// cut mid-GOP, whose edit ends past the last decode time but not past the last composition
    /// end, and for an edit longer than its media. FFmpeg's own rule (`mov_fix_index`: the edits'
    /// total, at most the media duration) gives the same numbers on every file here.
    static func presentation(of track: Track, movieTimescale: UInt32) throws -> (start: Int64, duration: Int64) {
        var compositionStart = Int64.max, compositionEnd: Int64 = 0
        track.samples.forEach {
            compositionStart = min(compositionStart, $0.compositionTime)
            compositionEnd = max(compositionEnd, $0.compositionTime + $0.duration)
        }
        guard let edits = track.editList?.entries, !edits.isEmpty else {
            return (track.samples.isEmpty ? 0 : compositionStart, track.mediaDuration)
        }
        var start: Int64 = 0
        var duration: Int64 = 0
        var leading = true
        for edit in edits {
            let length = rescale(try #require(Int64(exactly: edit.segmentDuration)), from: movieTimescale, to: track.timescale)
            if edit.mediaTime == -1 {
                if leading { start += length } else { duration += length }
                continue
            }
            leading = false
            duration += max(0, min(length, compositionEnd - edit.mediaTime))
        }
        return (start, duration)
    }

    /// `value` ticks of `from` in ticks of `to`, rounded to nearest (half away from zero).
    static func rescale(_ value: Int64, from: UInt32, to: UInt32) -> Int64 {
        let (high, low) = value.multipliedFullWidth(by: Int64(to))
        let (quotient, remainder) = Int64(from).dividingFullWidth((high, low))
        return 2 * remainder.magnitude >= UInt64(from) ? quotient + (value < 0 ? -1 : 1) : quotient
    }

    static func trimmed(_ fourCC: String) -> String {
        String(fourCC.reversed().drop { $0 == " " }.reversed())
    }

    struct Probe: Decodable {
        struct Stream: Decodable {
            var index: Int
            var id: String?
            var codecType: String?
            var codecName: String?
            var codecTagString: String
            var width: Int?
            var height: Int?
            var channels: Int?
            var sampleRate: String?
            var timeBase: String
            var startPts: Int64?
            var durationTs: Int64?
            var nbFrames: String?
            var nbReadPackets: String?
        }
        struct Format: Decodable {
            var nbStreams: Int
            var duration: String?
        }
        var streams: [Stream]
        var format: Format
    }

    static func probe(_ path: String) throws -> Probe {
        let result = try Peers.run(
            "ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", "-count_packets", path])
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Probe.self, from: result.stdout)
    }
}
