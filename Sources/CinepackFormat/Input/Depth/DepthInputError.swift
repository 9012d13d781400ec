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
        /// Integer disparity images without the disparity range their codes lie on.
        case needsCodeRange
        /// Integer depth images without the depth scale that turns values into metres.
        case needsDepthScale
        /// The map's aspect ratio differs from the picture's and the fit is exact.
        case aspectRatio(mapWidth: Int, mapHeight: Int, pictureWidth: Int, pictureHeight: Int)
        /// Relative disparity without any calibration anchor (or near/far distance).
        case uncalibrated
        /// Calibration anchors given for an input that is not relative disparity.
        case calibrationNeedsRelativeDisparity
        /// An object anchor whose id no detection has; `seen` are the ids there are.
        case objectNotDetected(id: UInt32, seen: [UInt32])
        /// The anchors put nearer things at smaller map values: the map is stored white = far.
        case anchorsInverted
        /// The maps' sequence pattern finds no files, or misses a frame.
        case sequence(PackInputError)
    }

    public var file: String
    public var frame: Int?
    public var problem: Problem

    public init(file: String, frame: Int? = nil, _ problem: Problem) {
        self.file = file
        self.frame = frame
        self.problem = problem
    }

    /// The file, and the frame where one applies.
    public var place: String { frame.map { "\(file), frame \($0)" } ?? file }

    public var description: String {
        switch problem {
        case .unreadable: return "\(place): cannot read the file"
        case .sequence(let error): return "\(place): \(error)"
        case .malformed(let why): return "\(place): \(why)"
        case .unsupported(let why): return "\(place): \(why)"
        case .missingChannel(let wanted, let present):
            return
                "\(place): no channel \(wanted.joined(separator: " or ")) in this EXR (it has \(present.joined(separator: ", "))); choose one as the EXR channel"
        case .missingArray(let key, let present):
            return "\(place): no array '\(key)' in this .npz (it has \(present.joined(separator: ", "))); choose one as the .npz key"
        case .frameCount(let maps, let frames):
            return "\(place): \(maps) depth maps but \(frames) video frames; every frame needs one map"
        case .size(let why): return "\(place): \(why)"
        case .value(let why): return "\(place): \(why)"
        case .noDepth: return "\(place): no pixel has depth (every value is NaN, infinite or 0)"
        case .calibration(let why): return "calibration: \(why)"
        case .decoder(let why): return "\(place): \(why)"
        case .needsCodeRange:
            return
                "\(place): integer disparity images are codes on a range: give the disparity range MIN:MAX (an automatic range needs float input)"
        case .needsDepthScale:
            return "\(place): integer depth images need a depth scale K (metres = value / K: 1000 for millimetres, 5000 for TUM RGB-D)"
        case .aspectRatio(let w, let h, let pw, let ph):
            return
                "\(place): the map is \(w)×\(h) but the picture is \(pw)×\(ph), another aspect ratio; resize it, or fit it by stretching over the picture"
        case .uncalibrated:
            return
                "calibration: relative disparity has no scale: give an anchor ('object ID = 2.5m' or a point) or the near and far distances"
        case .calibrationNeedsRelativeDisparity: return "calibration: calibration applies to relative disparity only"
        case .objectNotDetected(let id, let seen):
            return "calibration: object \(id) is not in the detections"
                + (seen.isEmpty
                    ? " (there are none: the clip has no detections)" : " (objects: \(seen.map(String.init).joined(separator: ", ")))")
        case .anchorsInverted:
            return "calibration: the anchors say nearer things have smaller map values: is the map stored white = far? (invert it)"
        }
    }
}
