import CZlib

/// Streaming inflate of a raw deflate stream (a ZIP member): the caller feeds compressed bytes
/// as it reads them and takes the output in pieces, so a large member never sits in memory whole.
package final class RawInflater {
    private var stream = z_stream()
    /// Compressed bytes not yet consumed; owned here so `next_in` stays valid between calls.
    private var input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0)
    package private(set) var finished = false

    package init() throws(CompressionError) {
        guard cinepack_inflateInit2(&stream, -15) == Z_OK else { throw CompressionError("inflateInit2 failed") }
    }

    deinit {
        inflateEnd(&stream)
        input.deallocate()
    }

    /// Produces exactly `count` bytes, calling `more()` for compressed input when needed
    /// (`more()` returns an empty array at the end of the input).
    package func read(_ count: Int, more: () throws -> [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        var produced = 0
        while produced < count {
            if finished { throw CompressionError.corrupt("deflate stream ends after \(produced) of \(count) bytes") }
            if stream.avail_in == 0 {
                let next = try more()
                if next.isEmpty { throw CompressionError.corrupt("deflate data ends before the stream does") }
                input.deallocate()
                input = .allocate(capacity: next.count)
                _ = input.initialize(from: next)
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(next.count)
            }
            let status: Int32 = output.withUnsafeMutableBufferPointer { dst in
                stream.next_out = dst.baseAddress! + produced
                stream.avail_out = UInt32(count - produced)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                produced = count - Int(stream.avail_out)
                return status
            }
            if status == Z_STREAM_END { finished = true }
            if status == Z_NEED_DICT || status == Z_DATA_ERROR || status == Z_MEM_ERROR {
                throw CompressionError.corrupt(stream.msg.map { String(cString: $0) } ?? "error \(status)")
            }
        }
        return output
    }
}
