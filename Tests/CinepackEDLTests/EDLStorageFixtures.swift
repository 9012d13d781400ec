import CinepackContainer
import CinepackFormat
import CinepackTime
import Foundation
import TestSupport
import Testing

@testable import CinepackEDL

/// Movies, texts and byte helpers shared by the EDL storage tests.
enum StorageFixtures {
    /// A small cinematic movie from the library writer: `frames` PNG frames of 16×12 with 8×6
    /// disparity maps and focus metadata, `ftyp wide mdat moov`, two empty 64 KiB slots.
    static func cinematic(_ path: String, frames: Int = 4) throws {
        let rate = try #require(FrameRate(frames: 30, per: 1))
        let quantization = DisparityQuantization(minimum: 0, maximum: 4)
        let writer = try CinematicWriter(
            path: path,
            configuration: CinematicWriterConfiguration(
                video: .encoded(.png, width: 16, height: 12, rate: rate),
                disparity: (width: 8, height: 6, quantization: quantization)))
        var rng = SeededGenerator(seed: 0x5107)
        for n in 0..<frames {
            let pixels = (0..<16 * 12 * 3).map { i in UInt8(truncatingIfNeeded: i * 7 + n * 31) ^ UInt8(truncatingIfNeeded: rng.next()) }
            let picture = try PixelImage(width: 16, height: 12, layout: .rgb, samples: pixels)
            let map = DisparityMap(width: 8, height: 6, values: (0..<48).map { Float(($0 + n) % 40) / 10 })
            try writer.append(picture: picture, disparity: map, metadata: FrameMetadata(fNumber: 2.8))
        }
        try writer.finish()
    }

    /// The same movie rearranged "fast start", `ftyp moov zzzz wide mdat`, by a byte patch
    /// independent of the code under test: every chunk offset grows by the bytes inserted before
    /// the media. An unknown `xtra` box is appended inside `moov` and an unknown `zzzz` box
    /// follows it, so preservation of unknown boxes is checked too.
    static func moovFirst(from input: String, to output: String) throws {
        let bytes = try read(input)
        let tree = try BoxReader(source: MemoryByteSource(bytes)).readTree()
        let ftyp = try #require(tree.first("ftyp")), moov = try #require(tree.first("moov"))
        #expect(tree.boxes.last?.type == "moov", "expected a moov-last input")
        var moovBytes = Array(bytes[Int(moov.header.offset)..<Int(moov.header.end)])
        moovBytes += box("xtra", Array("unknown moov child, kept verbatim".utf8))
        let zzzz = box("zzzz", Array("unknown top-level box".utf8))
        let shift = Int64(moovBytes.count + zzzz.count)
        func patch(_ value: UInt64, at position: Int, width: Int) {
            for i in 0..<width { moovBytes[position + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - i))) }
        }
        patch(UInt64(moovBytes.count), at: 0, width: 4)
        moov.forEach { box, _ in
            guard box.type == "stco" || box.type == "co64" else { return }
            let width = box.type == "co64" ? 8 : 4
            let entries = Int(box.header.payloadOffset + 4 - moov.header.offset)
            let count = Int(u32(moovBytes, entries))
            for i in 0..<count {
                let at = entries + 4 + i * width
                let old = width == 8 ? u64(moovBytes, at) : UInt64(u32(moovBytes, at))
                patch(old + UInt64(shift), at: at, width: width)
            }
        }
        let head = Array(bytes[0..<Int(ftyp.header.end)])
        let media = Array(bytes[Int(ftyp.header.end)..<Int(moov.header.offset)])
        try write(head + moovBytes + zzzz + media, output)
    }

    static func box(_ type: FourCC, _ payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.box(type) { $0.bytes(payload) }
        return w.bytes
    }

    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    static func copy(_ from: String, to: String) throws { try write(read(from), to) }

    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(b, at)) << 32 | UInt64(u32(b, at + 4)) }

    /// FNV-1a 64: a region digest for "these bytes did not change" checks.
    static func digest(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// An EDL-like UTF-8 XML text of about `length` bytes, different for each `seed`.
    static func text(_ length: Int, seed: UInt64) -> [UInt8] {
        var rng = SeededGenerator(seed: seed)
        var s = "<edl xmlns=\"urn:cinepack:edl:1\" version=\"1\" seed=\"\(seed)\">"
        while s.utf8.count < length - 6 {
            s +=
                "<decision t=\"\(rng.next() % 100_000)/30000s\" target=\"\(rng.next() % 64)\" strength=\"\(rng.next() % 2 == 0 ? "weak" : "strong")\"/>"
        }
        s = String(s.utf8.prefix(length - 6))!
        return Array((s + "</edl>").utf8)
    }

    /// Every sample of every track, as (track id, sample index, bytes), read through the box layer.
    static func samples(_ path: String) throws -> [[[UInt8]]] {
        let source = try FileByteSource(path: path)
        let movie = try Movie.read(source: source)
        return try movie.tracks.map { track in
            var all: [[UInt8]] = []
            try track.samples.forEach { all.append(try source.read(at: $0.offset, count: Int($0.size))) }
            return all
        }
    }

    static func tree(_ path: String) throws -> BoxTree { try BoxReader(source: FileByteSource(path: path)).readTree() }

    /// ffprobe opens the file without a complaint and ffmpeg decodes every video stream.
    static func checkWithFFmpeg(_ path: String) throws {
        guard try Peers.available("ffprobe"), try Peers.available("ffmpeg") else { return }
        let probe = try Peers.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path])
        #expect(probe.stderr.isEmpty, "ffprobe: \(probe.stderr)")
        #expect(!probe.text.isEmpty)
        let decode = try Peers.run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:v", "-f", "null", "-"])
        #expect(decode.stderr.isEmpty, "ffmpeg: \(decode.stderr)")
    }

    /// Files in a directory (to see that no temporary file was left behind).
    static func listing(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }
}

