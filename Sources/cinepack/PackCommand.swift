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
            (--video). Every frame needs one depth map, from exactly one of --disparity (diopters, 1/m, larger = \
            nearer), --depth (metres; --depth-scale K for integer images: metres = value / K, 0 = no depth) or \
            --relative-disparity (model output with unknown scale and shift: calibrated with --calibrate or \
            --near/--far, deflickered unless --no-stabilize). A source is a numbered pattern of 8/16-bit grey PNG, \
            PFM, OpenEXR or .npy files, or one .npy (N×H×W), .npz (--npz-key) or grey video file. 16-bit PNG \
            disparity is codes on --disparity-range (0 = no depth, 1…65535 linear), stored bit for bit. \
            Conventions and tool-by-tool advice: spec/depth-input.md. Detections come from the JSON format of \
            spec/detections.md or a MOT-challenge CSV (frame,id,x,y,w,h,conf,…).

            Sequences are printf patterns numbered from 0 or 1 without gaps: 'frames/%04d.png'.
            The output appears only when complete; on any error no file is left behind.

            Examples:
              cinepack pack -o clip.mov --frames 'rgb/%04d.png' --disparity 'depth/%04d.png' \\
                  --disparity-range 0:4 --detections tracks.json --fps 30
              cinepack pack -o clip.mov --video phone.mp4 --disparity 'depth/%04d.pfm' \\
                  --disparity-range 0:6 --audio phone.mp4
              cinepack pack -o clip.mov --video shot.mp4 --depth 'render/%04d.exr' --disparity-range auto
              cinepack pack -o clip.mov --video shot.mp4 --depth 'kinect/%04d.png' --depth-scale 1000
              cinepack pack -o clip.mov --video shot.mp4 --relative-disparity shot_depths.npz \\
                  --detections tracks.json --calibrate 'object 4 = 2.5m' --calibrate 'object 7 = 6m'
            """
    )

    @Option(name: .shortAndLong, help: "The movie to write.")
    var output: String

    @Option(help: ArgumentHelp("Picture frames: a numbered PNG sequence pattern.", valueName: "pattern"))
    var frames: String?

    @Option(help: ArgumentHelp("Carry the video track of this MOV/MP4 through untouched instead of --frames.", valueName: "file"))
    var video: String?

    @Option(help: ArgumentHelp("Disparity in diopters: a numbered pattern, or a .npy/.npz/video file.", valueName: "src"))
    var disparity: String?

    @Option(help: ArgumentHelp("Metric depth (metres, or value / --depth-scale): a pattern or a .npy/.npz/video file.", valueName: "src"))
    var depth: String?

    @Option(
        name: .customLong("relative-disparity"),
        help: ArgumentHelp("Relative disparity from a depth model (larger = nearer, unknown scale and shift).", valueName: "src"))
    var relativeDisparity: String?

    @Option(
        name: .customLong("disparity-range"), parsing: .unconditional,
        help: ArgumentHelp("Range stored in the file, in diopters, or auto (from the data, with a margin).", valueName: "min:max|auto"))
    var disparityRange: String = "auto"

    @Option(name: .customLong("disparity-format"), help: "Kept for older scripts: png16 or pfm (the format follows the file extension).")
    var disparityFormat: String = "png16"

    @Option(name: .customLong("depth-scale"), help: "metres = value / K for --depth (1000: millimetres, 5000: TUM RGB-D).")
    var depthScale: Float?

    @Flag(help: "The map is stored white = far (relative disparity).")
    var invert = false

    @Option(name: .customLong("exr-channel"), help: "OpenEXR channel to read (default: Z, else depth.Z, Y, R).")
    var exrChannel: String?

    @Option(name: .customLong("npz-key"), help: "Array of a .npz to read (default: the first).")
    var npzKey: String?

    @Option(
        help: ArgumentHelp("Calibrate relative disparity: 'object 4 = 2.5m' or '0.62,0.40 @ 1.0s = 3m' (repeatable).", valueName: "anchor"))
    var calibrate: [String] = []

    @Option(help: ArgumentHelp("Calibrate relative disparity: the nearest things (98th percentile) are this far.", valueName: "distance"))
    var near: String?

    @Option(help: ArgumentHelp("Calibrate relative disparity: the farthest things (2nd percentile) are this far.", valueName: "distance"))
    var far: String?

    @Flag(name: .customLong("no-stabilize"), help: "Do not deflicker relative disparity.")
    var noStabilize = false

    @Option(name: .customLong("disparity-fit"), help: "exact (refuse a map of another aspect ratio) or stretch.")
    var disparityFit: String = "exact"

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

    @OptionGroup var overwrite: OverwriteOption

    @OptionGroup var jsonOutput: JSONOption
    var json: Bool { jsonOutput.json }

    @Flag(name: .customLong("progress-json"), help: "Report progress as JSON lines on stderr.")
    var progressJSON = false

    func validate() throws {
        if (frames == nil) == (video == nil) { throw ValidationError("give exactly one of --frames and --video") }
        guard PackRequest.DisparityFormat(rawValue: disparityFormat) != nil else {
            throw ValidationError("--disparity-format must be png16 or pfm")
        }
        if [disparity, depth, relativeDisparity].compactMap({ $0 }).count != 1 {
            throw ValidationError("give exactly one of --disparity, --depth and --relative-disparity")
        }
        guard DepthInputOptions.Fit(rawValue: disparityFit) != nil else {
            throw ValidationError("--disparity-fit must be exact or stretch")
        }
        if let depthScale, !(depthScale.isFinite && depthScale > 0) { throw ValidationError("--depth-scale must be > 0") }
        guard BuiltInVideoCodec(rawValue: codec) != nil else { throw ValidationError("--codec must be png or raw") }
        // Checked here, not only in run(), so the usage line printed with the error is pack's.
        if disparityRange != "auto" { _ = try Arguments.disparityRange(disparityRange) }
        _ = try depthOptions()
        guard FrameRate(parsing: fps) != nil else { throw ValidationError("--fps \(fps) is not a frame rate (30, 29.97, 30000/1001)") }
    }

    /// The depth options as the library takes them.
    func depthOptions() throws -> (source: String, options: DepthInputOptions) {
        let (source, kind): (String, DepthInputOptions.Kind) =
            if let disparity { (disparity, .disparity) } else if let depth { (depth, .depth) } else {
                (relativeDisparity ?? "", .relativeDisparity)
            }
        var options = DepthInputOptions(kind: kind, range: disparityRange == "auto" ? nil : try Arguments.disparityRange(disparityRange))
        options.depthScale = depthScale
        options.invert = invert
        options.exrChannel = exrChannel
        options.npzKey = npzKey
        options.stabilize = !noStabilize
        options.fit = DepthInputOptions.Fit(rawValue: disparityFit) ?? .exact
        do {
            options.anchors = try calibrate.map { try CalibrationAnchor(parsing: $0) }
            if let near {
                options.anchors.append(CalibrationAnchor(target: .near, metres: try CalibrationAnchor.metres(near, option: "--near")))
            }
            if let far {
                options.anchors.append(CalibrationAnchor(target: .far, metres: try CalibrationAnchor.metres(far, option: "--far")))
            }
        } catch { throw ValidationError("\(error)") }
        return (source, options)
    }

    func run() throws {
        let depthInput = try depthOptions()
        guard let rate = FrameRate(parsing: fps) else { throw ValidationError("--fps \(fps) is not a frame rate (30, 29.97, 30000/1001)") }
        let pictures: PackRequest.PictureSource
        if let frames {
            pictures = .frames(try ImageSequence(pattern: frames, input: .frames), codec: BuiltInVideoCodec(rawValue: codec)!, rate: rate)
        } else {
            pictures = .video(path: video!)
        }
        var parameters = CinematicParameters()
        parameters.focalLength35mm = focalLength
        parameters.defaultFNumber = fNumber
        parameters.minFNumber = min(parameters.minFNumber, fNumber)
        parameters.maxFNumber = max(parameters.maxFNumber, fNumber)
        let metadata = try DetectionsLoader.load(
            detections, type: detectionType, frameCount: try DetectionsLoader.frameCount(pictures), pictures: pictures)
        var request = PackRequest(
            output: output, pictures: pictures, depth: depthInput.source, options: depthInput.options,
            metadata: metadata, parameters: parameters, audioPath: audio)
        request.overwrite = overwrite.force
        // Refused before any work: the output is none of the inputs, and not an existing file without --force.
        _ = try overwrite.target(output, inputs: request.inputPaths + [detections].compactMap { $0 })
        var progress = ProgressReporter(label: "pack", style: progressJSON ? .json : .automatic)
        var plan: DepthPlan?
        let summary = try Packer.pack(request, progress: { progress.update($0, of: $1) }, planned: { plan = $0 })
        Summaries.print(summary, json: json)
        if let plan, !json {
            print("disparity range \(plan.range.minimum):\(plan.range.maximum) D")
            if let calibration = plan.calibration { print(calibration) }
            if let stabilization = plan.stabilization { print(stabilization) }
        }
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

    /// Frames of the picture: the sequence's files or the carried video track's samples.
    static func frameCount(_ pictures: PackRequest.PictureSource) throws -> Int {
        switch pictures {
        case .frames(let sequence, _, _): return sequence.paths.count
        case .video(let path):
            guard let track = try Movie.read(path: path).tracks.first(where: { $0.kind == .video }) else {
                throw FormatError("--video \(path): the file has no video track")
            }
            return track.samples.count
        }
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

extension PackRequest.PictureSource {
    /// The picture files of a sequence (none for a carried video, named separately).
    var sequencePaths: [String] {
        if case .frames(let sequence, _, _) = self { return sequence.paths }
        return []
    }
}
