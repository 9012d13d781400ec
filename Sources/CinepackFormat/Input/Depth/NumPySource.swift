import CinepackCompression
import CinepackContainer

/// Every frame in one NumPy array: a `.npy` file, or one member of a `.npz` (stored members are
/// read at any frame; deflated ones, as `np.savez_compressed` writes, are inflated in order, a
/// frame at a time).
package final class NumPySource: DepthFrameSource {
    package let name: String
    package let frameCount: Int
    package let width: Int
    package let height: Int
    package let isRandomAccess: Bool
    let header: NumPyHeader
    let source: FileByteSource
    /// Offset of the `.npy` bytes in the file (0 for a `.npy`; the member's data for a `.npz`).
    let base: Int64
    let member: NPZArchive.Member?
    private var inflater: RawInflater?
    private var compressedRead: Int64 = 0
    private var nextFrame = 0

    package init(path: String, key: String?) throws(DepthInputError) {
        name = path
        if path.lowercased().hasSuffix(".npz") {
            let archive = try NPZArchive(path: path)
            let member = try archive.member(key)
            self.member = member
            source = archive.source
            base = try archive.dataOffset(member)
            isRandomAccess = !member.deflated
        } else {
            do { source = try FileByteSource(path: path) } catch { throw DepthInputError(file: path, .unreadable) }
            member = nil
            base = 0
            isRandomAccess = true
        }
        let head: [UInt8]
        if let member, member.deflated {
            let inflater = try Self.inflater(path)
            var offset = base
            let end = base + member.compressedSize
            let source = self.source
            func more() throws -> [UInt8] {
                let n = Int(min(65_536, end - offset))
                defer { offset += Int64(max(0, n)) }
                return n > 0 ? try source.read(at: offset, count: n) : []
            }
            do {
                // The fixed part first: the header length is a u16 (version 1) or u32 at byte 8.
                let start = try inflater.read(12, more: more)
                let length = start[6] == 1 ? Int(start[8]) | Int(start[9]) << 8 : Int(NPZArchive.u32(start, 8))
                guard length <= 1 << 20 else {
                    throw DepthInputError(file: path, .malformed("member \(member.key): NumPy header too long"))
                }
                head = start + (try inflater.read(start[6] == 1 ? length - 2 : length, more: more))
            } catch let error as DepthInputError {
                throw error
            } catch { throw DepthInputError(file: path, .malformed("deflated member \(member.key): \(error)")) }
        } else {
            let available = Int(min(65_536, source.size - base))
            do { head = try source.read(at: base, count: max(0, available)) } catch {
                throw DepthInputError(file: path, .malformed("\(error)"))
            }
        }
        header = try NumPyHeader.parse(head, name: path)
        let frames = try header.frames(name: path)
        frameCount = frames.count
        width = frames.width
        height = frames.height
        let needed = Int64(header.dataOffset) + Int64(frameCount) * Int64(width * height * header.element.size)
        let available = member.map { $0.size } ?? source.size
        guard available >= needed else {
            throw DepthInputError(file: path, .malformed("the array data is \(available) bytes, shape \(header.shape) needs \(needed)"))
        }
    }

    static func inflater(_ path: String) throws(DepthInputError) -> RawInflater {
        do { return try RawInflater() } catch { throw DepthInputError(file: path, .malformed("\(error)")) }
    }

    package func file(_ index: Int) -> String { name }

    package func read(_ index: Int) throws(DepthInputError) -> RawDepthFrame {
        let frameBytes = width * height * header.element.size
        let bytes: [UInt8]
        do {
            if let member, member.deflated {
                if index == 0 || inflater == nil {
                    inflater = try Self.inflater(name)
                    compressedRead = 0
                    nextFrame = 0
                    _ = try pull(header.dataOffset, member)
                }
                guard index == nextFrame else {
                    throw DepthInputError(file: name, frame: index, .malformed("internal: frames out of order"))
                }
                bytes = try pull(frameBytes, member)
                nextFrame += 1
            } else {
                bytes = try source.read(at: base + Int64(header.dataOffset) + Int64(index) * Int64(frameBytes), count: frameBytes)
            }
        } catch let error as DepthInputError {
            throw error
        } catch {
            throw DepthInputError(file: name, frame: index, .malformed("\(error)"))
        }
        return RawDepthFrame(
            width: width, height: height, values: header.decode(bytes, count: width * height), integerMaximum: header.element.integerMaximum
        )
    }

    private func pull(_ count: Int, _ member: NPZArchive.Member) throws -> [UInt8] {
        guard let inflater else { return [] }
        let source = self.source
        let start = base
        return try inflater.read(count) {
            let n = Int(min(1 << 20, member.compressedSize - compressedRead))
            guard n > 0 else { return [] }
            defer { compressedRead += Int64(n) }
            return try source.read(at: start + compressedRead, count: n)
        }
    }
}
