import CinepackContainer
import CinepackFormat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fallback of spec/format.md §8: the whole movie rewritten to a temporary file and renamed
/// over the original, with a new `moov/udta/cpED` whose slot A holds the EDL. Every other box is
/// copied byte for byte; only the ancestors of what changes (`udta`, and the chunk offset tables
/// when `moov` precedes the media) are rebuilt.
extension EDLStore {
    mutating func rewriteAll(
        _ scan: Scan, source: any ByteSource, text: [UInt8], previousSequence: UInt64,
        reason: EDLRewriteReason
    ) throws(EDLStorageError) -> EDLUpdateResult {
        let sequence = previousSequence + 1
        let capacity = EDLSlots.capacity(forTextLength: text.count)
        guard let recordA = EDLSlots.record(sequence: sequence, text: text, capacity: capacity),
            let recordB = EDLSlots.record(sequence: 0, text: [], capacity: capacity)
        else { throw EDLStorageError(.tooLarge, "\(path): an EDL of \(text.count) bytes is too large to store") }
        var container = ByteWriter()
        container.box(EDLSlots.containerType) { w in
            for record in [recordA, recordB] {
                w.box(EDLSlots.slotType) { w in
                    w.fullBoxHeader(version: 0, flags: 0)
                    w.bytes(record)
                }
            }
        }
        let plan = try MovieRewritePlan(scan: scan, source: source, container: container.bytes, name: path)
        // Check the new moov before any byte is written: it parses, its slots hold the new EDL,
        // and every chunk offset is the old one moved by exactly the size change.
        let check = try Self.scan(MemoryByteSource(plan.moov, name: "new moov of \(path)"), name: "new moov of \(path)")
        try plan.verifyChunkOffsets(in: check.moov)
        guard var newLayout = check.layout, check.stored.text == text, check.stored.sequence == sequence else {
            throw EDLStorageError(.io, "internal: the rebuilt moov of \(path) does not hold the new EDL; nothing was written")
        }
        let moovOffset = scan.moov.header.offset
        newLayout.moovOffset += moovOffset
        newLayout.containerOffset += moovOffset
        for i in newLayout.slots.indices {
            newLayout.slots[i].boxOffset += moovOffset
            newLayout.slots[i].recordOffset += moovOffset
        }
        newLayout.moovPrecedesMedia =
            scan.layout?.moovPrecedesMedia
            ?? scan.tree.all("mdat").contains { $0.header.offset > moovOffset }

        // Replace what the path names, not a symbolic link to it.
        let target = Self.resolved(path)
        let replacement = try io.beginReplacement(of: target)
        do throws(ContainerError) {
            var sink = ReplacementSink(handle: replacement)
            let writer = BoxTreeWriter(source: source)
            var boxes: [WritableBox] = scan.tree.boxes.map { $0.header.offset == moovOffset ? .bytes(plan.moov) : .original($0) }
            // Bytes after the last box (too few for a header) are kept too.
            let end = scan.tree.boxes.last?.header.end ?? 0
            if end < scan.tree.fileSize {
                boxes.append(.bytes(try source.read(at: end, count: Int(scan.tree.fileSize - end))))
            }
            try writer.write(boxes, to: &sink)
            guard replacement.bytesWritten == scan.tree.fileSize + plan.delta else {
                throw ContainerError.io("internal: wrote \(replacement.bytesWritten) bytes, expected \(scan.tree.fileSize + plan.delta)")
            }
        } catch {
            replacement.abandon()
            throw .container(error, file: path)
        }
        do { try replacement.commit() } catch {
            replacement.abandon()
            throw error
        }
        layout = newLayout
        current = check.stored
        return EDLUpdateResult(
            method: .fullRewrite(reason), slot: .a, sequence: sequence, bytesWritten: replacement.bytesWritten,
            capacity: capacity, recordOffset: newLayout.slots[0].recordOffset)
    }

    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}

/// Writes into an `EDLReplacementHandle` through the box layer's `ByteSink`.
struct ReplacementSink: ByteSink {
    let handle: any EDLReplacementHandle
    var bytesWritten: Int64 { handle.bytesWritten }

