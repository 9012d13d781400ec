import CinepackCompression

/// Reads the box tree of any QuickTime / ISO-BMFF file. Bounded and lazy: every read stays inside
/// its box, media payloads (`mdat`) are never read, all size arithmetic is checked.
package struct BoxReader {
    package let source: any ByteSource
    package var limits: ReaderLimits

    package init(source: any ByteSource, limits: ReaderLimits = .default) {
        self.source = source
        self.limits = limits
    }

    package func readTree() throws(ContainerError) -> BoxTree {
        let session = ParseSession(limits: limits)
        var boxes: [Box] = []
        var offset: Int64 = 0
        let fileSize = source.size
        var index: [FourCC: Int] = [:]
        while offset < fileSize {
            let available = fileSize - offset
            if available < 8 {
                let tail = try source.read(at: offset, count: Int(available))
                if tail.contains(where: { $0 != 0 }) {
                    session.warn(.malformed("\(available) stray bytes after the last box", offset: offset, clause: Clause.boxHeader))
                }
                break
            }
            // 16 bytes hold any header but a uuid's; read more only for that.
            var headBytes = try source.read(at: offset, count: Int(min(available, 16)))
            if headBytes.count >= 8, headBytes[4..<8].elementsEqual(FourCC(stringLiteral: "uuid").bytes) {
                headBytes = try source.read(at: offset, count: Int(min(available, 32)))
            }
            var header = try session.parseHeader(headBytes, at: offset, available: available, topLevel: true, path: "")
            if offset == 0, !header.type.bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0xA9 }) {
                throw ContainerError.malformed(
                    "not a QuickTime/ISO-BMFF file: the first 8 bytes are not a box header (type \(header.type))",
                    offset: 0, clause: Clause.boxHeader)
            }
            index[header.type, default: 0] += 1
            let path = ParseSession.pathComponent(header.type, index: index[header.type]!)
            if header.end > fileSize {
                // A recording cut short leaves its mdat incomplete; say so and show the rest.
                if header.type == "mdat" || header.type == "free" || header.type == "skip" {
                    session.warn(
                        .malformed(
                            "\(header.type) claims \(header.size) bytes but the file ends \(header.end - fileSize) bytes early (truncated file)",
                            offset: offset, path: path, clause: Clause.boxHeader))
                    header.size = fileSize - offset
                } else {
                    throw ContainerError.malformed(
                        "box '\(header.type)' claims \(header.size) bytes but the file ends at byte \(fileSize) (truncated mid-box)",
                        offset: offset, path: path, clause: Clause.boxHeader)
                }
            }
            let definition = BoxRegistry.definition(for: header.type, parent: nil, grandparent: nil)
            if let definition, BoxRegistry.isTopLevelMetadata(definition.layout) {
                guard header.size <= limits.maxMetadataBoxSize else {
                    throw ContainerError.limit(
                        "'\(header.type)' is \(header.size) bytes, above the \(limits.maxMetadataBoxSize)-byte limit for metadata",
                        offset: offset, path: path)
                }
                let bytes = try source.read(at: offset, count: Int(header.size))
                let buffer = BoxBuffer(bytes: bytes, baseOffset: offset, origin: .file)
                boxes.append(
                    try session.parseBox(
                        header: header, in: buffer, at: 0, path: path,
                        parent: nil, grandparent: nil, depth: 1, handler: nil))
            } else {
                try session.countBox(header, path: path)
                boxes.append(Box(header: header, path: path, isKnown: definition != nil))
            }
            offset = header.end
        }
        return BoxTree(boxes: boxes, fileSize: fileSize, diagnostics: session.diagnostics)
    }
}

/// The bytes of a metadata box held in memory, and where they came from.
struct BoxBuffer {
    var bytes: [UInt8]
    /// Absolute offset of `bytes[0]`.
    var baseOffset: Int64
    var origin: BoxOrigin
}

/// State of one read: warnings, counters, limits.
final class ParseSession {
    let limits: ReaderLimits
    var diagnostics: [Diagnostic] = []
    var boxCount = 0
    /// The `dcom` algorithm seen in the current `cmov`.
    var compression: FourCC?

    init(limits: ReaderLimits) { self.limits = limits }

    func warn(_ error: ContainerError) { diagnostics.append(Diagnostic(error)) }

    func countBox(_ header: BoxHeader, path: String) throws(ContainerError) {
        boxCount += 1
        if boxCount > limits.maxBoxCount {
            throw .limit("more than \(limits.maxBoxCount) boxes", offset: header.offset, path: path)
        }
    }

    /// Path component: `trak[2]`; the index is shown for repeatable boxes and for any repeat.
    static func pathComponent(_ type: FourCC, index: Int) -> String {
        let repeatable: Set<FourCC> = ["trak", "moof", "traf", "trun"]
        return index > 1 || repeatable.contains(type) ? "\(type)[\(index)]" : type.description
    }

    static func join(_ parent: String, _ component: String) -> String {
        parent.isEmpty ? component : parent + "/" + component
    }

