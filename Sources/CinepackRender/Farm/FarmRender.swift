import CinepackCompression
import CinepackContainer
import CinepackEDL
import CinepackFormat

/// A render cut into parts for a farm (spec/farm.md): the plan of the whole program, how it is cut
/// (`shards`), and the identity every part records — the source fingerprint, the EDL digest and
/// the render settings — so that `FarmConcat` joins only parts of this one render.
package struct FarmRender: Sendable {
    package let plan: RenderPlan
    package let codec: ExportCodec
    private let export: ExportSettings
    package let shards: ShardPlan
    /// The render settings, one `key=value` per line (spec/farm.md §3).
    package let settings: String
    package let sourceFingerprint: [UInt8]
    package let edlDigest: [UInt8]
    private let sourceHasAudio: Bool
    private let sourceName: String

    /// `quality` and `extraSettings` (e.g. options that change pixels) go into the settings digest.
    package init(
        edits: MovieEdits, plan: RenderPlan, settings export: ExportSettings, quality: RenderQuality, extraSettings: [String] = []
    ) throws(FarmError) {
        self.plan = plan
        self.codec = export.codec
        self.export = export
        let movie = plan.movie
        let interval: Int
        if codec.isIntraOnly {
            interval = 1
        } else {
            guard let rate = movie.frameRate else { throw .format(FormatError("\(movie.path): frames are not evenly spaced")) }
            // One second of frames, rounded up.
            interval = Int(max(1, (rate.frames + rate.seconds - 1) / max(rate.seconds, 1)))
        }
        shards = ShardPlan(program: plan.outputFrames, syncInterval: interval)
        let encoder = codec.isBuiltIn ? "" : export.ffmpegVideoArguments(syncInterval: interval).joined(separator: " ")
        var lines = [
            "codec=\(codec.rawValue)", "encoder=\(encoder)", "quality=\(quality.rawValue)",
            "f-number=\(plan.lens.fNumber)", "focal-length=\(plan.lens.focalLength35mm)", "size=\(movie.width)x\(movie.height)",
            "program=\(plan.outputFrames.lowerBound)..\(plan.outputFrames.upperBound)", "sync-interval=\(interval)",
            "colour-space=\(export.colourSpace?.rawValue ?? "source")",
        ]
        lines += extraSettings
        settings = lines.joined(separator: "\n") + "\n"
        sourceFingerprint = Self.bytes(hex: MediaBinding.fingerprint(of: movie.video))
        edlDigest = Self.digest(of: edits.edl)
        sourceHasAudio = movie.audio != nil
        sourceName = String(movie.path.split(separator: "/").last ?? "")
    }

    /// Refuses settings whose parts would not join into the one-process render: rate control
    /// (`crf` other than 0, `bitrate`) looks across groups of pictures.
    package func checkPartable() throws(FarmError) {
        guard !codec.isIntraOnly, (export.crf != nil && export.crf != 0) || export.bitrate != nil else { return }
        throw .rateControlInParts(codec: codec.rawValue)
    }

    /// The record of the part holding `frames` (shard `k` of `n`, or 0/0 for `--frames`).
    package func record(frames: Range<Int64>, shard: (index: Int, count: Int)?) -> RenderPartRecord {
        RenderPartRecord(
            shardIndex: UInt32(shard?.index ?? 0), shardCount: UInt32(shard?.count ?? 0), frames: frames, program: plan.outputFrames,
            syncInterval: UInt32(shards.syncInterval), sourceFingerprint: sourceFingerprint, edlDigest: edlDigest, settings: settings,
            sourceHasAudio: sourceHasAudio, sourceName: sourceName)
    }

    /// SHA-256 of the EDL's canonical text without its undo history (history changes no pixel).
    package static func digest(of edl: EditDecisionList) -> [UInt8] {
        var rendered = edl
        rendered.history = []
        return SHA256.digest(rendered.xmlData())
    }

    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex, let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex) {
            out.append(UInt8(hex[i..<j], radix: 16) ?? 0)
            i = j
        }
        return out
    }
}