    mutating func write(_ bytes: some Collection<UInt8>) throws(ContainerError) {
        do { try handle.write(bytes as? [UInt8] ?? Array(bytes)) } catch { throw ContainerError.io(error.description) }
    }
}

/// The new `moov`: `udta` gains (or has replaced) the `cpED` box, and when `moov` precedes media
/// every chunk offset past it moves by the change in `moov`'s size.
struct MovieRewritePlan {
    /// The new `moov`, serialised.
    var moov: [UInt8]
    /// New size minus old size of `moov`: how far everything after it moves.
    var delta: Int64
    /// Chunk offset tables as they must read in the new file, by the path of their `stbl`.
    var expectedOffsets: [String: [UInt64]]

    init(scan: EDLStore.Scan, source: any ByteSource, container: [UInt8], name: String) throws(EDLStorageError) {
        let moov = scan.moov
        guard moov.origin == .file, moov.child("cmov") == nil else {
            throw .unsupported(
                "\(name): the movie header is compressed (cmov); cinepack cannot add EDL slots to it",
                offset: moov.header.offset, path: moov.path)
        }
        let moovEnd = moov.header.end
        let followers = scan.tree.boxes.filter { $0.header.offset >= moovEnd }
        if !followers.isEmpty {
            // Offsets we cannot adjust would point at the wrong bytes once the media moves.
            if let fragment = followers.first(where: { $0.type == "moof" }) {
                throw .unsupported(
                    "\(name): a fragmented movie with fragments after moov cannot be rewritten with EDL slots",
                    offset: fragment.header.offset, path: fragment.path)
            }
            var absolute: Box?
            moov.forEach { box, _ in
                if absolute == nil, box.type == "saio" || box.type == "iloc" { absolute = box }
            }
            if let absolute {
                throw .unsupported(
                    "\(name): '\(absolute.type)' holds absolute file offsets this rewrite cannot adjust",
                    offset: absolute.header.offset, path: absolute.path)
            }
        }

        // udta: replace the cpED where it is, else add one to the first udta, else add a udta.
        var replacing: [String: WritableBox] = [:]
        var appending: [String: [WritableBox]] = [:]
        let udtas = moov.children("udta")
        if let existing = udtas.lazy.compactMap({ $0.child(EDLSlots.containerType) }).first {
            replacing[existing.path] = .bytes(container)
        } else if let udta = udtas.first {
            appending[udta.path] = [.bytes(container)]
        } else {
            var udta = ByteWriter()
            udta.box("udta") { $0.bytes(container) }
            appending[moov.path] = [.bytes(udta.bytes)]
        }

        // Chunk offset tables (stco, co64) of every track.
        var tables: [(box: Box, stbl: String, offsets: [UInt64], wide: Bool)] = []
        var problem: EDLStorageError?
        moov.forEach { box, _ in
            guard problem == nil, box.type == "stco" || box.type == "co64" else { return }
            guard let content = box.content(as: ChunkOffsetBox.self) else {
                problem = .malformed("\(name): unreadable chunk offset table", offset: box.header.offset, path: box.path)
                return
            }
            if let inside = content.offsets.first(where: { $0 >= UInt64(moov.header.offset) && $0 < UInt64(moovEnd) }) {
                problem = .unsupported(
                    "\(name): chunk offset \(inside) points inside moov; cannot move the media it names",
                    offset: box.header.offset, path: box.path)
                return
            }
            let stbl = String(box.path[..<(box.path.lastIndex(of: "/") ?? box.path.startIndex)])
            tables.append((box, stbl, content.offsets, box.type == "co64"))
        }
        if let problem { throw problem }

        // Growing moov shifts what follows it; an offset pushed past 2^32 needs co64, which grows
        // moov again. Sizes only grow with each widening, so this settles within tables.count + 2 rounds.
        let writer = BoxTreeWriter(source: source)
        var delta: Int64 = 0
        var rounds = 0
        while true {
            rounds += 1
            var widened = false
            var expected: [String: [UInt64]] = [:]
            var table = replacing
            for i in tables.indices {
                var offsets: [UInt64] = []
                offsets.reserveCapacity(tables[i].offsets.count)
                for offset in tables[i].offsets {
                    guard offset >= UInt64(moovEnd) else { offsets.append(offset); continue }
                    let (moved, overflow) = Int64(offset).addingReportingOverflow(delta)
                    guard !overflow, moved >= 0 else {
                        throw .malformed("\(name): chunk offset \(offset) cannot move by \(delta) bytes", path: tables[i].box.path)
                    }
                    offsets.append(UInt64(moved))
                }
                if !tables[i].wide, offsets.contains(where: { $0 > UInt64(UInt32.max) }) {
                    tables[i].wide = true
                    widened = true
                }
                expected[tables[i].stbl] = offsets
                table[tables[i].box.path] = .bytes(ChunkOffsetBox(offsets: offsets, is64Bit: tables[i].wide).serialized())
            }
            let rebuilt: WritableBox
            do { rebuilt = try Self.rebuild(moov, replacing: table, appending: appending, source: source) } catch {
                throw .container(error, file: name)
            }
            let newDelta = writer.size(of: rebuilt) - moov.header.size
            if newDelta == delta && !widened {
                guard writer.size(of: rebuilt) <= ReaderLimits.default.maxMetadataBoxSize else {
                    throw EDLStorageError(
                        .tooLarge,
                        "\(name): the new moov would be \(writer.size(of: rebuilt)) bytes, above the \(ReaderLimits.default.maxMetadataBoxSize)-byte limit readers accept"
                    )
                }
                var sink = MemorySink()
                do { try writer.write([rebuilt], to: &sink) } catch { throw .container(error, file: name) }
                self.moov = sink.bytes
                self.delta = delta
                self.expectedOffsets = expected
                return
            }
            guard rounds <= tables.count + 3 else {
                throw EDLStorageError(.io, "internal: the size of the new moov of \(name) does not settle")
            }
            delta = newDelta
        }
    }

