import CinepackContainer
import CinepackFormat

/// Why an ffmpeg encode did not produce its file. Nothing is left under the output's name in any
/// case; `log` holds ffmpeg's last stderr lines.
public enum EncoderError: Error, Sendable, CustomStringConvertible {
    /// What went wrong while ffmpeg was encoding.
    public enum Failure: Sendable, Equatable {
        /// The frame pipe broke: ffmpeg took `after` frames, then stopped reading.
        case stoppedAcceptingFrames(after: Int, reason: String)
        /// ffmpeg ended with an error once every frame was sent.
        case failed
    }

    /// How the ffmpeg process ended.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        case exited(status: Int32)
        case killed(signal: Int32)
        public var description: String {
            switch self {
            case .exited(let status): "ffmpeg exited with status \(status)"
            case .killed(let signal): "ffmpeg was killed by signal \(signal)"
            }
        }
    }

    /// No ffmpeg to encode `codec` with.
    case ffmpegUnavailable(FFmpegError, codec: ExportCodec)
    case cannotStart(ffmpeg: String, reason: String)
    /// The output rules refused the file, or placing it failed.
    case output(OutputError)
    case encoder(Failure, ending: Ending, path: String, log: String)
    /// ffmpeg exited normally but its file is not a complete movie with every frame (a full disk).
    case incomplete(path: String, reason: String, log: String)
    /// The step run on the finished file before it is placed (e.g. adding a farm-part record) failed.
    case finishing(path: String, cause: String)

    public var description: String {
        switch self {
        case .ffmpegUnavailable(let cause, _): "\(cause)"
        case .cannotStart(let ffmpeg, let reason): "cannot start ffmpeg (\(ffmpeg)): \(reason)"
        case .output(let cause): "\(cause)"
        case .encoder(let what, let ending, let path, let log):
            switch what {
            case .stoppedAcceptingFrames(let after, let reason):
                "ffmpeg stopped accepting frames after \(after) (\(reason)); \(ending); nothing written to \(path). ffmpeg said:\n\(log)"
            case .failed: "ffmpeg failed; \(ending); nothing written to \(path). ffmpeg said:\n\(log)"
            }
        case .incomplete(let path, let reason, let log):
            "ffmpeg exited normally but \(path) would be incomplete (\(reason)); nothing written. ffmpeg said:\n\(log)"
        case .finishing(_, let cause): cause
        }
    }
}

extension EncoderError {
    /// The output rule's refusal, when that is what stopped the encode.
    public var outputRefusal: OutputError? {
        if case .output(let error) = self { return error }
        return nil
    }
}
