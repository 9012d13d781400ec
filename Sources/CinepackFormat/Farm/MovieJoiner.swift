import CinepackContainer
import CinepackTime

/// One movie to join: its path and its parsed structure (read through `source`).
public struct JoinPart: Sendable {
    public var path: String
    public var movie: Movie
    public var source: any ByteSource

    public init(path: String, movie: Movie, source: any ByteSource) {
        self.path = path
        self.movie = movie
        self.source = source
    }

    public static func open(path: String) throws(FormatError) -> JoinPart {
        do {
            let source = try FileByteSource(path: path)
            return JoinPart(path: path, movie: try Movie.read(source: source), source: source)
        } catch {
            throw .container(error, file: path)
        }
    }
}

/// What `MovieJoiner.join` wrote.
public struct JoinSummary: Sendable {
    public var path: String
    public var frames: Int
    public var bytes: Int64
    /// Bytes of the parts' media (and the audio) copied into the output.
    public var bytesCopied: Int64
    /// Bytes this process read to copy them: 0 when the kernel copied (`copy_file_range`).
    public var bytesReadForCopy: Int64
    /// Bytes of the parts read to parse and check them (their metadata: about their `moov`s).
    public var metadataBytesRead: Int64
    /// Total size of the parts.
    public var partBytes: Int64
    public var duration: MediaTime
    public var audioSamples: Int
}

/// Joins movies of one video track each, end to end, into one self-contained movie
/// (spec/farm.md §4): each part's media bytes are copied once, unchanged, by a streaming
/// (in-kernel where possible) copy; only the `moov` is built anew, its chunk offsets pointing
/// into the copies. Nothing is decoded or re-encoded, and the work besides the copy is
/// proportional to the parts' `moov`s. Optional audio is carried through once, after the video.
public enum MovieJoiner {
    public static func join(
        _ parts: [JoinPart], to target: OutputTarget, audio: CarriedTrack? = nil, userData: [[UInt8]] = []
    ) throws(FormatError) -> JoinSummary {
        guard let first = parts.first else { throw FormatError("nothing to join: no parts") }
        let layout = try parts.map { part throws(FormatError) in try PartLayout(part) }
        let reference = layout[0]
        for (part, l) in zip(parts, layout).dropFirst() {
            guard l.entry == reference.entry else {
                throw FormatError(
                    "\(part.path): its video sample description differs from \(first.path)'s (another codec or encoder settings)")
            }
            guard l.track.timescale == reference.track.timescale else {
                throw FormatError(
                    "\(part.path): video timescale \(l.track.timescale) differs from \(first.path)'s \(reference.track.timescale)")
            }
            guard l.track.header.width == reference.track.header.width, l.track.header.height == reference.track.header.height else {
                throw FormatError("\(part.path): picture size differs from \(first.path)'s")
            }
        }
        let audioRuns = audio.map { Self.runs(of: $0.track) } ?? []
        let media = layout.reduce(Int64(0)) { $0 + $1.span.upperBound - $1.span.lowerBound } + audioRuns.reduce(Int64(0)) { $0 + $1.size }

        let file: AtomicFileWriter
        var video = SampleTableWriter()
        var sound = SampleTableWriter()
        var readForCopy: Int64 = 0
        do {
            file = try AtomicFileWriter(target: target)
        } catch {
            throw .container(error)
        }
        do {
            try file.write(FileTypeBox(majorBrand: "qt  ", minorVersion: 0x2025_0100, compatibleBrands: ["qt  "]).serialized())
            // The media size is known before the first byte is copied: one header, 32- or 64-bit.
            if media + 8 <= Int64(UInt32.max) {
                try file.write([0, 0, 0, 8] + FourCC(stringLiteral: "wide").bytes)
                try file.write([UInt8](bigEndian: UInt32(media + 8)) + FourCC(stringLiteral: "mdat").bytes)
            } else {
                try file.write([UInt8](bigEndian: UInt32(1)) + FourCC(stringLiteral: "mdat").bytes + [UInt8](bigEndian: UInt64(media + 16)))
            }
            for (part, l) in zip(parts, layout) {
                let base = file.bytesWritten
                readForCopy += try file.appendCopy(of: part.path, offset: l.span.lowerBound, count: l.span.upperBound - l.span.lowerBound)
                var previousEnd: Int64 = -1
                l.track.samples.forEach { s in
                    if s.offset != previousEnd {
                        if previousEnd >= 0 { video.endChunk() }
                        video.beginChunk(at: base + s.offset - l.span.lowerBound)
                    }
                    video.add(
                        size: s.size, duration: UInt32(s.duration), compositionOffset: s.compositionTime - s.decodeTime, isSync: s.isSync)
                    previousEnd = s.offset + Int64(s.size)
                }
                video.endChunk()
            }
            if let audio {
                for run in audioRuns {
                    sound.beginChunk(at: file.bytesWritten)
                    readForCopy += try file.appendCopy(of: audio.source.name, offset: run.offset, count: run.size)
                    for i in run.samples {
                        guard let s = audio.track.samples.sample(at: i) else { continue }
                        sound.add(
                            size: s.size, duration: UInt32(clamping: s.duration), compositionOffset: s.compositionTime - s.decodeTime,
                            isSync: s.isSync)
                    }
                    sound.endChunk()
                }
            }
            try file.write(
                try moov(video: video, reference: reference, audio: audio.map { ($0, sound) }, userData: userData))
            try file.commit()
        } catch {
            file.abandon()
            throw .from(error)
        }
        return JoinSummary(
            path: target.path, frames: video.sampleCount, bytes: file.bytesWritten, bytesCopied: media, bytesReadForCopy: readForCopy,
            metadataBytesRead: parts.reduce(0) { $0 + $1.source.bytesRead }, partBytes: parts.reduce(0) { $0 + $1.source.size },
            duration: MediaTime(value: video.totalDuration, timescale: Int32(clamping: reference.track.timescale)),
            audioSamples: sound.sampleCount)
    }

