import Cinepack
import Foundation

/// The command line's wording of library refusals whose remedy is an option or a command. The
/// libraries say what happened in the movie's words and carry the typed case; here the sentence
/// gets today's pointer to the flag or command that helps. One table, used wherever an error is
/// turned into text (`main`, `CLIErrors.reporting`).
enum CLIWording {
    static func text(for error: OutputError) -> String {
        switch error {
        case .exists(let path): "\(path) already exists; nothing written (use --force or -y to replace it)"
        case .notWritable(let path, let mode):
            "\(path) is not writable (mode \(OutputError.modeString(mode))); nothing written (--force does not override permissions)"
        default: error.description
        }
    }

    /// The farm's refusals that name a part request or the audio source by the option giving it.
    static func text(for error: FarmError) -> String? {
        switch error {
        case .badShard, .badFrames: "--\(error.description)"
        case .framesOutsideProgram(let r, let program):
            "--frames \(r.lowerBound)..\(r.upperBound) is outside the program's frames \(program.lowerBound)..\(program.upperBound)"
        case .notAPart(let path):
            "\(path): not a cinepack render part (no moov/udta/cpRP record, spec/farm.md §2); parts come from `cinepack render --shard K/N` or `--frames A..B`"
        case .audioSourceMismatch(let path, let reason): "--audio-from \(path): \(reason)"
        case .rateControlInParts(let codec):
            "\(codec) rate control (--crf, --bitrate) looks across groups of pictures, so parts would not join into the one-process render; render farm parts with the default constant quantizer"
        default: nil
        }
    }

    /// A join's note, naming the option that adds the source's audio.
    static func text(for note: ConcatNote) -> String {
        switch note {
        case .sourceAudioNotAdded(let source): "note: no audio added: the source \(source) has audio; pass --audio-from SOURCE to add it"
        default: note.description
        }
    }

    /// The option that gives an export setting.
    static func option(_ setting: ExportSettings.Setting) -> String {
        switch setting {
        case .crf: "--crf"
        case .preset: "--preset"
        case .bitrate: "--bitrate"
        case .pixelFormat: "--pix-fmt"
        }
    }

    static func text(for error: ExportSettingsError) -> String {
        switch error {
        case .notForCodec(let setting, let codec):
            "\(option(setting)) does not apply to --codec \(codec.rawValue) (\(codec.description)); \(ExportSettingsError.why(setting))"
        case .badValue(let setting, let value, let expected): "\(option(setting)) \(value): expected \(expected)"
        case .tooSmall: "--\(error.description)"
        }
    }

    /// The note on a codec chosen for a deep source, with the option that chooses another.
    static func text(for choice: ExportCodec.Choice) -> String { "\(choice.grounds); --codec chooses another" }

    /// Depth-input refusals whose remedy is a `pack` option.
    static func text(for error: DepthInputError) -> String? {
        let place = error.place
        return switch error.problem {
        case .missingChannel(let wanted, let present):
            "\(place): no channel \(wanted.joined(separator: " or ")) in this EXR (it has \(present.joined(separator: ", "))); choose one with --exr-channel"
        case .missingArray(let key, let present):
            "\(place): no array '\(key)' in this .npz (it has \(present.joined(separator: ", "))); choose one with --npz-key"
        case .needsCodeRange:
            "\(place): integer disparity images are codes on a range: give --disparity-range MIN:MAX (auto needs float input)"
        case .needsDepthScale:
            "\(place): integer depth images need --depth-scale K (metres = value / K: 1000 for millimetres, 5000 for TUM RGB-D)"
        case .aspectRatio(let w, let h, let pw, let ph):
            "\(place): the map is \(w)×\(h) but the picture is \(pw)×\(ph), another aspect ratio; resize it, or give --disparity-fit stretch to stretch it over the picture"
        case .uncalibrated:
            "calibration: relative disparity has no scale: give --calibrate 'object ID = 2.5m' (or a point), or --near/--far"
        case .calibrationNeedsRelativeDisparity: "calibration: calibration applies to --relative-disparity only"
        case .objectNotDetected(let id, let seen):
            "calibration: object \(id) is not in the detections"
                + (seen.isEmpty ? " (there are none; give --detections)" : " (objects: \(seen.map(String.init).joined(separator: ", ")))")
        case .anchorsInverted:
            "calibration: the anchors say nearer things have smaller map values: is the map stored white = far? (--invert)"
        case .sequence(let sequence): "\(place): \(text(for: sequence))"
        default: nil
        }
    }

