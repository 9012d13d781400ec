import CinepackContainer
import CinepackFormat
import Testing

/// spec/format.md §6.6: the worked example, read twice: once by hand following the text of §6.2–6.3
/// (no codec code involved), once through `FocusMetadataCodec`, and written back byte for byte.
@Suite struct MetadataSpecExampleTests {
    /// The bytes exactly as printed in §6.6.
    static let exampleHex = """
        00000034 00000001
          0001 0001
          00000004 00000002 0001 0000
          3e800000 3e000000 3e800000 3f000000
          3f000000 3f800000 00000000
        0000001c 00000002
          01 01 00 00 00000004
          3f000000 00000000 00000000
        0000000c 00000004 40900000
        """

    static var exampleBytes: [UInt8] {
        let digits = Array(exampleHex.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// The frame §6.6 describes in words.
    static let exampleFrame = FrameMetadata(
        detections: [
            Detection(
                id: 4, groupID: 2, type: .face, rect: NormalizedRect(x: 0.25, y: 0.125, width: 0.25, height: 0.5),
                disparity: 0.5, confidence: 1)
        ],
        focus: FocusState(target: .detection(4), focusDisparity: 0.5, isStrong: false, inTransition: false),
        fNumber: 4.5)

    // Manual big-endian reads, independent of the library.
    func u16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
    func u32(_ b: [UInt8], _ i: Int) -> UInt32 { UInt32(u16(b, i)) << 16 | UInt32(u16(b, i + 2)) }
    func f32(_ b: [UInt8], _ i: Int) -> Float { Float(bitPattern: u32(b, i)) }

    @Test func handWalkFollowsTheSpecText() throws {
        let bytes = Self.exampleBytes
        #expect(bytes.count == 52 + 28 + 12)
        // §6.2: a run of items, each u32 size (including the 8 header bytes), u32 local id, payload.
        var items: [(id: UInt32, payload: [UInt8])] = []
        var at = 0
        while at < bytes.count {
            let size = Int(u32(bytes, at))
            try #require(size >= 8 && at + size <= bytes.count, "item at \(at) must fit in the sample")
            items.append((u32(bytes, at + 4), Array(bytes[at + 8..<at + size])))
            at += size
        }
        #expect(items.map(\.id) == [1, 2, 4])

        // Local id 1: detections. u16 version 1, u16 count, 40-byte records.
        let det = items[0].payload
        #expect(u16(det, 0) == 1)
        #expect(u16(det, 2) == 1)
        #expect(det.count == 4 + 40 * 1)
        let r = 4
        #expect(u32(det, r) == 4)  // id
        #expect(u32(det, r + 4) == 2)  // group
        #expect(u16(det, r + 8) == 1)  // type face
        #expect(u16(det, r + 10) == 0)  // flags
        #expect([f32(det, r + 12), f32(det, r + 16), f32(det, r + 20), f32(det, r + 24)] == [0.25, 0.125, 0.25, 0.5])
        #expect(f32(det, r + 28) == 0.5)  // disparity
        #expect(f32(det, r + 32) == 1)  // confidence
        #expect(u32(det, r + 36) == 0)  // reserved

        // Local id 2: focus (§6.3), 20 bytes.
        let focus = items[1].payload
        #expect(focus.count == 20)
        #expect(focus[0] == 1)  // version
        #expect(focus[1] == 1)  // kind: detection
        #expect(focus[2] & 1 == 0)  // weak
        #expect(focus[2] & 2 == 0)  // not in transition
        #expect(u32(focus, 4) == 4)
        #expect(f32(focus, 8) == 0.5)
        #expect(f32(focus, 12) == 0)
        #expect(f32(focus, 16) == 0)

        // Local id 4: f-number, a big-endian f32 (well-known type 23).
        #expect(items[2].payload.count == 4)
        #expect(f32(items[2].payload, 0) == 4.5)
    }

    @Test func codecDecodesTheExample() throws {
        let keys = FocusMetadataKeyMap([1: .detections, 2: .focus, 4: .fNumber])
        let frame = try FocusMetadataCodec.decode(Self.exampleBytes, keys: keys, sampleIndex: 0)
        #expect(frame == Self.exampleFrame)
        // By name, as a reader keeping the key names has them.
        let byName = try FocusMetadataCodec.decode(
            Self.exampleBytes, keys: [1: "org.cinepack.detections", 2: "org.cinepack.focus", 4: "org.cinepack.f-number"], sampleIndex: 0)
        #expect(byName == Self.exampleFrame)
    }

    @Test func codecEncodesTheExampleByteForByte() throws {
        // The writer's local ids put the f-number at 4, as in the example.
        #expect(FocusMetadataKey.fNumber.writerLocalID == 4)
        try FocusMetadataCodec.validate(Self.exampleFrame)
        let encoded = FocusMetadataCodec.encode(Self.exampleFrame)
        #expect(encoded == Self.exampleBytes)
        #expect(try FocusMetadataCodec.decode(encoded, keys: .writer, sampleIndex: 0) == Self.exampleFrame)
    }
}