    /// Where a part's video lives and what describes it, checked before anything is written.
    struct PartLayout {
        var track: Track
        var entry: [UInt8]
        /// The bytes from the first sample's start to the last one's end.
        var span: Range<Int64>

        init(_ part: JoinPart) throws(FormatError) {
            let movie = part.movie
            guard !movie.isFragmented else { throw FormatError("\(part.path): a fragmented movie cannot be joined") }
            guard movie.tracks.count == 1, let track = movie.tracks.first, track.kind == .video else {
                throw FormatError(
                    "\(part.path): a part must hold exactly one video track (it has \(movie.tracks.map { $0.kind.rawValue }.joined(separator: ", ")))"
                )
            }
            guard track.samples.count > 0 else { throw FormatError("\(part.path): the video track has no samples") }
            guard track.sampleEntries.count == 1 else {
                throw FormatError("\(part.path): the video track has \(track.sampleEntries.count) sample descriptions (1 expected)")
            }
            if let elst = track.editList {
                guard elst.entries.count == 1, elst.entries[0].mediaTime == 0, elst.entries[0].mediaRate == 1 else {
                    throw FormatError("\(part.path): the video track's edit list shifts or cuts the media; such a part cannot be joined")
                }
            }
            var low = Int64.max, high: Int64 = 0
            var badDuration: SampleInfo?
            track.samples.forEach { s in
                low = min(low, s.offset)
                high = max(high, s.offset + Int64(s.size))
                if s.duration < 0 || s.duration > Int64(UInt32.max) { badDuration = badDuration ?? s }
            }
            if let s = badDuration {
                throw FormatError("\(part.path): sample \(s.index + 1) lasts \(s.duration) ticks, outside 0…\(UInt32.max)")
            }
            guard high <= part.source.size else {
                throw FormatError(
                    "\(part.path): truncated: its samples end at byte \(high) but the file has only \(part.source.size) bytes")
            }
            self.track = track
            entry = try CarriedTrack(movie: movie, track: track, source: part.source).sampleEntryBytes()
            span = low..<high
        }
    }

    /// Runs of samples contiguous in the source file, in decoding order: one copy and one chunk each.
    static func runs(of track: Track) -> [(offset: Int64, size: Int64, samples: Range<Int>)] {
        var runs: [(offset: Int64, size: Int64, samples: Range<Int>)] = []
        track.samples.forEach { s in
            if let last = runs.last, last.offset + last.size == s.offset {
                runs[runs.count - 1] = (last.offset, last.size + Int64(s.size), last.samples.lowerBound..<s.index + 1)
            } else {
                runs.append((s.offset, Int64(s.size), s.index..<s.index + 1))
            }
        }
        return runs
    }

    private static func moov(
        video: SampleTableWriter, reference: PartLayout, audio: (CarriedTrack, SampleTableWriter)?, userData: [[UInt8]]
    ) throws(FormatError) -> [UInt8] {
        let timescale = reference.track.timescale
        var traks = [
            TrackBoxes.trak(
                .init(
                    id: 1, handler: "vide", handlerName: "cinepack video", enabled: true, mediaTimescale: timescale,
                    mediaDuration: video.totalDuration, movieTimescale: timescale, width: reference.track.header.width,
                    height: reference.track.header.height, stbl: video.stbl(sampleEntry: reference.entry)))
        ]
        if let (carried, table) = audio, table.sampleCount > 0 {
            traks.append(
                TrackBoxes.trak(
                    .init(
                        id: 2, handler: "soun", handlerName: "cinepack audio", enabled: true, mediaTimescale: carried.track.timescale,
                        mediaDuration: table.totalDuration, movieTimescale: timescale, volume: 1,
                        editList: carried.editList(movieTimescale: timescale),
                        stbl: table.stbl(sampleEntry: try carried.sampleEntryBytes()))))
        }
        var w = ByteWriter()
        w.box("moov") { w in
            w.bytes(
                MovieHeaderBox(timescale: timescale, duration: UInt64(max(0, video.totalDuration)), nextTrackID: UInt32(traks.count + 1))
                    .serialized())
            traks.forEach { w.bytes($0) }
            if !userData.isEmpty { w.box("udta") { w in userData.forEach { w.bytes($0) } } }
        }
        return w.bytes
    }
}
