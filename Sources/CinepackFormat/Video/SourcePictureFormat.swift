/// What a movie's pictures are, as the renderer needs to know it: bits per sample and colour.
public struct SourcePictureFormat: Sendable, Equatable, CustomStringConvertible {
    /// Bits per sample of the coded picture (8, 10, 12, 16).
    public var bitDepth: Int
    public var colour: ColourDescription
    /// ffmpeg's pixel format name of the decoded picture ("yuv420p10le"), or "rgb24"/"rgb48be"
    /// for the built-in codecs.
    public var pixelFormat: String

    public init(bitDepth: Int, colour: ColourDescription, pixelFormat: String) {
        self.bitDepth = bitDepth
        self.colour = colour
        self.pixelFormat = pixelFormat
    }

    /// More than 8 bits: the render path then carries 16 bits per channel.
    public var isHighPrecision: Bool { bitDepth > 8 }

    public var description: String { "\(pixelFormat), \(bitDepth)-bit, \(colour)" }

    /// Bits per sample of an ffmpeg pixel format name: `yuv420p10le` 10, `p010le` 10, `rgb48le`
    /// 16, `rgba64be` 16, `gray16le` 16, `yuv422p` 8.
    public static func bitDepth(ofPixelFormat name: String) -> Int {
        let n = name.hasSuffix("le") || name.hasSuffix("be") ? String(name.dropLast(2)) : name
        if n.hasPrefix("rgb48") || n.hasPrefix("bgr48") || n.hasPrefix("rgba64") || n.hasPrefix("bgra64") { return 16 }
        if n.hasPrefix("p010") || n.hasPrefix("p210") || n.hasPrefix("p410") || n.hasPrefix("x2rgb10") || n.hasPrefix("y210") { return 10 }
        if n.hasPrefix("p012") || n.hasPrefix("p016") || n.hasPrefix("p216") || n.hasPrefix("p416") {
            return n.hasPrefix("p012") ? 12 : 16
        }
        if n.hasPrefix("grayf") || n.hasSuffix("f32") || n.hasSuffix("f16") { return 16 }
        if n.hasPrefix("gray") { return Int(n.dropFirst(4)) ?? 8 }
        // Planar names end in their depth: yuv420p10, gbrp12, yuva444p16.
        if let p = n.lastIndex(of: "p"), let bits = Int(n[n.index(after: p)...]) { return bits }
        return 8
    }
}
