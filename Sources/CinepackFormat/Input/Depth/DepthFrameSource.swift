import CinepackContainer
import Foundation

/// One depth frame as stored: numbers in the file's own unit, row-major, top row first.
public struct RawDepthFrame: Sendable {
    public var width: Int
    public var height: Int
    public var values: [Float]
    /// For integer samples (PNG, integer NumPy, video): the sample type's largest code (255,
    /// 1023, 65535…); nil for floating-point data.
    public var integerMaximum: Float?

    public init(width: Int, height: Int, values: [Float], integerMaximum: Float?) {
        self.width = width
        self.height = height
        self.values = values
        self.integerMaximum = integerMaximum
    }
}

/// Where a depth input's frames come from: a numbered sequence of files, one NumPy array, one
/// `.npz` member or a grey video. The frame size is known from headers before any pixel is
/// decoded; frames are read one at a time, so memory does not grow with the clip.
public protocol DepthFrameSource: AnyObject {
    /// What the user named (pattern or file), for messages.
    var name: String { get }
    var frameCount: Int { get }
    var width: Int { get }
    var height: Int { get }
    /// Whether frames may be read in any order and from several threads; otherwise they must
    /// be read in order from 0 (reading frame 0 again starts over).
    var isRandomAccess: Bool { get }
    /// The file holding frame `index` (the pattern's file, or the one file), for messages.
    func file(_ index: Int) -> String
    func read(_ index: Int) throws(DepthInputError) -> RawDepthFrame
}

/// Opens the right source for `path`: a printf pattern (`d/%04d.exr`) is a sequence; a `.npy`,
/// `.npz` or video file holds every frame.
public enum DepthSources {
    public static let videoExtensions: Set<String> = ["mp4", "mkv", "mov", "avi", "webm", "m4v"]

    public static func open(_ path: String, options: DepthInputOptions) throws(DepthInputError) -> any DepthFrameSource {
        let ext = (path as NSString).pathExtension.lowercased()
        if path.range(of: #"%0?[0-9]*d"#, options: .regularExpression) != nil {
            return try DepthSequenceSource(pattern: path, options: options)
        }
        switch ext {
        case "npy", "npz": return try NumPySource(path: path, key: options.npzKey)
        case _ where videoExtensions.contains(ext): return try GreyVideoSource(path: path)
        default:
            throw DepthInputError(
                file: path,
                .unsupported(
                    "not a frame pattern (e.g. 'depth/%04d.exr') nor a .npy, .npz or video file (\(videoExtensions.sorted().joined(separator: ", ")))"
                ))
        }
    }
}
