import CinepackFormat

/// How a render encodes its pictures: the codec, ffmpeg's rate control and pixel format, and the
/// colour description written into the output (the source's: container `colr` and the codec's
/// own colour fields).
public struct ExportSettings: Sendable, Equatable {
    public var codec: ExportCodec
    /// Constant rate factor for H.264/HEVC; 0 = lossless.
    public var crf: Int?
    /// Target bitrate for the ffmpeg codecs that take one (`20M`, `8000k`).
    public var bitrate: String?
    /// Encoder speed preset for H.264/HEVC (`slow`, `medium`, `veryfast`…).
    public var preset: String?
    /// ffmpeg pixel format overriding the codec's default.
    public var pixelFormat: String?
    /// The source's colour description.
    public var colour: ColourDescription
    /// The colour space the pictures are converted to (`--colour-space`); nil keeps the source's
    /// primaries. The conversion itself is the render plan's (`RenderPlan.Options.colourSpace`).
    public var colourSpace: ColourSpace?
    /// Bits per sample of the pictures handed to the encoder (8 or 16).
    public var inputBitDepth: Int

    public init(
        codec: ExportCodec, crf: Int? = nil, bitrate: String? = nil, preset: String? = nil, pixelFormat: String? = nil,
        colour: ColourDescription, inputBitDepth: Int, colourSpace: ColourSpace? = nil
    ) throws(ExportSettingsError) {
        if crf != nil || preset != nil, !codec.takesRateControl {
            throw .notForCodec(crf != nil ? .crf : .preset, codec: codec)
        }
        if bitrate != nil, codec.isBuiltIn || codec == .dnxhr || codec == .prores || codec == .prores4444 {
            throw .notForCodec(.bitrate, codec: codec)
        }
        if pixelFormat != nil, codec.isBuiltIn { throw .notForCodec(.pixelFormat, codec: codec) }
        if let crf, !(0...51).contains(crf) { throw .badValue(.crf, value: "\(crf)", expected: "0…51") }
        if let bitrate, !Self.isBitrate(bitrate) {
            throw .badValue(.bitrate, value: bitrate, expected: "a number with an optional k or M (20M, 8000k)")
        }
        for (setting, value) in [(Setting.preset, preset), (.pixelFormat, pixelFormat)] {
            if let value, value.isEmpty || !value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                throw .badValue(setting, value: value, expected: "letters, digits and _")
            }
        }
        self.codec = codec
        self.crf = crf
        self.bitrate = bitrate
        self.preset = preset
        self.pixelFormat = pixelFormat
        self.colour = colour
        self.colourSpace = colourSpace
        self.inputBitDepth = inputBitDepth
    }

    static func isBitrate(_ text: String) -> Bool {
        var digits = Substring(text)
        if let last = digits.last, "kKmM".contains(last) { digits = digits.dropLast() }
        return !digits.isEmpty && digits.allSatisfy(\.isNumber)
    }

    /// The pixel format the encoder writes: the override, else the codec's 10-bit format for a
    /// deep source (8-bit for an 8-bit one, where the codec allows).
    public var outputPixelFormat: String {
        if let pixelFormat { return pixelFormat }
        let deep = inputBitDepth > 8
        switch codec {
        case .png: return "rgb24"
        case .png16: return "rgb48be"
        case .prores, .dnxhr: return "yuv422p10le"
        case .prores4444: return "yuv444p10le"
        case .h264, .hevc: return deep ? "yuv420p10le" : "yuv420p"
        }
    }

    /// The colour description the output carries. RGB outputs (PNG) have no YCbCr matrix: they
    /// say identity and full range, with the source's primaries and transfer. A `colourSpace`
    /// replaces the primaries and, for YCbCr outputs, the matrix with its own (spec/colour.md §5).
    public var outputColour: ColourDescription {
        var pictured = colour
        if let colourSpace {
            pictured.primaries = colourSpace.primariesCode
            pictured.matrix = colourSpace.matrixCode
            // An untagged source was rendered as sRGB: say so now that the output is tagged.
            if pictured.transfer == 2 { pictured.transfer = 13 }
        }
        guard codec.isBuiltIn || outputPixelFormat.hasPrefix("rgb") || outputPixelFormat.hasPrefix("gbr") else {
            // A YCbCr output of an untagged source gets BT.709's matrix spelled out, not left to guesswork.
            var c = pictured
            if c.matrix == 2 || c.matrix == 0 { c.matrix = 1 }
            if !colour.isSpecified { c.fullRange = false }
            return c
        }
        return ColourDescription(primaries: pictured.primaries, transfer: pictured.transfer, matrix: 0, fullRange: true)
    }

    /// ffmpeg's arguments for the video of an output fed raw RGB on its first input: the
    /// conversion to YCbCr with the output's matrix and range spelled out, the encoder and its
    /// options, and the colour tags (which the muxer writes as `colr` and the encoder into its
    /// bitstream where it has a place for them).
    /// ffmpeg's video arguments. H.264 and HEVC get closed groups of `syncInterval` frames starting
    /// with a sync frame, no B-frames, no scene-cut key frames and a fixed thread count, and by
    /// default a constant quantizer: each group is then encoded from its own frames only, the same
    /// on every machine, so farm parts join into the one-process render (spec/farm.md §1). `crf`
    /// and `bitrate` switch to rate control, which looks across groups.
    public func ffmpegVideoArguments(syncInterval g: Int) -> [String] {
        let colour = outputColour
        // setparams tags the frames themselves: some encoders (prores_ks) write the frame's colour
        // into their bitstream, not the stream's.
        let tags =
            "setparams=color_primaries=\(colour.primariesName):color_trc=\(colour.transferName):colorspace=\(colour.matrixName):range=\(colour.fullRange ? "pc" : "tv")"
        let deepRGB = inputBitDepth > 8 && FFmpegFrameDecoder.isYCbCr(pixelFormat: outputPixelFormat)
        var args = [
            "-vf", FFmpegFrameDecoder.scaleFilter(colour: colour, direction: "out", deepRGB: deepRGB) + "," + tags, "-pix_fmt",
            outputPixelFormat,
        ]
        switch codec {
        case .png, .png16: args += ["-c:v", "png"]
        case .prores: args += ["-c:v", "prores_ks", "-profile:v", "3", "-vendor", "apl0"]
        case .prores4444: args += ["-c:v", "prores_ks", "-profile:v", "4", "-vendor", "apl0"]
        case .dnxhr: args += ["-c:v", "dnxhd", "-profile:v", "dnxhr_hqx"]
        case .h264:
            args += ["-c:v", "libx264"]
            switch crf {
            case 0: args += ["-qp", "0"]
            case let crf?: args += ["-crf", "\(crf)"]
            case nil: if bitrate == nil { args += ["-qp", "18"] }
            }
            args += ["-x264-params", "keyint=\(g):min-keyint=\(g):scenecut=0:bframes=0:open-gop=0:threads=4"]
        case .hevc:
            var params = "keyint=\(g):min-keyint=\(g):scenecut=0:bframes=0:open-gop=0:frame-threads=2:pools=4:log-level=error"
            switch crf {
            case 0: params += ":lossless=1"
            case nil: if bitrate == nil { params += ":qp=20" }
            default: break
            }
            args += ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params", params]
            if let crf, crf != 0 { args += ["-crf", "\(crf)"] }
        }
        if let preset { args += ["-preset", preset] }
        if let bitrate { args += ["-b:v", bitrate] }
        args += [
            "-color_primaries", colour.primariesName, "-color_trc", colour.transferName, "-colorspace", colour.matrixName,
            "-color_range", colour.rangeName,
        ]
        return args
    }

    /// Refuses a picture size the codec cannot encode (DNxHR needs at least 256×120).
    public func check(width: Int, height: Int) throws(ExportSettingsError) {
        if codec == .dnxhr, width < 256 || height < 120 { throw .tooSmall(codec: codec, width: width, height: height, minimum: "256×120") }
    }

    /// The settings a refusal names, in the API's words.
    public enum Setting: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
        case crf, preset, bitrate, pixelFormat

        public var description: String { self == .pixelFormat ? "pixel format" : rawValue }
    }

    /// The raw input ffmpeg reads from the pipe.
    public var ffmpegInputPixelFormat: String { inputBitDepth > 8 ? "rgb48le" : "rgb24" }
}

/// Why export settings were refused.
public enum ExportSettingsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A setting the codec has no use for.
    case notForCodec(ExportSettings.Setting, codec: ExportCodec)
    case badValue(ExportSettings.Setting, value: String, expected: String)
    case tooSmall(codec: ExportCodec, width: Int, height: Int, minimum: String)

    public var description: String {
        switch self {
        case .notForCodec(let setting, let codec):
            "\(setting) does not apply to codec \(codec.rawValue) (\(codec.description)); \(Self.why(setting))"
        case .badValue(let setting, let value, let expected): "\(setting) \(value): expected \(expected)"
        case .tooSmall(let codec, let width, let height, let minimum):
            "codec \(codec.rawValue): \(codec.description) needs pictures of at least \(minimum); this movie is \(width)×\(height)"
        }
    }

    /// Why a setting is not for the codec: the codecs it is for, or what the codec writes.
    public static func why(_ setting: ExportSettings.Setting) -> String {
        setting == .pixelFormat ? "PNG output is RGB" : "it applies to h264 and hevc"
    }
}
