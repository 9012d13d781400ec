import CinepackContainer

/// One input of a pack, as refusals name it: the picture (a frame sequence or a video), the
/// audio, or the per-frame maps of a depth input.
public enum PackInput: Sendable, Equatable, CustomStringConvertible {
    case frames
    case video
    case audio
    case maps(DepthInputOptions.Kind)

    public var description: String {
        switch self {
        case .frames: "frames"
        case .video: "video"
        case .audio: "audio"
        case .maps(.disparity): "disparity maps"
        case .maps(.depth): "depth maps"
        case .maps(.relativeDisparity): "relative-disparity maps"
        }
    }
}

/// Why an input of a pack cannot be read as what it was given as: a sequence pattern that finds
/// no files or has a gap, or a movie without the track it was given for.
public enum PackInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pattern has no `%d`-style frame number.
    case noPlaceholder(PackInput, pattern: String)
    /// Neither the pattern's frame 0 nor its frame 1 exists.
    case noFiles(PackInput, pattern: String, lookedFor: [String])
    /// Frame `missing` is absent while a later one, `existing`, is on disk.
    case missingFrame(PackInput, missing: String, existing: String)
    /// The movie at `path` has no track of `kind`.
    case noTrack(PackInput, path: String, kind: TrackKind)

    public var input: PackInput {
        switch self {
        case .noPlaceholder(let input, _), .noFiles(let input, _, _), .missingFrame(let input, _, _), .noTrack(let input, _, _): input
        }
    }

    public var description: String { "\(input)\(detail)" }

    /// The sentence after the input's name (the command line puts its option there instead).
    public var detail: String {
        switch self {
        case .noPlaceholder(_, let pattern): " pattern \(pattern) has no frame number placeholder such as %04d"
        case .noFiles(_, let pattern, let looked): ": no file matches \(pattern) (looked for \(looked.joined(separator: " and ")))"
        case .missingFrame(_, let missing, let existing):
            ": frame file \(missing) is missing, but \(existing) exists (frames must be numbered without gaps)"
        case .noTrack(_, let path, let kind): " \(path): the file has no \(kind.rawValue) track"
        }
    }
}