/// Faults injected into the I/O of an update. "Power cut" faults stop the machine: the bytes named
/// reach the file, then every later operation fails, as after a crash (no fsync, no clean-up).
/// "Error" faults fail one call and let the store react.
enum Fault: Sendable, CustomStringConvertible {
    case none
    case failOpen
    case powerCutBeforeWrite
    /// The first k bytes of the record reach the file.
    case powerCutAfterPrefix(Int)
    /// These sector-sized pieces of the record (indices in file order, pieces aligned to
    /// 512-byte boundaries of the file) reach the file, in this order.
    case powerCutAfterSectors([Int])
    /// The whole record was written; the power fails before fsync.
    case powerCutBeforeSync
    /// The power fails right after fsync returned.
    case powerCutAfterSync
    /// The record write fails with EIO after k bytes reached the file.
    case writeError(afterBytes: Int)
    case syncError
    /// The full rewrite's new file fails after k bytes.
    case replacementWriteError(afterBytes: Int64)
    case replacementCommitError

    var description: String {
        switch self {
        case .none: return "none"
        case .failOpen: return "failOpen"
        case .powerCutBeforeWrite: return "powerCutBeforeWrite"
        case .powerCutAfterPrefix(let k): return "powerCutAfterPrefix(\(k))"
        case .powerCutAfterSectors(let pieces): return "powerCutAfterSectors(\(pieces.count) pieces)"
        case .powerCutBeforeSync: return "powerCutBeforeSync"
        case .powerCutAfterSync: return "powerCutAfterSync"
        case .writeError(let k): return "writeError(afterBytes: \(k))"
        case .syncError: return "syncError"
        case .replacementWriteError(let k): return "replacementWriteError(afterBytes: \(k))"
        case .replacementCommitError: return "replacementCommitError"
        }
    }

    static let sectorSize: Int64 = 512

