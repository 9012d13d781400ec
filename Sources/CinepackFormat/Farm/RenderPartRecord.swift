import CinepackCompression
import CinepackContainer

/// What a render part says about itself (spec/farm.md §2): which program frames it holds, which
/// shard of how many, and the digests that tie it to one source, one EDL and one set of render
/// settings. Written as `moov/udta/cpRP` in every part `cinepack render --shard/--frames` writes;
/// `cinepack concat` joins only parts whose records agree.
public struct RenderPartRecord: Sendable, Equatable {
    public static let boxType: FourCC = "cpRP"

    /// 1-based shard index and shard count; both 0 for a part made with `--frames`.
    public var shardIndex: UInt32
    public var shardCount: UInt32
    /// Program frames this part holds, half-open.
    public var frames: Range<Int64>
    /// Program frames of the whole render the part belongs to, half-open.
    public var program: Range<Int64>
    /// A sync frame starts every `syncInterval` program frames counted from `program.lowerBound`.
    public var syncInterval: UInt32
    /// The source's picture fingerprint (spec/edl.md binding fingerprint), 8 bytes.
    public var sourceFingerprint: [UInt8]
    /// SHA-256 of the canonical EDL text the part was rendered with.
    public var edlDigest: [UInt8]
    /// SHA-256 of `settings`.
    public var settingsDigest: [UInt8]
    /// Whether the source has an audio track (the parts never carry one).
    public var sourceHasAudio: Bool
    /// The render settings, one `key=value` per line (spec/farm.md §3); informative, the digest decides.
    public var settings: String
    /// The source's file name, informative (messages).
    public var sourceName: String

    public init(
        shardIndex: UInt32, shardCount: UInt32, frames: Range<Int64>, program: Range<Int64>, syncInterval: UInt32,
        sourceFingerprint: [UInt8], edlDigest: [UInt8], settings: String, sourceHasAudio: Bool, sourceName: String
    ) {
        self.shardIndex = shardIndex
        self.shardCount = shardCount
        self.frames = frames
        self.program = program
        self.syncInterval = syncInterval
        self.sourceFingerprint = sourceFingerprint
        self.edlDigest = edlDigest
        self.settings = settings
        self.settingsDigest = SHA256.digest(Array(settings.utf8))
        self.sourceHasAudio = sourceHasAudio
        self.sourceName = sourceName
    }

    /// The whole `cpRP` box.
    public func serialized() -> [UInt8] {
        var w = ByteWriter()
        w.box(Self.boxType) { w in
            w.fullBoxHeader(version: 0, flags: 0)
            w.u32(shardIndex)
            w.u32(shardCount)
            w.u64(UInt64(frames.lowerBound))
            w.u64(UInt64(frames.upperBound))
            w.u64(UInt64(program.lowerBound))
            w.u64(UInt64(program.upperBound))
            w.u32(syncInterval)
            w.bytes(sourceFingerprint.padded(to: 8))
            w.bytes(edlDigest.padded(to: 32))
            w.bytes(settingsDigest.padded(to: 32))
            w.u8(sourceHasAudio ? 1 : 0)
            for text in [settings, sourceName] {
                let utf8 = Array(text.utf8.prefix(Int(UInt16.max)))
                w.u16(UInt16(utf8.count))
                w.bytes(utf8)
            }
        }
        return w.bytes
    }

    /// Parses a `cpRP` payload (the bytes after the box header). `offset` is where the payload
    /// starts in the file, for messages.
    public static func parse(
        payload: [UInt8], offset: Int64 = 0, path: String = "moov/udta/cpRP"
    ) throws(ContainerError) -> RenderPartRecord {
        var r = ByteReader(payload, baseOffset: offset, path: path)
        let (version, _) = try r.fullBoxHeader()
        guard version == 0 else {
            throw r.error("render part record version \(version) is not supported (0 expected)", clause: "spec/farm.md §2")
        }
        let index = try r.u32("shard index"), count = try r.u32("shard count")
        let first = try r.u64("first frame"), end = try r.u64("end frame")
        let programStart = try r.u64("program start"), programEnd = try r.u64("program end")
        let interval = try r.u32("sync interval")
        let fingerprint = try r.bytes(8, "source fingerprint")
        let edl = try r.bytes(32, "EDL digest")
        let settingsDigest = try r.bytes(32, "settings digest")
        let flags = try r.u8("flags")
        var texts: [String] = []
        for what in ["settings", "source name"] {
            let n = Int(try r.u16("\(what) length"))
            texts.append(String(decoding: try r.bytes(n, what), as: UTF8.self))
        }
        let limit = UInt64(Int64.max)
        guard first < end, end <= limit, programStart <= first, end <= programEnd, programEnd <= limit, interval > 0,
            count == 0 ? index == 0 : (1...count).contains(index)
        else {
            throw r.error(
                "render part record is inconsistent: frames \(first)..<\(end) of program \(programStart)..<\(programEnd), shard \(index)/\(count), sync interval \(interval)",
                clause: "spec/farm.md §2")
        }
        var record = RenderPartRecord(
            shardIndex: index, shardCount: count, frames: Int64(first)..<Int64(end), program: Int64(programStart)..<Int64(programEnd),
            syncInterval: interval, sourceFingerprint: fingerprint, edlDigest: edl, settings: texts[0], sourceHasAudio: flags & 1 != 0,
            sourceName: texts[1])
        record.settingsDigest = settingsDigest
        return record
    }

    /// The record of a movie: its `moov/udta/cpRP`, nil when it has none.
    public static func read(_ movie: Movie, source: any ByteSource) throws(ContainerError) -> RenderPartRecord? {
        guard let box = movie.moov.children("udta").lazy.compactMap({ $0.child(boxType) }).first, box.origin == .file else { return nil }
        let payload = try source.read(at: box.header.payloadOffset, count: Int(box.header.payloadSize))
        return try parse(payload: payload, offset: box.header.payloadOffset, path: box.path)
    }
}

extension [UInt8] {
    fileprivate func padded(to count: Int) -> [UInt8] { Array((self + [UInt8](repeating: 0, count: count)).prefix(count)) }
}
