import CinepackContainer

/// The members of a NumPy `.npz` (a ZIP archive of `.npy` files, as `np.savez` and
/// `np.savez_compressed` write it): names and where each member's bytes are. Stored and
/// deflated members; ZIP64 sizes and offsets as NumPy writes them.
package struct NPZArchive {
    package struct Member: Sendable {
        /// The array name (the member name without `.npy`).
        package var key: String
        package var deflated: Bool
        package var compressedSize: Int64
        package var size: Int64
        package var localHeaderOffset: Int64
    }

    package let path: String
    package let members: [Member]
    let source: FileByteSource

    package init(path: String) throws(DepthInputError) {
        self.path = path
        do { source = try FileByteSource(path: path) } catch { throw DepthInputError(file: path, .unreadable) }
        func bad(_ why: String) -> DepthInputError { DepthInputError(file: path, .malformed("not a readable .npz (ZIP) archive: \(why)")) }
        // The end-of-central-directory record is in the last 64 KiB + 22 bytes.
        let tailCount = Int(min(source.size, 65_557))
        guard tailCount >= 22, let tail = try? source.read(at: source.size - Int64(tailCount), count: tailCount) else {
            throw bad("too short")
        }
        guard let eocd = (0...(tailCount - 22)).reversed().first(where: { Self.u32(tail, $0) == 0x0605_4B50 }) else {
            throw bad("no end-of-central-directory record")
        }
        var count = Int64(Self.u16(tail, eocd + 10))
        var directorySize = Int64(Self.u32(tail, eocd + 12))
        var directoryOffset = Int64(Self.u32(tail, eocd + 16))
        // ZIP64: the locator sits just before the record and points at the ZIP64 record.
        if count == 0xFFFF || directoryOffset == 0xFFFF_FFFF || directorySize == 0xFFFF_FFFF {
            guard eocd >= 20, Self.u32(tail, eocd - 20) == 0x0706_4B50 else { throw bad("ZIP64 locator missing") }
            let recordOffset = Int64(Self.u64(tail, eocd - 20 + 8))
            guard let record = try? source.read(at: recordOffset, count: 56), Self.u32(record, 0) == 0x0606_4B50 else {
                throw bad("ZIP64 end record missing")
            }
            count = Int64(Self.u64(record, 32))
            directorySize = Int64(Self.u64(record, 40))
            directoryOffset = Int64(Self.u64(record, 48))
        }
        guard count <= 65_536, directorySize <= 16 << 20, let directory = try? source.read(at: directoryOffset, count: Int(directorySize))
        else { throw bad("central directory outside the file") }
        var members: [Member] = []
        var p = 0
        for _ in 0..<count {
            guard p + 46 <= directory.count, Self.u32(directory, p) == 0x0201_4B50 else { throw bad("damaged central directory") }
            let method = Self.u16(directory, p + 10)
            var compressed = Int64(Self.u32(directory, p + 20))
            var size = Int64(Self.u32(directory, p + 24))
            let nameLength = Int(Self.u16(directory, p + 28))
            let extraLength = Int(Self.u16(directory, p + 30))
            let commentLength = Int(Self.u16(directory, p + 32))
            var offset = Int64(Self.u32(directory, p + 42))
            guard p + 46 + nameLength + extraLength <= directory.count else { throw bad("damaged central directory") }
            let name = String(decoding: directory[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            // ZIP64 extended information: the 0xFFFFFFFF fields, in this order.
            var e = p + 46 + nameLength
            let extraEnd = e + extraLength
            while e + 4 <= extraEnd {
                let id = Self.u16(directory, e)
                let length = Int(Self.u16(directory, e + 2))
                if id == 0x0001 {
                    var f = e + 4
                    if size == 0xFFFF_FFFF, f + 8 <= e + 4 + length { size = Int64(Self.u64(directory, f)); f += 8 }
                    if compressed == 0xFFFF_FFFF, f + 8 <= e + 4 + length { compressed = Int64(Self.u64(directory, f)); f += 8 }
                    if offset == 0xFFFF_FFFF, f + 8 <= e + 4 + length { offset = Int64(Self.u64(directory, f)) }
                }
                e += 4 + length
            }
            guard method == 0 || method == 8 else {
                throw DepthInputError(
                    file: path, .unsupported("member \(name) uses ZIP method \(method); only stored and deflated are read"))
            }
            members.append(
                Member(
                    key: name.hasSuffix(".npy") ? String(name.dropLast(4)) : name, deflated: method == 8,
                    compressedSize: compressed, size: size, localHeaderOffset: offset))
            p += 46 + nameLength + extraLength + commentLength
        }
        self.members = members
    }

    /// The member `key`, or the first when `key` is nil.
    package func member(_ key: String?) throws(DepthInputError) -> Member {
        let found = key.map { k in members.first { $0.key == k } } ?? members.first
        guard let found else { throw DepthInputError(file: path, .missingArray(key: key ?? "(any)", present: members.map(\.key))) }
        return found
    }

    /// Offset of the member's data (after its local header).
    func dataOffset(_ member: Member) throws(DepthInputError) -> Int64 {
        guard let header = try? source.read(at: member.localHeaderOffset, count: 30), Self.u32(header, 0) == 0x0403_4B50 else {
            throw DepthInputError(file: path, .malformed("member \(member.key): local header missing"))
        }
        return member.localHeaderOffset + 30 + Int64(Self.u16(header, 26)) + Int64(Self.u16(header, 28))
    }

    static func u16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) | UInt16(b[o + 1]) << 8 }
    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 { UInt32(u16(b, o)) | UInt32(u16(b, o + 2)) << 16 }
    static func u64(_ b: [UInt8], _ o: Int) -> UInt64 { UInt64(u32(b, o)) | UInt64(u32(b, o + 4)) << 32 }
}
