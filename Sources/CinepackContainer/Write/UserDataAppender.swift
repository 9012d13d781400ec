#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Adds a box to `moov/udta` of a movie file whose `moov` is its last top-level box (what ffmpeg
/// and cinepack write): the `moov` is rewritten where it is and grows at the end of the file, so
/// no chunk offset changes. Meant for a file still being produced (a temporary file before its
/// rename), not as a crash-safe edit of a finished movie.
package enum UserDataAppender {
    package static func append(_ box: [UInt8], toFileAt path: String) throws(ContainerError) {
        let source = try FileByteSource(path: path)
        let movie = try Movie.read(source: source)
        let moov = movie.moovInFile
        guard !movie.isCompressed, moov.header.end == source.size, moov.header.sizeEncoding == .compact else {
            throw ContainerError.io("\(path): moov is not the last box of the file (or is compressed); cannot add to it in place")
        }
        var bytes = try source.read(at: moov.header.offset, count: Int(moov.header.size))
        if let udta = moov.children("udta").first, udta.header.sizeEncoding == .compact {
            let start = Int(udta.header.offset - moov.header.offset)
            let end = start + Int(udta.header.size)
            bytes.insert(contentsOf: box, at: end)
            try setSize(&bytes, at: start, to: udta.header.size + Int64(box.count), path: path)
        } else {
            var w = ByteWriter()
            w.box("udta") { $0.bytes(box) }
            bytes += w.bytes
        }
        try setSize(&bytes, at: 0, to: Int64(bytes.count), path: path)
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ContainerError.io("cannot open \(path) for writing: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(moov.header.offset)) }
        guard written == bytes.count else { throw ContainerError.io("cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    private static func setSize(_ bytes: inout [UInt8], at offset: Int, to size: Int64, path: String) throws(ContainerError) {
        guard size <= Int64(UInt32.max) else { throw ContainerError.io("\(path): moov would exceed 4 GiB") }
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: UInt32(size) >> UInt32(24 - 8 * i)) }
    }
}
