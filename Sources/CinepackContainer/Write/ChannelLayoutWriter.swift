#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the `chan` box (audio channel layout) of a track, and puts one into the first audio
/// sample entry of a movie file whose `moov` is its last top-level box (what ffmpeg writes): the
/// `moov` is rewritten where it is, so no chunk offset changes. ffmpeg labels the audio it writes
/// with a layout of its own (4 channels become "4.0"): a layout it does not know, such as
/// ambisonics, is put back this way. Meant for a file still being produced (a temporary file
/// before its rename), as `UserDataAppender`.
public enum ChannelLayoutWriter {
    /// The `chan` box of `track`'s first sample entry (directly inside it, or in its QuickTime
    /// `wave`), byte for byte; nil when it has none.
    public static func channelLayoutBox(of track: Track, in source: any ByteSource) throws(ContainerError) -> [UInt8]? {
        guard let entry = track.sampleEntries.first?.box, let chan = layoutBox(in: entry), chan.origin == .file else { return nil }
        return try source.read(at: chan.header.offset, count: Int(chan.header.size))
    }

    /// Replaces the `chan` box of the first audio track's first sample entry of the file at
    /// `path` with `chan` (a whole box), or adds it at the end of the entry when it has none.
    public static func set(_ chan: [UInt8], inFileAt path: String) throws(ContainerError) {
        guard chan.count >= 12, chan.count == Int(readU32(chan, 0)), Array(chan[4..<8]) == Array("chan".utf8) else {
            throw ContainerError.malformed("the channel layout to write is not a whole chan box (\(chan.count) bytes)")
        }
        let source = try FileByteSource(path: path)
        let movie = try Movie.read(source: source)
        let moov = movie.moovInFile
        guard !movie.isCompressed, moov.header.end == source.size else {
            throw ContainerError.io("\(path): moov is not the last box of the file (or is compressed); cannot rewrite it in place")
        }
        guard let track = movie.tracks.first(where: { $0.kind == .audio }),
            let stbl = track.box.descendant(["mdia", "minf", "stbl"]), let stsd = stbl.child("stsd"),
            let entry = track.sampleEntries.first?.box
        else { throw ContainerError.malformed("\(path): no audio sample entry to label") }
        // Every box the new chan sits in grows or shrinks with it.
        var enclosing = [moov, track.box, track.box.child("mdia")!, track.box.descendant(["mdia", "minf"])!, stbl, stsd, entry]
        let replaced: (start: Int64, end: Int64)
        if let old = layoutBox(in: entry) {
            if let wave = entry.child("wave"), old.header.offset >= wave.header.offset, old.header.end <= wave.header.end {
                enclosing.append(wave)
            }
            replaced = (old.header.offset, old.header.end)
        } else {
            replaced = (entry.header.end, entry.header.end)
        }
        guard enclosing.allSatisfy({ $0.header.sizeEncoding == .compact }) else {
            throw ContainerError(.unsupported, "\(path): a box around the audio sample entry has a 64-bit size")
        }
        let base = moov.header.offset
        var bytes = try source.read(at: base, count: Int(moov.header.size))
        bytes.replaceSubrange(Int(replaced.start - base)..<Int(replaced.end - base), with: chan)
        let delta = Int64(chan.count) - (replaced.end - replaced.start)
        for box in enclosing {
            let size = box.header.size + delta
            guard size <= Int64(UInt32.max) else { throw ContainerError.limit("\(path): moov would exceed 4 GiB") }
            let at = Int(box.header.offset - base)
            for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: UInt32(size) >> UInt32(24 - 8 * i)) }
        }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ContainerError.io("cannot open \(path) for writing: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(base)) }
        guard written == bytes.count, ftruncate(fd, off_t(base) + off_t(bytes.count)) == 0 else {
            throw ContainerError.io("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func layoutBox(in entry: Box) -> Box? {
        entry.child("chan") ?? entry.child("wave")?.child("chan")
    }

    static func readU32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
}
