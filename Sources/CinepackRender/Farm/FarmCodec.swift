/// An output codec as the farm sees it (spec/farm.md §1): where a shard may start, and how ffmpeg
/// must encode so that a shard's frames do not depend on where the shard starts. Adding a codec
/// is one entry in `all`.
public struct FarmCodec: Sendable, Equatable {
    public var name: String
    /// Every frame is a sync frame (PNG, raw, ProRes…): a shard may start anywhere.
    public var intraOnly: Bool
    /// ffmpeg video encoder arguments for a sync frame every `syncInterval` frames; empty for the
    /// codecs cinepack writes itself.
    public var ffmpegArguments: @Sendable (_ syncInterval: Int) -> [String]

    public static func == (a: FarmCodec, b: FarmCodec) -> Bool { a.name == b.name }

    public static let png = FarmCodec(name: "png", intraOnly: true) { _ in [] }
    /// Constant quantizer, fixed GOP of closed, IDR-started groups without B-frames, no scene-cut
    /// keyframes and a fixed thread count: each group is encoded from its own frames only and the
    /// same on every machine, so a group decodes to the same pixels whether it was encoded alone
    /// (one shard) or in a longer run (rate control with look-ahead, as CRF uses, would not).
    public static let h264 = FarmCodec(name: "h264", intraOnly: false) { g in
        [
            "-c:v", "libx264", "-qp", "18", "-x264-params",
            "keyint=\(g):min-keyint=\(g):scenecut=0:bframes=0:open-gop=0:threads=4",
        ]
    }
    public static let hevc = FarmCodec(name: "hevc", intraOnly: false) { g in
        [
            "-c:v", "libx265", "-tag:v", "hvc1", "-x265-params",
            "qp=20:keyint=\(g):min-keyint=\(g):scenecut=0:bframes=0:open-gop=0:frame-threads=2:pools=4:log-level=error",
        ]
    }

    public static let all: [FarmCodec] = [png, h264, hevc]

    public static func named(_ name: String) -> FarmCodec? { all.first { $0.name == name } }
}
