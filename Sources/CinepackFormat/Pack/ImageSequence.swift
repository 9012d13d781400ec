import Foundation

/// A numbered image sequence given as a printf-style pattern: `frames/%04d.png`.
public struct ImageSequence: Sendable {
    public let pattern: String
    /// Paths in frame order.
    public let paths: [String]
    public let firstNumber: Int

    /// Finds the sequence: numbering starts at 0 or 1 (whichever exists) and runs without gaps.
    /// A gap before the last existing number on disk is an error naming the missing file.
    public init(pattern: String, input: PackInput) throws(FormatError) {
        self.pattern = pattern
        guard let spec = Self.placeholder(in: pattern) else {
            throw .packInput(.noPlaceholder(input, pattern: pattern))
        }
        func path(_ n: Int) -> String {
            let digits = String(n)
            let padded = digits.count >= spec.width ? digits : String(repeating: "0", count: spec.width - digits.count) + digits
            return pattern.replacingCharacters(in: spec.range, with: padded)
        }
        let fm = FileManager.default
        let start = fm.fileExists(atPath: path(0)) ? 0 : 1
        guard fm.fileExists(atPath: path(start)) else {
            throw .packInput(.noFiles(input, pattern: pattern, lookedFor: [path(0), path(1)]))
        }
        var paths: [String] = []
        var n = start
        while fm.fileExists(atPath: path(n)) {
            paths.append(path(n))
            n += 1
        }
        // A later file after a gap means frames are missing, not that the sequence ended.
        let directory = (pattern as NSString).deletingLastPathComponent
        let later = (try? fm.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        // The file-name part before the number ("" for 'frames/%04d.png'; NSString's
        // lastPathComponent would turn "frames/" into "frames" and miss every file).
        let head = String(pattern[..<spec.range.lowerBound])
        let prefix = head.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? head
        let suffix = String(pattern[spec.range.upperBound...])
        let numbers = later.compactMap { name -> Int? in
            guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return nil }
            return Int(name.dropFirst(prefix.count).dropLast(suffix.count))
        }
        if let highest = numbers.max(), highest >= n {
            throw .packInput(.missingFrame(input, missing: path(n), existing: path(highest)))
        }
        self.paths = paths
        firstNumber = start
    }

    private static func placeholder(in pattern: String) -> (range: Range<String.Index>, width: Int)? {
        guard let percent = pattern.range(of: #"%0?[0-9]*d"#, options: .regularExpression) else { return nil }
        let spec = pattern[percent].dropFirst().dropLast()
        return (percent, Int(spec) ?? 0)
    }
}

/// Portable float maps (`.pfm`): the common exchange format for depth and disparity.
public enum PFM {
    /// What a PFM header says: the size, where the samples start and their byte order.
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var dataOffset: Int
        public var littleEndian: Bool
    }

    /// Parses the header (the first few hundred bytes are enough), so a map's size is known
    /// before its samples are read.
    public static func header(_ bytes: [UInt8], name: String) throws(DepthInputError) -> Header {
        var position = 0
        func token() -> String? {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
            let start = position
            while position < bytes.count, ![0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }
        func bad(_ why: String) -> DepthInputError { DepthInputError(file: name, .malformed(why)) }
        guard let magic = token() else { throw bad("empty file, not a PFM") }
        guard magic == "Pf" else {
            throw bad("PFM type '\(magic)' is not 'Pf' (one channel); colour PFM ('PF') cannot hold disparity")
        }
        guard let w = token().flatMap(Int.init), let h = token().flatMap(Int.init), w > 0, h > 0, w <= 16384, h <= 16384 else {
            throw bad("PFM width/height missing or outside 1…16384")
        }
        guard let scale = token().flatMap(Double.init), scale != 0, scale.isFinite else {
            throw bad("PFM scale missing or zero")
        }
        return Header(width: w, height: h, dataOffset: position + 1, littleEndian: scale < 0)
    }

    /// The samples, top row first (PFM stores rows bottom to top), exactly as stored (NaN and
    /// infinities included).
    public static func values(_ bytes: [UInt8], _ header: Header, name: String) throws(DepthInputError) -> [Float] {
        let (w, h) = (header.width, header.height)
        let needed = w * h * 4
        guard bytes.count - header.dataOffset >= needed else {
            throw DepthInputError(
                file: name, .malformed("PFM data is \(bytes.count - header.dataOffset) bytes, expected \(needed) for \(w)×\(h)"))
        }
        var values = [Float](repeating: 0, count: w * h)
        for row in 0..<h {
            let sourceRow = h - 1 - row
            for x in 0..<w {
                let o = header.dataOffset + (sourceRow * w + x) * 4
                let b = (bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3])
                let bits =
                    header.littleEndian
                    ? UInt32(b.0) | UInt32(b.1) << 8 | UInt32(b.2) << 16 | UInt32(b.3) << 24
                    : UInt32(b.3) | UInt32(b.2) << 8 | UInt32(b.1) << 16 | UInt32(b.0) << 24
                values[row * w + x] = Float(bitPattern: bits)
            }
        }
        return values
    }

    /// Reads a one-channel PFM (`Pf`) as a disparity map; NaN and infinities mean no depth.
    public static func read(_ bytes: [UInt8], name: String) throws(FormatError) -> DisparityMap {
        do {
            let header = try header(bytes, name: name)
            let values = try values(bytes, header, name: name).map { $0.isFinite ? $0 : .nan }
            return DisparityMap(width: header.width, height: header.height, values: values)
        } catch {
            throw FormatError(error.description)
        }
    }

    /// Writes a little-endian one-channel PFM.
    public static func write(_ map: DisparityMap) -> [UInt8] {
        var out = Array("Pf\n\(map.width) \(map.height)\n-1.0\n".utf8)
        out.reserveCapacity(out.count + map.values.count * 4)
        for row in (0..<map.height).reversed() {
            for x in 0..<map.width {
                let bits = map[x, row].bitPattern
                out += [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
            }
        }
        return out
    }
}
