/// Why a depth input cannot be packed. Every case names the file and, where one applies, the
/// frame (0-based, in clip order), so a user can find the offending map.
public struct DepthInputError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        /// The file cannot be read at all.
        case unreadable
        /// The bytes are not a valid file of the expected format (what is wrong, where).
        case malformed(String)
        /// A format or variant this reader does not take, with what it would take.
        case unsupported(String)
        /// The EXR has none of the channels asked for.
        case missingChannel(wanted: [String], present: [String])
        /// The `.npz` archive has no array of that name.
        case missingArray(key: String, present: [String])
        /// Disparity and picture frame counts differ.
        case frameCount(maps: Int, frames: Int)
        /// The map's size is not allowed next to this picture.
        case size(String)
        /// A pixel value this kind of input cannot hold.
        case value(String)
        /// The frame has no pixel with depth.
        case noDepth
        /// Calibration cannot be done as asked.
        case calibration(String)
        /// ffmpeg is missing or failed.
        case decoder(String)
    }

    public var file: String
    public var frame: Int?
    public var problem: Problem

    public init(file: String, frame: Int? = nil, _ problem: Problem) {
        self.file = file
        self.frame = frame
        self.problem = problem
    }

    public var description: String {
        let place = frame.map { "\(file), frame \($0)" } ?? file
        switch problem {
        case .unreadable: return "\(place): cannot read the file"
        case .malformed(let why): return "\(place): \(why)"
        case .unsupported(let why): return "\(place): \(why)"
        case .missingChannel(let wanted, let present):
            return
                "\(place): no channel \(wanted.joined(separator: " or ")) in this EXR (it has \(present.joined(separator: ", "))); choose one with --exr-channel"
        case .missingArray(let key, let present):
            return "\(place): no array '\(key)' in this .npz (it has \(present.joined(separator: ", "))); choose one with --npz-key"
        case .frameCount(let maps, let frames):
            return "\(place): \(maps) depth maps but \(frames) video frames; every frame needs one map"
        case .size(let why): return "\(place): \(why)"
        case .value(let why): return "\(place): \(why)"
        case .noDepth: return "\(place): no pixel has depth (every value is NaN, infinite or 0)"
        case .calibration(let why): return "calibration: \(why)"
        case .decoder(let why): return "\(place): \(why)"
        }
    }
}
