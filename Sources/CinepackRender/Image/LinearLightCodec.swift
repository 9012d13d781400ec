import CinepackFormat

/// Pictures to linear light and back with one transfer function, at 8 or 16 bits per sample.
/// sRGB at 8 bits is `SRGB`'s table path (the speed of the 8-bit renderer is unchanged); other
/// transfers use a table for decoding (256 or 65 536 entries) and the exact inverse for encoding.
package struct LinearLightCodec: Sendable {
    package let transfer: TransferFunction
    private let table8: [Float]
    private let thresholds8: [Float]
    private let table16: [Float]

    package init(transfer: TransferFunction, sourceBitDepth: Int = 8) {
        self.transfer = transfer
        table8 = transfer == .sRGB ? [] : (0..<256).map { transfer.toLinear(Float($0) / 255) }
        // Linear value at which 8-bit code k + 1 starts (k = 0 … 254).
        thresholds8 = transfer == .sRGB ? [] : (0..<255).map { transfer.toLinear((Float($0) + 0.5) / 255) }
        table16 = sourceBitDepth > 8 ? (0..<65536).map { transfer.toLinear(Float($0) / 65535) } : []
    }

    /// An 8- or 16-bit RGB/RGBA/grey picture (alpha ignored) in linear light.
    package func linear(_ picture: PixelImage) -> LinearImage {
        if transfer == .sRGB, picture.bitDepth == 8 { return SRGB.linear(picture) }
        let table16 = self.table16.isEmpty ? (0..<65536).map { transfer.toLinear(Float($0) / 65535) } : self.table16
        let pixels = picture.width * picture.height
        let channels = picture.channels
        let grey = channels < 3
        var out = [Float](repeating: 0, count: pixels * 3)
        switch picture.storage {
        case .uint8(let s):
            for p in 0..<pixels {
                for c in 0..<3 { out[p * 3 + c] = table8[Int(s[p * channels + (grey ? 0 : c)])] }
            }
        case .uint16(let s):
            for p in 0..<pixels {
                for c in 0..<3 { out[p * 3 + c] = table16[Int(s[p * channels + (grey ? 0 : c)])] }
            }
        }
        return LinearImage(width: picture.width, height: picture.height, values: out)
    }

    /// Back to an RGB picture of `bitDepth` (8 or 16) bits, rounded to nearest.
    package func picture(_ image: LinearImage, bitDepth: Int) -> PixelImage {
        if bitDepth == 8 {
            if transfer == .sRGB { return SRGB.picture(image) }
            let out = image.encodedInParallel { [self] in code8($0) }
            return try! PixelImage(width: image.width, height: image.height, layout: .rgb, samples: out)
        }
        let transfer = self.transfer
        let out = image.encodedInParallel { UInt16(min(max(transfer.fromLinear($0) * 65535 + 0.5, 0), 65535)) }
        // Sizes always match, so this cannot fail.
        return try! PixelImage(width: image.width, height: image.height, layout: .rgb, samples: out)
    }

    /// The 8-bit code of a linear value: the last threshold at or below it, by binary search.
    @inline(__always) func code8(_ v: Float) -> UInt8 {
        guard v > 0 else { return 0 }
        var lo = 0
        var hi = 255
        while lo < hi {
            let mid = (lo + hi) / 2
            if v >= thresholds8[mid] { lo = mid + 1 } else { hi = mid }
        }
        return UInt8(lo)
    }
}
