import CinepackContainer
import CinepackFormat

/// The edit-decision list stored in a movie's two `moov/udta/cpED` slots (spec/format.md §8).
///
/// Opening reads the box tree (never `mdat`), checks the slots' structure and finds the current
/// EDL. `update(text:)` writes the slot not holding it with one positional write and an `fsync`,
/// so a power cut at any byte leaves a file that opens with the old or the new EDL. When the movie
/// has no slots, or the EDL outgrows them, it falls back to rewriting the whole file atomically
/// and says so in its result.
package struct EDLStore: Sendable {
    package let path: String
    package let io: any EDLStorageIO
    /// Where the slots are; nil for a movie without `cpED` (written by another tool).
    package internal(set) var layout: EDLStorageLayout?
    /// The EDL as of opening (or of the last `update`).
    package internal(set) var current: StoredEDL

    package init(path: String, io: any EDLStorageIO = POSIXStorageIO()) throws(EDLStorageError) {
        let source: FileByteSource
        do { source = try FileByteSource(path: path) } catch { throw .container(error, file: path) }
        let scan = try Self.scan(source, name: path)
        self.path = path
        self.io = io
        layout = scan.layout
        current = scan.stored
    }

    /// Stores `text` as the new EDL. Returns the slot, sequence and bytes written, and whether the
    /// whole file had to be rewritten (and why). On failure the movie is left byte-identical
    /// whenever the system lets us undo a partial slot write; otherwise it opens with the old EDL
    /// (or the new one, if its record was complete when the error came).
    ///
    /// With `expectedSequence` (the sequence the caller's EDL was read at, `current.sequence`),
    /// the update is refused with `changedByAnotherWriter` when, under the lock, the file holds
    /// another sequence: another process stored an edit meanwhile, which this one would erase.
    /// An EDL larger than readers accept (`XMLLimits.maxInputBytes`) is refused with `tooLarge`.
    @discardableResult
    package mutating func update(text: [UInt8], expectedSequence: UInt64? = nil) throws(EDLStorageError) -> EDLUpdateResult {
        guard text.count <= XMLLimits.maxInputBytes else {
            throw EDLStorageError(
                .tooLarge,
                "\(path): the EDL would be stored as \(text.count) bytes, above the \(XMLLimits.maxInputBytes) bytes a reader accepts; nothing written",
                clause: "spec/edl.md")
        }
        let handle = try io.openForUpdate(path: path)
        defer { handle.close() }
        // Parse again through the locked handle: the decision must be made on the very bytes we
        // are about to overwrite, not on a snapshot another editor may have superseded.
        let source = UpdateHandleSource(handle, name: path)
        let scan = try Self.scan(source, name: path)
        let (holder, sequence) = Self.choose(scan.records)
        if let expectedSequence, expectedSequence != sequence { throw .changedByAnotherWriter(path: path) }
        guard let layout = scan.layout else {
            return try rewriteAll(scan, source: source, text: text, previousSequence: 0, reason: .noSlots)
        }
        guard sequence < UInt64.max else {
            throw .malformed(
                "\(path): the EDL sequence is at its maximum (2^64 - 1); no further edit can be numbered",
                offset: layout[holder ?? .a].recordOffset)
        }
        let target = layout[holder?.other ?? .a]
        guard let record = EDLSlots.record(sequence: sequence + 1, text: text, capacity: target.capacity) else {
            return try rewriteAll(
                scan, source: source, text: text, previousSequence: sequence,
                reason: .textTooLarge(textLength: text.count, capacity: target.capacity))
        }
        // Kept so an error (as opposed to a crash) can put the slot back as it was.
        let previous = try handle.read(at: target.recordOffset, count: target.capacity)
        do throws(EDLStorageError) {
            try handle.write(record, at: target.recordOffset)
            try handle.sync()
        } catch {
            var failure = error
            let restored: Bool
            do throws(EDLStorageError) {
                try handle.write(previous, at: target.recordOffset)
                try handle.sync()
                restored = true
            } catch {
                restored = false
            }
            failure.message =
                "cannot write EDL slot \(target.slot) of \(path): \(error.message); "
                + (restored
                    ? "the file is unchanged"
                    : "the slot could not be restored; the file opens with the previous EDL, or with the new one if its record was written completely")
            throw failure
        }
        var records = scan.records
        records[target.slot.rawValue] = EDLSlots.decode(record: record)
        self.layout = layout
        current = Self.evaluate(records)
        return EDLUpdateResult(
            method: .inPlace, slot: target.slot, sequence: sequence + 1, bytesWritten: Int64(record.count),
            capacity: target.capacity, recordOffset: target.recordOffset)
    }

    /// `update(text:)` with the UTF-8 bytes of `text`.
    @discardableResult
    package mutating func update(text: String, expectedSequence: UInt64? = nil) throws(EDLStorageError) -> EDLUpdateResult {
        try update(text: Array(text.utf8), expectedSequence: expectedSequence)
    }

    // MARK: - Finding and reading the slots

    struct Scan {
        var tree: BoxTree
        var moov: Box
        var layout: EDLStorageLayout?
        /// Decoded records of slots A and B (nil: not valid); empty without a layout.
        var records: [EDLSlots.Slot?]
        var stored: StoredEDL
    }

    /// Reads the tree and the slots of the movie in `source`.
    static func scan(_ source: any ByteSource, name: String) throws(EDLStorageError) -> Scan {
        let tree: BoxTree
        do { tree = try BoxReader(source: source).readTree() } catch { throw .container(error, file: name) }
        let moovs = tree.all("moov")
        guard let moov = moovs.first else {
            throw .malformed("\(name): no moov box; not a complete movie", offset: 0)
        }
        guard moovs.count == 1 else {
            throw .malformed("\(name): \(moovs.count) moov boxes; a movie has exactly one", offset: moovs[1].header.offset)
        }
        if let inner = moov.child("cmov")?.child("cmvd")?.child("moov") {
            if let cpED = inner.children("udta").lazy.compactMap({ $0.child(EDLSlots.containerType) }).first {
                throw .unsupported(
                    "\(name): the EDL slots are inside a compressed movie header (cmov), where they cannot be written in place",
                    path: cpED.path)
            }
            return Scan(tree: tree, moov: moov, layout: nil, records: [], stored: .none)
        }
        let containers = moov.children("udta").flatMap { $0.children(EDLSlots.containerType) }
        guard let container = containers.first else {
            return Scan(tree: tree, moov: moov, layout: nil, records: [], stored: .none)
        }
        guard containers.count == 1 else {
            throw .malformed(
                "\(name): \(containers.count) cpED boxes; a movie has at most one",
                offset: containers[1].header.offset, path: containers[1].path)
        }
        let slots = container.children
        guard slots.count == 2, slots.allSatisfy({ $0.type == EDLSlots.slotType }) else {
            let found = slots.map { "'\($0.type)'" }.joined(separator: ", ")
            throw .malformed(
                "\(name): cpED must hold exactly two cpES slots, not [\(found)]",
                offset: container.header.offset, path: container.path)
        }
        // The slots must tile the container: bytes between them would make a slot write ambiguous.
        guard slots[0].header.offset == container.header.payloadOffset, slots[0].header.end == slots[1].header.offset,
            slots[1].header.end == container.header.end
        else {
            throw .malformed(
                "\(name): cpED holds bytes outside its two slots", offset: container.header.offset,
                path: container.path)
        }
        var locations: [EDLSlotLocation] = []
        for (index, box) in slots.enumerated() {
            let id = EDLSlotID(rawValue: index)!
            let overhead = Int64(EDLSlots.fullBoxHeaderSize + EDLSlots.recordHeaderSize)
            guard box.header.payloadSize >= overhead else {
                throw .malformed(
                    "\(name): slot \(id) has \(box.header.payloadSize) payload bytes, fewer than the \(overhead) of an empty record",
                    offset: box.header.offset, path: box.path)
            }
            let versionAndFlags = try read(source, at: box.header.payloadOffset, count: 4, name: name)
            guard versionAndFlags[0] == 0 else {
                throw .unsupported(
                    "\(name): slot \(id) has version \(versionAndFlags[0]); this version of cinepack knows only 0",
                    offset: box.header.offset, path: box.path)
            }
            locations.append(
                EDLSlotLocation(
                    slot: id, boxOffset: box.header.offset,
                    recordOffset: box.header.payloadOffset + Int64(EDLSlots.fullBoxHeaderSize),
                    capacity: Int(box.header.payloadSize - Int64(EDLSlots.fullBoxHeaderSize))))
        }
        guard locations[0].capacity == locations[1].capacity else {
            throw .malformed(
                "\(name): the EDL slots differ in capacity (A \(locations[0].capacity), B \(locations[1].capacity) bytes)",
                offset: container.header.offset, path: container.path)
        }
        let media = tree.all("mdat").first
        let layout = EDLStorageLayout(
            moovOffset: moov.header.offset, moovSize: moov.header.size,
            moovPrecedesMedia: media.map { $0.header.offset > moov.header.offset } ?? false,
            containerOffset: container.header.offset, slots: locations)
        var records: [EDLSlots.Slot?] = []
        for location in locations { records.append(try readRecord(location, source, name: name)) }
        return Scan(tree: tree, moov: moov, layout: layout, records: records, stored: evaluate(records))
    }

    /// The record of a slot, or nil when it is not valid. Reads the header and the text only, not
    /// the padding, so the cost follows the EDL, not the slot capacity.
    static func readRecord(
        _ location: EDLSlotLocation, _ source: any ByteSource, name: String
    ) throws(EDLStorageError)
        -> EDLSlots.Slot?
    {
        let header = try read(source, at: location.recordOffset, count: EDLSlots.recordHeaderSize, name: name)
        guard Array(header[0..<4]) == EDLSlots.magic else { return nil }
        let length = Int(header[12]) << 24 | Int(header[13]) << 16 | Int(header[14]) << 8 | Int(header[15])
        guard length <= location.capacity - EDLSlots.recordHeaderSize else { return nil }
        let text = try read(source, at: location.recordOffset + Int64(EDLSlots.recordHeaderSize), count: length, name: name)
        return EDLSlots.decode(record: header + text)
    }

    /// The slot holding the highest valid sequence, and that sequence (0 when no slot is valid).
    /// On a tie (two empty slots of a new movie) slot B counts as the holder, so the first edit
    /// goes to slot A; either choice is safe, since the slot not written still holds the sequence.
    static func choose(_ records: [EDLSlots.Slot?]) -> (holder: EDLSlotID?, sequence: UInt64) {
        var holder: EDLSlotID?
        for id in EDLSlotID.allCases where id.rawValue < records.count {
            guard let record = records[id.rawValue] else { continue }
            if let best = holder, let bestRecord = records[best.rawValue], bestRecord.sequence > record.sequence { continue }
            holder = id
        }
        return (holder, holder.flatMap { records[$0.rawValue]?.sequence } ?? 0)
    }

    /// What the user sees: the current text, its slot, and warnings about slots that are not valid.
    static func evaluate(_ records: [EDLSlots.Slot?]) -> StoredEDL {
        let (holder, sequence) = choose(records)
        let statuses = EDLSlotID.allCases.map { EDLSlotStatus(slot: $0, sequence: records[$0.rawValue]?.sequence) }
        var warnings: [String] = []
        if let holder {
            for status in statuses where !status.isValid {
                warnings.append(
                    "EDL slot \(status.slot) holds no valid record (an interrupted edit or damage); "
                        + "using slot \(holder), sequence \(sequence) (spec/format.md §8)")
            }
        } else {
            warnings.append(
                "neither EDL slot holds a valid record (both torn or damaged): the movie opens with no edits (spec/format.md §8)")
        }
        let hasEdits = holder != nil && sequence > 0
        return StoredEDL(
            text: hasEdits ? records[holder!.rawValue]!.text : nil, slot: hasEdits ? holder : nil,
            sequence: sequence, slots: statuses, warnings: warnings)
    }

    static func read(_ source: any ByteSource, at offset: Int64, count: Int, name: String) throws(EDLStorageError) -> [UInt8] {
        do { return try source.read(at: offset, count: count) } catch { throw .container(error, file: name) }
    }
}
