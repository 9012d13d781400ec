import CinepackCompression

/// Encodes `PixelImage`s as PNG: colour types 0 (gray), 4 (gray+alpha), 2 (RGB), 6 (RGBA) at 8 or
/// 16 bits, never interlaced, no ancillary chunks. The output holds exactly the image's samples, so
/// decoding it gives back an equal `PixelImage`.
package enum PNGEncoder {
    /// IDAT payload per chunk. Any size up to 2^31-1 is legal; moderate chunks keep each CRC pass
    /// cache-friendly and suit streaming readers.
    static let idatChunkSize = 1 << 20

    package static func encode(
        _ image: PixelImage, filter: PNGFilterStrategy = .adaptive,
        compressionLevel: Int32 = 6
    ) throws(PNGError) -> [UInt8] {
        guard (-1...9).contains(compressionLevel) else {
            throw .unsupported("compression level \(compressionLevel) is not in -1...9")
        }
        let limit = Int(PNGFormat.maxChunkLength)
        guard image.width <= limit, image.height <= limit else {
            throw .unsupported("dimensions \(image.width)x\(image.height) exceed PNG's 2^31-1")
        }
        let colorType: PNGColorType
        switch image.layout {
        case .gray: colorType = .gray
        case .grayAlpha: colorType = .grayAlpha
        case .rgb: colorType = .rgb
        case .rgba: colorType = .rgba
        }
        let bytesPerSample = image.bitDepth / 8
        let bpp = image.channels * bytesPerSample
        let (rowBytes, o1) = image.width.multipliedReportingOverflow(by: bpp)
        let (filteredSize, o2) = image.height.multipliedReportingOverflow(by: rowBytes &+ 1)
        guard !o1, !o2, rowBytes < Int.max else { throw .unsupported("image size overflows") }

        let filtered = filterImage(image, rowBytes: rowBytes, bpp: bpp, size: filteredSize, strategy: filter)
        let compressed: [UInt8]
        if let whole = filtered.withUnsafeBytes({ WholeBufferDeflate.deflate($0, level: compressionLevel) }) {
            compressed = whole  // one call over the whole buffer: libdeflate
        } else {
            do {
                compressed = try Zlib.deflate(filtered, level: compressionLevel)
            } catch {
                throw PNGError(.compression, "PNG encode: zlib deflate failed: \(error)")
            }
        }

        var out: [UInt8] = []
        out.reserveCapacity(8 + 25 + compressed.count + 12 * (compressed.count / idatChunkSize + 1) + 12)
        out.append(contentsOf: PNGFormat.signature)
        var ihdr: [UInt8] = []
        ihdr.append(contentsOf: PNGFormat.bigEndianBytes(UInt32(image.width)))
        ihdr.append(contentsOf: PNGFormat.bigEndianBytes(UInt32(image.height)))
        // Bit depth, colour type, compression 0 (deflate), filter method 0, interlace 0 (none).
        ihdr.append(contentsOf: [UInt8(image.bitDepth), colorType.rawValue, 0, 0, 0])
        ihdr.withUnsafeBufferPointer { PNGFormat.appendChunk(PNGFormat.IHDR, $0, to: &out) }
        compressed.withUnsafeBufferPointer { all in
            var start = 0
            repeat {
                let end = min(start + idatChunkSize, all.count)
                PNGFormat.appendChunk(PNGFormat.IDAT, UnsafeBufferPointer(rebasing: all[start..<end]), to: &out)
                start = end
            } while start < all.count
        }
        PNGFormat.appendChunk(PNGFormat.IEND, UnsafeBufferPointer(start: nil, count: 0), to: &out)
        return out
    }

    // MARK: - Filtering (PNG spec 9)

    /// Builds the filtered stream: per row one filter-type byte then the filtered bytes.
    static func filterImage(
        _ image: PixelImage, rowBytes n: Int, bpp: Int, size: Int,
        strategy: PNGFilterStrategy
    ) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        // Row scratch: [0] and [1] alternate as current/previous big-endian rows for 16-bit
        // images; [2] is the all-zero row above the first; [3...7] hold adaptive candidates.
        var scratch = [UInt8](repeating: 0, count: n * 8)
        out.withUnsafeMutableBufferPointer { outBuffer in
            scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                guard let dst = outBuffer.baseAddress, let rows = scratchBuffer.baseAddress else { return }
                let zeroRow = UnsafePointer(rows + 2 * n)
                let candidates = rows + 3 * n
                func run(_ rowAt: (Int) -> UnsafePointer<UInt8>) {
                    var prev = zeroRow
                    for y in 0..<image.height {
                        let cur = rowAt(y)
                        let line = dst + y * (n + 1)
                        if strategy == .adaptive {
                            var best: UInt8 = 0
                            var bestSum = UInt64.max
                            for kind in UInt8(0)...4 {
                                let candidate = candidates + Int(kind) * n
                                filterRow(kind, cur, prev, candidate, n, bpp)
                                let sum = absoluteSum(candidate, n, stopAbove: bestSum)
                                if sum < bestSum { bestSum = sum; best = kind }
                            }
                            line[0] = best
                            (line + 1).update(from: candidates + Int(best) * n, count: n)
                        } else {
                            let kind = filterType(strategy)
                            line[0] = kind
                            filterRow(kind, cur, prev, line + 1, n, bpp)
                        }
                        prev = cur
                    }
                }
                switch image.storage {
                case .uint8(let samples):
                    samples.withUnsafeBufferPointer { src in
                        guard let s = src.baseAddress else { return }
                        run { s + $0 * n }
                    }
                case .uint16(let samples):
                    samples.withUnsafeBufferPointer { src in
                        guard let s = src.baseAddress else { return }
                        let count = n / 2
                        run { y in
                            // Alternate two buffers so the previous row stays valid for Up/Avg/Paeth.
                            let row = rows + (y & 1) * n
                            let from = s + y * count
                            for i in 0..<count {
                                let v = from[i]
                                row[2 * i] = UInt8(truncatingIfNeeded: v >> 8)  // big-endian (PNG spec 7.1)
                                row[2 * i + 1] = UInt8(truncatingIfNeeded: v)
                            }
                            return UnsafePointer(row)
                        }
                    }
                }
            }
        }
        return out
    }

    static func filterType(_ strategy: PNGFilterStrategy) -> UInt8 {
        switch strategy {
        case .none, .adaptive: 0
        case .sub: 1
        case .up: 2
        case .average: 3
        case .paeth: 4
        }
    }

    /// Filters one row of `n` bytes; `prev` is the unfiltered row above (zeros for the first row).
    @inline(__always)
    static func filterRow(
        _ kind: UInt8, _ cur: UnsafePointer<UInt8>, _ prev: UnsafePointer<UInt8>,
        _ out: UnsafeMutablePointer<UInt8>, _ n: Int, _ bpp: Int
    ) {
        let head = min(bpp, n)
        switch kind {
        case 1:
            for i in 0..<head { out[i] = cur[i] }
            if n > bpp { for i in bpp..<n { out[i] = cur[i] &- cur[i - bpp] } }
        case 2:
            for i in 0..<n { out[i] = cur[i] &- prev[i] }
        case 3:
            for i in 0..<head { out[i] = cur[i] &- (prev[i] >> 1) }
            if n > bpp {
                for i in bpp..<n {
                    out[i] = cur[i] &- UInt8(truncatingIfNeeded: (UInt16(cur[i - bpp]) + UInt16(prev[i])) >> 1)
                }
            }
        case 4:
            for i in 0..<head { out[i] = cur[i] &- prev[i] }  // Paeth(0, b, 0) = b
            if n > bpp {
                for i in bpp..<n { out[i] = cur[i] &- PNGFormat.paeth(cur[i - bpp], prev[i], prev[i - bpp]) }
            }
        default:
            out.update(from: cur, count: n)
        }
    }

    /// Sum of the bytes read as signed values' magnitudes; stops early once it cannot win.
    @inline(__always)
    static func absoluteSum(_ p: UnsafePointer<UInt8>, _ n: Int, stopAbove limit: UInt64) -> UInt64 {
        var sum: UInt64 = 0
        var i = 0
        while i < n {
            let end = min(i + 4096, n)
            var block: UInt32 = 0  // 4096 × 128 fits easily
            for k in i..<end {
                let b = Int8(bitPattern: p[k])
                block &+= UInt32(b.magnitude)
            }
            sum += UInt64(block)
            if sum >= limit { return sum }
            i = end
        }
        return sum
    }
}
