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
        case let error as FormatError: error.output.map { replacements(for: $0) } ?? []
        case let error as ContainerError: error.output.map { replacements(for: $0) } ?? []
        case let error as EDLCommandError:
            error.unreadableStoredEDL.map { [(error.description, text(forUnreadableStoredEDL: $0))] } ?? []
        case let error as DocumentError: error.underlying.map { replacements(for: $0) } ?? []
        case let error as FarmError:
            switch error {
            case .output(let output): replacements(for: output)
            case .format(let format): replacements(for: format)
            default: []
            }
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
                [(error.description, "\(file): --colour-space \(target.rawValue): \(cause)")]
            default: []
            }
        default: []
        }
    }
}
