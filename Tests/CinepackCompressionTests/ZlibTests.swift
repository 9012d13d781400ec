import CinepackCompression
import Testing

@Suite struct ZlibTests {
    @Test func roundTrip() throws {
        let input = Array((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) })
        let packed = try Zlib.deflate(input)
        #expect(packed.count < input.count)
        #expect(try Zlib.inflate(packed, limit: input.count) == input)
    }

    @Test func refusesOutputPastLimit() throws {
        let packed = try Zlib.deflate([UInt8](repeating: 0, count: 1 << 20))
        #expect(throws: CompressionError.tooLarge(limit: 1000)) {
            try Zlib.inflate(packed, limit: 1000)
        }
    }

    @Test func rejectsTruncatedAndCorruptStreams() throws {
        let packed = try Zlib.deflate(Array("hello hello hello hello".utf8))
        #expect(throws: CompressionError.self) { try Zlib.inflate(packed.dropLast(3), limit: 1000) }
        var bad = packed
        bad[0] = 0x00
        #expect(throws: CompressionError.self) { try Zlib.inflate(bad, limit: 1000) }
    }

    /// Known values: CRC-32 of "123456789" is 0xCBF43926 (the standard check value);
    /// the IEND chunk CRC every PNG ends with is 0xAE426082.
    @Test func crcMatchesCheckValues() {
        #expect(Zlib.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Zlib.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    }
}
