import CinepackCompression
import CinepackContainer
import CinepackFormat
import Foundation
import TestSupport
import Testing

@testable import CinepackEDL

/// The EDL slots of spec/format.md §8: finding them, reading the current EDL, the in-place update
/// and the atomic full rewrite it falls back to.
@Suite struct EDLStorageTests {
    // MARK: Reading and in-place updates

    @Test func newMovieHasTwoEmptySlotsAndNoEdits() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.cinematic(path)
        let store = try EDLStore(path: path)
        let layout = try #require(store.layout)
        #expect(layout.capacity == EDLSlots.defaultCapacity)
        #expect(!layout.moovPrecedesMedia)
        #expect(layout[.b].recordOffset == layout[.a].recordOffset + Int64(layout.capacity) + 12)
        #expect(
            store.current
                == StoredEDL(
                    text: nil, slot: nil, sequence: 0,
                    slots: [EDLSlotStatus(slot: .a, sequence: 0), EDLSlotStatus(slot: .b, sequence: 0)],
                    warnings: []))
    }

    @Test func repeatedUpdatesAlternateSlotsWithIncreasingSequences() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.cinematic(path)
        let before = try StorageFixtures.read(path)
        var store = try EDLStore(path: path)
        let layout = try #require(store.layout)
        for n in 1...7 {
            let text = StorageFixtures.text(300 * n, seed: UInt64(n))
            let result = try store.update(text: text)
            let slot: EDLSlotID = n % 2 == 1 ? .a : .b
            #expect(
                result
                    == EDLUpdateResult(
                        method: .inPlace, slot: slot, sequence: UInt64(n), bytesWritten: Int64(layout.capacity),
                        capacity: layout.capacity, recordOffset: layout[slot].recordOffset))
            #expect(store.current.text == text && store.current.slot == slot && store.current.sequence == UInt64(n))
            let reopened = try EDLStore(path: path)
            #expect(reopened.current == store.current)
            #expect(reopened.current.warnings.isEmpty)
            #expect(reopened.layout == layout, "an in-place update moves nothing")
        }
        // Only slot bytes changed; the file did not grow.
        let after = try StorageFixtures.read(path)
        #expect(after.count == before.count)
        let slots = layout[.a].recordOffset..<layout[.b].recordOffset + Int64(layout.capacity)
        for i in after.indices where after[i] != before[i] { #expect(slots.contains(Int64(i))) }
    }

    @Test func tornSlotFallsBackToTheOther() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.cinematic(path)
        var store = try EDLStore(path: path)
        let one = StorageFixtures.text(1000, seed: 1), two = StorageFixtures.text(1200, seed: 2)
        try store.update(text: one)
        try store.update(text: two)
        let layout = try #require(store.layout)
        let clean = try StorageFixtures.read(path)

        // A byte of B's text flipped (a torn write): A wins, with a warning naming B.
        var bytes = clean
        bytes[Int(layout[.b].recordOffset) + 20 + 500] ^= 0x40
        try StorageFixtures.write(bytes, path)
        var current = try EDLStore(path: path).current
        #expect(current.text == one && current.slot == .a && current.sequence == 1)
        #expect(current.slots == [EDLSlotStatus(slot: .a, sequence: 1), EDLSlotStatus(slot: .b, sequence: nil)])
        #expect(current.warnings.count == 1 && current.warnings[0].contains("slot B"))

        // Every header field of B damaged in turn: magic, sequence, length, CRC.
        for field in [0, 4, 12, 16] {
            bytes = clean
            bytes[Int(layout[.b].recordOffset) + field + 3] ^= 0x01
            try StorageFixtures.write(bytes, path)
            current = try EDLStore(path: path).current
            #expect(current.text == one && current.slot == .a, "field at \(field)")
        }

        // A length that would run past the slot.
        bytes = clean
        bytes.replaceSubrange(Int(layout[.b].recordOffset) + 12..<Int(layout[.b].recordOffset) + 16, with: [0xFF, 0xFF, 0xFF, 0xF0])
        try StorageFixtures.write(bytes, path)
        #expect(try EDLStore(path: path).current.text == one)

        // A torn, B (older) intact: B.
        bytes = clean
        bytes[Int(layout[.a].recordOffset) + 20 + 10] ^= 0xFF
        try StorageFixtures.write(bytes, path)
        current = try EDLStore(path: path).current
        #expect(current.text == two && current.slot == .b)

        // Both torn: no EDL, a warning, and the next update starts afresh in slot A.
        bytes = clean
        bytes[Int(layout[.a].recordOffset) + 20 + 10] ^= 0xFF
        bytes[Int(layout[.b].recordOffset) + 20 + 10] ^= 0xFF
        try StorageFixtures.write(bytes, path)
        store = try EDLStore(path: path)
        #expect(store.current.text == nil && store.current.slot == nil && store.current.sequence == 0)
        #expect(store.current.warnings.count == 1 && store.current.warnings[0].contains("neither EDL slot"))
        let three = StorageFixtures.text(700, seed: 3)
        let result = try store.update(text: three)
        #expect(result.slot == .a && result.sequence == 1 && result.method == .inPlace)
        #expect(try EDLStore(path: path).current.text == three)

        // Zeroed slots (magic gone) are invalid too.
        bytes = clean
        for i in 0..<layout.capacity { bytes[Int(layout[.a].recordOffset) + i] = 0; bytes[Int(layout[.b].recordOffset) + i] = 0 }
        try StorageFixtures.write(bytes, path)
        #expect(try EDLStore(path: path).current.text == nil)
    }

    @Test func moovFirstMovieIsUpdatedInPlace() throws {
        let dir = try Paths.temporaryDirectory()
        try StorageFixtures.cinematic(dir.file("last.mov"))
        let path = dir.file("first.mov")
        try StorageFixtures.moovFirst(from: dir.file("last.mov"), to: path)
        #expect(try StorageFixtures.samples(path) == StorageFixtures.samples(dir.file("last.mov")), "fixture: the rearrangement is right")
        var store = try EDLStore(path: path)
        let layout = try #require(store.layout)
        #expect(layout.moovPrecedesMedia)
        let text = StorageFixtures.text(4000, seed: 4)
        let result = try store.update(text: text)
        #expect(result.method == .inPlace && result.slot == .a && result.recordOffset == layout[.a].recordOffset)
        #expect(try EDLStore(path: path).current.text == text)
    }

    @Test func emptyTextIsAnEditToo() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.cinematic(path)
        var store = try EDLStore(path: path)
        try store.update(text: "<edl/>")
        try store.update(text: [])
        let current = try EDLStore(path: path).current
        #expect(current.text == [] && current.sequence == 2 && current.slot == .b)
    }

    // MARK: Structure checks

    /// A movie whose cpED is replaced by `container`.
    static func withContainer(_ container: [UInt8], in dir: TemporaryDirectory) throws -> String {
        try StorageFixtures.cinematic(dir.file("base.mov"))
        let source = try FileByteSource(path: dir.file("base.mov"))
        let tree = try BoxReader(source: source).readTree()
        let cpED = try #require(tree.first("moov")?.child("udta")?.child("cpED"))
        let boxes = try WritableBox.replacing(path: cpED.path, in: tree.boxes, with: .bytes(container), source: source)
        var sink = MemorySink()
        try BoxTreeWriter(source: source).write(boxes, to: &sink)
        let path = dir.file("edited.mov")
        try StorageFixtures.write(sink.bytes, path)
        return path
    }

    static func slot(_ capacity: Int, version: UInt8 = 0) -> [UInt8] {
        StorageFixtures.box("cpES", [version, 0, 0, 0] + EDLSlots.record(sequence: 0, text: [], capacity: capacity)!)
    }

    @Test(arguments: [
        ("three slots", [EDLStorageTests.slot(1024), EDLStorageTests.slot(1024), EDLStorageTests.slot(1024)], "exactly two cpES"),
        ("one slot", [EDLStorageTests.slot(1024)], "exactly two cpES"),
        ("unequal capacity", [EDLStorageTests.slot(1024), EDLStorageTests.slot(2048)], "differ in capacity"),
        ("foreign child", [EDLStorageTests.slot(1024), StorageFixtures.box("free", [0, 0, 0, 0])], "exactly two cpES"),
        (
            "slot too small", [StorageFixtures.box("cpES", [0, 0, 0, 0, 1, 2]), StorageFixtures.box("cpES", [0, 0, 0, 0, 1, 2])],
            "fewer than the 24"
        ),
        ("unknown version", [EDLStorageTests.slot(1024, version: 1), EDLStorageTests.slot(1024, version: 1)], "version 1"),
    ])
    func malformedSlotsAreRefused(_ name: String, _ children: [[UInt8]], _ message: String) throws {
        let dir = try Paths.temporaryDirectory()
        let path = try Self.withContainer(StorageFixtures.box("cpED", children.flatMap { $0 }), in: dir)
        let error = #expect(throws: EDLStorageError.self) { try EDLStore(path: path) }
        #expect(error?.description.contains(message) == true, "\(name): \(error?.description ?? "")")
        #expect(error?.offset != nil, "errors say where")
    }

    @Test func twoContainersAreRefused() throws {
        let dir = try Paths.temporaryDirectory()
        let container = EDLSlots.emptyContainer(capacity: 1024)
        let path = try Self.withContainer(container + container, in: dir)
        let error = #expect(throws: EDLStorageError.self) { try EDLStore(path: path) }
        #expect(error?.description.contains("2 cpED boxes") == true)
    }

    @Test func slotsInsideACompressedMovieAreRefused() throws {
        let dir = try Paths.temporaryDirectory()
        try StorageFixtures.cinematic(dir.file("plain.mov"))
        let bytes = try StorageFixtures.read(dir.file("plain.mov"))
        let moov = try #require(try StorageFixtures.tree(dir.file("plain.mov")).first("moov"))
        let moovBytes = Array(bytes[Int(moov.header.offset)..<Int(moov.header.end)])
        let deflated = try Zlib.deflate(moovBytes)
        var size = ByteWriter()
        size.u32(UInt32(moovBytes.count))
        let cmov = StorageFixtures.box(
            "cmov", StorageFixtures.box("dcom", Array("zlib".utf8)) + StorageFixtures.box("cmvd", size.bytes + deflated))
        let path = dir.file("compressed.mov")
        try StorageFixtures.write(Array(bytes[..<Int(moov.header.offset)]) + StorageFixtures.box("moov", cmov), path)
        let error = #expect(throws: EDLStorageError.self) { try EDLStore(path: path) }
        #expect(error?.kind == .unsupported && error?.description.contains("compressed") == true)
    }

    // MARK: The full rewrite

    /// Checks a rewritten file against its original: the same samples, byte for byte, through the
    /// sample tables; every top-level box but moov identical; every moov child other than udta and
    /// the tracks identical; the new EDL in slot A.
    static func checkRewrite(original: String, rewritten: String, text: [UInt8], sequence: UInt64) throws {
        #expect(try StorageFixtures.samples(rewritten) == StorageFixtures.samples(original))
        let a = try StorageFixtures.read(original), b = try StorageFixtures.read(rewritten)
        let treeA = try StorageFixtures.tree(original), treeB = try StorageFixtures.tree(rewritten)
        #expect(treeA.boxes.map(\.type) == treeB.boxes.map(\.type), "top-level order kept")
        for (x, y) in zip(treeA.boxes, treeB.boxes) where x.type != "moov" {
            #expect(a[Int(x.header.offset)..<Int(x.header.end)] == b[Int(y.header.offset)..<Int(y.header.end)], "\(x.type) kept")
        }
        let moovA = try #require(treeA.first("moov")), moovB = try #require(treeB.first("moov"))
        let keptA = moovA.children.filter { $0.type != "udta" && $0.type != "trak" }
        let keptB = moovB.children.filter { $0.type != "udta" && $0.type != "trak" }
        #expect(keptA.map(\.type) == keptB.map(\.type))
        for (x, y) in zip(keptA, keptB) {
            #expect(a[Int(x.header.offset)..<Int(x.header.end)] == b[Int(y.header.offset)..<Int(y.header.end)], "moov/\(x.type) kept")
        }
        // udta keeps its other children.
        let otherA = moovA.child("udta")?.children.filter { $0.type != "cpED" } ?? []
        let otherB = moovB.child("udta")?.children.filter { $0.type != "cpED" } ?? []
        #expect(
            otherA.map { a[Int($0.header.offset)..<Int($0.header.end)] } == otherB.map { b[Int($0.header.offset)..<Int($0.header.end)] })
        let store = try EDLStore(path: rewritten)
        #expect(store.current.text == text && store.current.slot == .a && store.current.sequence == sequence)
        #expect(store.current.slots == [EDLSlotStatus(slot: .a, sequence: sequence), EDLSlotStatus(slot: .b, sequence: 0)])
        #expect(store.layout?.capacity == EDLSlots.capacity(forTextLength: text.count))
        #expect(try Movie.read(path: rewritten, options: .init(strict: true)).tracks.count == Movie.read(path: original).tracks.count)
    }

    enum Layout: String, CaseIterable, Sendable { case moovLast, moovFirst }

    /// An EDL larger than the slots: the file is rewritten with larger slots, the sequence goes on.
    @Test(arguments: Layout.allCases)
    func textTooLargeRewritesTheFile(_ layout: Layout) throws {
        let dir = try Paths.temporaryDirectory()
        var path = dir.file("movie.mov")
        try StorageFixtures.cinematic(path)
        if layout == .moovFirst {
            try StorageFixtures.moovFirst(from: path, to: dir.file("first.mov"))
            path = dir.file("first.mov")
            try FileManager.default.removeItem(atPath: dir.file("movie.mov"))
        }
        var store = try EDLStore(path: path)
        try store.update(text: StorageFixtures.text(500, seed: 1))
        try store.update(text: StorageFixtures.text(600, seed: 2))
        try StorageFixtures.copy(path, to: dir.file("original.mov"))
        let big = StorageFixtures.text(70_000, seed: 3)
        let result = try store.update(text: big)
        #expect(result.method == .fullRewrite(.textTooLarge(textLength: big.count, capacity: EDLSlots.defaultCapacity)))
        #expect(result.slot == .a && result.sequence == 3 && result.capacity == EDLSlots.capacity(forTextLength: big.count))
        #expect(result.bytesWritten == Int64(try StorageFixtures.read(path).count))
        #expect(result.description.contains("does not fit"))
        #expect(store.layout == (try EDLStore(path: path).layout), "the store knows the new layout")
        #expect(store.layout?.moovPrecedesMedia == (layout == .moovFirst))
        try Self.checkRewrite(original: dir.file("original.mov"), rewritten: path, text: big, sequence: 3)
        // Chunk offsets moved exactly when media follows moov.
        let before = try Movie.read(path: dir.file("original.mov")).tracks.map { $0.samples.sample(at: 0)!.offset }
        let after = try Movie.read(path: path).tracks.map { $0.samples.sample(at: 0)!.offset }
        let growth = Int64(try StorageFixtures.read(path).count - StorageFixtures.read(dir.file("original.mov")).count)
        #expect(after == before.map { layout == .moovFirst ? $0 + growth : $0 })
        try StorageFixtures.checkWithFFmpeg(path)
        // Back to in-place updates in the larger slots.
        let next = try store.update(text: big.reversed())
        #expect(next.method == .inPlace && next.slot == .b && next.sequence == 4)
        #expect(try StorageFixtures.listing(dir).allSatisfy { !$0.hasPrefix(".") }, "no temporary file left")
    }

    /// Movies from other tools (no cpED) get slots on their first edit, by the atomic rewrite.
    @Test(arguments: [
        "valid/raw-moov-last.mov", "valid/raw-moov-first.mov", "valid/unknown-boxes.mov", "valid/large-size-co64.mov",
        "valid/size-zero-mdat.mov", "valid/iso-meta.mov", "valid/quicktime-meta.mov", "valid/one-chunk-stss.mov",
        "cinematic/demo-small.mov",
    ])
    func foreignMovieGetsSlots(_ fixture: String) throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.copy(Paths.corpus(fixture), to: path)
        var store = try EDLStore(path: path)
        if store.layout != nil {
            // demo-small.mov once regenerated with slots is no longer foreign: its edit is in place.
            #expect(fixture == "cinematic/demo-small.mov")
            let result = try store.update(text: "<edl/>")
            #expect(result.method == .inPlace)
            #expect(try StorageFixtures.samples(path) == StorageFixtures.samples(Paths.corpus(fixture)))
            try StorageFixtures.checkWithFFmpeg(path)
            return
        }
        #expect(store.current == .none)
        let text = StorageFixtures.text(1500, seed: 11)
        let result = try store.update(text: text)
        #expect(result.method == .fullRewrite(.noSlots))
        #expect(result.slot == .a && result.sequence == 1)
        try Self.checkRewrite(original: Paths.corpus(fixture), rewritten: path, text: text, sequence: 1)
        try StorageFixtures.checkWithFFmpeg(path)
        #expect(try StorageFixtures.listing(dir) == ["movie.mov"], "no temporary file left")
        // The second edit is in place.
        let second = try store.update(text: StorageFixtures.text(100, seed: 12))
        #expect(second.method == .inPlace && second.slot == .b && second.sequence == 2)
    }

    /// A moov-first movie from ffmpeg (a real foreign fast-start file with its own udta).
    @Test func ffmpegFastStartMovieGetsSlots() throws {
        guard try Peers.available("ffmpeg") else { return }
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try Peers.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "1",
                "-c:v", "png", "-movflags", "+faststart", path,
            ])
        try StorageFixtures.copy(path, to: dir.file("original.mov"))
        var store = try EDLStore(path: path)
        #expect(store.layout == nil)
        let text = StorageFixtures.text(2500, seed: 5)
        #expect(try store.update(text: text).method == .fullRewrite(.noSlots))
        #expect(store.layout?.moovPrecedesMedia == true)
        try Self.checkRewrite(original: dir.file("original.mov"), rewritten: path, text: text, sequence: 1)
        try StorageFixtures.checkWithFFmpeg(path)
    }

    /// A symbolic link: the file it names is rewritten, the link stays a link.
    @Test func rewriteFollowsSymbolicLinks() throws {
        let dir = try Paths.temporaryDirectory()
        try StorageFixtures.copy(Paths.corpus("valid/raw-moov-first.mov"), to: dir.file("real.mov"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.mov"), withDestinationPath: dir.file("real.mov"))
        var store = try EDLStore(path: dir.file("link.mov"))
        try store.update(text: "<edl/>")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("link.mov")) == dir.file("real.mov"))
        #expect(try EDLStore(path: dir.file("real.mov")).current.text == Array("<edl/>".utf8))
    }

    /// Pushing chunk offsets past 4 GiB turns stco into co64 (which grows moov again). Checked on
    /// a virtual 4 GiB file, so nothing that large is written.
    @Test func offsetsPastFourGigabytesBecomeCo64() throws {
        let dir = try Paths.temporaryDirectory()
        try StorageFixtures.cinematic(dir.file("small.mov"))
        let small = try StorageFixtures.read(dir.file("small.mov"))
        let tree = try StorageFixtures.tree(dir.file("small.mov"))
        let ftyp = try #require(tree.first("ftyp")), moov = try #require(tree.first("moov"))
        // ftyp, moov (offsets patched), a 64-bit 'free' of ~4 GiB of zeros, then wide + mdat.
        let mediaStart = Int(ftyp.header.end), mediaEnd = Int(moov.header.offset)
        let media = Array(small[mediaStart..<mediaEnd])
        var moovBytes = Array(small[Int(moov.header.offset)..<Int(moov.header.end)])
        // The last media byte ends 20 000 bytes short of 4 GiB; moov then grows by far more.
        let gap = (1 << 32) - 20_000 - Int64(mediaStart + moovBytes.count + media.count)
        let shift = Int64(moovBytes.count) + gap
        moov.forEach { box, _ in
            guard box.type == "stco" else { return }
            let entries = Int(box.header.payloadOffset + 4 - moov.header.offset)
            for i in 0..<Int(StorageFixtures.u32(moovBytes, entries)) {
                let at = entries + 4 + 4 * i
                let value = UInt32(Int64(StorageFixtures.u32(moovBytes, at)) + shift)
                for j in 0..<4 { moovBytes[at + j] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(j))) }
            }
        }
        var free = ByteWriter()
        free.u32(1); free.fourCC("free"); free.u64(UInt64(gap))
        let head = Array(small[..<mediaStart]) + moovBytes + free.bytes
        let virtual = VirtualFile(
            size: Int64(head.count) + gap - 16 + Int64(media.count),
            segments: [(0, head), (Int64(head.count) + gap - 16, media)])
        let scan = try EDLStore.scan(virtual, name: "virtual")
        let container = EDLSlots.emptyContainer(capacity: 200_000)
        let plan = try MovieRewritePlan(scan: scan, source: virtual, container: container, name: "virtual")
        let rebuilt = try BoxReader(source: MemoryByteSource(plan.moov)).readTree()
        let newMoov = try #require(rebuilt.first("moov"))
        var types: [FourCC] = []
        var offsets: [UInt64] = []
        newMoov.forEach { box, _ in
            if box.type == "stco" || box.type == "co64" {
                types.append(box.type)
                offsets += box.content(as: ChunkOffsetBox.self)?.offsets ?? []
            }
        }
        #expect(types == ["co64", "co64", "co64"], "all three tracks' media now lies past 4 GiB")
        #expect(offsets.allSatisfy { $0 > UInt64(UInt32.max) })
        #expect(plan.delta == Int64(plan.moov.count) - moov.header.size)
        // Every old offset moved by exactly the growth of moov.
        var old: [UInt64] = []
        scan.moov.forEach { box, _ in old += box.content(as: ChunkOffsetBox.self)?.offsets ?? [] }
        #expect(offsets == old.map { $0 + UInt64(plan.delta) })
    }

    // MARK: Failures leave the input byte-identical

    static let failures: [Fault] = [
        .failOpen, .writeError(afterBytes: 0), .writeError(afterBytes: 3000), .writeError(afterBytes: 65_000),
        .syncError,
    ]

    @Test(arguments: failures)
    func failedInPlaceUpdateLeavesTheFileUnchanged(_ fault: Fault) throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.cinematic(path)
        var clean = try EDLStore(path: path)
        try clean.update(text: StorageFixtures.text(4000, seed: 1))
        let before = try StorageFixtures.read(path)
        var store = try EDLStore(path: path, io: FaultyIO(fault: fault))
        let error = #expect(throws: EDLStorageError.self) { try store.update(text: StorageFixtures.text(3000, seed: 2)) }
        if case .failOpen = fault {
        } else {
            #expect(error?.description.contains("the file is unchanged") == true, "\(error?.description ?? "")")
        }
        #expect(try StorageFixtures.read(path) == before)
        #expect(try EDLStore(path: path).current.sequence == 1)
    }

    @Test(arguments: [
        Fault.replacementWriteError(afterBytes: 0), .replacementWriteError(afterBytes: 1000),
        .replacementWriteError(afterBytes: 5000), .replacementCommitError,
    ])
    func failedRewriteLeavesTheFileUnchanged(_ fault: Fault) throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.copy(Paths.corpus("valid/raw-moov-first.mov"), to: path)
        let before = try StorageFixtures.read(path)
        var store = try EDLStore(path: path, io: FaultyIO(fault: fault))
        #expect(throws: EDLStorageError.self) { try store.update(text: "<edl/>") }
        #expect(try StorageFixtures.read(path) == before)
        #expect(try StorageFixtures.listing(dir) == ["movie.mov"], "the temporary file is removed")
    }

    @Test func compressedForeignMovieIsRefusedUnchanged() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.copy(Paths.corpus("valid/compressed-moov.mov"), to: path)
        let before = try StorageFixtures.read(path)
        var store = try EDLStore(path: path)
        let error = #expect(throws: EDLStorageError.self) { try store.update(text: "<edl/>") }
        #expect(error?.kind == .unsupported)
        #expect(try StorageFixtures.read(path) == before)
        #expect(try StorageFixtures.listing(dir) == ["movie.mov"])
    }

    @Test func readOnlyFileIsRefusedUnchanged() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.cinematic(path)
        let before = try StorageFixtures.read(path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path) }
        var store = try EDLStore(path: path)
        // The mode bits decide, for root too.
        let error = #expect(throws: EDLStorageError.self) { try store.update(text: "<edl/>") }
        #expect(error?.kind == .readOnly)
        #expect(error?.description.contains("is not writable (mode r--r--r--)") == true)
        #expect(try StorageFixtures.read(path) == before)
    }

    @Test func concurrentEditorIsToldTheFileIsBusy() throws {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("movie.mov")
        try StorageFixtures.cinematic(path)
        let holder = try POSIXStorageIO().openForUpdate(path: path)
        defer { holder.close() }
        // flock locks belong to open file descriptions, so a second open in this process conflicts too.
        var store = try EDLStore(path: path, io: POSIXStorageIO(lockWait: 0.2))
        let before = try StorageFixtures.read(path)
        let error = #expect(throws: EDLStorageError.self) { try store.update(text: "<edl/>") }
        #expect(error?.kind == .busy)
        #expect(error?.file == path)
        #expect(error?.description.contains("is busy") == true)
        #expect(try StorageFixtures.read(path) == before)
    }
}

/// A file of `size` bytes that holds `segments` and zeros elsewhere, never materialised.
final class VirtualFile: ByteSource, @unchecked Sendable {
    let size: Int64
    let segments: [(Int64, [UInt8])]
    let name = "virtual"
    var bytesRead: Int64 = 0

    init(size: Int64, segments: [(Int64, [UInt8])]) {
        self.size = size
        self.segments = segments
    }

    func read(at offset: Int64, count: Int) throws(ContainerError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset + Int64(count) <= size else {
            throw ContainerError.truncated(offset: offset, wanted: Int64(count), fileSize: size)
        }
        var result = [UInt8](repeating: 0, count: count)
        for (start, bytes) in segments {
            let lo = max(start, offset), hi = min(start + Int64(bytes.count), offset + Int64(count))
            guard lo < hi else { continue }
            for i in lo..<hi { result[Int(i - offset)] = bytes[Int(i - start)] }
        }
        bytesRead += Int64(count)
        return result
    }
}