    /// The option that gives a pack input.
    static func option(_ input: PackInput) -> String {
        switch input {
        case .frames: "--frames"
        case .video: "--video"
        case .audio: "--audio"
        case .maps(let kind): option(kind)
        }
    }

    /// The option that gives depth maps of a kind.
    static func option(_ kind: DepthInputOptions.Kind) -> String {
        switch kind {
        case .disparity: "--disparity"
        case .depth: "--depth"
        case .relativeDisparity: "--relative-disparity"
        }
    }

    /// A pack input's refusal, naming the option that gave the input.
    static func text(for error: PackInputError) -> String { option(error.input) + error.detail }

    /// A colour model's refusal with the option that asked for the conversion.
    static func text(for error: ColourModelError) -> String {
        error.description.replacingOccurrences(of: "the colour-space conversion takes", with: "--colour-space converts from")
            .replacingOccurrences(of: "the colour-space conversion works only between", with: "--colour-space converts only between")
    }

    static func text(forUnreadableStoredEDL error: EDLError) -> String {
        "\(error) — the movie's media is intact: `cinepack edl clear` or `cinepack edl import --force` replaces the stored EDL"
    }

    /// `message` (the text of `error`, perhaps with context around it) with each library sentence
    /// of the payloads `error` carries replaced by the command line's.
    static func rewrite(_ message: String, for error: any Error) -> String {
        replacements(for: error).reduce(message) { text, pair in text.replacingOccurrences(of: pair.library, with: pair.cli) }
    }

    /// `error` itself, or a failure with the command line's wording when it carries a sentence to reword.
    static func worded(_ error: any Error) -> any Error {
        let pairs = replacements(for: error)
        guard !pairs.isEmpty else { return error }
        return CLIErrors.failure(rewrite("\(error)", for: error))
    }

    private static func replacements(for error: any Error) -> [(library: String, cli: String)] {
        switch error {
        case let error as OutputError: [(error.description, text(for: error))]
        case let error as FormatError:
            (error.output.map { replacements(for: $0) } ?? []) + (error.depthInput.map { replacements(for: $0) } ?? [])
                + (error.packInput.map { replacements(for: $0) } ?? [])
        case let error as PackInputError: [(error.description, text(for: error))]
        case let error as DepthInputError: text(for: error).map { [(error.description, $0)] } ?? []
        case let error as ContainerError: error.output.map { replacements(for: $0) } ?? []
        case let error as EDLCommandError:
            error.unreadableStoredEDL.map { [(error.description, text(forUnreadableStoredEDL: $0))] } ?? []
        case let error as DocumentError: error.underlying.map { replacements(for: $0) } ?? []
        case let error as FarmError:
            switch error {
            case .output(let output): replacements(for: output)
            case .format(let format): replacements(for: format)
            default: text(for: error).map { [(error.description, $0)] } ?? []
            }
        case let error as ExportSettingsError: [(error.description, text(for: error))]
        case let error as EncoderError:
            switch error {
            case .ffmpegUnavailable(.notInstalled(_, let chosen), let codec):
                // The library names the codec; the command line names the option that chose it.
                [(error.description, FFmpegError.notInstalled(why: "--codec \(codec.rawValue)", chosen: chosen).description)]
            case .output(let output): replacements(for: output)
            default: []
            }
        case let error as RenderPlanError:
            switch error {
            case .format(let format): replacements(for: format)
            case .colourSpace(let file, let target, let cause):
                [(error.description, "\(file): --colour-space \(target.rawValue): \(text(for: cause))")]
            default: []
            }
        default: []
        }
    }
}
