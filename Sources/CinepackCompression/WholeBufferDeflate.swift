import CLibDeflate

/// Whole-buffer zlib (RFC 1950) with libdeflate: several times faster than zlib's streaming
/// interface when the whole input is in memory and the output size is known (PNG image data, one
/// frame at a time). Streams stay with `Zlib`. On any failure the caller falls back to `Zlib`,
/// whose messages say what is wrong.
package enum WholeBufferDeflate {
    /// Inflates a complete zlib stream that must produce exactly `size` bytes; nil when it is
    /// corrupt, shorter or longer (let `Zlib.inflate` say why).
    package static func inflate(_ input: UnsafeRawBufferPointer, size: Int) -> [UInt8]? {
        guard size >= 0, let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var ok = false
        let output = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var produced = 0
            let result = libdeflate_zlib_decompress(
                decompressor, input.baseAddress, input.count, buffer.baseAddress, size, &produced)
            ok = result == LIBDEFLATE_SUCCESS && produced == size
            // Bytes not written are zeroed so the array never holds uninitialised memory.
            if !ok { buffer.baseAddress?.update(repeating: 0, count: size) }
            initialized = size
        }
        return ok ? output : nil
    }

    /// Compresses `input` as one zlib stream at `level` (zlib's 0…9 scale, −1 = 6; libdeflate
    /// compresses as well or better at each). Nil only if libdeflate cannot allocate.
    package static func deflate(_ input: UnsafeRawBufferPointer, level: Int32) -> [UInt8]? {
        let effort = level < 0 ? 6 : min(Int32(12), level)
        guard let compressor = libdeflate_alloc_compressor(effort) else { return nil }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, input.count)
        var written = 0
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            written = libdeflate_zlib_compress(compressor, input.baseAddress, input.count, buffer.baseAddress, bound)
            initialized = written
        }
        return written > 0 ? output : nil
    }
}
