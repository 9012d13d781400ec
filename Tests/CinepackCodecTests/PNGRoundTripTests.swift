import CinepackCompression
import CinepackFormat
import TestSupport
import Testing

@Suite struct PNGRoundTripTests {
    static let layouts = PixelLayout.allCases
    static let depths = [8, 16]

    /// Every layout × depth × filter strategy, at odd sizes (rows not a multiple of anything).
    @Test(arguments: layouts, depths)
    func roundTripEveryFilter(layout: PixelLayout, depth: Int) throws {
        for (index, strategy) in PNGFilterStrategy.allCases.enumerated() {
            for (w, h) in [(37, 23), (1, 1), (1, 9), (9, 1)] {
                let seed = UInt64(layout.rawValue * 1000 + depth * 10 + index + w * 100_000)
                let image = try TestImages.make(width: w, height: h, layout: layout, bitDepth: depth, seed: seed)
                let png = try PNGEncoder.encode(image, filter: strategy)
                let decoded = try PNGDecoder.decode(png)
                #expect(Compare.images(decoded, image) == nil, "\(layout) \(depth)-bit \(strategy) \(w)x\(h)")

                // Independently of our decoder: the header says what we meant, and each row's
                // filter byte is the one requested.
                let chunks = RefPNG.chunks(of: png)
                #expect(chunks.first?.type == "IHDR")
                #expect(chunks.last?.type == "IEND")
                let ihdr = chunks.first?.data ?? []
                let colorType: UInt8 = [.gray: 0, .grayAlpha: 4, .rgb: 2, .rgba: 6][layout] ?? 99
                #expect(
                    ihdr == RefPNG.be32(UInt32(w)) + RefPNG.be32(UInt32(h))
                        + [UInt8(depth), colorType, 0, 0, 0])
                let filtered = try RefPNG.filteredData(of: png)
                let rowBytes = w * layout.channels * depth / 8
                #expect(filtered.count == h * (rowBytes + 1))
                if strategy != .adaptive {
                    let want = UInt8(index)  // allCases order is none, sub, up, average, paeth
                    let filterBytes = (0..<h).map { filtered[$0 * (rowBytes + 1)] }
                    #expect(filterBytes.allSatisfy { $0 == want })
                }
            }
        }
    }

    /// The encoder's filtered stream matches a reference filter written from the spec's formulas.
    @Test(arguments: [PNGFilterStrategy.none, .sub, .up, .average, .paeth])
    func filteredBytesMatchSpecFormulas(strategy: PNGFilterStrategy) throws {
        for (layout, depth) in [(PixelLayout.rgb, 8), (.grayAlpha, 16), (.gray, 8), (.rgba, 16)] {
            let image = try TestImages.make(width: 13, height: 7, layout: layout, bitDepth: depth, seed: 77)
            let png = try PNGEncoder.encode(image, filter: strategy)
            let type = PNGFilterStrategy.allCases.firstIndex(of: strategy) ?? -1
            let raw = TestImages.rawBytes(image)
            let rowBytes = 13 * layout.channels * depth / 8
            let bpp = layout.channels * depth / 8
            var expected: [UInt8] = []
            var prior = [UInt8](repeating: 0, count: rowBytes)
            for y in 0..<7 {
                let row = Array(raw[(y * rowBytes)..<((y + 1) * rowBytes)])
                expected.append(UInt8(type))
                expected += RefPNG.filter(type, row: row, prior: prior, bpp: bpp)
                prior = row
            }
            #expect(
                Compare.firstDifference(try RefPNG.filteredData(of: png), expected) == nil,
                "\(layout) \(depth)-bit")
        }
    }

    /// A horizontal ramp repeated on every row: Sub zeroes the first row's residuals, Up zeroes
    /// every later row (Paeth ties with Up; the lower type wins, as in libpng).
    @Test func adaptivePicksTheObviousFilter() throws {
        let w = 50, h = 6
        let samples = (0..<h).flatMap { _ in (0..<w).map { UInt8(($0 * 3) % 256) } }
        let image = try PixelImage(width: w, height: h, layout: .gray, samples: samples)
        let filtered = try RefPNG.filteredData(of: try PNGEncoder.encode(image))
        let filterBytes = (0..<h).map { filtered[$0 * (w + 1)] }
        #expect(filterBytes == [1, 2, 2, 2, 2, 2])
    }

    /// Byte-exact known values: the IHDR of a 1×1 8-bit greyscale PNG (CRC 0x3A7E9B55 appears in
    /// countless minimal-PNG examples), and 16-bit samples stored big-endian.
    @Test func knownBytes() throws {
        let gray = try PixelImage(width: 1, height: 1, layout: .gray, samples: [UInt8(0)])
        let png = try PNGEncoder.encode(gray, filter: .none)
        #expect(
            Array(png.prefix(33)) == [
                0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A,
                0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
                0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00,
                0x3A, 0x7E, 0x9B, 0x55,
            ])
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])

        let deep = try PixelImage(width: 2, height: 1, layout: .gray, samples: [UInt16(0x1234), 0xABCD])
        let filtered = try RefPNG.filteredData(of: try PNGEncoder.encode(deep, filter: .none))
        #expect(filtered == [0, 0x12, 0x34, 0xAB, 0xCD])
    }

    /// Multiple IDAT chunks (split at odd sizes) concatenate; ancillary chunks are skipped.
    @Test func splitIDATAndAncillaryChunks() throws {
        let image = try TestImages.make(width: 31, height: 17, layout: .rgba, bitDepth: 8, seed: 5)
        let raw = TestImages.rawBytes(image).map(Int.init)
        let rows = (0..<17).map { Array(raw[($0 * 31 * 4)..<(($0 + 1) * 31 * 4)]) }
        let filtered = RefPNG.imageData(
            width: 31, height: 17, samplesPerPixel: 4, depth: 8, interlaced: false,
            samples: rows, filterFor: { _, r in r % 5 })
        let ancillary = [
            RefPNG.chunk("gAMA", RefPNG.be32(45455)), RefPNG.chunk("tEXt", Array("Comment\0hi".utf8)),
            RefPNG.chunk("prVt", [1, 2, 3]),
        ]
        for split in [1, 7, 100] {
            let png = try RefPNG.png(
                width: 31, height: 17, depth: 8, colorType: 6, interlaced: false,
                filtered: filtered, beforeIDAT: ancillary, idatSplit: split)
            #expect(Compare.images(try PNGDecoder.decode(png), image) == nil)
        }
    }

    /// Adam7, every colour type and depth, including sizes where some passes are empty.
    @Test(arguments: [(1, 1), (2, 2), (3, 1), (1, 5), (5, 5), (8, 8), (9, 9), (33, 19)])
    func interlacedDecodesToFullImage(width: Int, height: Int) throws {
        var rng = SeededGenerator(seed: UInt64(width * 31 + height))
        for (colorType, depth) in [
            (0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4),
            (3, 8), (4, 8), (4, 16), (6, 8), (6, 16),
        ] {
            let spp = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1
            let maxSample = (1 << depth) - 1
            let paletteSize = colorType == 3 ? min(1 << depth, 200) : 0
            let samples = (0..<height).map { _ in
                (0..<(width * spp)).map { _ in
                    Int(rng.next() % UInt64(colorType == 3 ? paletteSize : maxSample + 1))
                }
            }
            let palette = (0..<(paletteSize * 3)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let alpha = (0..<(paletteSize / 2)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let extra = colorType == 3 ? [RefPNG.chunk("PLTE", palette), RefPNG.chunk("tRNS", alpha)] : []
            let filtered = RefPNG.imageData(
                width: width, height: height, samplesPerPixel: spp, depth: depth,
                interlaced: true, samples: samples,
                filterFor: { pass, row in (pass + row) % 5 })
            let png = try RefPNG.png(
                width: width, height: height, depth: depth, colorType: colorType,
                interlaced: true, filtered: filtered, beforeIDAT: extra)
            let decoded = try PNGDecoder.decode(png)
            let expected = try Self.expectedImage(
                width: width, height: height, colorType: colorType, depth: depth,
                samples: samples, palette: palette, alpha: alpha)
            #expect(
                Compare.images(decoded, expected) == nil,
                "colour type \(colorType) depth \(depth) \(width)x\(height)")
        }
    }

    /// Sub-byte greyscale and palette images, non-interlaced, with every filter.
    @Test func lowBitDepths() throws {
        var rng = SeededGenerator(seed: 99)
        for (colorType, depth) in [(0, 1), (0, 2), (0, 4), (3, 1), (3, 2), (3, 4), (3, 8)] {
            let width = 21, height = 11
            let paletteSize = colorType == 3 ? 1 << depth : 0
            let samples = (0..<height).map { _ in
                (0..<width).map { _ in Int(rng.next() % UInt64(colorType == 3 ? paletteSize : 1 << depth)) }
            }
            let palette = (0..<(paletteSize * 3)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let extra = colorType == 3 ? [RefPNG.chunk("PLTE", palette)] : []
            let filtered = RefPNG.imageData(
                width: width, height: height, samplesPerPixel: 1, depth: depth,
                interlaced: false, samples: samples, filterFor: { _, r in r % 5 })
            let png = try RefPNG.png(
                width: width, height: height, depth: depth, colorType: colorType,
                interlaced: false, filtered: filtered, beforeIDAT: extra)
            let expected = try Self.expectedImage(
                width: width, height: height, colorType: colorType, depth: depth,
                samples: samples, palette: palette, alpha: nil)
            #expect(
                Compare.images(try PNGDecoder.decode(png), expected) == nil,
                "colour type \(colorType) depth \(depth)")
        }
    }

    @Test func headerOnly() throws {
        let image = try TestImages.make(width: 40, height: 30, layout: .grayAlpha, bitDepth: 16, seed: 1)
        let header = try PNGDecoder.header(of: try PNGEncoder.encode(image))
        #expect(header == PNGHeader(width: 40, height: 30, bitDepth: 16, colorType: .grayAlpha, interlaced: false))
    }

    @Test func pixelImageAccessors() throws {
        var image = try PixelImage(width: 3, height: 2, layout: .rgb, bitDepth: 8)
        image.setSample(200, x: 2, y: 1, channel: 1)
        #expect(image.sample(x: 2, y: 1, channel: 1) == 200)
        #expect(image.pixel(x: 2, y: 1) == [0, 200, 0])
        #expect(image.samples8?[(1 * 3 + 2) * 3 + 1] == 200)
        let deep = try image.converted(toBitDepth: 16)
        #expect(deep.sample(x: 2, y: 1, channel: 1) == 200 * 257)
        #expect(try deep.converted(toBitDepth: 8) == image)
        #expect(throws: PixelImageError.self) {
            try PixelImage(width: 2, height: 2, layout: .gray, samples: [UInt8](repeating: 0, count: 3))
        }
        #expect(throws: PixelImageError.self) { try PixelImage(width: 0, height: 2, layout: .gray, bitDepth: 8) }
        #expect(throws: PixelImageError.self) {
            try PixelImage(width: Int.max / 2, height: 3, layout: .gray, bitDepth: 8)
        }
    }

    /// Paeth rows whose predictor ties often (samples from a handful of values, so |b − c|,
    /// |a − c| and |a + b − 2c| are often equal): the decoder's whole-pixel Paeth for RGB and
    /// RGBA must pick as the spec's order does (a, then b, then c). The encoder's Paeth bytes
    /// are checked against the spec's formulas in `filteredBytesMatchSpecFormulas`.
    @Test(arguments: [PixelLayout.rgb, .rgba])
    func paethTiesDecodeAsTheSpecOrders(layout: PixelLayout) throws {
        var random = SeededGenerator(seed: 9)
        let levels: [UInt8] = [0, 1, 2, 3, 128, 254, 255]
        for (w, h) in [(1, 3), (2, 2), (31, 17), (64, 9)] {
            let samples = (0..<(w * h * layout.channels)).map { _ in levels[Int(random.next() % UInt64(levels.count))] }
            let image = try PixelImage(width: w, height: h, layout: layout, samples: samples)
            #expect(try PNGDecoder.decode(try PNGEncoder.encode(image, filter: .paeth)) == image, "\(layout) \(w)x\(h)")
        }
    }

    @Test func encoderRejectsBadLevel() throws {
        let image = try PixelImage(width: 1, height: 1, layout: .gray, bitDepth: 8)
        #expect(throws: PNGError.self) { try PNGEncoder.encode(image, compressionLevel: 10) }
        for level: Int32 in [-1, 0, 1, 9] {
            #expect(try PNGDecoder.decode(try PNGEncoder.encode(image, compressionLevel: level)) == image)
        }
    }

    /// What a decoder must output for file samples, computed directly from the spec: grey below
    /// 8 bits scaled to 0...255, palette entries looked up (RGBA when alpha is given).
    static func expectedImage(
        width: Int, height: Int, colorType: Int, depth: Int, samples: [[Int]],
        palette: [UInt8], alpha: [UInt8]?
    ) throws -> PixelImage {
        let flat = samples.flatMap { $0 }
        switch colorType {
        case 3:
            let channels = alpha == nil ? 3 : 4
            var out: [UInt8] = []
            for index in flat {
                out += palette[(index * 3)..<(index * 3 + 3)]
                if let alpha { out.append(index < alpha.count ? alpha[index] : 255) }
            }
            return try PixelImage(width: width, height: height, layout: channels == 3 ? .rgb : .rgba, samples: out)
        default:
            let layout: PixelLayout = [0: .gray, 2: .rgb, 4: .grayAlpha, 6: .rgba][colorType] ?? .gray
            if depth == 16 {
                return try PixelImage(width: width, height: height, layout: layout, samples: flat.map { UInt16($0) })
            }
            let maxValue = (1 << depth) - 1
            return try PixelImage(
                width: width, height: height, layout: layout,
                samples: flat.map { UInt8($0 * 255 / maxValue) })
        }
    }
}
