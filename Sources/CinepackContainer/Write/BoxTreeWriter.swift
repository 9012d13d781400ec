/// A box to write: an original box copied verbatim from its source, new bytes, or a container
/// rebuilt from new children. Unknown boxes stay `.original` and so come out byte for byte.
package indirect enum WritableBox {
    case original(Box)
    case bytes([UInt8])
    case container(FourCC, [WritableBox])

    /// Every box of a tree, unchanged.
    package static func unchanged(_ tree: BoxTree) -> [WritableBox] { tree.boxes.map { .original($0) } }

    /// Replaces the box at `path` (as in `Box.path`) by `replacement` (nil removes it), rebuilding
    /// its ancestors. Bytes of an ancestor that are not child boxes (the version and count of
    /// `stsd`, a QuickTime zero terminator) are carried over unchanged.
    package static func replacing(
        path: String, in boxes: [Box], with replacement: WritableBox?, source: any ByteSource
    )
        throws(ContainerError) -> [WritableBox]
    {
        var result: [WritableBox] = []
        for box in boxes {
            if box.path == path {
                if let replacement { result.append(replacement) }
            } else if path.hasPrefix(box.path + "/"), box.origin == .file, !box.children.isEmpty {
                let firstChild = box.children[0].header.offset
                let lastEnd = box.children[box.children.count - 1].header.end
                let prefix = try source.read(at: box.header.payloadOffset, count: Int(firstChild - box.header.payloadOffset))
                let suffix = try source.read(at: lastEnd, count: Int(box.header.end - lastEnd))
                let children = try replacing(path: path, in: box.children, with: replacement, source: source)
                result.append(.container(box.type, [.bytes(prefix)] + children + [.bytes(suffix)]))
            } else {
                result.append(.original(box))
            }
        }
        return result
    }
}

/// Serialises `WritableBox` lists. Original boxes are copied from the source in bounded chunks,
/// so an `mdat` of any size streams through without being held in memory.
package struct BoxTreeWriter {
    package let source: any ByteSource
    package var chunkSize = 4 << 20

    package init(source: any ByteSource) { self.source = source }

    package func write(_ boxes: [WritableBox], to sink: inout some ByteSink) throws(ContainerError) {
        for box in boxes { try write(box, to: &sink) }
    }

    package func size(of box: WritableBox) -> Int64 {
        switch box {
        case .original(let b): return b.header.size
        case .bytes(let bytes): return Int64(bytes.count)
        case .container(_, let children):
            let payload = children.reduce(Int64(0)) { $0 + size(of: $1) }
            return payload + (payload + 8 > Int64(UInt32.max) ? 16 : 8)
        }
    }

    func write(_ box: WritableBox, to sink: inout some ByteSink) throws(ContainerError) {
        switch box {
        case .original(let b):
            guard b.origin == .file else {
                throw ContainerError.io("cannot copy '\(b.type)' on its own: it lives inside a compressed movie")
            }
            var offset = b.header.offset
            let end = b.header.end
            while offset < end {
                let count = Int(min(Int64(chunkSize), end - offset))
                try sink.write(try source.read(at: offset, count: count))
                offset += Int64(count)
            }
        case .bytes(let bytes):
            try sink.write(bytes)
        case .container(let type, let children):
            let total = size(of: box)
            var header = ByteWriter()
            if total > Int64(UInt32.max) {
                header.u32(1); header.fourCC(type); header.u64(UInt64(total))
            } else {
                header.u32(UInt32(total)); header.fourCC(type)
            }
            try sink.write(header.bytes)
            for child in children { try write(child, to: &sink) }
        }
    }
}
