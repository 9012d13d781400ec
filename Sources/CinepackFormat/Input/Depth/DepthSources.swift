import Foundation

/// Opens the right source for `path`: a printf pattern (`d/%04d.exr`) is a sequence; a `.npy`,
/// `.npz` or video file holds every frame.
package enum DepthSources {
    package static let videoExtensions: Set<String> = ["mp4", "mkv", "mov", "avi", "webm", "m4v"]

    package static func open(_ path: String, options: DepthInputOptions) throws(DepthInputError) -> any DepthFrameSource {
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
