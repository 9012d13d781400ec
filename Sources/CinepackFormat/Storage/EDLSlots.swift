import CinepackCompression
import CinepackContainer

/// The two fixed-size slots that hold the edit-decision list inside `moov/udta/cpED`
/// (spec/format.md §8). This file is the byte layout; the update protocol lives with the EDL.
package enum EDLSlots {
    package static let containerType: FourCC = "cpED"
    package static let slotType: FourCC = "cpES"
    package static let magic: [UInt8] = Array("EDLS".utf8)
    /// Bytes of a slot record before the text.
    package static let recordHeaderSize = 20
    /// Payload bytes of a `cpES` box before the record (version and flags).
    package static let fullBoxHeaderSize = 4
    package static let defaultCapacity = 64 * 1024

    /// A decoded slot.
    package struct Slot: Sendable, Equatable {
        package var sequence: UInt64
        package var text: [UInt8]
    }

    /// Capacity to reserve for an EDL of `length` bytes.
    package static func capacity(forTextLength length: Int) -> Int {
        max(defaultCapacity, 2 * (length + recordHeaderSize))
    }

    /// The slot record: magic, sequence, length, CRC, text, zero padding to `capacity` bytes.
    /// Nil when the text does not fit.
    package static func record(sequence: UInt64, text: [UInt8], capacity: Int) -> [UInt8]? {
        guard recordHeaderSize + text.count <= capacity, text.count <= Int(UInt32.max) else { return nil }
        var w = ByteWriter(capacity: capacity)
        w.bytes(magic)
        w.u64(sequence)
        w.u32(UInt32(text.count))
        let crc = Zlib.crc32(text, continuing: Zlib.crc32(w.bytes))
        w.u32(crc)
        w.bytes(text)
        w.zeros(capacity - w.count)
        return w.bytes
    }

    /// Decodes a slot record; nil when it is not valid (torn, empty of magic, bad CRC).
    package static func decode(record bytes: [UInt8]) -> Slot? {
        guard bytes.count >= recordHeaderSize, Array(bytes[0..<4]) == magic else { return nil }
        var r = ByteReader(bytes)
        do {
            try r.skip(4)
            let sequence = try r.u64()
            let length = Int(try r.u32())
            let stored = try r.u32()
            guard recordHeaderSize + length <= bytes.count else { return nil }
            let text = Array(bytes[recordHeaderSize..<recordHeaderSize + length])
            let crc = Zlib.crc32(text, continuing: Zlib.crc32(bytes[0..<16]))
            guard crc == stored else { return nil }
            return Slot(sequence: sequence, text: text)
        } catch {
            return nil
        }
    }

    /// `cpED` with two empty slots (sequence 0) of `capacity` bytes each, for a new movie.
    package static func emptyContainer(capacity: Int = defaultCapacity) -> [UInt8] {
        var w = ByteWriter()
        w.box(containerType) { w in
            for _ in 0..<2 {
                w.box(slotType) { w in
                    w.fullBoxHeader(version: 0, flags: 0)
                    w.bytes(record(sequence: 0, text: [], capacity: capacity)!)
                }
            }
        }
        return w.bytes
    }
}
