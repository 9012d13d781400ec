import ArgumentParser
import Cinepack

/// `cinepack concat -o OUT.mov part-*.mov [--audio-from SOURCE]`
struct ConcatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concat",
        abstract: "Join the parts of a farm render (render --shard/--frames) into one movie, without re-encoding.",
        discussion: """
            The parts may be given in any order. They must come from one render: the same source, EDL and \
            settings (each part records them, spec/farm.md), every program frame exactly once. A missing, \
            duplicated, foreign or truncated part is refused with a message naming it, and nothing is written.

            The joined movie is self-contained: each part's media bytes are copied once, unchanged (inside the \
            kernel where the file system allows, e.g. a server-side copy on NFS 4.2), and only the moov is built \
            anew, so the work besides the copy is proportional to the parts' metadata. --audio-from SOURCE adds \
            the program's audio once (the source must be the one the parts were rendered from, with the same \
            EDL). The file appears under its name only when complete.

            Examples:
              cinepack concat -o out.mov part-*.mov
              cinepack concat -o out.mov part-*.mov --audio-from clip.mov
            """)

    @Argument(help: "The parts, in any order.") var parts: [String]
    @Option(name: .shortAndLong, help: "The movie to write.") var output: String
    @Option(name: .customLong("audio-from"), help: "The source movie the parts were rendered from: its program audio is added.")
    var audioFrom: String?
    @OptionGroup var overwrite: OverwriteOption
    @OptionGroup var jsonOutput: JSONOption
    var json: Bool { jsonOutput.json }
    @Flag(name: .customLong("io-stats"), help: "Report on stderr how many bytes of the parts were read and copied.")
    var ioStats = false

    func run() throws {
        let result = try FarmConcat.run(
            parts: parts, output: OutputTarget(path: output, overwrite: overwrite.force), audioFrom: audioFrom)
        result.notes.map(CLIWording.text(for:)).forEach(CLIErrors.note)
        let s = result.summary
        if ioStats {
            CLIErrors.note(
                "read \(s.metadataBytesRead) of \(s.partBytes) bytes of the parts (metadata); copied \(s.bytesCopied) bytes of media, \(s.bytesReadForCopy) of them through this process"
            )
        }
        if json {
            var fields: [(String, InspectValue)] = [("output", .string(output)), ("parts", .int(result.parts.count))]
            fields.append(("frames", .int(s.frames)))
            fields.append(("duration", .string(s.duration.description)))
            fields.append(("audio_samples", .int(s.audioSamples)))
            fields.append(("bytes", .int(s.bytes)))
            fields.append(("bytes_copied", .int(s.bytesCopied)))
            fields.append(("bytes_read_for_copy", .int(s.bytesReadForCopy)))
            fields.append(("metadata_bytes_read", .int(s.metadataBytesRead)))
            print(JSONText.encode(.object(fields), pretty: false))
        } else {
            let audio = s.audioSamples > 0 ? ", audio from \(audioFrom ?? "")" : ""
            print("wrote \(output): \(result.parts.count) parts, \(s.frames) frames, \(s.duration.formattedSeconds())\(audio)")
        }
    }
}
