import ArgumentParser
import Cinepack

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a movie file holds: brands, duration, tracks, codecs, sample tables.",
        discussion: """
            Works on any MOV/MP4, not only cinepack files. Reads only the metadata boxes (about the size of \
            the moov), never the media data, so it is fast on multi-gigabyte files.

            Examples:
              cinepack inspect clip.mov
              cinepack inspect clip.mov --boxes          one line per box: type, offset, size, key fields
              cinepack inspect clip.mov --json           the same data for scripts (fields in spec/inspect-json.md)
              cinepack inspect clip.mov --samples 1      the sample table of track 1

            Problems the reader can work around are printed as warnings; --strict makes them errors. \
            Exit status: 0 on success, 1 when the file cannot be read, 64 on a usage error.
            """
    )

    @Argument(help: "The movie file to inspect.", completion: .file())
    var file: String

    @Flag(help: "Print the whole box tree, one line per box.")
    var boxes = false

    @Option(name: .customLong("samples"), help: ArgumentHelp("Print the sample table of a track.", valueName: "track-id"))
    var samplesTrack: UInt32?

    @OptionGroup var jsonOutput: JSONOption
    var json: Bool { jsonOutput.json }

    @Flag(help: "Treat warnings (\"should\" violations) as errors.")
    var strict = false

    @Flag(name: .customLong("io-stats"), help: "Report on stderr how many bytes of the file were read.")
    var ioStats = false

    func run() throws {
        let source = try CLIErrors.reporting(file: file) { () throws(ContainerError) in try FileByteSource(path: file) }
        let movieOrTree = try CLIErrors.reporting(file: file) { () throws(ContainerError) -> (Movie?, BoxTree) in
            let tree = try BoxReader(source: source).readTree()
            if boxes {
                if strict, let first = tree.diagnostics.first { throw first.error }
                return (nil, tree)
            }
            let movie = try Movie(tree: tree)
            if strict, let first = movie.diagnostics.first { throw first.error }
            return (movie, tree)
        }
        let name = file
        // Above the box layer: is it ours (spec/format.md §2), and are its EDL slots sound (§8)?
        var cinematic: CinematicMovie?
        var warnings: [String] = []
        if let movie = movieOrTree.0, samplesTrack == nil {
            if CinematicMovie.looksCinematic(movie) {
                let candidate = try CinematicMovie(path: name, movie: movie, source: source)
                if let warning = candidate.identificationWarning { warnings.append(warning) } else { cinematic = candidate }
            }
            do { warnings += try EDLStore.read(source: source, name: name).warnings.map { "\(name): \($0)" } } catch {
                warnings.append(error.description)
            }
            if strict, let first = warnings.first { throw CLIErrors.failure(first) }
        }
        func render(_ out: inout some Inspector) throws {
            if boxes {
                MovieInspection.boxes(movieOrTree.1, into: &out)
            } else if let movie = movieOrTree.0, let id = samplesTrack {
                guard let track = movie.track(id: id) else {
                    let ids = movie.tracks.map { String($0.id) }.joined(separator: ", ")
                    throw CLIErrors.failure("\(name): no track \(id); tracks are \(ids)")
                }
                MovieInspection.samples(track, into: &out)
            } else if let movie = movieOrTree.0 {
                MovieInspection.summary(movie, fileName: name, moreWarnings: warnings, into: &out)
                if let cinematic { try CinematicInspection.inspect(cinematic, into: &out) }
            }
        }
        if json {
            var out = JSONInspector()
            try render(&out)
            print(out.output, terminator: "")
        } else {
            var out = TextInspector()
            try render(&out)
            print(out.output, terminator: "")
        }
        if ioStats {
            let percent = source.size > 0 ? Double(source.bytesRead) / Double(source.size) * 100 : 0
            CLIErrors.note("read \(source.bytesRead) of \(source.size) bytes (" + String(format: "%.4f", percent) + "%)")
        }
    }
}