    /// Parses a box header from `bytes` (which start at the header). `available` is how many bytes
    /// the enclosing box (or the file) has left from here.
    func parseHeader(
        _ bytes: some Collection<UInt8>, at offset: Int64, available: Int64, topLevel: Bool, path: String
    )
        throws(ContainerError) -> BoxHeader
    {
        var r = ByteReader(Array(bytes.prefix(32)), baseOffset: offset, path: path)
        let size32 = try r.u32("box size")
        let type = try r.fourCC("box type")
        var header = BoxHeader(type: type, offset: offset, headerSize: 8, size: Int64(size32), sizeEncoding: .compact)
        let here = ParseSession.join(path, type.description)
        switch size32 {
        case 1:
            guard available >= 16, r.remaining >= 8 else {
                throw ContainerError.malformed(
                    "box '\(type)' has a 64-bit size but no room for it", offset: offset, path: here,
                    clause: Clause.boxHeader)
            }
            let large = try r.u64("largesize")
            guard large <= UInt64(Int64.max) else {
                throw ContainerError.malformed(
                    "box '\(type)' has 64-bit size \(large), beyond any file", offset: offset, path: here,
                    clause: Clause.boxHeader)
            }
            header.size = Int64(large)
            header.headerSize = 16
            header.sizeEncoding = .large
        case 0:
            guard topLevel else {
                throw ContainerError.malformed(
                    "box '\(type)' has size 0 (to end of file), which is only allowed for the last top-level box",
                    offset: offset, path: here, clause: Clause.boxHeader)
            }
            header.size = available
            header.sizeEncoding = .toEnd
        default:
            break
        }
        if type == "uuid" {
            guard r.remaining >= 16 else {
                throw ContainerError.malformed(
                    "uuid box has no room for its 16-byte user type", offset: offset, path: here,
                    clause: Clause.boxHeader)
            }
            header.userType = try r.bytes(16, "usertype")
            header.headerSize += 16
        }
        if header.size < Int64(header.headerSize) {
            throw ContainerError.malformed(
                "box '\(type)' has size \(header.size), smaller than its own \(header.headerSize)-byte header",
                offset: offset, path: here, clause: Clause.boxHeader)
        }
        return header
    }

    /// Parses the box whose header is at `position` in `buffer` (already validated to fit).
    func parseBox(
        header: BoxHeader, in buffer: BoxBuffer, at position: Int, path: String, parent: FourCC?,
        grandparent: FourCC?, depth: Int, handler: FourCC?
    ) throws(ContainerError) -> Box {
        try countBox(header, path: path)
        guard depth <= limits.maxDepth else {
            throw ContainerError.limit("boxes nested deeper than \(limits.maxDepth) levels", offset: header.offset, path: path)
        }
        var box = Box(header: header, path: path, origin: buffer.origin)
        guard let definition = BoxRegistry.definition(for: header.type, parent: parent, grandparent: grandparent) else {
            box.isKnown = false
            return box
        }
        let payloadStart = position + header.headerSize
        let payloadEnd = position + Int(header.size)
        let context = BoxParseContext(handlerType: handler, parentType: parent, header: header, limits: limits)

        func parseFields(_ type: any ParsableBox.Type, upTo end: Int) throws(ContainerError) -> (any BoxContent, Int)? {
            var reader = ByteReader(
                Array(buffer.bytes[payloadStart..<end]), baseOffset: buffer.baseOffset + Int64(payloadStart),
                path: path)
            do {
                let content = try type.parse(&reader, context: context)
                return (content, reader.position)
            } catch {
                var located = error.located(offset: header.offset, path: path)
                if located.clause == nil { located.clause = definition.clause }
                if definition.essential { throw located }
                warn(located)
                return nil
            }
        }

        var childrenStart: Int?
        switch definition.layout {
        case .opaque, .leaf:
            break
        case .container(let offset):
            childrenStart = payloadStart + offset
        case .parsed(let type, let offset):
            if let (content, consumed) = try parseFields(type, upTo: payloadEnd) {
                box.content = content
                if let offset {
                    childrenStart = payloadStart + max(offset, consumed)
                } else if consumed < payloadEnd - payloadStart {
                    warn(
                        .malformed(
                            "\(payloadEnd - payloadStart - consumed) unread bytes at the end of '\(header.type)'",
                            offset: header.offset, path: path, clause: definition.clause))
                }
            }
        case .meta:
            // QuickTime `meta` has no version/flags: its first child (`hdlr`) starts right away.
            let looksQuickTime =
                payloadEnd - payloadStart >= 8
                && Array(buffer.bytes[payloadStart + 4..<payloadStart + 8]) == FourCC(stringLiteral: "hdlr").bytes
            childrenStart = payloadStart + (looksQuickTime ? 0 : 4)
        case .sampleEntry:
            let type: any SampleEntry.Type
            switch handler {
            case "vide", "auxv", "pict": type = VisualSampleEntry.self
            case "soun": type = AudioSampleEntry.self
            case "meta" where header.type == "mebx": type = MetadataSampleEntry.self
            default: type = GenericSampleEntry.self
            }
            if let (content, _) = try parseFields(type, upTo: payloadEnd), let entry = content as? any SampleEntry {
                box.content = entry
                if entry.childrenOffset <= payloadEnd - payloadStart { childrenStart = payloadStart + entry.childrenOffset }
            }
        case .compressedMovieData:
            box.children = try inflateMovie(header: header, in: buffer, payload: payloadStart..<payloadEnd, path: path, depth: depth)
            if box.children.isEmpty == false {
                box.content = CompressedMovieDataBox(uncompressedSize: UInt32(clamping: box.children[0].header.size))
            }
            return box
        }
        if header.type == "cmov" { compression = nil }
        if let childrenStart {
            guard childrenStart <= payloadEnd else {
                throw ContainerError.malformed(
                    "box '\(header.type)' is \(header.size) bytes, too small for the \(childrenStart - payloadStart) bytes of fields before its children",
                    offset: header.offset, path: path, clause: definition.clause)
            }
            let childHandler = header.type == "mdia" ? nil : handler
            box.children = try parseChildren(
                in: buffer, range: childrenStart..<payloadEnd, path: path, parent: header.type,
                grandparent: parent, depth: depth, handler: childHandler)
        }
        if case .parsed(let type, _) = definition.layout, type == DataCompressionBox.self,
            let dcom = box.content as? DataCompressionBox
        {
            compression = dcom.algorithm
        }
        return box
    }

