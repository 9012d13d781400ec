import Testing

@testable import CinepackContainer

/// Table-driven bytes ⇄ struct ⇄ text round trips (go-mp4 style): each row is a hand-written byte
/// layout from the spec, the struct it must parse to (via its key fields' text), and the same bytes
/// written back.
@Suite struct BoxCodecTests {
    struct Row: CustomStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var text: String
        var description: String { name }
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(UInt32(payload.count + 8)) + Array(type.utf8) + payload }
    static let identity: [UInt8] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000].flatMap { be32($0) }

    static let rows: [Row] = [
        Row(
            name: "ftyp", bytes: box("ftyp", Array("qt  ".utf8) + be32(0x200) + Array("qt  cnpk".utf8)),
            text: #"major_brand="qt  " minor_version=512 compatible_brands=["qt  ",cnpk]"#),
        Row(
            name: "mvhd v0",
            bytes: box(
                "mvhd",
                be32(0) + be32(1) + be32(2) + be32(600) + be32(3600) + be32(0x10000) + [1, 0] + Array(repeating: 0, count: 10)
                    + identity + Array(repeating: 0, count: 24) + be32(3)),
            text: "version=0 timescale=600 duration=3600 rate=1 next_track_id=3"),
        Row(
            name: "tkhd v0",
            bytes: box(
                "tkhd",
                be32(0x0000_0003) + be32(0) + be32(0) + be32(1) + be32(0) + be32(3600) + Array(repeating: 0, count: 8)
                    + [0, 0, 0, 0, 0, 0, 0, 0] + identity + be32(1280 << 16) + be32(720 << 16)),
            text: "version=0 flags=0x3 track_id=1 duration=3600 enabled=yes width=1280 height=720"),
        Row(
            name: "mdhd v0", bytes: box("mdhd", be32(0) + be32(0) + be32(0) + be32(30000) + be32(180180) + [0x55, 0xC4, 0, 0]),
            text: "version=0 timescale=30000 duration=180180 language=und"),
        Row(
            name: "hdlr",
            bytes: box("hdlr", be32(0) + be32(0) + Array("vide".utf8) + Array(repeating: 0, count: 12) + Array("Video\0".utf8)),
            text: "handler_type=vide name=Video"),
        Row(
            name: "elst v0",
            bytes: box("elst", be32(0) + be32(2) + be32(600) + be32(0xFFFF_FFFF) + be32(0x10000) + be32(3000) + be32(1024) + be32(0x10000)),
            text: "entries=[{duration=600 media_time=-1 rate=1},{duration=3000 media_time=1024 rate=1}]"),
        Row(
            name: "stts", bytes: box("stts", be32(0) + be32(2) + be32(10) + be32(1001) + be32(1) + be32(2002)),
            text: "entry_count=2 sample_count=11"),
        Row(name: "ctts", bytes: box("ctts", be32(0) + be32(1) + be32(5) + be32(0xFFFF_FC18)), text: "version=0 entry_count=1"),
        Row(name: "stss", bytes: box("stss", be32(0) + be32(2) + be32(1) + be32(31)), text: "entry_count=2"),
        Row(
            name: "stsz variable", bytes: box("stsz", be32(0) + be32(0) + be32(3) + be32(100) + be32(200) + be32(300)),
            text: "sample_size=0 sample_count=3"),
        Row(name: "stsz constant", bytes: box("stsz", be32(0) + be32(4) + be32(48000)), text: "sample_size=4 sample_count=48000"),
        Row(
            name: "stsc", bytes: box("stsc", be32(0) + be32(2) + be32(1) + be32(4) + be32(1) + be32(3) + be32(2) + be32(1)),
            text: "entry_count=2"),
        Row(name: "keyd", bytes: box("keyd", Array("mdtacom.example.key".utf8)), text: "namespace=mdta key=com.example.key"),
        Row(name: "dtyp", bytes: box("dtyp", be32(0) + be32(23)), text: "well_known_type=23"),
    ]

    static func parse(_ bytes: [UInt8]) throws -> Box {
        let tree = try BoxReader(source: MemoryByteSource(bytes)).readTree()
        return try #require(tree.boxes.first)
    }

    @Test(arguments: rows)
    func parsesToTheDocumentedFields(_ row: Row) throws {
        let box = try Self.parse(row.bytes)
        let fields = try #require(box.content?.fields)
        #expect(fields.map { "\($0.0)=\($0.1.text)" }.joined(separator: " ") == row.text)
    }

    @Test(arguments: rows)
    func writesBackTheSameBytes(_ row: Row) throws {
        let box = try Self.parse(row.bytes)
        guard let serializable = box.content as? any SerializableBox else { return }
        var w = ByteWriter()
        w.box(box.type) { serializable.writePayload(to: &$0) }
        #expect(w.bytes == row.bytes)
    }

    @Test func chunkOffsetsChooseTheirWidth() throws {
        let small = ChunkOffsetBox(offsets: [8, 4096])
        #expect(small.serialized() == Self.box("stco", Self.be32(0) + Self.be32(2) + Self.be32(8) + Self.be32(4096)))
        let large = ChunkOffsetBox(offsets: [8, 1 << 33])
        #expect(large.boxType == "co64")
        let parsed = try Self.parse(large.serialized())
        #expect(parsed.content(as: ChunkOffsetBox.self)?.offsets == [8, 1 << 33])
    }

    @Test func largeBoxesGetA64BitHeader() {
        var w = ByteWriter()
        w.box("free") { $0.zeros(16) }
        #expect(Array(w.bytes.prefix(8)) == Self.be32(24) + Array("free".utf8))
    }

    @Test func fourCCPrintsUnprintableBytesSafely() {
        #expect(FourCC(rawValue: 0x0000_0001).description == "\\x00\\x00\\x00\\x01")
        #expect(FourCC(rawValue: 0xA96E_616D).description == "©nam")
        #expect(FourCC(code: "avc1")?.rawValue == 0x6176_6331)
        #expect(FourCC(code: "toolong") == nil)
    }
}
