import CinepackContainer
import Foundation

/// A numbered sequence of per-frame files: 8/16-bit grey PNG, PFM, OpenEXR or `.npy` (H×W).
/// Every frame's header is checked against frame 0's size before its pixels are decoded.
package final class DepthSequenceSource: DepthFrameSource {
    package let name: String
    package let frameCount: Int
    package let width: Int
    package let height: Int
    package let isRandomAccess = true
    let paths: [String]
    let exrChannel: String?

    package init(pattern: String, options: DepthInputOptions) throws(DepthInputError) {
        name = pattern
        exrChannel = options.exrChannel
        do { paths = try ImageSequence(pattern: pattern, input: .maps(options.kind)).paths } catch {
            if let sequence = error.packInput { throw DepthInputError(file: pattern, .sequence(sequence)) }
            throw DepthInputError(file: pattern, .malformed(error.message))
        }
        frameCount = paths.count
        let size = try Self.size(of: paths[0])
        width = size.width
        height = size.height
    }

    package func file(_ index: Int) -> String { paths[min(index, paths.count - 1)] }

    package func read(_ index: Int) throws(DepthInputError) -> RawDepthFrame {
        let path = paths[index]
        do throws(DepthInputError) {
            // An EXR is opened once: its header gives the size, then the channel is decoded.
            let exr = (path as NSString).pathExtension.lowercased() == "exr" ? try OpenEXRFile(path: path) : nil
            let size: (Int, Int)
            if let exr { size = (exr.width, exr.height) } else { size = try Self.size(of: path) }
            guard size.0 == width, size.1 == height else {
                throw DepthInputError(file: path, frame: index, .size("\(size.0)×\(size.1), but frame 0 is \(width)×\(height)"))
            }
            if let exr {
                return RawDepthFrame(
                    width: width, height: height, values: try exr.read(channel: try exr.channel(exrChannel)), integerMaximum: nil)
            }
            return try decode(path)
        } catch {
            var located = error
            located.frame = index
            throw located
        }
    }

    /// The frame size from the file's header alone (no pixel is decoded).
    static func size(of path: String) throws(DepthInputError) -> (width: Int, height: Int) {
        switch (path as NSString).pathExtension.lowercased() {
        case "exr":
            let file = try OpenEXRFile(path: path)
            return (file.width, file.height)
        case "png":
            let head = try prefix(path, 64)
            do {
                let header = try PNGDecoder.header(of: head)
                return (header.width, header.height)
            } catch { throw DepthInputError(file: path, .malformed("\(error)")) }
        case "pfm":
            let header = try PFM.header(try prefix(path, 256), name: path)
            return (header.width, header.height)
        case "npy":
            let frames = try NumPyHeader.parse(try prefix(path, 65_536), name: path).frames(name: path)
            guard frames.count == 1 else {
                throw DepthInputError(file: path, .unsupported("a per-frame .npy must be H×W; this one holds \(frames.count) frames"))
            }
            return (frames.width, frames.height)
        default:
            throw DepthInputError(file: path, .unsupported("per-frame depth files must be .png, .pfm, .exr or .npy"))
        }
    }

    /// Decodes a PNG, PFM or `.npy` frame (EXR frames are read in `read`).
    func decode(_ path: String) throws(DepthInputError) -> RawDepthFrame {
        switch (path as NSString).pathExtension.lowercased() {
        case "png":
            let image: PixelImage
            do { image = try PNGDecoder.decode(try Self.whole(path)) } catch let error as DepthInputError { throw error } catch {
                throw DepthInputError(file: path, .malformed("\(error)"))
            }
            guard image.layout == .gray else {
                throw DepthInputError(file: path, .unsupported("\(image.bitDepth)-bit \(image.layout) PNG; depth maps must be grey"))
            }
            let values: [Float] = image.samples16.map { $0.map(Float.init) } ?? (image.samples8 ?? []).map(Float.init)
            return RawDepthFrame(width: image.width, height: image.height, values: values, integerMaximum: Float(image.maxValue))
        case "pfm":
            let bytes = try Self.whole(path)
            let header = try PFM.header(bytes, name: path)
            return RawDepthFrame(
                width: header.width, height: header.height, values: try PFM.values(bytes, header, name: path), integerMaximum: nil)
        default:
            let bytes = try Self.whole(path)
            let header = try NumPyHeader.parse(bytes, name: path)
            let count = width * height
            guard bytes.count >= header.dataOffset + count * header.element.size else {
                throw DepthInputError(file: path, .malformed("NumPy data is shorter than its shape \(header.shape) says"))
            }
            return RawDepthFrame(
                width: width, height: height, values: header.decode(bytes, at: header.dataOffset, count: count),
                integerMaximum: header.element.integerMaximum)
        }
    }

    static func prefix(_ path: String, _ count: Int) throws(DepthInputError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw DepthInputError(file: path, .unreadable) }
        defer { try? handle.close() }
        return Array((try? handle.read(upToCount: count)) ?? Data())
    }

    static func whole(_ path: String) throws(DepthInputError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw DepthInputError(file: path, .unreadable) }
        return Array(data)
    }
}
