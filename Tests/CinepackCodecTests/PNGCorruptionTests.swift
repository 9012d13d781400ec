import CinepackCompression
import CinepackFormat
import TestSupport
import Testing

/// Damaged and hostile PNGs: each defect gets its own specific error, and nothing crashes.
@Suite struct PNGCorruptionTests {
    static let width = 16, height = 8

    /// 16×8 RGB 8-bit, filter None: IHDR at byte 8, IDAT at byte 33, IEND last.
    static func valid() throws -> [UInt8] {
        let image = try TestImages.make(width: width, height: height, layout: .rgb, bitDepth: 8, seed: 11)
        return try PNGEncoder.encode(image, filter: .none)
    }

    static func filtered() throws -> [UInt8] { try RefPNG.filteredData(of: try valid()) }

    static func rgb(filtered: [UInt8], ihdr: [UInt8]? = nil, extra: [[UInt8]] = []) throws -> [UInt8] {
        let header = ihdr ?? RefPNG.ihdr(width: UInt32(width), height: UInt32(height), depth: 8, colorType: 2)
        return RefPNG.file(
            [header] + extra + [
                RefPNG.chunk("IDAT", try Zlib.deflate(filtered)),
                RefPNG.chunk("IEND", []),
            ])
    }

    /// The error decoding `bytes` raises, or nil if it decodes.
    static func error(_ bytes: [UInt8], limits: PNGLimits = .default) -> PNGError? {
        do {
            _ = try PNGDecoder.decode(bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    static func expect(
        _ bytes: [UInt8], _ code: PNGError.Code, _ fragments: String...,
        limits: PNGLimits = .default, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = error(bytes, limits: limits) else {
            Issue.record("decoded without error; expected \(code)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(
                error.message.contains(fragment), "\"\(error)\" lacks \"\(fragment)\"",
                sourceLocation: sourceLocation)
        }
    }

    @Test func validBaseDecodes() throws {
        #expect(Self.error(try Self.valid()) == nil)
        let chunks = RefPNG.chunks(of: try Self.valid())
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(chunks.map(\.offset).prefix(2) == [8, 33])
    }

    @Test func badSignature() throws {
        var png = try Self.valid()
        png[1] = 0x51
        Self.expect(png, .badSignature, "signature missing at byte 0", "89 51 4E 47")
        Self.expect([], .badSignature, "no bytes")
        Self.expect(Array("GIF89a".utf8), .badSignature)
    }

    @Test func truncated() throws {
        let png = try Self.valid()
        Self.expect(Array(png.prefix(50)), .truncated, "PNG chunk IDAT at byte 33", "runs past the end")
        Self.expect(Array(png.prefix(40)), .truncated, "byte 33", "a chunk header needs 8 bytes, 7 left")
        Self.expect(Array(png.prefix(12)), .truncated, "byte 8", "chunk header")
        Self.expect(Array(png.dropLast(1)), .truncated, "PNG chunk IEND")
        // Cut exactly between chunks: everything present is valid, but IEND never comes.
        Self.expect(Array(png.dropLast(12)), .missingChunk, "IEND")
        Self.expect(Array(png.prefix(8)), .missingChunk, "IEND")
    }

    @Test func crcMismatch() throws {
        var png = try Self.valid()
        png[33 + 8 + 5] ^= 0x10  // a byte of the IDAT data
        let length = Int(png[33]) << 24 | Int(png[34]) << 16 | Int(png[35]) << 8 | Int(png[36])
        let crcAt = 33 + 8 + length
        let stored =
            UInt32(png[crcAt]) << 24 | UInt32(png[crcAt + 1]) << 16 | UInt32(png[crcAt + 2]) << 8
            | UInt32(png[crcAt + 3])
        let computed = Zlib.crc32(png[(33 + 4)..<crcAt])
        func hex(_ v: UInt32) -> String {
            let s = String(v, radix: 16, uppercase: true)
            return String(repeating: "0", count: 8 - s.count) + s
        }
        let error = Self.error(png)
        #expect(error?.code == .crcMismatch)
        #expect(error?.offset == 33)
        #expect(
            error?.message
                == "PNG chunk IDAT at byte 33: CRC mismatch (stored 0x\(hex(stored)), computed 0x\(hex(computed)))")

        var header = try Self.valid()
        header[8 + 8 + 3] ^= 1  // width, CRC not updated
        Self.expect(header, .crcMismatch, "PNG chunk IHDR at byte 8")
    }

    @Test func badHeaders() throws {
        let filtered = try Self.filtered()
        func withIHDR(_ ihdr: [UInt8]) throws -> [UInt8] { try Self.rgb(filtered: filtered, ihdr: ihdr) }
        Self.expect(
            try withIHDR(RefPNG.ihdr(width: 0, height: 8, depth: 8, colorType: 2)), .badHeader,
            "PNG chunk IHDR at byte 8", "dimensions 0x8")
        Self.expect(try withIHDR(RefPNG.ihdr(width: 16, height: 0, depth: 8, colorType: 2)), .badHeader)
        Self.expect(try withIHDR(RefPNG.ihdr(width: 0x8000_0000, height: 8, depth: 8, colorType: 2)), .badHeader)
        for (colorType, depth) in [
            (0, 3), (0, 32), (2, 4), (2, 1), (3, 16), (4, 1), (4, 4), (6, 2), (1, 8), (5, 8),
            (7, 8), (8, 8),
        ] {
            let ihdr = RefPNG.ihdr(width: 16, height: 8, depth: UInt8(depth), colorType: UInt8(colorType))
            Self.expect(
                try withIHDR(ihdr),
                .badHeader, "IHDR")
        }
        Self.expect(
            try withIHDR(RefPNG.ihdr(width: 16, height: 8, depth: 8, colorType: 2, compression: 1)),
            .badHeader, "compression method 1")
        Self.expect(
            try withIHDR(RefPNG.ihdr(width: 16, height: 8, depth: 8, colorType: 2, filter: 1)),
            .badHeader, "filter method 1")
        Self.expect(
            try withIHDR(RefPNG.ihdr(width: 16, height: 8, depth: 8, colorType: 2, interlace: 2)),
            .badHeader, "interlace method 2")
        Self.expect(
            try withIHDR(RefPNG.chunk("IHDR", RefPNG.be32(16) + RefPNG.be32(8) + [8, 2, 0, 0])),
            .badHeader, "length is 12")
    }

    /// Dimensions past the limits fail at IHDR, before any image buffer exists.
    @Test func absurdDimensions() throws {
        let tiny = try Zlib.deflate([0, 0, 0, 0])
        func png(_ w: UInt32, _ h: UInt32, colorType: UInt8 = 2, depth: UInt8 = 8) -> [UInt8] {
            RefPNG.file([
                RefPNG.ihdr(width: w, height: h, depth: depth, colorType: colorType),
                RefPNG.chunk("IDAT", tiny), RefPNG.chunk("IEND", []),
            ])
        }
        Self.expect(png(0x7FFF_FFFF, 0x7FFF_FFFF), .tooLarge, "PNG chunk IHDR at byte 8", "exceeds the limit")
        Self.expect(png(16384, 16384, colorType: 6, depth: 16), .tooLarge, "samples exceed the limit of 268435456")
        Self.expect(png(20000, 1), .tooLarge)
        let small = PNGLimits(maxWidth: 100, maxHeight: 100, maxSamples: 1000)
        Self.expect(png(101, 1), .tooLarge, limits: small)
        Self.expect(png(20, 20), .tooLarge, "20x20x3 samples exceed the limit of 1000", limits: small)
        // A palette with tRNS decodes to 4 channels: re-checked once tRNS is seen.
        let paletteFile = RefPNG.file([
            RefPNG.ihdr(width: 18, height: 18, depth: 8, colorType: 3),
            RefPNG.chunk("PLTE", [1, 2, 3]), RefPNG.chunk("tRNS", [9]),
            RefPNG.chunk("IDAT", tiny), RefPNG.chunk("IEND", []),
        ])
        Self.expect(paletteFile, .tooLarge, "18x18x4", limits: small)
        // Within the limits but the data is far too small: refused after inflating a few bytes.
        Self.expect(png(16384, 5461), .imageDataSize, "inflates to 4 bytes")
    }

    @Test func badFilterByte() throws {
        var filtered = try Self.filtered()
        let rowBytes = Self.width * 3
        filtered[3 * (rowBytes + 1)] = 5
        Self.expect(
            try Self.rgb(filtered: filtered), .badFilter, "PNG chunk IDAT at byte 33", "row 3",
            "unknown filter type 5")

        // Interlaced: the message names the Adam7 pass.
        var rng = SeededGenerator(seed: 4)
        let samples = (0..<8).map { _ in (0..<8).map { _ in Int(rng.next() % 256) } }
        var data = RefPNG.imageData(
            width: 8, height: 8, samplesPerPixel: 1, depth: 8, interlaced: true,
            samples: samples, filterFor: { _, _ in 0 })
        // Passes 1-3 of an 8×8 image have 1 row each (1, 1, 2 bytes + filter byte); pass 4's first row follows.
        data[2 + 2 + 3] = 200
        let png = try RefPNG.png(width: 8, height: 8, depth: 8, colorType: 0, interlaced: true, filtered: data)
        Self.expect(png, .badFilter, "row 0 of Adam7 pass 4", "unknown filter type 200")
    }

    @Test func imageDataSize() throws {
        let filtered = try Self.filtered()
        let expected = "\(filtered.count)"
        Self.expect(
            try Self.rgb(filtered: Array(filtered.dropLast())), .imageDataSize,
            "PNG chunk IDAT at byte 33", "inflates to \(filtered.count - 1) bytes", "exactly \(expected)")
        Self.expect(try Self.rgb(filtered: filtered + [0]), .imageDataSize, "more than \(expected)")
        Self.expect(try Self.rgb(filtered: filtered + [UInt8](repeating: 0, count: 1 << 20)), .imageDataSize)
    }

    @Test func corruptZlib() throws {
        var compressed = try Zlib.deflate(try Self.filtered())
        compressed[0] = 0x00  // not a zlib header
        let png = RefPNG.file([
            RefPNG.ihdr(width: 16, height: 8, depth: 8, colorType: 2),
            RefPNG.chunk("IDAT", compressed), RefPNG.chunk("IEND", []),
        ])
        Self.expect(png, .compression, "PNG chunk IDAT at byte 33")
        let cut = try Zlib.deflate(try Self.filtered()).dropLast(6)
        Self.expect(
            RefPNG.file([
                RefPNG.ihdr(width: 16, height: 8, depth: 8, colorType: 2),
                RefPNG.chunk("IDAT", Array(cut)), RefPNG.chunk("IEND", []),
            ]), .compression)
        Self.expect(
            RefPNG.file([
                RefPNG.ihdr(width: 16, height: 8, depth: 8, colorType: 2),
                RefPNG.chunk("IDAT", []), RefPNG.chunk("IEND", []),
            ]), .compression)
    }

    @Test func chunkLengths() throws {
        var png = try Self.valid()
        png.replaceSubrange(33..<37, with: RefPNG.be32(0x7FFF_0000))
        Self.expect(png, .truncated, "PNG chunk IDAT at byte 33: length 2147418112 runs past the end")
        png.replaceSubrange(33..<37, with: RefPNG.be32(0x8000_0000))
        Self.expect(png, .badChunk, "PNG chunk IDAT at byte 33", "exceeds the maximum")
        png.replaceSubrange(33..<37, with: RefPNG.be32(0xFFFF_FFFF))
        Self.expect(png, .badChunk)
    }

    @Test func chunkStructure() throws {
        let filtered = try Self.filtered()
        let compressed = try Zlib.deflate(filtered)
        let ihdr = RefPNG.ihdr(width: 16, height: 8, depth: 8, colorType: 2)
        let idat = RefPNG.chunk("IDAT", compressed)
        let iend = RefPNG.chunk("IEND", [])
        let half = compressed.count / 2
        let idat1 = RefPNG.chunk("IDAT", Array(compressed[..<half]))
        let idat2 = RefPNG.chunk("IDAT", Array(compressed[half...]))

        Self.expect(
            RefPNG.file([ihdr, RefPNG.chunk("ABCD", [1]), idat, iend]), .unknownCriticalChunk,
            "PNG chunk ABCD at byte 33")
        #expect(Self.error(RefPNG.file([ihdr, RefPNG.chunk("abCD", [1]), idat, RefPNG.chunk("zzZz", []), iend])) == nil)
        Self.expect(RefPNG.file([ihdr, RefPNG.chunk("ab1D", [1]), idat, iend]), .badChunk, "ab\\x31D", "ASCII letters")
        Self.expect(
            RefPNG.file([RefPNG.chunk("gAMA", RefPNG.be32(45455)), ihdr, idat, iend]), .chunkOrder,
            "PNG chunk gAMA at byte 8", "first chunk must be IHDR")
        Self.expect(RefPNG.file([ihdr, ihdr, idat, iend]), .chunkOrder, "more than once")
        Self.expect(
            RefPNG.file([ihdr, idat1, RefPNG.chunk("tEXt", Array("a\0b".utf8)), idat2, iend]), .chunkOrder,
            "consecutive")
        #expect(Self.error(RefPNG.file([ihdr, idat1, idat2, iend])) == nil)
        Self.expect(RefPNG.file([ihdr, iend, idat]), .missingChunk, "IDAT")
        Self.expect(RefPNG.file([ihdr, idat, RefPNG.chunk("IEND", [0])]), .badChunk, "must be 0")
        // Bytes after IEND are not part of the PNG.
        #expect(Self.error(RefPNG.file([ihdr, idat, iend]) + [1, 2, 3]) == nil)
    }

    @Test func paletteErrors() throws {
        let indices = (0..<4).map { _ in [0, 1, 2, 3] }
        let data = RefPNG.imageData(
            width: 4, height: 4, samplesPerPixel: 1, depth: 8, interlaced: false,
            samples: indices, filterFor: { _, _ in 0 })
        func file(_ extra: [[UInt8]], colorType: Int = 3) throws -> [UInt8] {
            try RefPNG.png(
                width: 4, height: 4, depth: 8, colorType: colorType, interlaced: false, filtered: data,
                beforeIDAT: extra)
        }
        let plte4 = RefPNG.chunk("PLTE", [UInt8](0..<12))
        #expect(Self.error(try file([plte4])) == nil)
        Self.expect(try file([]), .missingChunk, "PLTE", "palette image needs PLTE")
        Self.expect(try file([RefPNG.chunk("PLTE", [UInt8](0..<9))]), .badPixel, "row 0", "beyond the 3 PLTE entries")
        Self.expect(try file([RefPNG.chunk("PLTE", [UInt8](0..<13))]), .badPalette, "length 13")
        Self.expect(try file([RefPNG.chunk("PLTE", [])]), .badPalette)
        Self.expect(try file([plte4, plte4]), .chunkOrder, "more than once")
        Self.expect(try file([plte4, RefPNG.chunk("tRNS", [1, 2, 3, 4, 5])]), .badPalette, "5 alpha values for 4")
        Self.expect(try file([RefPNG.chunk("tRNS", [1]), plte4]), .chunkOrder, "after PLTE")
        Self.expect(try file([plte4], colorType: 0), .badPalette, "greyscale")
        // A (suggested) palette in an RGB image is fine before the image data, not after it.
        let rgbData = try Self.filtered()
        #expect(Self.error(try Self.rgb(filtered: rgbData, extra: [plte4])) == nil)
        var late = try Self.rgb(filtered: rgbData)
        late.insert(contentsOf: plte4, at: late.count - 12)
        Self.expect(late, .chunkOrder, "PLTE must come before IDAT")
    }

    /// A few hundred seeded mutations of valid files: each decodes or throws a PNGError, never traps.
    @Test func seededMutationsNeverCrash() throws {
        var rng = SeededGenerator(seed: 0xC1DE)
        let palette = RefPNG.imageData(
            width: 13, height: 9, samplesPerPixel: 1, depth: 4, interlaced: true,
            samples: (0..<9).map { y in (0..<13).map { ($0 + y) % 16 } },
            filterFor: { p, r in (p + r) % 5 })
        let seeds: [[UInt8]] = [
            try Self.valid(),
            try PNGEncoder.encode(try TestImages.make(width: 9, height: 7, layout: .grayAlpha, bitDepth: 16, seed: 2)),
            try RefPNG.png(
                width: 13, height: 9, depth: 4, colorType: 3, interlaced: true, filtered: palette,
                beforeIDAT: [RefPNG.chunk("PLTE", [UInt8](0..<48)), RefPNG.chunk("tRNS", [7, 8])]),
        ]
        var outcomes: [PNGError.Code: Int] = [:]
        var decoded = 0
        for iteration in 0..<600 {
            var png = seeds[iteration % seeds.count]
            let mutations = 1 + Int(rng.next() % 3)
            for _ in 0..<mutations { Self.mutate(&png, &rng) }
            do {
                let image = try PNGDecoder.decode(png)
                #expect(image.sampleCount == image.width * image.height * image.channels)
                decoded += 1
            } catch {
                outcomes[error.code, default: 0] += 1
            }
        }
        #expect(outcomes.values.reduce(0, +) > 300)
        // Repaired CRCs let mutations reach the header, filter and zlib checks, not just the CRC check.
        #expect(outcomes.count >= 6, "\(outcomes)")
        #expect(decoded > 0, "some mutations (ancillary bytes, pixel values) leave a valid PNG")
    }

    /// One random mutation; about half repair the CRC of the chunk they touched.
    static func mutate(_ png: inout [UInt8], _ rng: inout SeededGenerator) {
        guard !png.isEmpty else { return }
        let position = Int(rng.next() % UInt64(png.count))
        switch rng.next() % 7 {
        case 0:
            png[position] ^= UInt8(1) << UInt8(rng.next() % 8)
        case 1:
            png.removeSubrange(position...)
        case 2, 3:
            png[position] ^= UInt8(1) << UInt8(rng.next() % 8)
            repairCRC(&png, around: position)
        case 4:
            let end = min(position + 4, png.count)
            for i in position..<end { png[i] = UInt8(truncatingIfNeeded: rng.next()) }
            repairCRC(&png, around: position)
        case 5:
            // Damage the filtered stream itself and re-compress, so filter bytes, palette indices
            // and row layout get hit (zlib's checksum would catch a raw flip first).
            let chunks = RefPNG.chunks(of: png)
            guard var data = try? RefPNG.filteredData(of: png), !data.isEmpty,
                let idatStart = chunks.first(where: { $0.type == "IDAT" })?.offset,
                let compressedAgain = try? Zlib.deflate(
                    {
                        data[Int(rng.next() % UInt64(data.count))] ^= UInt8(1) << UInt8(rng.next() % 8)
                        if rng.next() % 4 == 0 { data.removeLast(Int(rng.next() % UInt64(data.count))) }
                        return data
                    }())
            else { return }
            let others = chunks.filter { $0.type != "IDAT" && $0.offset > idatStart }
            var rebuilt = Array(png[..<idatStart]) + RefPNG.chunk("IDAT", compressedAgain)
            for chunk in others { rebuilt += RefPNG.chunk(chunk.type, chunk.data) }
            png = rebuilt
        default:
            // Drop or duplicate a whole chunk.
            let chunks = RefPNG.chunks(of: png)
            guard !chunks.isEmpty else { return }
            let chunk = chunks[Int(rng.next() % UInt64(chunks.count))]
            let range = chunk.offset..<(chunk.offset + 12 + chunk.data.count)
            if rng.next() % 2 == 0 {
                png.removeSubrange(range)
            } else {
                png.insert(contentsOf: Array(png[range]), at: range.upperBound)
            }
        }
    }

    static func repairCRC(_ png: inout [UInt8], around position: Int) {
        for chunk in RefPNG.chunks(of: png) {
            let end = chunk.offset + 8 + chunk.data.count
            if position >= chunk.offset && position < end + 4 {
                let crc = Zlib.crc32(png[(chunk.offset + 4)..<end])
                png.replaceSubrange(end..<(end + 4), with: RefPNG.be32(crc))
                return
            }
        }
    }
}
