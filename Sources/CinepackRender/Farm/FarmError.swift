import CinepackContainer
import CinepackFormat

/// Why a shard cannot be rendered or parts cannot be joined (spec/farm.md). Each case carries
/// what a message needs: the file, the frames, the shard.
package enum FarmError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A shard that is not `K/N` with 1 ≤ K ≤ N.
    case badShard(String)
    /// A part's frame range that is not `A..B` with 0 ≤ A < B.
    case badFrames(String)
    /// Shard K of N would hold no frames: N is larger than the number of sync segments.
    case emptyShard(index: Int, count: Int, segments: Int64, syncInterval: Int)
    /// Requested frames lie outside the program being rendered.
    case framesOutsideProgram(Range<Int64>, program: Range<Int64>)
    /// A part boundary that is not a sync-frame boundary of the codec.
    case unalignedBoundary(frame: Int64, codec: String, syncInterval: Int, program: Range<Int64>)
    case noParts
    /// A file that cannot be read as a movie (truncated, damaged).
    case unreadablePart(path: String, reason: String)
    /// A movie without a render part record: not a render of a shard or of a frame range.
    case notAPart(path: String)
    /// The part's video does not hold the frames its record names (truncated or rewritten).
    case inconsistentPart(path: String, recordedFrames: Int64, actualFrames: Int)
    /// Two parts that do not belong to one render: `what` is the source, the EDL, the settings
    /// or the program range.
    case foreignPart(path: String, reference: String, what: String)
    /// Frames nobody rendered, between the parts named (nil at the program's start or end).
    case gap(Range<Int64>, after: String?, before: String?, missingShards: [Int], shardCount: Int)
    /// Two parts holding the same frames.
    case overlap(first: String, second: String, frames: Range<Int64>)
    /// The audio source is not the source (or not with the EDL) the parts were rendered from.
    case audioSourceMismatch(path: String, reason: String)
    /// The output would replace a file (an input, or an existing file without `force`).
    case output(OutputError)
    /// Rate control (a quality or bitrate target) with a farm part: parts would differ from one render.
    case rateControlInParts(codec: String)
    /// Reading or writing failed.
    case format(FormatError)

    package var description: String {
        switch self {
        case .badShard(let text):
            return "shard \(text): expected K/N with 1 ≤ K ≤ N (e.g. 2/4)"
        case .badFrames(let text):
            return "frames \(text): expected A..B, program frames A up to (not including) B, 0 ≤ A < B (e.g. 0..60)"
        case .emptyShard(let k, let n, let segments, let interval):
            return
                "shard \(k)/\(n) holds no frames: the program has \(segments) segment\(segments == 1 ? "" : "s") of \(interval) frame\(interval == 1 ? "" : "s") (a shard starts on a sync frame); use at most \(segments) shards"
        case .framesOutsideProgram(let r, let program):
            return "frames \(r.lowerBound)..\(r.upperBound) lie outside the program's frames \(program.lowerBound)..\(program.upperBound)"
        case .unalignedBoundary(let frame, let codec, let interval, let program):
            let below = program.lowerBound + (frame - program.lowerBound) / Int64(interval) * Int64(interval)
            return
                "frame \(frame) is not a sync-frame boundary for \(codec) (a sync frame every \(interval) frames from \(program.lowerBound)): use \(below) or \(min(below + Int64(interval), program.upperBound))"
        case .noParts:
            return "no parts to join"
        case .unreadablePart(let path, let reason):
            return "\(path): not a readable render part: \(reason)"
        case .notAPart(let path):
            return
                "\(path): not a render part (no moov/udta/cpRP record, spec/farm.md §2); parts are renders of a shard K/N or of program frames A..B"
        case .inconsistentPart(let path, let recorded, let actual):
            return "\(path): its record names \(recorded) frames but its video holds \(actual): the part is truncated or was rewritten"
        case .foreignPart(let path, let reference, let what):
            return "\(path) does not belong with \(reference): it was rendered from \(what)"
        case .gap(let frames, let after, let before, let missing, let n):
            var text = "program frames \(frames.lowerBound)..\(frames.upperBound) are missing"
            switch (after, before) {
            case (let a?, let b?): text += " (between \(a) and \(b))"
            case (let a?, nil): text += " (after \(a), at the end of the program)"
            case (nil, let b?): text += " (before \(b), at the start of the program)"
            case (nil, nil): break
            }
            if !missing.isEmpty {
                text += ": shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(n)" }.joined(separator: ", "))"
            }
            return text
        case .overlap(let first, let second, let frames):
            return "\(first) and \(second) both hold program frames \(frames.lowerBound)..\(frames.upperBound): give each part once"
        case .audioSourceMismatch(let path, let reason):
            return "audio source \(path): \(reason)"
        case .output(let error):
            return error.description
        case .rateControlInParts(let codec):
            return
                "\(codec) rate control (a quality or bitrate target) looks across groups of pictures, so parts would not join into the one-process render; render farm parts with the default constant quantizer"

        case .format(let error):
            return error.description
        }
    }
}
