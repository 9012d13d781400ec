import CinepackContainer
import CinepackFormat
import Foundation
import TestSupport
import Testing

@testable import CinepackEDL

/// spec/format.md §8: "a power cut at any byte leaves a file that opens with either the old or the new
/// edits, complete", tested by cutting the in-place update at every write boundary and at many
/// byte offsets and sector subsets inside the slot write (spec/format.md §8, fault injection).
@Suite struct CrashSafetyTests {
    /// A movie whose slots hold edits 1 (slot A, long text) and 2 (slot B): the next update
    /// overwrites slot A, which holds a longer, older text, so stale bytes can survive in its padding.
    final class Scenario {
        let dir: TemporaryDirectory
        let base: [UInt8]
        let path: String
        let oldText = StorageFixtures.text(2000, seed: 2)
        let newText = StorageFixtures.text(3100, seed: 3)
        let target: EDLSlotLocation
        let newRecord: [UInt8]
        let mdat: Range<Int>

        init(_ name: String = #function) throws {
            dir = try Paths.temporaryDirectory(name)
            path = dir.file("movie.mov")
            try StorageFixtures.cinematic(path)
            var store = try EDLStore(path: path)
            try store.update(text: StorageFixtures.text(5000, seed: 1))
            try store.update(text: oldText)
            base = try StorageFixtures.read(path)
            let layout = try #require(store.layout)
            target = layout[.a]
            newRecord = try #require(EDLSlots.record(sequence: 3, text: newText, capacity: target.capacity))
            let media = try #require(try StorageFixtures.tree(path).first("mdat"))
            mdat = Int(media.header.offset)..<Int(media.header.end)
        }

        var pieces: [Range<Int>] { Fault.pieces(offset: target.recordOffset, count: target.capacity) }

        /// Restores the base file, runs the update under `fault`, reopens and checks the outcome.
        /// Returns whether the new EDL was found.
        @discardableResult
        func run(_ fault: Fault, expectCrash: Bool = true) throws -> Bool {
            try StorageFixtures.write(base, path)
            var store = try EDLStore(path: path, io: FaultyIO(fault: fault))
            #expect(store.current.sequence == 2)
            do {
                let result = try store.update(text: newText)
                #expect(!expectCrash, "\(fault): the update reported success")
                #expect(
                    result
                        == EDLUpdateResult(
                            method: .inPlace, slot: .a, sequence: 3, bytesWritten: Int64(target.capacity),
                            capacity: target.capacity, recordOffset: target.recordOffset))
            } catch {
                #expect(expectCrash, "\(fault): \(error)")
            }
            return try check(fault)
        }

