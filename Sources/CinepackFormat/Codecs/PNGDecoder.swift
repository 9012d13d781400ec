import CinepackCompression

/// PNG colour types (PNG spec 11.2.1, Table 11).
package enum PNGColorType: UInt8, Sendable, CaseIterable {
    case gray = 0
    case rgb = 2
    case palette = 3
    case grayAlpha = 4
    case rgba = 6

    /// Samples per pixel as stored in the file (a palette index is one sample).
    package var samplesPerPixel: Int {
        switch self {
        case .gray, .palette: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// Bit depths the spec allows for this colour type.
    package var allowedBitDepths: [Int] {
        switch self {
        case .gray: [1, 2, 4, 8, 16]
        case .palette: [1, 2, 4, 8]
        case .rgb, .grayAlpha, .rgba: [8, 16]
        }
    }
}

/// The validated contents of IHDR.
package struct PNGHeader: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package let bitDepth: Int
    package let colorType: PNGColorType
    package let interlaced: Bool

    package init(width: Int, height: Int, bitDepth: Int, colorType: PNGColorType, interlaced: Bool) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.interlaced = interlaced
    }

    var bitsPerPixel: Int { bitDepth * colorType.samplesPerPixel }
    /// Filter unit (PNG spec 9.2): bytes per complete pixel, at least 1.
    var filterStride: Int { max(1, bitsPerPixel / 8) }
}

