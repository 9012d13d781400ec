import COpenEXR
import Foundation

/// One OpenEXR file read through OpenEXR's own C library (libOpenEXRCore): the header first, so
/// a map's size is checked before any pixel is decoded, then one channel as 32-bit floats
/// (half, float and uint channels; scanline or tiled parts, level 0; every compression the
/// library reads).
package final class OpenEXRFile {
    package let path: String
    package let width: Int
    package let height: Int
    /// Channel names of the first part, as stored (sorted by the library).
    package let channels: [String]
    private var context: exr_context_t?

    /// Opens `path` and reads its header. `maxSide` bounds the data window the library accepts.
    package init(path: String, maxSide: Int = 65536) throws(DepthInputError) {
        self.path = path
        var memoryless: exr_context_t?
        var initializer = exr_context_initializer_t()
        initializer.size = MemoryLayout<exr_context_initializer_t>.size
        initializer.error_handler_fn = cinepack_exr_quiet
        initializer.max_image_width = Int32(clamping: maxSide)
        initializer.max_image_height = Int32(clamping: maxSide)
        initializer.max_tile_width = Int32(clamping: maxSide)
        initializer.max_tile_height = Int32(clamping: maxSide)
        let opened = exr_start_read(&memoryless, path, &initializer)
        guard opened == 0, let context = memoryless else {
            if let memoryless { var c: exr_context_t? = memoryless; exr_finish(&c) }
            throw DepthInputError(file: path, .malformed("not a readable OpenEXR file (\(Self.message(opened)))"))
        }
        self.context = context
        var window = exr_attr_box2i_t()
        var list: UnsafePointer<exr_attr_chlist_t>?
        guard exr_get_data_window(context, 0, &window) == 0,
            exr_get_channels(context, 0, &list) == 0, let list
        else {
            var c: exr_context_t? = context
            exr_finish(&c)
            throw DepthInputError(file: path, .malformed("OpenEXR header without a data window or channel list"))
        }
        width = Int(window.max.x) - Int(window.min.x) + 1
        height = Int(window.max.y) - Int(window.min.y) + 1
        var names: [String] = []
        var subsampled = false
        for i in 0..<Int(list.pointee.num_channels) {
            let entry = list.pointee.entries[i]
            names.append(String(cString: entry.name.str))
            if entry.x_sampling != 1 || entry.y_sampling != 1 { subsampled = true }
        }
        channels = names
        if subsampled {
            var c: exr_context_t? = context
            exr_finish(&c)
            throw DepthInputError(file: path, .unsupported("subsampled OpenEXR channels are not supported"))
        }
    }

    deinit {
        if context != nil { exr_finish(&context) }
    }

    /// The channel to read: `wanted` when given, else the first of Z, depth.Z, Y, R present.
    package func channel(_ wanted: String?) throws(DepthInputError) -> String {
        let candidates = wanted.map { [$0] } ?? Self.defaultChannels
        guard let found = candidates.first(where: channels.contains) else {
            throw DepthInputError(file: path, .missingChannel(wanted: candidates, present: channels))
        }
        return found
    }

    package static let defaultChannels = ["Z", "depth.Z", "Y", "R"]

    /// Decodes `name` as floats, row-major, top row first (the data window's top-left first).
    package func read(channel name: String) throws(DepthInputError) -> [Float] {
        guard let index = channels.firstIndex(of: name) else {
            throw DepthInputError(file: path, .missingChannel(wanted: [name], present: channels))
        }
        var values = [Float](repeating: .nan, count: width * height)
        var failedLine: Int32 = 0
        let result = values.withUnsafeMutableBufferPointer { out in
            cinepack_exr_read_channel(context, 0, Int32(index), out.baseAddress, Int32(width), Int32(height), &failedLine)
        }
        guard result == 0 else {
            throw DepthInputError(
                file: path,
                .malformed("OpenEXR pixel data unreadable at line \(failedLine) (\(Self.message(result))); is the file truncated?"))
        }
        return values
    }

    /// A ZIP-compressed scanline EXR holding one FLOAT channel.
    package static func encode(channel name: String, values: [Float], width: Int, height: Int) throws(DepthInputError) -> [UInt8] {
        precondition(values.count == width * height)
        var buffer = cinepack_exr_buffer_t()
        defer { free(buffer.bytes) }
        let result = values.withUnsafeBufferPointer { v in
            cinepack_exr_write_float(&buffer, name, v.baseAddress, Int32(width), Int32(height))
        }
        guard result == 0, let bytes = buffer.bytes else {
            throw DepthInputError(file: name, .malformed("OpenEXR encoding failed (\(message(result)))"))
        }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(buffer.count)))
    }

    static func message(_ code: exr_result_t) -> String {
        exr_get_default_error_message(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