    /// The pieces of a write of `count` bytes at `offset`, split at 512-byte file boundaries.
    static func pieces(offset: Int64, count: Int) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        while start < count {
            let absolute = offset + Int64(start)
            let next = min(count, start + Int(sectorSize - absolute % sectorSize))
            result.append(start..<next)
            start = next
        }
        return result
    }
}

struct FaultyIO: EDLStorageIO {
    var fault: Fault

    func openForUpdate(path: String) throws(EDLStorageError) -> any EDLUpdateHandle {
        if case .failOpen = fault { throw EDLStorageError.io("cannot open \(path) for writing: Permission denied (injected)") }
        return FaultyHandle(try POSIXStorageIO().openForUpdate(path: path), fault: fault)
    }

    func beginReplacement(of path: String) throws(EDLStorageError) -> any EDLReplacementHandle {
        FaultyReplacement(try POSIXStorageIO().beginReplacement(of: path), fault: fault)
    }
}

final class FaultyHandle: EDLUpdateHandle {
    let inner: any EDLUpdateHandle
    let fault: Fault
    private var dead = false
    private var writes = 0
    private var syncs = 0

    init(_ inner: any EDLUpdateHandle, fault: Fault) {
        self.inner = inner
        self.fault = fault
    }

    var size: Int64 { inner.size }

    private func powerCut() -> EDLStorageError {
        dead = true
        return EDLStorageError.io("simulated power cut")
    }

    func read(at offset: Int64, count: Int) throws(EDLStorageError) -> [UInt8] {
        if dead { throw .io("simulated power cut") }
        return try inner.read(at: offset, count: count)
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws(EDLStorageError) {
        if dead { throw .io("simulated power cut") }
        writes += 1
        guard writes == 1 else { return try inner.write(bytes, at: offset) }  // only the record write is faulted
        switch fault {
        case .powerCutBeforeWrite:
            throw powerCut()
        case .powerCutAfterPrefix(let k):
            try inner.write(Array(bytes.prefix(k)), at: offset)
            throw powerCut()
        case .powerCutAfterSectors(let chosen):
            let pieces = Fault.pieces(offset: offset, count: bytes.count)
            for index in chosen { try inner.write(Array(bytes[pieces[index]]), at: offset + Int64(pieces[index].lowerBound)) }
            throw powerCut()
        case .writeError(let k):
            try inner.write(Array(bytes.prefix(k)), at: offset)
            throw EDLStorageError.io("Input/output error (injected)")
        default:
            try inner.write(bytes, at: offset)
        }
    }

    func sync() throws(EDLStorageError) {
        if dead { throw .io("simulated power cut") }
        syncs += 1
        switch fault {
        case .powerCutBeforeSync:
            throw powerCut()
        case .syncError where syncs == 1:
            throw EDLStorageError.io("Input/output error (injected)")
        case .powerCutAfterSync:
            try inner.sync()
            dead = true
        default:
            try inner.sync()
        }
    }

    func close() { inner.close() }
}

final class FaultyReplacement: EDLReplacementHandle {
    let inner: any EDLReplacementHandle
    let fault: Fault

    init(_ inner: any EDLReplacementHandle, fault: Fault) {
        self.inner = inner
        self.fault = fault
    }

    var bytesWritten: Int64 { inner.bytesWritten }

    func write(_ bytes: [UInt8]) throws(EDLStorageError) {
        if case .replacementWriteError(let limit) = fault, inner.bytesWritten + Int64(bytes.count) > limit {
            try inner.write(Array(bytes.prefix(Int(max(0, limit - inner.bytesWritten)))))
            throw EDLStorageError.io("No space left on device (injected)")
        }
        try inner.write(bytes)
    }

    func commit() throws(EDLStorageError) {
        if case .replacementCommitError = fault { throw EDLStorageError.io("cannot sync (injected)") }
        try inner.commit()
    }

    func abandon() { inner.abandon() }
}
