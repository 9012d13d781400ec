import CZlib

/// Errors from the zlib layer. A struct with static members so new cases do not break callers.
package struct CompressionError: Error, Equatable, CustomStringConvertible, Sendable {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }

    package static func corrupt(_ detail: String) -> CompressionError {
        CompressionError("corrupt zlib stream: \(detail)")
    }
    package static func tooLarge(limit: Int) -> CompressionError {
        CompressionError("zlib stream inflates past the limit of \(limit) bytes")
    }
}

/// zlib (RFC 1950) streams, the checksums PNG and `cmov` need, all bounded by the caller's cap.
package enum Zlib {
    /// Inflates a complete zlib stream. Never produces more than `limit` bytes: a stream that
    /// would is refused, so a hostile `cmov` or PNG cannot make us allocate without bound.
    package static func inflate(
        _ input: some Collection<UInt8>, limit: Int, expectedSize: Int? = nil
    )
        throws -> [UInt8]
    {
        let source = Array(input)
        var stream = z_stream()
        guard cinepack_inflateInit(&stream) == Z_OK else { throw CompressionError("inflateInit failed") }
        defer { inflateEnd(&stream) }

        var output: [UInt8] = []
        let initial = min(limit, expectedSize ?? max(source.count * 4, 4096))
        output.reserveCapacity(max(0, initial))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        try source.withUnsafeBufferPointer { src in
            stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
            stream.avail_in = UInt32(src.count)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { dst in
                    stream.next_out = dst.baseAddress
                    stream.avail_out = UInt32(dst.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return dst.count - Int(stream.avail_out)
                }
                if status == Z_NEED_DICT || status == Z_DATA_ERROR || status == Z_MEM_ERROR {
                    let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    throw CompressionError.corrupt(reason)
                }
                if output.count + produced > limit { throw CompressionError.tooLarge(limit: limit) }
                output.append(contentsOf: chunk[0..<produced])
                if status == Z_BUF_ERROR && stream.avail_in == 0 {
                    throw CompressionError.corrupt("stream ends before its end marker")
                }
            } while status != Z_STREAM_END
        }
        return output
    }

    /// Compresses `input` as one zlib stream.
    package static func deflate(_ input: some Collection<UInt8>, level: Int32 = 6) throws -> [UInt8] {
        let source = Array(input)
        var stream = z_stream()
        guard cinepack_deflateInit(&stream, level) == Z_OK else {
            throw CompressionError("deflateInit failed")
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(source.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var status: Int32 = Z_OK
        source.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
                stream.avail_in = UInt32(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = UInt32(dst.count)
                status = CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw CompressionError("deflate failed (\(status))") }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// CRC-32 (ISO 3309), as PNG chunks use it. Pass a previous value to continue a running CRC.
    package static func crc32(_ bytes: some Collection<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
        let array = Array(bytes)
        return array.withUnsafeBufferPointer { buf in
            UInt32(CZlib.crc32(UInt(previous), buf.baseAddress, UInt32(buf.count)))
        }
    }
}
