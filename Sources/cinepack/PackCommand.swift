import ArgumentParser
import Cinepack
import Foundation

struct PackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Build a cinematic movie from frames (or a video), disparity maps and detections.",
        discussion: """
            The picture comes from a numbered PNG sequence (--frames, stored losslessly as PNG samples, or \
            uncompressed with --codec raw) or from an existing MOV/MP4 whose video track is copied untouched \
            (--video). Every frame needs one disparity map, in diopters (1/m, larger = nearer): 16-bit grey PNGs \
            mapped linearly onto --disparity-range, or PFM files holding diopters directly. Detections come \
            from the JSON format of spec/detections.md or a MOT-challenge CSV (frame,id,x,y,w,h,conf,…).

            Sequences are printf patterns numbered from 0 or 1 without gaps: 'frames/%04d.png'.
            The output appears only when complete; on any error no file is left behind.

            Examples:
              cinepack pack -o clip.mov --frames 'rgb/%04d.png' --disparity 'depth/%04d.png' \\
                  --disparity-range 0:4 --detections tracks.json --fps 30
              cinepack pack -o clip.mov --video phone.mp4 --disparity 'depth/%04d.pfm' \\
                  --disparity-format pfm --disparity-range 0:6 --audio phone.mp4
            """
    )

    @Option(name: .shortAndLong, help: "The movie to write.")
    var output: String

    @Option(help: ArgumentHelp("Picture frames: a numbered PNG sequence pattern.", valueName: "pattern"))
    var frames: String?

    @Option(help: ArgumentHelp("Carry the video track of this MOV/MP4 through untouched instead of --frames.", valueName: "file"))
    var video: String?

    @Option(help: ArgumentHelp("Disparity maps: a numbered sequence pattern.", valueName: "pattern"))
    var disparity: String

    @Option(
        name: .customLong("disparity-range"), parsing: .unconditional,
        help: ArgumentHelp("Range of the disparities in diopters.", valueName: "min:max"))
    var disparityRange: String

    @Option(name: .customLong("disparity-format"), help: "png16 (16-bit grey PNG over the range) or pfm (diopters).")
    var disparityFormat: String = "png16"

    @Option(help: ArgumentHelp("Detections: JSON (spec/detections.md) or MOT CSV.", valueName: "file"))
    var detections: String?

    @Option(name: .customLong("detection-type"), help: "Detection type for CSV rows (face, head, torso, custom, …).")
    var detectionType: String?

    @Option(parsing: .unconditional, help: "Frame rate of --frames: 30, 29.97, 30000/1001, …")
    var fps: String = "30"

    @Option(name: .customLong("codec"), help: "Built-in codec for --frames: png (lossless) or raw.")
    var codec: String = "png"

    @Option(
        name: .customLong("focal-length"), parsing: .unconditional, help: "35 mm-equivalent focal length in mm (1…2000).",
        transform: OptionValue.focalLength)
    var focalLength: Float = 26

    @Option(name: .customLong("f-number"), parsing: .unconditional, help: "Default f-number of the movie.", transform: OptionValue.fNumber)
    var fNumber: Float = 4.5

    @Option(help: ArgumentHelp("Copy the audio track of this MOV/MP4.", valueName: "file"))
    var audio: String?

    @Flag(help: "Print a JSON summary instead of text.")
    var json = false

    @Flag(name: .customLong("progress-json"), help: "Report progress as JSON lines on stderr.")
    var progressJSON = false

    func validate() throws {
        if (frames == nil) == (video == nil) { throw ValidationError("give exactly one of --frames and --video") }
        guard PackRequest.DisparityFormat(rawValue: disparityFormat) != nil else {
            throw ValidationError("--disparity-format must be png16 or pfm")
        }
        guard BuiltInVideoCodec(rawValue: codec) != nil else { throw ValidationError("--codec must be png or raw") }
        // Checked here, not only in run(), so the usage line printed with the error is pack's.
        _ = try Arguments.disparityRange(disparityRange)
        guard FrameRate(parsing: fps) != nil else { throw ValidationError("--fps \(fps) is not a frame rate (30, 29.97, 30000/1001)") }
    }

    func run() throws {
        let range = try Arguments.disparityRange(disparityRange)
        guard let rate = FrameRate(parsing: fps) else { throw ValidationError("--fps \(fps) is not a frame rate (30, 29.97, 30000/1001)") }
        let pictures: PackRequest.PictureSource
        if let frames {
            pictures = .frames(try ImageSequence(pattern: frames, role: "--frames"), codec: BuiltInVideoCodec(rawValue: codec)!, rate: rate)
        } else {
            pictures = .video(path: video!)
        }
        let maps = try ImageSequence(pattern: disparity, role: "--disparity")
        var parameters = CinematicParameters()
        parameters.focalLength35mm = focalLength
        parameters.defaultFNumber = fNumber
        parameters.minFNumber = min(parameters.minFNumber, fNumber)
        parameters.maxFNumber = max(parameters.maxFNumber, fNumber)
        let metadata = try DetectionsLoader.load(detections, type: detectionType, frameCount: maps.paths.count, pictures: pictures)
        let request = PackRequest(
            output: output, pictures: pictures, disparity: maps,
            disparityFormat: PackRequest.DisparityFormat(rawValue: disparityFormat)!, disparityRange: range,
            metadata: metadata, parameters: parameters, audioPath: audio)
        var progress = ProgressReporter(label: "pack", style: progressJSON ? .json : .automatic)
        let summary = try Packer.pack(request) { progress.update($0, of: $1) }
        Summaries.print(summary, json: json)
    }
}

