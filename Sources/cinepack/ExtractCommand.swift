import ArgumentParser
import Cinepack
import Foundation

struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Save one frame of the picture or the disparity (PNG, or EXR/PFM/NumPy floats).",
        discussion: """
            The time is snapped to the nearest frame; the frame used is reported. A PNG picture is written as \
            stored, bit for bit; any other codec (H.264, HEVC, ProRes…) is decoded through ffmpeg \
            (CINEPACK_FFMPEG chooses which) and written as 8-bit PNG, or 16-bit PNG when the source has \
            more than 8 bits. Disparity is drawn in false \
            colour over the file's disparity range (near = warm, far = cool, invalid = black); --raw writes the \
            stored 16-bit codes instead (0 = invalid, 1…65535 linear over the range, spec/format.md §5). \
            --format exr|pfm|npy writes the disparity as 32-bit floats for other tools: diopters, or metres with \
            --as depth (NaN = no depth; the EXR channel is Z).

            Examples:
              cinepack extract clip.mov --at 2.5s --track video -o frame.png
              cinepack extract clip.mov --at 75f --track disparity -o depth.png
              cinepack extract clip.mov --at 00:00:02:15 --track disparity --raw -o depth16.png
              cinepack extract clip.mov --at 2s --track disparity --format exr --as depth -o depth.exr
            """
    )

    @Argument(help: "A cinematic movie.")
    var file: String

    @Option(parsing: .unconditional, help: "Time of the frame: 2.5s, 1:02.5, 00:00:02:15 or 75f.")
    var at: String

    @Option(help: "video or disparity.")
    var track: String = "video"

    @Option(name: .shortAndLong, help: "The PNG to write.")
    var output: String

    @OptionGroup var overwrite: OverwriteOption

    @Flag(help: "Disparity only: write the stored 16-bit codes, not false colour.")
    var raw = false

    @Option(help: "Disparity only: png (default), or exr, pfm, npy (32-bit floats).")
    var format: String = "png"

    @Option(name: .customLong("as"), help: "With --format exr|pfm|npy: disparity (diopters, default) or depth (metres).")
    var quantity: String = "disparity"

    @OptionGroup var jsonOutput: JSONOption
    var json: Bool { jsonOutput.json }

    func validate() throws {
        guard track == "video" || track == "disparity" else { throw ValidationError("--track must be video or disparity") }
        if raw && track != "disparity" { throw ValidationError("--raw applies to --track disparity only") }
        guard format == "png" || DisparityExport.Format(rawValue: format) != nil else {
            throw ValidationError("--format must be png, exr, pfm or npy")
        }
        if format != "png" && (track != "disparity" || raw) {
            throw ValidationError("--format \(format) applies to --track disparity without --raw")
        }
        guard quantity == "disparity" || quantity == "depth" else { throw ValidationError("--as must be disparity or depth") }
        if quantity == "depth" && format == "png" { throw ValidationError("--as depth needs --format exr, pfm or npy") }
        // Checked here, not only in run(), so the usage line printed with the error is extract's.
        do { _ = try TimeExpression(parsing: at) } catch { throw ValidationError("--at: \(error)") }
    }

    func run() throws {
        let expression: TimeExpression
        do { expression = try TimeExpression(parsing: at) } catch { throw ValidationError("--at: \(error)") }
        let target = try overwrite.target(output, inputs: [file])
        let movie = try CinematicMovie.open(path: file)
        let snapped = try movie.frame(at: expression)
        let frame = Int(snapped.frame)
        let png: [UInt8]
        if track == "video" {
            if let codec = movie.video.codec, codec == "png " {
                png = try movie.pictureSample(frame)  // the stored PNG, bit for bit
            } else {
                // Any other codec through the one decoding path; deeper than 8 bits gives a 16-bit PNG.
                png = try PNGEncoder.encode(try PictureDecoder(movie: movie).picture(frame))
            }
        } else if let floats = DisparityExport.Format(rawValue: format) {
            png = try DisparityExport.encode(try movie.disparityMap(frame), format: floats, asDepth: quantity == "depth")
        } else if raw {
            png = try PNGEncoder.encode(try movie.disparityCodes(frame))
        } else {
            guard let q = movie.quantization else { throw FormatError("\(file): the movie has no disparity track") }
            png = try PNGEncoder.encode(FalseColour.image(try movie.disparityMap(frame), range: q))
        }
        try target.write(png)
        let time = snapped.time.formattedSeconds()
        if json {
            print(
                #"{"output":\#(JSONText.quote(output)),"track":"\#(track)","frame":\#(frame),"time":"\#(snapped.time)","time_seconds":\#(snapped.time.seconds),"requested":\#(JSONText.quote(at))}"#
            )
        } else {
            print("wrote \(output): \(track) frame \(frame) at \(time)" + (snapped.wasExact ? "" : " (snapped from \(at))"))
        }
    }
}
