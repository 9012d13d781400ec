import CinepackCompression
import CinepackContainer
import CinepackFormat
import Testing

/// `moov/udta/cpRP` against the byte layout of spec/farm.md §2, written out by hand.
@Suite struct RenderPartRecordTests {
    static let settings = "codec=png\n"
    static func handMade(version: UInt8 = 0, first: UInt8 = 30) -> [UInt8] {
        var b: [UInt8] = [version, 0, 0, 0]  // version, flags
        b += [0, 0, 0, 2, 0, 0, 0, 4]  // shard 2 of 4
        b += [0, 0, 0, 0, 0, 0, 0, first] + [0, 0, 0, 0, 0, 0, 0, 60]  // frames 30..<60
        b += [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 120]  // program 0..<120
        b += [0, 0, 0, 30]  // sync interval
        b += [UInt8](repeating: 0xAB, count: 8)  // source fingerprint
        b += [UInt8](repeating: 0xCD, count: 32)  // EDL digest
        // SHA-256 of "codec=png\n" (Python: hashlib.sha256(b"codec=png\n").hexdigest()).
        b += hex("60a3eb86d75720085c9c14b475be86d56b80cfcb877a9c32c6286a1a8448c179")
        b += [1]  // flags: source has audio
        b += [0, 10] + Array(settings.utf8)
        b += [0, 8] + Array("clip.mov".utf8)
        return b
    }

    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = text.startIndex
        while i < text.endIndex {
            let j = text.index(i, offsetBy: 2)
            out.append(UInt8(text[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    @Test func parsesTheHandMadeLayoutAndWritesItBack() throws {
        let payload = Self.handMade()
        var record = try RenderPartRecord.parse(payload: payload)
        #expect(record.shardIndex == 2 && record.shardCount == 4)
        #expect(record.frames == 30..<60 && record.program == 0..<120 && record.syncInterval == 30)
        #expect(record.sourceFingerprint == [UInt8](repeating: 0xAB, count: 8))
        #expect(record.sourceHasAudio && record.settings == Self.settings && record.sourceName == "clip.mov")
        let written = RenderPartRecord(
            shardIndex: 2, shardCount: 4, frames: 30..<60, program: 0..<120, syncInterval: 30,
            sourceFingerprint: [UInt8](repeating: 0xAB, count: 8), edlDigest: [UInt8](repeating: 0xCD, count: 32),
            settings: Self.settings, sourceHasAudio: true, sourceName: "clip.mov")
        // The writer computes the settings digest itself: SHA-256 of the settings text.
        #expect(written.settingsDigest == SHA256.digest(Array(Self.settings.utf8)))
        record.settingsDigest = written.settingsDigest
        let box = written.serialized()
        #expect(Array(box.prefix(8)) == [0, 0, 0, UInt8(8 + payload.count)] + Array("cpRP".utf8))
        #expect(try RenderPartRecord.parse(payload: Array(box.dropFirst(8))) == record)
        #expect(Array(box.dropFirst(8).prefix(68)) == Array(payload.prefix(68)))
    }

    @Test func refusesOtherVersionsAndInconsistentRecords() {
        #expect(throws: ContainerError.self) { try RenderPartRecord.parse(payload: Self.handMade(version: 1)) }
        // First frame 61 after the end frame 60.
        #expect(throws: ContainerError.self) { try RenderPartRecord.parse(payload: Self.handMade(first: 61)) }
        #expect(throws: ContainerError.self) { try RenderPartRecord.parse(payload: Array(Self.handMade().prefix(50))) }
    }
}
