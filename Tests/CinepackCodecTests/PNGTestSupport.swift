import CinepackCompression
import CinepackFormat
import TestSupport

/// Test images: a mix of smooth ramps (which the predictive filters turn into small residuals),
/// flat areas and noise, so every filter type gets exercised with non-trivial data.
enum TestImages {
    static func sampleValue(
        x: Int, y: Int, c: Int, width: Int, height: Int, maxValue: Int,
        rng: inout SeededGenerator
    ) -> Int {
        let region = (x * 3 / max(width, 1) + y * 2 / max(height, 1)) % 3
        switch region {
        case 0: return (x * 7 + y * 3 + c * 50) * maxValue / (7 * width + 3 * height + 150)
        case 1: return c == 1 ? maxValue / 3 : maxValue - (c * maxValue / 5)
        default: return Int(rng.next() % UInt64(maxValue + 1))
        }
    }

    static func make(width: Int, height: Int, layout: PixelLayout, bitDepth: Int, seed: UInt64) throws -> PixelImage {
        var rng = SeededGenerator(seed: seed)
        let maxValue = bitDepth == 8 ? 255 : 65535
        var values: [Int] = []
        values.reserveCapacity(width * height * layout.channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<layout.channels {
                    values.append(
                        sampleValue(
                            x: x, y: y, c: c, width: width, height: height,
                            maxValue: maxValue, rng: &rng))
                }
            }
        }
        if bitDepth == 8 {
            return try PixelImage(width: width, height: height, layout: layout, samples: values.map { UInt8($0) })
        }
        return try PixelImage(width: width, height: height, layout: layout, samples: values.map { UInt16($0) })
    }

    /// Samples as a rawvideo byte stream (16-bit big-endian), as ffmpeg's *be formats lay them out.
    static func rawBytes(_ image: PixelImage) -> [UInt8] {
        switch image.storage {
        case .uint8(let s): return s
        case .uint16(let s): return s.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }
    }

    /// ffmpeg's pix_fmt for a layout/depth.
    static func ffmpegFormat(_ layout: PixelLayout, _ depth: Int) -> String {
        switch (layout, depth) {
        case (.gray, 8): "gray"
        case (.gray, _): "gray16be"
        case (.grayAlpha, 8): "ya8"
        case (.grayAlpha, _): "ya16be"
        case (.rgb, 8): "rgb24"
        case (.rgb, _): "rgb48be"
        case (.rgba, 8): "rgba"
        case (.rgba, _): "rgba64be"
        }
    }
}

