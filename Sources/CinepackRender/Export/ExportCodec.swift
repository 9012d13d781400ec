import CinepackFormat

/// The codec a render writes. `png`/`png16` are built in (PNG samples in a MOV); the others are
/// encoded by ffmpeg: ProRes through `prores_ks`, DNxHR HQX through `dnxhd`, H.264 through
/// libx264, HEVC through libx265.
public enum ExportCodec: String, Sendable, CaseIterable, CustomStringConvertible {
    case png, png16, prores, prores4444, dnxhr, h264, hevc

    public var isBuiltIn: Bool { self == .png || self == .png16 }

    /// Every frame is a sync frame (PNG, ProRes, DNxHR): a farm part may start on any frame.
    public var isIntraOnly: Bool { self != .h264 && self != .hevc }

    /// Whether `--crf` and `--preset` mean something for it.
    public var takesRateControl: Bool { self == .h264 || self == .hevc }

    public var description: String {
        switch self {
        case .png: "PNG, 8-bit RGB"
        case .png16: "PNG, 16-bit RGB"
        case .prores: "ProRes 422 HQ, 10-bit 4:2:2"
        case .prores4444: "ProRes 4444, 10-bit 4:4:4"
        case .dnxhr: "DNxHR HQX, 10-bit 4:2:2"
        case .h264: "H.264"
        case .hevc: "HEVC"
        }
    }

    /// The codec to use when none is asked for, and why: the source's bit depth is kept, and a
    /// deeper-than-8-bit source going to a `.mov` gets ProRes (what editors exchange; 4444 for a
    /// 4:4:4 or RGB source), to another container HEVC Main10. 8-bit sources keep PNG.
    public static func choose(requested: ExportCodec?, output: String, source: SourcePictureFormat) -> (codec: ExportCodec, reason: Choice?)
    {
        if let requested { return (requested, nil) }
        guard source.isHighPrecision else { return (.png, nil) }
        let name = output.lowercased()
        if name.hasSuffix(".mov") {
            let full = source.pixelFormat.contains("444") || source.pixelFormat.hasPrefix("rgb") || source.pixelFormat.hasPrefix("gbr")
            return (
                full ? .prores4444 : .prores, Choice(codec: full ? .prores4444 : .prores, sourceBitDepth: source.bitDepth, movOutput: true)
            )
        }
        if name.hasSuffix(".png") { return (.png16, nil) }
        return (.hevc, Choice(codec: .hevc, sourceBitDepth: source.bitDepth, movOutput: false))
    }

    /// Why a codec was chosen for a deep source when none was asked for.
    public struct Choice: Sendable, Equatable, CustomStringConvertible {
        public let codec: ExportCodec
        public let sourceBitDepth: Int
        /// The output is a `.mov`, which got ProRes.
        public let movOutput: Bool

        /// The choice and its grounds, without the remedy.
        public var grounds: String {
            movOutput
                ? "codec \(codec.rawValue) (\(codec.description)): the source is \(sourceBitDepth)-bit and the output is .mov"
                : "codec hevc (HEVC Main10): the source is \(sourceBitDepth)-bit"
        }

        public var description: String { "\(grounds); a codec asked for replaces this choice" }
    }
}
