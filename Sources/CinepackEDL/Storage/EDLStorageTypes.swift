import CinepackContainer

/// One of the two slots of `moov/udta/cpED`, in file order.
public enum EDLSlotID: Int, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case a = 0, b = 1

    public var other: EDLSlotID { self == .a ? .b : .a }
    public var description: String { self == .a ? "A" : "B" }
}

/// Where a slot is in the file.
public struct EDLSlotLocation: Sendable, Equatable {
    public var slot: EDLSlotID
    /// Absolute offset of the `cpES` box.
    public var boxOffset: Int64
    /// Absolute offset of the slot record (after the box header, version and flags).
    public var recordOffset: Int64
    /// Bytes of the record, the whole rest of the `cpES` payload.
    public var capacity: Int

    public var recordRange: Range<Int64> { recordOffset..<recordOffset + Int64(capacity) }
}

/// Where the EDL storage of a movie is.
public struct EDLStorageLayout: Sendable, Equatable {
    /// Absolute offset and size of the top-level `moov`.
    public var moovOffset: Int64
    public var moovSize: Int64
    /// Whether `moov` comes before the first `mdat` (a "fast start" file).
    public var moovPrecedesMedia: Bool
    /// Absolute offset of `moov/udta/cpED`.
    public var containerOffset: Int64
    /// Slot A, then slot B.
    public var slots: [EDLSlotLocation]

    public var capacity: Int { slots[0].capacity }
    public subscript(slot: EDLSlotID) -> EDLSlotLocation { slots[slot.rawValue] }
}

/// What one slot holds.
public struct EDLSlotStatus: Sendable, Equatable {
    public var slot: EDLSlotID
    /// The record's sequence when the slot is valid (0 = empty slot); nil when torn or damaged.
    public var sequence: UInt64?

    public var isValid: Bool { sequence != nil }
}

/// The EDL a movie holds, and how it was found.
public struct StoredEDL: Sendable, Equatable {
    /// The EDL text (UTF-8 XML, opaque here); nil when the movie holds no edits.
    public var text: [UInt8]?
    /// The slot it came from; nil when no slot is valid or the movie has no `cpED`.
    public var slot: EDLSlotID?
    /// Highest valid sequence (0: no edits yet).
    public var sequence: UInt64
    /// Both slots, A then B; empty when the movie has no `cpED`.
    public var slots: [EDLSlotStatus]
    /// Problems worth telling the user (a torn slot from an interrupted edit, no valid slot).
    public var warnings: [String]

    public static let none = StoredEDL(text: nil, slot: nil, sequence: 0, slots: [], warnings: [])
}

/// Why an update rewrote the whole file instead of one slot.
public enum EDLRewriteReason: Sendable, Equatable, CustomStringConvertible {
    /// The movie has no `moov/udta/cpED` (written by another tool).
    case noSlots
    /// The EDL record does not fit the slot capacity.
    case textTooLarge(textLength: Int, capacity: Int)

    public var description: String {
        switch self {
        case .noSlots:
            return "the movie has no EDL slots (moov/udta/cpED), so they were added"
        case .textTooLarge(let length, let capacity):
            return "the EDL (\(length) bytes) does not fit the \(capacity)-byte slots, so they were enlarged"
        }
    }
}

/// What an update did.
public struct EDLUpdateResult: Sendable, Equatable, CustomStringConvertible {
    public enum Method: Sendable, Equatable {
        /// One slot record written with one positional write and synced.
        case inPlace
        /// The whole file rewritten to a temporary file and renamed over the original.
        case fullRewrite(EDLRewriteReason)
    }

    public var method: Method
    /// The slot now holding the EDL.
    public var slot: EDLSlotID
    public var sequence: UInt64
    /// Bytes written to storage: the slot capacity in place, the whole file on a rewrite.
    public var bytesWritten: Int64
    /// Slot capacity after the update.
    public var capacity: Int
    /// Absolute offset of the slot record written (in the new file after a rewrite).
    public var recordOffset: Int64

    public var isFullRewrite: Bool { method != .inPlace }

    public var description: String {
        switch method {
        case .inPlace:
            return "wrote the EDL in place: slot \(slot), sequence \(sequence), \(bytesWritten) bytes"
        case .fullRewrite(let reason):
            return "rewrote the whole file (\(bytesWritten) bytes) because \(reason); EDL in slot \(slot), sequence \(sequence)"
        }
    }
}