    /// `box` with the boxes at the paths in `replacing` swapped and `appending` added at the end of
    /// the boxes at those paths. Containers on the way are rebuilt, keeping the bytes around their
    /// children (a QuickTime zero terminator); everything else stays an original, copied verbatim.
    static func rebuild(
        _ box: Box, replacing: [String: WritableBox], appending: [String: [WritableBox]],
        source: any ByteSource
    ) throws(ContainerError) -> WritableBox {
        if let replacement = replacing[box.path] { return replacement }
        let below = box.path + "/"
        guard
            appending[box.path] != nil || replacing.keys.contains(where: { $0.hasPrefix(below) })
                || appending.keys.contains(where: { $0.hasPrefix(below) })
        else { return .original(box) }
        let payload = box.header.payloadOffset
        let first = box.children.first?.header.offset ?? payload
        let last = box.children.last?.header.end ?? payload
        let prefix = try source.read(at: payload, count: Int(first - payload))
        let suffix = try source.read(at: last, count: Int(box.header.end - last))
        var children: [WritableBox] = [.bytes(prefix)]
        for child in box.children {
            children.append(try rebuild(child, replacing: replacing, appending: appending, source: source))
        }
        children += appending[box.path] ?? []
        children.append(.bytes(suffix))
        return .container(box.type, children)
    }

    /// Checks the chunk offset tables of the parsed new `moov` against the plan.
    func verifyChunkOffsets(in newMoov: Box) throws(EDLStorageError) {
        var found: [String: [UInt64]] = [:]
        newMoov.forEach { box, _ in
            guard box.type == "stco" || box.type == "co64", let content = box.content(as: ChunkOffsetBox.self) else { return }
            found[String(box.path[..<(box.path.lastIndex(of: "/") ?? box.path.startIndex)])] = content.offsets
        }
        guard found == expectedOffsets else {
            throw EDLStorageError(.io, "internal: the rebuilt chunk offsets do not match the plan; nothing was written")
        }
    }
}
