/// A key of a timed-metadata (`mebx`) track: local id, namespace, key, data type.
public struct TimedMetadataKey: Sendable, Equatable {
    public var localID: UInt32
    public var namespace: FourCC
    public var key: String
    public var dataType: DataTypeBox?
}

/// What a track is for, from its handler. The format layer refines this into cinematic roles.
public enum TrackKind: String, Sendable {
    case video, audio, metadata, timecode, text, auxiliaryVideo = "auxiliary-video", hint, other

    init(handler: FourCC?) {
        switch handler {
        case "vide": self = .video
        case "soun": self = .audio
        case "meta", "mdta": self = .metadata
        case "tmcd": self = .timecode
        case "text", "sbtl", "subt", "clcp": self = .text
        case "auxv": self = .auxiliaryVideo
        case "hint": self = .hint
        default: self = .other
        }
    }
}

/// One track of a movie, with its sample index.
public struct Track: Sendable {
    public var box: Box
    public var header: TrackHeaderBox
    public var media: MediaHeaderBox
    public var handler: HandlerBox?
    /// `stsd` entries: codec four-character code and parsed fields.
    public var sampleEntries: [(type: FourCC, entry: (any SampleEntry)?, box: Box)]
    public var editList: EditListBox?
    public var references: [(type: FourCC, trackIDs: [UInt32])]
    public var samples: SampleIndex
    public var metadataKeys: [TimedMetadataKey]
    public var channelLayout: ChannelLayoutBox?

    public var id: UInt32 { header.trackID }
    public var kind: TrackKind { TrackKind(handler: handler?.handlerType) }
    public var codec: FourCC? { sampleEntries.first?.type }
    public var isEnabled: Bool { header.isEnabled }
    public var timescale: UInt32 { media.timescale }
    public var visual: VisualSampleEntry? { sampleEntries.first?.entry as? VisualSampleEntry }
    public var audio: AudioSampleEntry? { sampleEntries.first?.entry as? AudioSampleEntry }

    /// Media duration in the media timescale: the sum of sample durations, else `mdhd`.
    public var mediaDuration: Int64 {
        if samples.count > 0 { return samples.totalDuration }
        return media.duration == .max ? 0 : Int64(clamping: media.duration)
    }

    public var mediaDurationSeconds: Double { timescale > 0 ? Double(mediaDuration) / Double(timescale) : 0 }

    /// Average frame rate for video tracks: samples per second of media, exact as a fraction.
    public var averageFrameRate: (frames: Int64, seconds: Int64)? {
        guard samples.count > 0, mediaDuration > 0, timescale > 0 else { return nil }
        let (num, overflow) = Int64(samples.count).multipliedReportingOverflow(by: Int64(timescale))
        guard !overflow else { return nil }
        let g = gcd(num, mediaDuration)
        return (num / g, mediaDuration / g)
    }

    public var bitrate: Double? {
        let seconds = mediaDurationSeconds
        return seconds > 0 ? Double(samples.totalBytes) * 8 / seconds : nil
    }

    public func referencedTracks(_ type: FourCC) -> [UInt32] {
        references.first { $0.type == type }?.trackIDs ?? []
    }
}

func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    var (x, y) = (abs(a), abs(b))
    while y != 0 { (x, y) = (y, x % y) }
    return max(x, 1)
}