        /// After the "reboot": the file opens with the old or the new EDL, complete, and nothing
        /// outside the slot record being written changed.
        func check(_ fault: Fault) throws -> Bool {
            let after = try StorageFixtures.read(path)
            #expect(after.count == base.count)
            let record = Int(target.recordOffset)..<Int(target.recordOffset) + target.capacity
            #expect(StorageFixtures.digest(after[mdat]) == StorageFixtures.digest(base[mdat]), "\(fault): media bytes changed")
            #expect(
                StorageFixtures.digest(after[..<record.lowerBound]) == StorageFixtures.digest(base[..<record.lowerBound]),
                "\(fault): bytes before the slot changed")
            #expect(
                StorageFixtures.digest(after[record.upperBound...]) == StorageFixtures.digest(base[record.upperBound...]),
                "\(fault): bytes after the slot changed")

            let reopened = try EDLStore(path: path)
            let current = reopened.current
            // New exactly when the header and text on disk are the new record's; else old, whole.
            let textEnd = record.lowerBound + EDLSlots.recordHeaderSize + newText.count
            let newOnDisk = after[record.lowerBound..<textEnd].elementsEqual(newRecord[0..<textEnd - record.lowerBound])
            if newOnDisk {
                #expect(current.text == newText && current.sequence == 3 && current.slot == .a, "\(fault)")
            } else {
                #expect(current.text == oldText && current.sequence == 2 && current.slot == .b, "\(fault)")
            }
            // The file is still a movie a reader opens.
            _ = try Movie.read(path: path)
            return newOnDisk
        }
    }

    @Test func everyWriteBoundary() throws {
        let s = try Scenario()
        #expect(try s.run(.powerCutBeforeWrite) == false)
        #expect(try StorageFixtures.read(s.path) == s.base, "nothing written before the write")
        #expect(try s.run(.powerCutAfterPrefix(0)) == false)
        #expect(try s.run(.powerCutBeforeSync) == true)
        #expect(try s.run(.powerCutAfterSync, expectCrash: false) == true)
        #expect(try s.run(.none, expectCrash: false) == true)
    }

    @Test func everyFieldBoundaryInsideTheRecord() throws {
        let s = try Scenario()
        let header = EDLSlots.recordHeaderSize, full = header + s.newText.count
        // Magic, sequence, length, CRC, text, padding: each boundary and its neighbours.
        for k in [1, 3, 4, 5, 11, 12, 13, 15, 16, 17, 19, 20, 21, full - 1, full, full + 1, s.target.capacity - 1, s.target.capacity] {
            let found = try s.run(.powerCutAfterPrefix(k))
            #expect(found == (k >= full), "prefix \(k)")
        }
    }

    @Test func randomPrefixes() throws {
        let s = try Scenario()
        var rng = SeededGenerator(seed: 0xC0FFEE)
        var outcomes: Set<Bool> = []
        for _ in 0..<200 {
            // Half inside header + text, where the outcome flips, half anywhere.
            let limit = rng.next() % 2 == 0 ? EDLSlots.recordHeaderSize + s.newText.count + 8 : s.target.capacity
            let k = Int(rng.next() % UInt64(limit + 1))
            let found = try s.run(.powerCutAfterPrefix(k))
            #expect(found == (k >= EDLSlots.recordHeaderSize + s.newText.count), "prefix \(k)")
            outcomes.insert(found)
        }
        #expect(outcomes == [false, true])
    }

    /// A disk may persist the sectors of one write in any order: any subset of them, in any order.
    @Test func scrambledSectorSubsets() throws {
        let s = try Scenario()
        let pieces = s.pieces
        let textPieces = pieces.indices.filter { pieces[$0].lowerBound < EDLSlots.recordHeaderSize + s.newText.count }
        var rng = SeededGenerator(seed: 0x5EC7)
        var outcomes: Set<Bool> = []
        for round in 0..<240 {
            var chosen: [Int]
            if round % 3 == 0 {
                // Every piece holding header and text, plus some padding: the new EDL must win.
                chosen = textPieces + pieces.indices.filter { _ in rng.next() % 2 == 0 && true }.filter { !textPieces.contains($0) }
            } else if round % 3 == 1 {
                // All but one header/text piece: the old EDL must win.
                let missing = textPieces[Int(rng.next() % UInt64(textPieces.count))]
                chosen = pieces.indices.filter { $0 != missing && rng.next() % 4 != 0 }
            } else {
                let p = Double(rng.next() % 1000) / 1000
                chosen = pieces.indices.filter { _ in Double(rng.next() % 1000) / 1000 < p }
            }
            chosen.shuffle(using: &rng)
            let found = try s.run(.powerCutAfterSectors(chosen))
            if round % 3 == 0 { #expect(found, "round \(round)") }
            if round % 3 == 1 { #expect(!found, "round \(round)") }
            outcomes.insert(found)
        }
        #expect(outcomes == [false, true])
    }

    /// After any interrupted update the next one succeeds and wins.
    @Test func recoveryAfterPowerCut() throws {
        let s = try Scenario()
        for fault in [Fault.powerCutAfterPrefix(700), .powerCutAfterPrefix(10), .powerCutBeforeSync] {
            try s.run(fault)
            var store = try EDLStore(path: s.path)
            let recovered = StorageFixtures.text(900, seed: 9)
            let result = try store.update(text: recovered)
            #expect(result.method == .inPlace)
            #expect(try EDLStore(path: s.path).current.text == recovered)
            #expect(try EDLStore(path: s.path).current.sequence == store.current.sequence)
        }
    }
}