/// Parsing helpers shared by commands.
enum Arguments {
    static func disparityRange(_ text: String) throws -> DisparityQuantization {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let lo = try? DecimalNumber.float(parts[0]), let hi = try? DecimalNumber.float(parts[1]) else {
            throw ValidationError("--disparity-range must be MIN:MAX in diopters, e.g. 0:4 (got \(text))")
        }
        let q = DisparityQuantization(minimum: lo, maximum: hi)
        guard q.isValid else { throw ValidationError("--disparity-range \(text): need 0 ≤ MIN < MAX, finite") }
        return q
    }
}

/// The result line of commands that write a movie.
enum Summaries {
    static func print(_ summary: CinematicWriteSummary, json: Bool) {
        if json {
            Swift.print(
                #"{"output":\#(JSONText.quote(summary.path)),"frames":\#(summary.frames),"bytes":\#(summary.bytes),"duration":"\#(summary.duration)","duration_seconds":\#(summary.duration.seconds)}"#
            )
        } else {
            Swift.print("wrote \(summary.path): \(summary.frames) frames, \(summary.duration.formattedSeconds()), \(summary.bytes) bytes")
        }
    }
}

/// `--detections` for pack: the file's frames, normalized against the picture size.
enum DetectionsLoader {
    static func load(_ path: String?, type: String?, frameCount: Int, pictures: PackRequest.PictureSource) throws -> [FrameInput] {
        guard let path else { return [] }
        var csvType = MOTCSV.defaultType
        if let type {
            guard let parsed = DetectionType(name: type) ?? UInt16(type).map({ DetectionType(rawValue: $0) }) else {
                let names = DetectionType.named.map(\.0).joined(separator: ", ")
                throw ValidationError("--detection-type \(type) is not a type name (\(names)) or number")
            }
            csvType = parsed
        }
        let (width, height) = try pictureSize(pictures)
        return try DetectionsInput.load(path: path, frameCount: frameCount, width: width, height: height, csvType: csvType)
    }

    static func pictureSize(_ pictures: PackRequest.PictureSource) throws -> (Int, Int) {
        switch pictures {
        case .frames(let sequence, _, _):
            guard let data = FileManager.default.contents(atPath: sequence.paths[0]) else {
                throw FormatError("\(sequence.paths[0]): cannot read the file")
            }
            do {
                let header = try PNGDecoder.header(of: Array(data))
                return (header.width, header.height)
            } catch {
                throw FormatError("\(sequence.paths[0]): \(error)")
            }
        case .video(let path):
            let movie = try Movie.read(path: path)
            guard let visual = movie.tracks.first(where: { $0.kind == .video })?.visual else {
                throw FormatError("--video \(path): the file has no video track")
            }
            return (Int(visual.width), Int(visual.height))
        }
    }
}