    func parseChildren(
        in buffer: BoxBuffer, range: Range<Int>, path: String, parent: FourCC, grandparent: FourCC?,
        depth: Int, handler: FourCC?
    ) throws(ContainerError) -> [Box] {
        var children: [Box] = []
        var position = range.lowerBound
        var index: [FourCC: Int] = [:]
        var handler = handler
        while position < range.upperBound {
            let remaining = range.upperBound - position
            let absolute = buffer.baseOffset + Int64(position)
            if remaining < 8 {
                // QuickTime ends some lists with a 32-bit zero; anything else is junk worth a warning.
                if buffer.bytes[position..<range.upperBound].contains(where: { $0 != 0 }) {
                    warn(
                        .malformed(
                            "\(remaining) stray bytes at the end of '\(parent)'", offset: absolute, path: path,
                            clause: Clause.boxHeader))
                }
                break
            }
            let header = try parseHeader(
                buffer.bytes[position..<range.upperBound], at: absolute, available: Int64(remaining),
                topLevel: false, path: path)
            index[header.type, default: 0] += 1
            let childPath = ParseSession.join(path, ParseSession.pathComponent(header.type, index: index[header.type]!))
            if header.size > Int64(remaining) {
                throw ContainerError.malformed(
                    "box '\(header.type)' claims \(header.size) bytes but its parent '\(parent)' has only \(remaining) left",
                    offset: absolute, path: childPath, clause: Clause.boxHeader)
            }
            let child = try parseBox(
                header: header, in: buffer, at: position, path: childPath, parent: parent,
                grandparent: grandparent, depth: depth + 1, handler: handler)
            if header.type == "hdlr", let hdlr = child.content as? HandlerBox, parent == "mdia" {
                handler = hdlr.handlerType
            }
            children.append(child)
            position += Int(header.size)
        }
        return children
    }

    /// `cmov/cmvd`: a zlib-compressed `moov`. The claimed size is capped before anything is allocated.
    func inflateMovie(
        header: BoxHeader, in buffer: BoxBuffer, payload: Range<Int>, path: String, depth: Int
    )
        throws(ContainerError) -> [Box]
    {
        var r = ByteReader(Array(buffer.bytes[payload]), baseOffset: header.payloadOffset, path: path)
        let claimed = try r.u32("uncompressed size")
        guard compression == "zlib" else {
            throw ContainerError(
                .unsupported, "compressed movie uses '\(compression?.description ?? "no dcom")', not zlib",
                offset: header.offset, path: path, clause: Clause.compressedMovie)
        }
        guard Int64(claimed) <= limits.maxCompressedMovieSize else {
            throw ContainerError.limit(
                "cmov claims \(claimed) bytes uncompressed, above the limit of \(limits.maxCompressedMovieSize) bytes",
                offset: header.offset, path: path)
        }
        let inflated: [UInt8]
        do {
            inflated = try Zlib.inflate(r.rest(), limit: Int(claimed), expectedSize: Int(claimed))
        } catch {
            throw ContainerError.malformed(
                "compressed movie: \(error)", offset: header.payloadOffset + 4, path: path,
                clause: Clause.compressedMovie)
        }
        if inflated.count != Int(claimed) {
            warn(
                .malformed(
                    "cmov inflates to \(inflated.count) bytes, not the \(claimed) it claims", offset: header.offset,
                    path: path, clause: Clause.compressedMovie))
        }
        let inner = BoxBuffer(bytes: inflated, baseOffset: 0, origin: .compressedMovie)
        return try parseChildren(
            in: inner, range: 0..<inflated.count, path: path, parent: "cmvd", grandparent: "cmov",
            depth: depth, handler: nil)
    }
}
