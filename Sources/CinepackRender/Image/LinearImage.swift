import CinepackFormat

/// An RGB picture in linear light, 32-bit float per channel, interleaved (r, g, b), row-major.
/// The renderer works in linear light so highlights keep their energy (spec/render.md §1.2).
public struct LinearImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width × height × 3` values.
    public var values: [Float]

    public init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height * 3, "a linear image needs width × height × 3 values")
        self.width = width
        self.height = height
        self.values = values
    }

    public init(width: Int, height: Int, fill: Float = 0) {
        self.init(width: width, height: height, values: [Float](repeating: fill, count: width * height * 3))
    }

    @inline(__always) public func pixel(_ x: Int, _ y: Int) -> SIMD3<Float> {
        let i = (y * width + x) * 3
        return SIMD3(values[i], values[i + 1], values[i + 2])
    }

    @inline(__always) public mutating func setPixel(_ x: Int, _ y: Int, _ v: SIMD3<Float>) {
        let i = (y * width + x) * 3
        values[i] = v.x
        values[i + 1] = v.y
        values[i + 2] = v.z
    }
}

extension LinearImage {
    /// Every value through `code`, rows in parallel: the last step of turning a render back into a
    /// picture.
    @inline(__always) func encodedInParallel<T>(_ code: @escaping @Sendable (Float) -> T) -> [T] {
        encodedInParallel(rows: { source, target, count in
            for i in 0..<count { (target + i).initialize(to: code(source[i])) }
        })
    }

    /// The same with `code` run once per row on `count` values from `source` into `target`
    /// (uninitialised), so a hot loop is not a closure call per value.
    @inline(__always) func encodedInParallel<T>(
        rows code: @escaping @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<T>, Int) -> Void
    ) -> [T] {
        let count = values.count
        let rows = max(1, height)
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let target = Shared(buffer.baseAddress!)
            values.withUnsafeBufferPointer { values in
                let source = Shared(UnsafeMutablePointer(mutating: values.baseAddress!))
                let perRow = count / rows
                parallelFor(rows, threads: nil) { y in
                    let end = y == rows - 1 ? count : (y + 1) * perRow
                    code(source.p + y * perRow, target.p + y * perRow, end - y * perRow)
                }
            }
            initialized = count
        }
    }
}

/// The sRGB transfer function (IEC 61966-2-1), both ways, with a 256-entry table for 8-bit input.
public enum SRGB {
    public static func toLinear(_ v: Float) -> Float {
        v <= 0.04045 ? v / 12.92 : _pow((v + 0.055) / 1.055, 2.4)
    }

    public static func fromLinear(_ v: Float) -> Float {
        let c = min(max(v, 0), 1)
        return c <= 0.003_130_8 ? c * 12.92 : 1.055 * _pow(c, 1 / 2.4) - 0.055
    }

    static let table8: [Float] = (0..<256).map { toLinear(Float($0) / 255) }

    /// An 8- or 16-bit RGB/RGBA picture (alpha ignored) in linear light.
    public static func linear(_ picture: PixelImage) -> LinearImage {
        let channels = picture.channels
        let grey = channels < 3
        if case .uint8(let s) = picture.storage {
            // Rows in parallel through the table, into uninitialised storage (every value written).
            let width = picture.width
            let rows = picture.height
            let out = [Float](unsafeUninitializedCapacity: width * rows * 3) { buffer, initialized in
                let target = Shared(buffer.baseAddress!)
                s.withUnsafeBufferPointer { samples in
                    table8.withUnsafeBufferPointer { table in
                        let source = Shared(UnsafeMutablePointer(mutating: samples.baseAddress!))
                        let lookup = Shared(UnsafeMutablePointer(mutating: table.baseAddress!))
                        parallelFor(rows, threads: nil) { y in
                            for p in (y * width)..<((y + 1) * width) {
                                for c in 0..<3 { target.p[p * 3 + c] = lookup.p[Int(source.p[p * channels + (grey ? 0 : c)])] }
                            }
                        }
                    }
                }
                initialized = width * rows * 3
            }
            return LinearImage(width: picture.width, height: picture.height, values: out)
        }
        var out = [Float](repeating: 0, count: picture.width * picture.height * 3)
        switch picture.storage {
        case .uint8:
            break
        case .uint16(let s):
            for p in 0..<(picture.width * picture.height) {
                for c in 0..<3 { out[p * 3 + c] = toLinear(Float(s[p * channels + (grey ? 0 : c)]) / 65535) }
            }
        }
        return LinearImage(width: picture.width, height: picture.height, values: out)
    }

    /// Back to an 8-bit sRGB picture, rounded to nearest.
    public static func picture(_ image: LinearImage) -> PixelImage {
        let out = image.encodedInParallel(rows: { source, target, count in
            thresholds.withUnsafeBufferPointer { thresholds in
                binCodes.withUnsafeBufferPointer { binCodes in
                    for i in 0..<count { target[i] = code8(source[i], thresholds.baseAddress!, binCodes.baseAddress!) }
                }
            }
        })
        // Sizes always match, so this cannot fail.
        return try! PixelImage(width: image.width, height: image.height, layout: .rgb, samples: out)
    }

    /// The 8-bit code of a linear value: the same as rounding `fromLinear(v) · 255`, found without
    /// `pow` from the 255 linear values where the code steps up (`thresholds`). The unit interval
    /// is cut into `bins` equal bins, fine enough that no bin holds two thresholds, so a bin's
    /// first code and one comparison give the answer.
    @inline(__always) static func code8(_ v: Float) -> UInt8 {
        guard v > 0 else { return 0 }
        guard v < 1 else { return 255 }
        let first = binCodes[Int(v * Float(bins))]
        return v >= thresholds[Int(first)] ? first + 1 : first
    }

    /// The same from the tables' storage (no bounds checks or lazy-initialisation checks per value).
    @inline(__always) static func code8(_ v: Float, _ thresholds: UnsafePointer<Float>, _ binCodes: UnsafePointer<UInt8>) -> UInt8 {
        guard v > 0 else { return 0 }
        guard v < 1 else { return 255 }
        let first = binCodes[Int(v * Float(bins))]
        return v >= thresholds[Int(first)] ? first + 1 : first
    }

    static let bins = 8192
    /// Linear value at which code k + 1 starts (code k below it), k = 0 … 254; then +∞.
    static let thresholds: [Float] = (0..<255).map { toLinear((Float($0) + 0.5) / 255) } + [.infinity]
    /// Code at the start of each bin.
    static let binCodes: [UInt8] = (0...bins).map { i in
        let v = Float(i) / Float(bins)
        return UInt8(thresholds.firstIndex { $0 > v }!)
    }
}

@inline(__always) func _pow(_ a: Float, _ b: Float) -> Float {
    #if canImport(Glibc)
        return Glibc.powf(a, b)
    #else
        return Darwin.powf(a, b)
    #endif
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