/// Decodes PNG streams (one PNG per video or disparity sample) into `PixelImage`s.
///
/// Output: gray/gray+alpha/RGB/RGBA as stored; gray below 8 bits is scaled to 8 bits (so 1-bit
/// white is 255); palette images become RGB, or RGBA when a tRNS chunk gives palette alpha. The
/// other ancillary chunks (gamma, colour profile, tRNS colour keys, text…) are checked for
/// integrity and otherwise ignored: the pixels come back exactly as stored.
package enum PNGDecoder {
    /// Decodes a complete PNG stream. Every chunk's CRC is checked; nothing larger than `limits`
    /// allows is allocated, and image data must inflate to exactly the size the header implies.
    package static func decode(
        _ bytes: some Collection<UInt8>, limits: PNGLimits = .default
    ) throws(PNGError)
        -> PixelImage
    {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(PNGError) in try decode(buffer: buffer, limits: limits) }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            Result { () throws(PNGError) in try decode(buffer: buffer, limits: limits) }
        }.get()
    }

    /// Reads and validates only the signature and IHDR (CRC included): cheap dimension checks
    /// without inflating anything.
    package static func header(
        of bytes: some Collection<UInt8>, limits: PNGLimits = .default
    ) throws(PNGError)
        -> PNGHeader
    {
        let prefix = Array(bytes.prefix(8 + 12 + 13))
        return try prefix.withUnsafeBufferPointer { buffer in
            Result { () throws(PNGError) in
                var reader = ChunkReader(data: buffer)
                try reader.checkSignature()
                let chunk = try reader.next()
                guard chunk.type == PNGFormat.IHDR else {
                    throw .chunkOrder(chunk.name, offset: chunk.offset, "the first chunk must be IHDR")
                }
                return try parseHeader(chunk, in: buffer, limits: limits)
            }
        }.get()
    }

    // MARK: - Chunk layer

    struct Chunk {
        let type: UInt32
        let offset: Int  // of the length field
        let dataStart: Int
        let length: Int
        var name: String { PNGFormat.chunkName(type) }
        var dataEnd: Int { dataStart + length }
        var isCritical: Bool { type & 0x2000_0000 == 0 }  // bit 5 of the first byte: uppercase
    }

    /// Walks chunks, bounding every length by the bytes actually present and checking CRCs.
    struct ChunkReader {
        let data: UnsafeBufferPointer<UInt8>
        var position = 0

        init(data: UnsafeBufferPointer<UInt8>) { self.data = data }

        var atEnd: Bool { position >= data.count }

        @inline(__always)
        func u32(_ at: Int) -> UInt32 {
            UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
        }

        mutating func checkSignature() throws(PNGError) {
            let sig = PNGFormat.signature
            guard data.count >= sig.count, data.prefix(sig.count).elementsEqual(sig) else {
                throw .badSignature(found: Array(data.prefix(sig.count)))
            }
            position = sig.count
        }

        mutating func next() throws(PNGError) -> Chunk {
            let start = position
            let remaining = data.count - start
            guard remaining >= 8 else {
                throw .truncated("a chunk header", offset: start, needed: 8, available: remaining)
            }
            let length = u32(start)
            let type = u32(start + 4)
            let name = PNGFormat.chunkName(type)
            guard length <= PNGFormat.maxChunkLength else {
                throw .badChunk(name, offset: start, "length \(length) exceeds the maximum 2^31-1 (PNG spec 5.3)")
            }
            // 12 = length + type + CRC fields; compare without adding to the untrusted length.
            guard remaining >= 12, Int(length) <= remaining - 12 else {
                throw .chunkPastEnd(name, offset: start, length: length, available: remaining)
            }
            for i in 0..<4 {
                let b = data[start + 4 + i]
                guard (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) else {
                    throw .badChunk(name, offset: start, "chunk type is not four ASCII letters (PNG spec 5.3)")
                }
            }
            let dataStart = start + 8
            let dataEnd = dataStart + Int(length)
            let stored = u32(dataEnd)
            let computed = Zlib.crc32(UnsafeBufferPointer(rebasing: data[(start + 4)..<dataEnd]))
            guard stored == computed else {
                throw .crcMismatch(name, offset: start, stored: stored, computed: computed)
            }
            position = dataEnd + 4
            return Chunk(type: type, offset: start, dataStart: dataStart, length: Int(length))
        }
    }

    static func parseHeader(
        _ chunk: Chunk, in data: UnsafeBufferPointer<UInt8>, limits: PNGLimits
    ) throws(PNGError)
        -> PNGHeader
    {
        let at = chunk.offset
        guard chunk.length == 13 else { throw .badHeader(offset: at, "length is \(chunk.length), must be 13") }
        let p = chunk.dataStart
        func u32(_ i: Int) -> UInt32 {
            UInt32(data[i]) << 24 | UInt32(data[i + 1]) << 16 | UInt32(data[i + 2]) << 8 | UInt32(data[i + 3])
        }
        let width = u32(p), height = u32(p + 4)
        let depth = Int(data[p + 8]), colorByte = data[p + 9]
        let compression = data[p + 10], filter = data[p + 11], interlace = data[p + 12]
        guard width > 0, height > 0, width <= PNGFormat.maxChunkLength, height <= PNGFormat.maxChunkLength else {
            throw .badHeader(offset: at, "dimensions \(width)x\(height) must each be 1...2^31-1")
        }
        guard let colorType = PNGColorType(rawValue: colorByte) else {
            throw .badHeader(offset: at, "colour type \(colorByte) is not one of 0, 2, 3, 4, 6")
        }
        guard colorType.allowedBitDepths.contains(depth) else {
            throw .badHeader(offset: at, "bit depth \(depth) is not allowed for colour type \(colorByte)")
        }
        guard compression == 0 else { throw .badHeader(offset: at, "compression method \(compression) is not 0") }
        guard filter == 0 else { throw .badHeader(offset: at, "filter method \(filter) is not 0") }
        guard interlace <= 1 else { throw .badHeader(offset: at, "interlace method \(interlace) is not 0 or 1") }
        let header = PNGHeader(
            width: Int(width), height: Int(height), bitDepth: depth, colorType: colorType,
            interlaced: interlace == 1)
        // Palette images decode to at least RGB; the alpha case is re-checked once tRNS is known.
        try checkLimits(
            header, outputChannels: colorType == .palette ? 3 : colorType.samplesPerPixel,
            limits: limits, offset: at)
        return header
    }

    static func checkLimits(_ h: PNGHeader, outputChannels: Int, limits: PNGLimits, offset: Int) throws(PNGError) {
        guard h.width <= limits.maxWidth, h.height <= limits.maxHeight else {
            throw .tooLarge(
                offset: offset,
                "\(h.width)x\(h.height) exceeds the limit of \(limits.maxWidth)x\(limits.maxHeight)")
        }
        let (pixels, o1) = h.width.multipliedReportingOverflow(by: h.height)
        let (samples, o2) = pixels.multipliedReportingOverflow(by: outputChannels)
        guard !o1, !o2, samples <= limits.maxSamples else {
            throw .tooLarge(
                offset: offset,
                "\(h.width)x\(h.height)x\(outputChannels) samples exceed the limit of \(limits.maxSamples)")
        }
    }

    // MARK: - Decode

    static func decode(buffer data: UnsafeBufferPointer<UInt8>, limits: PNGLimits) throws(PNGError) -> PixelImage {
        var reader = ChunkReader(data: data)
        try reader.checkSignature()

        var header: PNGHeader?
        var palette: [UInt8]?  // RGB triplets
        var paletteAlpha: [UInt8]?
        var idat: [UInt8] = []
        var firstIDAT: Int?
        var idatClosed = false  // a non-IDAT chunk followed the IDAT run

        chunks: while true {
            if reader.atEnd {
                throw .missingChunk("IEND", offset: reader.position, "the data ends without one")
            }
            let chunk = try reader.next()
            guard let h = header else {
                guard chunk.type == PNGFormat.IHDR else {
                    throw .chunkOrder(chunk.name, offset: chunk.offset, "the first chunk must be IHDR")
                }
                header = try parseHeader(chunk, in: data, limits: limits)
                continue
            }
            if chunk.type != PNGFormat.IDAT, firstIDAT != nil { idatClosed = true }
            switch chunk.type {
            case PNGFormat.IHDR:
                throw .chunkOrder("IHDR", offset: chunk.offset, "IHDR appears more than once")

            case PNGFormat.PLTE:
                guard palette == nil else {
                    throw .chunkOrder("PLTE", offset: chunk.offset, "PLTE appears more than once")
                }
                guard firstIDAT == nil else {
                    throw .chunkOrder("PLTE", offset: chunk.offset, "PLTE must come before IDAT")
                }
                guard h.colorType != .gray, h.colorType != .grayAlpha else {
                    throw .badPalette("PLTE", offset: chunk.offset, "greyscale images must not have a palette")
                }
                guard chunk.length > 0, chunk.length % 3 == 0, chunk.length <= 3 * 256 else {
                    throw .badPalette(
                        "PLTE", offset: chunk.offset,
                        "length \(chunk.length) is not 3 × 1...256 entries (PNG spec 11.2.2)")
                }
                // Only a palette image uses it; for RGB it is a display hint we do not need.
                // More entries than the bit depth can index is tolerated (libpng does too): the
                // extra entries are simply unreachable.
                if h.colorType == .palette {
                    palette = Array(UnsafeBufferPointer(rebasing: data[chunk.dataStart..<chunk.dataEnd]))
                } else {
                    palette = []
                }

            case PNGFormat.tRNS where h.colorType == .palette:
                // For palette images tRNS is per-entry alpha and changes the output (RGB → RGBA).
                guard let entries = palette.map({ $0.count / 3 }) else {
                    throw .chunkOrder("tRNS", offset: chunk.offset, "tRNS must come after PLTE")
                }
                guard firstIDAT == nil else {
                    throw .chunkOrder("tRNS", offset: chunk.offset, "tRNS must come before IDAT")
                }
                guard paletteAlpha == nil else {
                    throw .chunkOrder("tRNS", offset: chunk.offset, "tRNS appears more than once")
                }
                guard chunk.length <= entries else {
                    throw .badPalette(
                        "tRNS", offset: chunk.offset,
                        "\(chunk.length) alpha values for \(entries) palette entries (PNG spec 11.3.2.1)")
                }
                // Entries without a value are opaque.
                var alpha = [UInt8](repeating: 0xFF, count: entries)
                for i in 0..<chunk.length { alpha[i] = data[chunk.dataStart + i] }
                paletteAlpha = alpha

            case PNGFormat.IDAT:
                guard !idatClosed else {
                    throw .chunkOrder("IDAT", offset: chunk.offset, "IDAT chunks must be consecutive")
                }
                if h.colorType == .palette, palette == nil {
                    throw .missingChunk("PLTE", offset: chunk.offset, "a palette image needs PLTE before IDAT")
                }
                if firstIDAT == nil { firstIDAT = chunk.offset }
                // Bounded by the input size: chunk lengths were checked against the remaining bytes.
                idat.append(contentsOf: UnsafeBufferPointer(rebasing: data[chunk.dataStart..<chunk.dataEnd]))

            case PNGFormat.IEND:
                guard firstIDAT != nil else {
                    throw .missingChunk("IDAT", offset: chunk.offset, "IEND comes before any image data")
                }
                guard chunk.length == 0 else {
                    throw .badChunk("IEND", offset: chunk.offset, "length is \(chunk.length), must be 0")
                }
                // Bytes after IEND are not part of the stream (PNG spec 5.6); they are not read.
                break chunks

            default:
                if chunk.isCritical { throw .unknownCriticalChunk(chunk.name, offset: chunk.offset) }
            // Ancillary: its CRC was checked; its meaning does not affect the stored pixels.
            }
        }

        guard let header, let idatOffset = firstIDAT else {
            // Unreachable: the loop only exits at IEND, which requires both.
            throw .missingChunk("IDAT", offset: reader.position, "no image data")
        }
        let outputChannels =
            header.colorType == .palette
            ? (paletteAlpha == nil ? 3 : 4)
            : header.colorType.samplesPerPixel
        try checkLimits(header, outputChannels: outputChannels, limits: limits, offset: 8)

        let passes = try Self.passes(header)
        let expected = passes.last.map { $0.start + $0.rows * ($0.rowBytes + 1) } ?? 0

        var raw: [UInt8]
        // Deflate cannot exceed 1032:1: data that could produce the whole image is inflated in
        // one call (libdeflate) into a buffer of exactly its size; anything else, and any failure,
        // goes through zlib's bounded streaming inflate, which says what is wrong.
        let plausible = idat.count >= expected / 1032
        if plausible, let whole = idat.withUnsafeBytes({ WholeBufferDeflate.inflate($0, size: expected) }) {
            raw = whole
        } else {
            do {
                // Never hint more capacity than the compressed data could possibly produce, so a
                // tiny file claiming a huge image reserves little.
                let hint = plausible ? expected : idat.count * 1032 + 1024
                raw = try Zlib.inflate(idat, limit: expected, expectedSize: hint)
            } catch let error as CompressionError where error == .tooLarge(limit: expected) {
                throw .imageDataSize(offset: idatOffset, expected: expected, actual: "more than \(expected)")
            } catch {
                throw .compression(offset: idatOffset, "is corrupt: \(error)")
            }
        }
        guard raw.count == expected else {
            throw .imageDataSize(offset: idatOffset, expected: expected, actual: "\(raw.count)")
        }
        idat = []  // release the compressed copy before allocating the output

        let interlacePass: (Int) -> Int? = { header.interlaced ? $0 + 1 : nil }
        try raw.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(PNGError) in
                guard let base = buffer.baseAddress else { return }
                for (index, pass) in passes.enumerated() {
                    if let bad = unfilter(
                        base + pass.start, rows: pass.rows, rowBytes: pass.rowBytes,
                        stride: header.filterStride)
                    {
                        throw .badFilter(
                            offset: idatOffset, pass: interlacePass(index), row: bad.row,
                            filter: bad.filter)
                    }
                }
            }
        }.get()

        let count = header.width * header.height * outputChannels
        let layout = PixelLayout(rawValue: outputChannels) ?? .rgba
        let paletteEntries = (palette?.count ?? 0) / 3
        let paletteTable = header.colorType == .palette ? palette.map { expandPalette($0, alpha: paletteAlpha) } : nil
        let storage: PixelStorage
        if header.bitDepth == 16 {
            var out = [UInt16](repeating: 0, count: count)
            out.withUnsafeMutableBufferPointer { dst in
                raw.withUnsafeBufferPointer { src in
                    guard let d = dst.baseAddress, let s = src.baseAddress else { return }
                    for pass in passes {
                        for row in 0..<pass.rows {
                            let srcRow = s + pass.start + row * (pass.rowBytes + 1) + 1
                            let y = pass.y0 + row * pass.dy
                            let first = (y * header.width + pass.x0) * outputChannels
                            expand16(
                                srcRow, pixels: pass.columns, channels: outputChannels,
                                into: d + first, pixelStride: pass.dx)
                        }
                    }
                }
            }
            storage = .uint16(out)
        } else {
            var out = [UInt8](repeating: 0, count: count)
            try out.withUnsafeMutableBufferPointer { dst in
                raw.withUnsafeBufferPointer { src in
                    Result { () throws(PNGError) in
                        guard let d = dst.baseAddress, let s = src.baseAddress else { return }
                        for (index, pass) in passes.enumerated() {
                            for row in 0..<pass.rows {
                                let srcRow = s + pass.start + row * (pass.rowBytes + 1) + 1
                                let y = pass.y0 + row * pass.dy
                                let first = (y * header.width + pass.x0) * outputChannels
                                let ok = expand8(
                                    srcRow, pixels: pass.columns, header: header,
                                    palette: paletteTable, paletteEntries: paletteEntries,
                                    outputChannels: outputChannels,
                                    into: d + first, pixelStride: pass.dx)
                                if !ok {
                                    throw .badPixel(
                                        offset: idatOffset, pass: interlacePass(index), row: row,
                                        "palette index beyond the \(paletteEntries) PLTE entries")
                                }
                            }
                        }
                    }
                }
            }.get()
            storage = .uint8(out)
        }
        do {
            return try PixelImage(width: header.width, height: header.height, layout: layout, storage: storage)
        } catch {
            // Unreachable: the sizes above come from the same validated header.
            throw PNGError(.tooLarge, "PNG decode: \(error)")
        }
    }

    // MARK: - Passes

    /// One reduced image in the filtered stream: the whole image, or one Adam7 pass.
    struct Pass {
        let x0: Int, y0: Int, dx: Int, dy: Int
        let columns: Int, rows: Int, rowBytes: Int
        let start: Int  // offset in the inflated data
    }

    /// Layout of the filtered data; empty Adam7 passes are left out, as they carry no bytes at all
    /// (not even filter bytes, PNG spec 8.2). All arithmetic is overflow-checked.
    static func passes(_ h: PNGHeader) throws(PNGError) -> [Pass] {
        let geometry = h.interlaced ? PNGFormat.adam7 : [(x0: 0, y0: 0, dx: 1, dy: 1)]
        var result: [Pass] = []
        var total = 0
        for g in geometry {
            let columns = PNGFormat.passExtent(h.width, start: g.x0, step: g.dx)
            let rows = PNGFormat.passExtent(h.height, start: g.y0, step: g.dy)
            if columns == 0 || rows == 0 { continue }
            guard let rowBytes = PNGFormat.rowBytes(width: columns, bitsPerPixel: h.bitsPerPixel) else {
                throw .tooLarge(offset: 8, "row size overflows")
            }
            let (size, o1) = rows.multipliedReportingOverflow(by: rowBytes + 1)
            let (next, o2) = total.addingReportingOverflow(size)
            guard !o1, !o2 else { throw .tooLarge(offset: 8, "image data size overflows") }
            result.append(
                Pass(
                    x0: g.x0, y0: g.y0, dx: g.dx, dy: g.dy, columns: columns, rows: rows,
                    rowBytes: rowBytes, start: total))
            total = next
        }
        return result
    }

    // MARK: - Unfiltering (PNG spec 9)

    /// Reverses the row filters in place. Each row is 1 filter byte + `rowBytes`; the row above the
    /// first is taken as zeros. Returns the first bad filter byte, if any.
    static func unfilter(
        _ base: UnsafeMutablePointer<UInt8>, rows: Int, rowBytes n: Int, stride bpp: Int
    )
        -> (row: Int, filter: UInt8)?
    {
        for y in 0..<rows {
            let line = base + y * (n + 1)
            let filter = line[0]
            let cur = line + 1
            let hasPrior = y > 0
            let prev = hasPrior ? cur - (n + 1) : cur  // the row above; only read when hasPrior
            switch filter {
            case 0:
                break
            case 1:
                if n > bpp { for i in bpp..<n { cur[i] &+= cur[i - bpp] } }
            case 2:
                if hasPrior { for i in 0..<n { cur[i] &+= prev[i] } }
            case 3:
                if hasPrior {
                    for i in 0..<min(bpp, n) { cur[i] &+= prev[i] >> 1 }
                    if n > bpp {
                        for i in bpp..<n {
                            cur[i] &+= UInt8(truncatingIfNeeded: (UInt16(cur[i - bpp]) + UInt16(prev[i])) >> 1)
                        }
                    }
                } else if n > bpp {
                    for i in bpp..<n { cur[i] &+= cur[i - bpp] >> 1 }
                }
            case 4:
                if hasPrior {
                    // With a = c = 0 for the first pixel the predictor reduces to b.
                    for i in 0..<min(bpp, n) { cur[i] &+= prev[i] }
                    if bpp == 3 || bpp == 4 {
                        unpaethPixels(cur, prev, rowBytes: n, bpp: bpp)
                    } else if n > bpp {
                        for i in bpp..<n {
                            cur[i] &+= PNGFormat.paeth(cur[i - bpp], prev[i], prev[i - bpp])
                        }
                    }
                } else if n > bpp {
                    // With b = c = 0 the predictor reduces to a: the same as Sub.
                    for i in bpp..<n { cur[i] &+= cur[i - bpp] }
                }
            default:
                return (y, filter)
            }
        }
        return nil
    }

    /// Paeth for 8-bit RGB or RGBA rows after the first pixel (already reconstructed), a whole
    /// pixel at a time and without branches: the scalar predictor's data-dependent branches
    /// mispredict on photographic rows, and Paeth is the filter encoders pick most. Same result as
    /// `PNGFormat.paeth` byte by byte, with the predictor written as |b − c|, |a − c|,
    /// |a + b − 2c| (PNG spec 9.4).
    @inline(__always)
    static func unpaethPixels(_ cur: UnsafeMutablePointer<UInt8>, _ prev: UnsafePointer<UInt8>, rowBytes n: Int, bpp: Int) {
        @inline(__always) func pixel(_ p: UnsafePointer<UInt8>) -> SIMD4<Int16> {
            SIMD4(Int16(p[0]), Int16(p[1]), Int16(p[2]), bpp == 4 ? Int16(p[3]) : 0)
        }
        @inline(__always) func magnitude(_ v: SIMD4<Int16>) -> SIMD4<Int16> { v.replacing(with: 0 &- v, where: v .< 0) }
        guard n >= 2 * bpp else {
            for i in bpp..<n { cur[i] &+= PNGFormat.paeth(cur[i - bpp], prev[i], prev[i - bpp]) }
            return
        }
        var a = pixel(cur)
        var c = pixel(prev)
        var i = bpp
        while i + bpp <= n {
            let b = pixel(prev + i)
            let pa = magnitude(b &- c)
            let pb = magnitude(a &- c)
            let pc = magnitude(a &+ b &- c &- c)
            let predictor = b.replacing(with: c, where: pb .> pc).replacing(with: a, where: (pa .<= pb) .& (pa .<= pc))
            let value = (pixel(cur + i) &+ predictor) & 0xFF
            for k in 0..<bpp { cur[i + k] = UInt8(truncatingIfNeeded: value[k]) }
            (a, c) = (value, b)
            i += bpp
        }
    }

    // MARK: - Sample expansion

    /// Palette as the output pixels: RGB triplets, or RGBA when tRNS gave alpha.
    static func expandPalette(_ rgb: [UInt8], alpha: [UInt8]?) -> [UInt8] {
        let entries = rgb.count / 3
        let channels = alpha == nil ? 3 : 4
        var out = [UInt8](repeating: 0, count: entries * channels)
        for e in 0..<entries {
            out[e * channels] = rgb[e * 3]
            out[e * channels + 1] = rgb[e * 3 + 1]
            out[e * channels + 2] = rgb[e * 3 + 2]
            if let alpha { out[e * channels + 3] = alpha[e] }
        }
        return out
    }

    /// 16-bit samples: big-endian pairs in the file (PNG spec 7.1).
    static func expand16(
        _ src: UnsafePointer<UInt8>, pixels: Int, channels: Int,
        into dst: UnsafeMutablePointer<UInt16>, pixelStride: Int
    ) {
        if pixelStride == 1 {
            for k in 0..<(pixels * channels) {
                dst[k] = UInt16(src[2 * k]) << 8 | UInt16(src[2 * k + 1])
            }
            return
        }
        let step = pixelStride * channels
        for p in 0..<pixels {
            for c in 0..<channels {
                let k = p * channels + c
                dst[p * step + c] = UInt16(src[2 * k]) << 8 | UInt16(src[2 * k + 1])
            }
        }
    }

    /// 8-bit output from 1/2/4/8-bit gray or palette indices, or 8-bit multi-channel samples.
    /// Returns false on a palette index past the PLTE entries.
    static func expand8(
        _ src: UnsafePointer<UInt8>, pixels: Int, header: PNGHeader, palette: [UInt8]?,
        paletteEntries entries: Int, outputChannels: Int,
        into dst: UnsafeMutablePointer<UInt8>, pixelStride: Int
    ) -> Bool {
        let depth = header.bitDepth
        if header.colorType == .palette {
            guard let palette else { return false }
            return palette.withUnsafeBufferPointer { pal -> Bool in
                guard let p = pal.baseAddress else { return false }
                let step = pixelStride * outputChannels
                let mask = UInt8(truncatingIfNeeded: (1 << depth) - 1)
                for i in 0..<pixels {
                    let index: Int
                    if depth == 8 {
                        index = Int(src[i])
                    } else {
                        let bit = i * depth
                        index = Int((src[bit >> 3] >> UInt8(8 - depth - (bit & 7))) & mask)
                    }
                    guard index < entries else { return false }
                    let entry = p + index * outputChannels
                    let out = dst + i * step
                    for c in 0..<outputChannels { out[c] = entry[c] }
                }
                return true
            }
        }
        if depth < 8 {
            // Scale to the full 8-bit range by replicating the bits (1 → 0xFF, 2 → 0x55, 4 → 0x11).
            let scale: UInt8 = depth == 1 ? 0xFF : depth == 2 ? 0x55 : 0x11
            let mask = UInt8(truncatingIfNeeded: (1 << depth) - 1)
            for i in 0..<pixels {
                let bit = i * depth
                let v = (src[bit >> 3] >> UInt8(8 - depth - (bit & 7))) & mask
                dst[i * pixelStride] = v &* scale
            }
            return true
        }
        let channels = outputChannels
        if pixelStride == 1 {
            dst.update(from: src, count: pixels * channels)
            return true
        }
        let step = pixelStride * channels
        for i in 0..<pixels {
            for c in 0..<channels { dst[i * step + c] = src[i * channels + c] }
        }
        return true
    }
}