/// A deliberately simple, separate PNG writer used to build test files the encoder cannot make
/// (interlaced, palette, sub-byte depths, broken ones). Written straight from the spec's prose
/// with plain Int arithmetic so it shares no code with the codec under test.
enum RefPNG {
    static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    /// length + type + data + CRC(type + data)
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32(UInt32(data.count)) + typeBytes + data + be32(Zlib.crc32(typeBytes + data))
    }

    static func ihdr(
        width: UInt32, height: UInt32, depth: UInt8, colorType: UInt8, interlace: UInt8 = 0,
        compression: UInt8 = 0, filter: UInt8 = 0
    ) -> [UInt8] {
        chunk("IHDR", be32(width) + be32(height) + [depth, colorType, compression, filter, interlace])
    }

    static func file(_ chunks: [[UInt8]]) -> [UInt8] { signature + chunks.flatMap { $0 } }

    /// Packs one row of samples MSB-first at 1/2/4/8/16 bits (PNG spec 7.2).
    static func packRow(_ samples: [Int], depth: Int) -> [UInt8] {
        if depth == 16 { return samples.flatMap { [UInt8($0 / 256), UInt8($0 % 256)] } }
        if depth == 8 { return samples.map { UInt8($0) } }
        var out: [UInt8] = []
        var acc = 0, bits = 0
        for s in samples {
            acc = acc * (1 << depth) + s
            bits += depth
            if bits == 8 { out.append(UInt8(acc)); acc = 0; bits = 0 }
        }
        if bits > 0 { out.append(UInt8(acc * (1 << (8 - bits)))) }  // pad the last byte with zeros
        return out
    }

    /// Filters one scanline per PNG spec 9.2: Raw(x) - predictor, mod 256, with
    /// a = byte bpp to the left, b = byte above, c = byte above-left (0 outside the image).
    static func filter(_ type: Int, row: [UInt8], prior: [UInt8], bpp: Int) -> [UInt8] {
        var out: [UInt8] = []
        for i in 0..<row.count {
            let x = Int(row[i])
            let a = i >= bpp ? Int(row[i - bpp]) : 0
            let b = Int(prior[i])
            let c = i >= bpp ? Int(prior[i - bpp]) : 0
            let predicted: Int
            switch type {
            case 0: predicted = 0
            case 1: predicted = a
            case 2: predicted = b
            case 3: predicted = (a + b) / 2
            default:
                let p = a + b - c
                let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                predicted = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
            }
            out.append(UInt8(((x - predicted) % 256 + 256) % 256))
        }
        return out
    }

    /// Adam7 pass number (1...7) of each position in the repeating 8×8 tile, copied from the
    /// figure in PNG spec 8.2 rather than derived from start/step tables.
    static let adam7Tile: [[Int]] = [
        [1, 6, 4, 6, 2, 6, 4, 6],
        [7, 7, 7, 7, 7, 7, 7, 7],
        [5, 6, 5, 6, 5, 6, 5, 6],
        [7, 7, 7, 7, 7, 7, 7, 7],
        [3, 6, 4, 6, 3, 6, 4, 6],
        [7, 7, 7, 7, 7, 7, 7, 7],
        [5, 6, 5, 6, 5, 6, 5, 6],
        [7, 7, 7, 7, 7, 7, 7, 7],
    ]

    /// The filtered (not yet compressed) image data. `samples[y][x * spp + c]` are file samples
    /// (palette indices for colour type 3). `filterFor(pass, row)` picks each row's filter; pass
    /// is 0 for non-interlaced images.
    static func imageData(
        width: Int, height: Int, samplesPerPixel spp: Int, depth: Int, interlaced: Bool,
        samples: [[Int]], filterFor: (Int, Int) -> Int
    ) -> [UInt8] {
        let bpp = max(1, spp * depth / 8)
        // Each reduced image as rows of pixel columns.
        var reduced: [(pass: Int, rows: [[Int]])] = []
        if interlaced {
            for pass in 1...7 {
                var rows: [[Int]] = []
                for y in 0..<height {
                    var row: [Int] = []
                    for x in 0..<width where adam7Tile[y % 8][x % 8] == pass {
                        row += samples[y][(x * spp)..<(x * spp + spp)]
                    }
                    if !row.isEmpty { rows.append(row) }  // empty passes contribute no bytes at all
                }
                reduced.append((pass, rows))
            }
        } else {
            reduced = [(0, samples)]
        }
        var out: [UInt8] = []
        for (pass, rows) in reduced {
            var prior: [UInt8]?
            for (r, row) in rows.enumerated() {
                let packed = packRow(row, depth: depth)
                let type = filterFor(pass, r)
                out.append(UInt8(type))
                out += filter(type, row: packed, prior: prior ?? [UInt8](repeating: 0, count: packed.count), bpp: bpp)
                prior = packed
            }
        }
        return out
    }

    /// A complete PNG around the given filtered data.
    static func png(
        width: Int, height: Int, depth: Int, colorType: Int, interlaced: Bool,
        filtered: [UInt8], beforeIDAT: [[UInt8]] = [], idatSplit: Int? = nil
    ) throws -> [UInt8] {
        let compressed = try Zlib.deflate(filtered, level: 9)
        var idats: [[UInt8]] = []
        if let step = idatSplit {
            var i = 0
            while i < compressed.count {
                idats.append(chunk("IDAT", Array(compressed[i..<min(i + step, compressed.count)])))
                i += step
            }
        } else {
            idats = [chunk("IDAT", compressed)]
        }
        return file(
            [
                ihdr(
                    width: UInt32(width), height: UInt32(height), depth: UInt8(depth),
                    colorType: UInt8(colorType), interlace: interlaced ? 1 : 0)
            ]
                + beforeIDAT + idats + [chunk("IEND", [])])
    }

    /// Splits a PNG into (offset, type, data) for tests that edit chunks.
    static func chunks(of png: [UInt8]) -> [(offset: Int, type: String, data: [UInt8])] {
        var result: [(Int, String, [UInt8])] = []
        var p = 8
        while p + 12 <= png.count {
            let length = Int(png[p]) << 24 | Int(png[p + 1]) << 16 | Int(png[p + 2]) << 8 | Int(png[p + 3])
            guard p + 12 + length <= png.count else { break }
            let type = String(decoding: png[(p + 4)..<(p + 8)], as: UTF8.self)
            result.append((p, type, Array(png[(p + 8)..<(p + 8 + length)])))
            p += 12 + length
        }
        return result
    }

    /// All IDAT payloads joined and inflated: the filtered stream an encoder produced.
    static func filteredData(of png: [UInt8]) throws -> [UInt8] {
        let joined = chunks(of: png).filter { $0.type == "IDAT" }.flatMap { $0.data }
        return try Zlib.inflate(joined, limit: 1 << 28)
    }
}

/// Image and byte comparisons whose failure says where the first difference is, instead of
/// printing millions of samples.
enum Compare {
    static func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> String? {
        if a == b { return nil }
        if let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            return "first difference at index \(i): \(a[i]) vs \(b[i]) (counts \(a.count), \(b.count))"
        }
        return "lengths differ: \(a.count) vs \(b.count)"
    }

    /// nil when equal, else what differs (geometry or the first differing sample with its pixel).
    static func images(_ a: PixelImage, _ b: PixelImage) -> String? {
        if a == b { return nil }
        guard a.width == b.width, a.height == b.height, a.layout == b.layout, a.bitDepth == b.bitDepth else {
            return "\(a) vs \(b)"
        }
        let x = TestImages.samplesAsInts(a), y = TestImages.samplesAsInts(b)
        guard let i = zip(x, y).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
            return "\(a): storage differs"
        }
        let pixel = i / a.channels
        return "\(a): first difference at x \(pixel % a.width), y \(pixel / a.width), channel \(i % a.channels): "
            + "\(x[i]) vs \(y[i])"
    }
}

extension TestImages {
    static func samplesAsInts(_ image: PixelImage) -> [Int] {
        switch image.storage {
        case .uint8(let s): s.map(Int.init)
        case .uint16(let s): s.map(Int.init)
        }
    }
}
