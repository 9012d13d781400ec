import ArgumentParser
import Cinepack
import Foundation

/// `cinepack render FILE -o OUT.mov` and `cinepack render FILE --at 2.5s -o still.png`
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Bake the bokeh: a normal movie (or one still) with the focus and aperture of the EDL.",
        discussion: """
            Frame by frame, the focus follows the focus script (captured and user decisions, spec/focus.md), the \
            blur follows the lens model (spec/render.md §1) at the EDL's f-number, and the program follows the EDL's trims \
            and speed changes. The output is an ordinary movie that can no longer be refocused. Memory stays \
            bounded whatever the clip length. Audio is carried through when the program has no trims or speed \
            changes.

            --codec png (default) writes lossless PNG samples, tuned for speed (zlib level 1, Sub filter); h264 \
            and hevc go through ffmpeg when it is installed. Sources whose video is not PNG or raw are decoded \
            through ffmpeg the same way. Decoding the next frame and writing the previous one overlap the \
            render of the current one.

            --overlay draws a focus aid over stills and movies: peaking (sharp edges inside the depth of field in \
            green), disparity (the depth used, in false colour: near warm, far cool) or matte (near field red, in \
            focus green, far field blue).

            --quality export (default) renders every blur circle from the full-resolution picture; preview \
            renders from a quarter of the width and height (several times faster; blur circles under a few \
            pixels come out softer) and keeps in-focus pixels exact.

            Examples:
              cinepack render clip.mov -o out.mov
              cinepack render clip.mov -o out.mov --quality preview --range 2s..5s --codec h264
              cinepack render clip.mov --at 2.5s -o still.png --f-number 1.8
              cinepack render clip.mov --at 2.5s -o check.png --overlay peaking
              cinepack render clip.mov --at 2.5s -o hex.png --blades 6 --highlight-threshold 0.9 --highlight-gain 4
              cinepack render clip.mov --shard 2/4 -o part-2.mov      # a farm part; join with cinepack concat

            --shard K/N renders the K-th of N parts of the program (1-based), --frames A..B the program frames A \
            up to B: a part holds no audio, starts on a sync frame (h264/hevc: every second of frames), and \
            records what it belongs to, so that `cinepack concat` joins only parts of one render \
            (spec/farm.md). The joined parts are frame for frame the render of one process, whatever N.
            """)

    @Argument(help: "A cinematic movie.") var file: String
    @Option(name: .shortAndLong, help: "The movie (or, with --at, the PNG) to write.") var output: String
    @Option(help: "preview (fast, softer small blur) or export (best).") var quality: String = "export"
    @Option(help: "Program range A..B to render (e.g. 2s..5s).") var range: String?
    @Option(help: "One still at this time instead of a movie.") var at: String?
    @Option(name: .customLong("f-number"), help: "Override the aperture.") var fNumber: Float?
    @Option(name: .customLong("focal-length"), help: "Override the 35 mm-equivalent focal length (mm).") var focalLength: Float?
    @Option(help: "png, h264 or hevc.") var codec: String = "png"
    @Option(help: "A focus aid over the render: peaking, disparity or matte (spec/render.md §4).") var overlay: String?
    @Option(help: "K/N: render part K of N of the program, for a farm (spec/farm.md).") var shard: String?
    @Option(help: "A..B: render program frames A up to (not including) B, as a farm part.") var frames: String?
    @OptionGroup(title: "Lens look (overrides the EDL's, spec/render.md §5)") var lens: LensLookOptions
    @OptionGroup var overwrite: OverwriteOption
    @Flag(help: "Print the result as JSON.") var json = false
    @Flag(name: .customLong("progress-json"), help: "Report progress as JSON lines on stderr.") var progressJSON = false

    func validate() throws {
        guard RenderQuality(rawValue: quality) != nil else { throw ValidationError("--quality must be preview or export") }
        guard FarmCodec.named(codec) != nil else {
            throw ValidationError("--codec must be \(FarmCodec.all.map(\.name).joined(separator: ", "))")
        }
        if shard != nil && frames != nil { throw ValidationError("--shard and --frames both choose a part: choose one") }
        if at != nil && (shard != nil || frames != nil) { throw ValidationError("--at renders one still, not a part of a movie") }
        if let overlay, FocusOverlay(rawValue: overlay) == nil {
            throw ValidationError("--overlay must be peaking, disparity or matte (got \(overlay))")
        }
        do {
            _ = try shard.map(ShardPlan.parseShard)
            _ = try frames.map(ShardPlan.parseFrames)
        } catch { throw ValidationError(error.description) }
        if let fNumber, !(fNumber.isFinite && fNumber > 0) { throw ValidationError("--f-number must be > 0 (got \(fNumber))") }
        if let focalLength, !(focalLength.isFinite && focalLength > 0) { throw ValidationError("--focal-length must be > 0") }
        if at != nil && range != nil { throw ValidationError("--at renders one still; --range a movie: choose one") }
        if let at { _ = try Arguments.time(at, option: "--at") }
        if let range { do { _ = try TimeRangeExpression(parsing: range) } catch { throw ValidationError("--range: \(error)") } }
    }

    func run() throws {
        FrameLoopMemory.keepFreedMemory()
        let target = try overwrite.target(output, inputs: [file])
        let edits = try MovieEdits.open(path: file)
        let rangeExpression = try range.map { text throws -> TimeRangeExpression in try TimeRangeExpression(parsing: text) }
        var plan = try RenderPlan(
            edits: edits,
            options: .init(
                fNumber: fNumber, focalLength35mm: focalLength, range: rangeExpression,
                overlay: overlay.flatMap(FocusOverlay.init(rawValue:)), look: lens.look))
        let farm = try FarmRender(edits: edits, plan: plan, codec: FarmCodec.named(codec)!, quality: RenderQuality(rawValue: quality)!)
        let part = try partRecord(farm)
        if let part { plan = plan.restricted(to: part.frames) }
        var renderer = BokehRenderer(quality: RenderQuality(rawValue: quality)!)
        renderer.look = plan.look
        let movie = edits.movie
        let builtIn = movie.video.codec == "png " || movie.video.codec == "raw "
        let decoder = builtIn ? nil : try FFmpegFrameReader(path: file, width: movie.width, height: movie.height)
        func picture(_ n: Int) throws -> PixelImage { try decoder?.frame(n) ?? movie.picture(n) }

        if let at {
            let snapped = try movie.frame(at: try Arguments.time(at, option: "--at"))
            let n = Int(snapped.frame)
            let still = try plan.render(picture: try picture(n), sourceFrame: n, renderer: renderer)
            try target.write(try PNGEncoder.encode(still))
            report(frames: 1, first: n, time: snapped.time, plan: plan, focus: plan.focusDisparity(sourceFrame: n))
            return
        }
        guard let rate = movie.frameRate else { throw CLIErrors.failure("\(file): frames are not evenly spaced") }
        let simpleProgram = edits.edl.sourceRanges.isEmpty && edits.edl.speedSegments.isEmpty && range == nil
        var progress = ProgressReporter(label: "render", style: progressJSON ? .json : .automatic)
        var done = 0
        if codec == "png" {
            let audio = part == nil ? plan.programAudio(edl: edits.edl) : nil
            var configuration = CinematicWriterConfiguration(
                video: .encoded(.png, width: movie.width, height: movie.height, rate: rate), disparity: nil, writesMetadata: false,
                audio: audio)
            configuration.isCinematic = false
            // An intermediate: encoding speed matters more than the last few per cent of size.
            configuration.compressionLevel = 1
            configuration.pictureFilter = .sub
            configuration.userData = part.map { [$0.serialized()] } ?? []
            let writer = try CinematicWriter(target: target, configuration: configuration)
            do {
                try renderFrames(plan, renderer, picture: picture, done: &done, progress: &progress) { frame in
                    try writer.append(picture: .image(frame), disparity: nil, metadata: nil)
                }
                try writer.finish()
            } catch {
                writer.cancel()
                throw error
            }
        } else {
            let encoder = try FFmpegEncoder(
                target: target, codec: codec, video: farm.codec.ffmpegArguments(farm.shards.syncInterval), width: movie.width,
                height: movie.height, rate: rate, audioFrom: part == nil && plan.programAudio(edl: edits.edl) != nil ? file : nil,
                finishing: part.map { record in { try UserDataAppender.append(record.serialized(), toFileAt: $0) } })
            do {
                try renderFrames(plan, renderer, picture: picture, done: &done, progress: &progress) { frame in
                    try encoder.write(frame)
                }
                try encoder.finish()
            } catch {
                encoder.abandon()
                throw error
            }
        }
        if !simpleProgram && movie.audio != nil && range == nil && part == nil {
            CLIErrors.note("note: audio not carried: the program has trims or speed changes")
        }
        report(frames: done, first: plan.sourceFrame(ofOutput: plan.outputFrames.lowerBound), time: nil, plan: plan, focus: nil, part: part)
    }

    /// The record of the farm part `--shard` or `--frames` asks for; nil for a whole render.
    func partRecord(_ farm: FarmRender) throws -> RenderPartRecord? {
        if let shard {
            let (k, n) = try ShardPlan.parseShard(shard)
            return farm.record(frames: try farm.shards.shard(k, of: n), shard: (k, n))
        }
        if let frames {
            return farm.record(frames: try farm.shards.frames(try ShardPlan.parseFrames(frames), codec: codec), shard: nil)
        }
        return nil
    }

    /// Every output frame of the plan through `write`, in order: decoding the next frame and
    /// writing the previous one overlap the render of this one (`FramePipeline`).
    func renderFrames(
        _ plan: RenderPlan, _ renderer: BokehRenderer, picture: @escaping (Int) throws -> PixelImage, done: inout Int,
        progress: inout ProgressReporter, write: @escaping (PixelImage) throws -> Void
    ) throws {
        let first = plan.outputFrames.lowerBound
        let total = plan.outputFrames.count
        try FramePipeline.run(
            count: total,
            read: { i -> (PixelImage, DisparityMap) in
                let n = plan.sourceFrame(ofOutput: first + Int64(i))
                return (try picture(n), try plan.movie.disparityMap(n))
            },
            render: { i, input in
                plan.render(
                    picture: input.0, disparity: input.1, sourceFrame: plan.sourceFrame(ofOutput: first + Int64(i)), renderer: renderer)
            },
            write: write,
            rendered: { n in
                done = n
                progress.update(n, of: total)
            })
    }

    func report(frames: Int, first: Int, time: MediaTime?, plan: RenderPlan, focus: Float?, part: RenderPartRecord? = nil) {
        if json {
            var fields: [(String, InspectValue)] = [
                ("output", .string(output)), ("frames", .int(frames)), ("quality", .string(quality)),
                ("codec", .string(at == nil ? codec : "png")),
                ("f_number", .double(Double(plan.lens.fNumber))), ("focal_length_35mm", .double(Double(plan.lens.focalLength35mm))),
            ]
            if let time { fields += [("frame", .int(first)), ("time", .string(time.description))] }
            if let focus { fields.append(("focus_disparity", .double(Double(focus)))) }
            if let part {
                fields += [("first_program_frame", .int(part.frames.lowerBound)), ("end_program_frame", .int(part.frames.upperBound))]
                if part.shardCount > 0 { fields += [("shard", .string("\(part.shardIndex)/\(part.shardCount)"))] }
            }
            print(JSONText.encode(.object(fields), pretty: false))
        } else if let time {
            print(
                "wrote \(output): frame \(first) at \(time.formattedSeconds()), focus \(focus ?? 0) D, f/\(plan.lens.fNumber), \(quality)")
        } else if let part {
            let shard = part.shardCount > 0 ? " (shard \(part.shardIndex)/\(part.shardCount))" : ""
            print(
                "wrote \(output): program frames \(part.frames.lowerBound)..\(part.frames.upperBound)\(shard), \(frames) frames, \(quality), \(codec)"
            )
        } else {
            print("wrote \(output): \(frames) frames, f/\(plan.lens.fNumber), \(plan.lens.focalLength35mm) mm, \(quality), \(codec)")
        }
    }
}
