/// Which channels a pixel holds, in their interleaved order. The raw value is the channel count.
public enum PixelLayout: Int, Sendable, CaseIterable, CustomStringConvertible {
    case gray = 1
    case grayAlpha = 2
    case rgb = 3
    case rgba = 4

    public var channels: Int { rawValue }
    public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }

    public var description: String {
        switch self {
        case .gray: "gray"
        case .grayAlpha: "gray+alpha"
        case .rgb: "RGB"
        case .rgba: "RGBA"
        }
    }
}

/// The samples of an image: one element per channel per pixel, row-major, channels interleaved.
/// 8-bit images keep bytes so the common case costs one byte per sample; 16-bit images keep
/// native `UInt16` values (byte order is a file-format concern, handled by the codecs).
public enum PixelStorage: Sendable, Equatable {
    case uint8([UInt8])
    case uint16([UInt16])

    public var count: Int {
        switch self {
        case .uint8(let s): s.count
        case .uint16(let s): s.count
        }
    }

    public var bitDepth: Int {
        switch self {
        case .uint8: 8
        case .uint16: 16
        }
    }
}

/// Why a `PixelImage` could not be made. A struct with static members so cases can be added.
public struct PixelImageError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    public static func badDimensions(width: Int, height: Int) -> PixelImageError {
        PixelImageError("image dimensions \(width)x\(height) are not positive")
    }
    public static func tooLarge(width: Int, height: Int, channels: Int) -> PixelImageError {
        PixelImageError("image of \(width)x\(height)x\(channels) samples overflows")
    }
    public static func sampleCount(expected: Int, actual: Int) -> PixelImageError {
        PixelImageError("image needs \(expected) samples, \(actual) given")
    }
    public static func bitDepth(_ depth: Int) -> PixelImageError {
        PixelImageError("bit depth \(depth) is not supported (8 or 16)")
    }
}

/// An uncompressed picture: the common currency between codecs (PNG, uncompressed) and the renderer.
/// The sample count always equals `width * height * channels`; the initializers enforce it.
public struct PixelImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let layout: PixelLayout
    public private(set) var storage: PixelStorage

    public var channels: Int { layout.channels }
    public var bitDepth: Int { storage.bitDepth }
    /// Largest sample value: 255 or 65535.
    public var maxValue: Int { bitDepth == 8 ? 0xFF : 0xFFFF }
    public var pixelCount: Int { width * height }
    public var sampleCount: Int { storage.count }
    /// Samples in one row (`width * channels`).
    public var rowSampleCount: Int { width * layout.channels }

    /// The 8-bit samples, or nil for a 16-bit image.
    public var samples8: [UInt8]? {
        if case .uint8(let s) = storage { return s }
        return nil
    }
    /// The 16-bit samples, or nil for an 8-bit image.
    public var samples16: [UInt16]? {
        if case .uint16(let s) = storage { return s }
        return nil
    }

    public init(width: Int, height: Int, layout: PixelLayout, storage: PixelStorage) throws(PixelImageError) {
        let expected = try Self.requiredSamples(width: width, height: height, layout: layout)
        guard storage.count == expected else {
            throw .sampleCount(expected: expected, actual: storage.count)
        }
        self.width = width
        self.height = height
        self.layout = layout
        self.storage = storage
    }

    public init(width: Int, height: Int, layout: PixelLayout, samples: [UInt8]) throws(PixelImageError) {
        try self.init(width: width, height: height, layout: layout, storage: .uint8(samples))
    }

    public init(width: Int, height: Int, layout: PixelLayout, samples: [UInt16]) throws(PixelImageError) {
        try self.init(width: width, height: height, layout: layout, storage: .uint16(samples))
    }

    /// A zero-filled (black, transparent) image.
    public init(width: Int, height: Int, layout: PixelLayout, bitDepth: Int) throws(PixelImageError) {
        let count = try Self.requiredSamples(width: width, height: height, layout: layout)
        switch bitDepth {
        case 8: storage = .uint8([UInt8](repeating: 0, count: count))
        case 16: storage = .uint16([UInt16](repeating: 0, count: count))
        default: throw .bitDepth(bitDepth)
        }
        self.width = width
        self.height = height
        self.layout = layout
    }

    /// `width * height * channels`, overflow-checked, for callers sizing buffers before building.
    public static func requiredSamples(width: Int, height: Int, layout: PixelLayout) throws(PixelImageError) -> Int {
        guard width > 0, height > 0 else { throw .badDimensions(width: width, height: height) }
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (samples, o2) = pixels.multipliedReportingOverflow(by: layout.channels)
        guard !o1, !o2 else { throw .tooLarge(width: width, height: height, channels: layout.channels) }
        return samples
    }

    /// Index of a sample in the storage array. Traps when out of range, like an array subscript.
    @inline(__always)
    public func sampleIndex(x: Int, y: Int, channel: Int = 0) -> Int {
        precondition(
            x >= 0 && x < width && y >= 0 && y < height && channel >= 0 && channel < channels,
            "pixel (\(x), \(y)) channel \(channel) outside \(width)x\(height)x\(channels)")
        return (y * width + x) * channels + channel
    }

    /// One sample widened to `UInt16` (8-bit images give 0...255).
    public func sample(x: Int, y: Int, channel: Int = 0) -> UInt16 {
        let i = sampleIndex(x: x, y: y, channel: channel)
        switch storage {
        case .uint8(let s): return UInt16(s[i])
        case .uint16(let s): return s[i]
        }
    }

    /// Sets one sample; for an 8-bit image the value must fit in a byte.
    public mutating func setSample(_ value: UInt16, x: Int, y: Int, channel: Int = 0) {
        let i = sampleIndex(x: x, y: y, channel: channel)
        switch storage {
        case .uint8(var s):
            precondition(value <= 0xFF, "sample \(value) does not fit an 8-bit image")
            // Release the enum's reference first so the array is uniquely owned and not copied.
            storage = .uint8([])
            s[i] = UInt8(value)
            storage = .uint8(s)
        case .uint16(var s):
            storage = .uint16([])
            s[i] = value
            storage = .uint16(s)
        }
    }

    /// All channels of one pixel, widened to `UInt16`.
    public func pixel(x: Int, y: Int) -> [UInt16] {
        (0..<channels).map { sample(x: x, y: y, channel: $0) }
    }

    /// The same picture at another bit depth. 8→16 multiplies by 257 (exact: 0xFF→0xFFFF);
    /// 16→8 rounds to nearest, the inverse of that mapping.
    public func converted(toBitDepth depth: Int) throws(PixelImageError) -> PixelImage {
        guard depth == 8 || depth == 16 else { throw .bitDepth(depth) }
        if depth == bitDepth { return self }
        var copy = self
        switch storage {
        case .uint8(let s): copy.storage = .uint16(s.map { UInt16($0) &* 257 })
        case .uint16(let s): copy.storage = .uint8(s.map { UInt8((UInt32($0) &* 255 &+ 32767) / 65535) })
        }
        return copy
    }
}

extension PixelImage: CustomStringConvertible {
    /// A summary, not the samples: images are large, and test failures print descriptions.
    public var description: String {
        "PixelImage(\(width)x\(height) \(layout) \(bitDepth)-bit)"
    }
}
