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
            blur follows the lens model (spec/render.md §1) at the frame's f-number (--f-number, else the EDL's, \
            else the captured one, else the movie default), and the program follows the EDL's trims and speed \
            changes; the audio follows the program (cut and retimed, pitch kept). The output is an ordinary movie \
            that can no longer be refocused. Memory stays bounded whatever the clip length. Colour: the source's \
            transfer (sRGB, BT.709, PQ, HLG, linear) is undone before the bokeh and applied again after, and the \
            source's colour tags are written into the output (spec/colour.md). --colour-space bt709|bt2020|p3d65 \
            converts to other primaries in linear light after the bokeh and tags the output with them.

            --codec png writes lossless 8-bit PNG samples, tuned for speed (zlib level 1, Sub filter); png16 \
            16-bit PNG; prores (422 HQ), prores4444, dnxhr (HQX), h264 and hevc go through ffmpeg. Default: the \
            source's bit depth is kept — PNG for 8-bit sources; for deeper ones ProRes into .mov, 16-bit PNG \
            into .png, HEVC Main10 otherwise (the choice is printed). h264/hevc use a constant quantizer and \
            closed one-second groups of pictures so that farm parts join exactly (--crf and --bitrate trade that \
            for rate control). Sources whose video is not PNG or raw are decoded through ffmpeg. Decoding the \
            next frame and writing the previous one overlap the render of the current one.

            --overlay draws a focus aid over stills and movies: peaking (sharp edges inside the depth of field in \
            green), disparity (the depth used, in false colour: near warm, far cool) or matte (near field red, in \
            focus green, far field blue).

            --quality export (default) renders every blur circle from the full-resolution picture; preview \
            renders from a quarter of the width and height (several times faster; blur circles under a few \
            pixels come out softer) and keeps in-focus pixels exact.

            Examples:
              cinepack render clip.mov -o out.mov
              cinepack render clip.mov -o out.mov --quality preview --range 2s..5s --codec h264 --crf 20
              cinepack render hdr.mov -o graded.mov --codec prores4444
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
    @Option(parsing: .unconditional, help: "Program range A..B to render (e.g. 2s..5s).") var range: String?
    @Option(parsing: .unconditional, help: "One still at this time instead of a movie.") var at: String?
    @Option(
        name: .customLong("f-number"), parsing: .unconditional, help: "Override the aperture (clamped to the movie's range).",
        transform: OptionValue.fNumber)
    var fNumber: Float?
    @Option(
        name: .customLong("focal-length"), parsing: .unconditional, help: "Override the 35 mm-equivalent focal length (1…2000 mm).",
        transform: OptionValue.focalLength)
    var focalLength: Float?
    @Option(help: "png, png16, prores, prores4444, dnxhr, h264 or hevc (default: see above).") var codec: String?
    @Option(parsing: .unconditional, help: "h264/hevc constant rate factor, 0…51 (0 = lossless).") var crf: Int?
    @Option(help: "h264/hevc target bitrate (20M, 8000k).") var bitrate: String?
    @Option(help: "h264/hevc encoder preset (slow, medium, veryfast…).") var preset: String?
    @Option(name: .customLong("pix-fmt"), help: "ffmpeg pixel format of the output (e.g. yuv444p10le).") var pixFmt: String?
    @Option(
        name: .customLong("colour-space"),
        help: "Convert to bt709, bt2020 or p3d65 (smpte432) primaries in linear light and tag the output so (spec/colour.md §5).")
    var colourSpace: String?
    @Option(name: .customLong("frame-sampling"), help: "nearest or blend (speed changes).") var frameSampling: String = "nearest"
    @Option(help: "A focus aid over the render: peaking, disparity or matte (spec/render.md §4).") var overlay: String?
    @Option(help: "K/N: render part K of N of the program, for a farm (spec/farm.md).") var shard: String?
    @Option(help: "A..B: render program frames A up to (not including) B, as a farm part.") var frames: String?
    @OptionGroup(title: "Lens look (overrides the EDL's, spec/render.md §5)") var lens: LensLookOptions
    @OptionGroup var overwrite: OverwriteOption
    @OptionGroup var jsonOutput: JSONOption
    var json: Bool { jsonOutput.json }
    @Flag(name: .customLong("progress-json"), help: "Report progress as JSON lines on stderr.") var progressJSON = false

    func validate() throws {
        guard RenderQuality(rawValue: quality) != nil else { throw ValidationError("--quality must be preview or export") }
        if let codec, ExportCodec(rawValue: codec) == nil {
            throw ValidationError("--codec must be one of \(ExportCodec.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let colourSpace, ColourSpace(name: colourSpace) == nil {
            throw ValidationError(
                "--colour-space must be one of \(ColourSpace.allCases.map(\.rawValue).joined(separator: ", ")) (got \(colourSpace))")
        }
        guard FrameSampling(rawValue: frameSampling) != nil else { throw ValidationError("--frame-sampling must be nearest or blend") }
        if at != nil && (codec != nil || crf != nil || bitrate != nil || preset != nil || pixFmt != nil) {
            throw ValidationError("--at writes one PNG still; --codec, --crf, --bitrate, --preset and --pix-fmt apply to movies")
        }
        if shard != nil && frames != nil { throw ValidationError("--shard and --frames both choose a part: choose one") }
        if at != nil && (shard != nil || frames != nil) { throw ValidationError("--at renders one still, not a part of a movie") }
        if let overlay, FocusOverlay(rawValue: overlay) == nil {
            throw ValidationError("--overlay must be peaking, disparity or matte (got \(overlay))")
        }
        do {
            _ = try shard.map(ShardPlan.parseShard)
            _ = try frames.map(ShardPlan.parseFrames)
        } catch { throw ValidationError(CLIWording.rewrite(error.description, for: error)) }
        if at != nil && range != nil { throw ValidationError("--at renders one still; --range a movie: choose one") }
        if let at { _ = try Arguments.time(at, option: "--at") }
        if let range { do { _ = try TimeRangeExpression(parsing: range) } catch { throw ValidationError("--range: \(error)") } }
    }

    func run() throws {
        FrameLoopMemory.keepFreedMemory()
        let target = try overwrite.target(output, inputs: [file])
        let edits = try MovieEdits.open(path: file)
        let rangeExpression = try range.map { text throws -> TimeRangeExpression in try TimeRangeExpression(parsing: text) }
        let movie = edits.movie
        let decoder = try PictureDecoder(movie: movie)
        let source = decoder.format
        let plan = try CLIErrors.reporting { () throws(RenderPlanError) in
            try RenderPlan(
                edits: edits,
                options: .init(
                    fNumber: fNumber, focalLength35mm: focalLength, range: rangeExpression,
                    overlay: overlay.flatMap(FocusOverlay.init(rawValue:)), source: source,
                    frameSampling: FrameSampling(rawValue: frameSampling)!, look: lens.look,
                    colourSpace: colourSpace.flatMap(ColourSpace.init(name:))))
        }
        var renderer = BokehRenderer(quality: RenderQuality(rawValue: quality)!)
        renderer.look = plan.look

        if let at {
            let snapped = try movie.frame(at: try Arguments.time(at, option: "--at"))
            let n = Int(snapped.frame)
            let still = try plan.render(picture: try decoder.picture(n), sourceFrame: n, renderer: renderer)
            try target.write(try PNGEncoder.encode(still))
            report(frames: 1, first: n, time: snapped.time, plan: plan, focus: plan.focusDisparity(sourceFrame: n), codec: "png")
            return
        }
        let requested = codec.flatMap(ExportCodec.init(rawValue:))
        // Said before the work starts (and before any refusal of the settings the choice brings).
        if let reason = ExportCodec.choose(requested: requested, output: output, source: source).reason {
            CLIErrors.note("note: \(CLIWording.text(for: reason))")
        }
        let export = try MovieExport(
            edits: edits, plan: plan, decoder: decoder, target: target,
            options: .init(
                codec: requested, crf: crf, bitrate: bitrate, preset: preset, pixelFormat: pixFmt,
                quality: RenderQuality(rawValue: quality)!,
                part: try part(),
                extraSettings: ["look=\(lens.look)", "frame-sampling=\(frameSampling)", "overlay=\(overlay ?? "none")"]))
        var progress = ProgressReporter(label: "render", style: progressJSON ? .json : .automatic)
        let done = try export.run(progress: { progress.update($0, of: $1) })
        report(
            frames: done, first: try export.plan.sourceFrame(ofOutput: export.plan.outputFrames.lowerBound), time: nil,
            plan: export.plan, focus: nil, codec: export.codec.rawValue, part: export.part)
    }

    /// The farm part `--shard` or `--frames` asks for; nil for a whole render.
    func part() throws -> MovieExport.Part? {
        if let shard {
            let (k, n) = try ShardPlan.parseShard(shard)
            return .shard(index: k, count: n)
        }
        return try frames.map { .frames(try ShardPlan.parseFrames($0)) }
    }

    func report(frames: Int, first: Int, time: MediaTime?, plan: RenderPlan, focus: Float?, codec: String, part: RenderPartRecord? = nil) {
        if json {
            var fields: [(String, InspectValue)] = [
                ("output", .string(output)), ("frames", .int(frames)), ("quality", .string(quality)),
                ("codec", .string(codec)),
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
                "wrote \(output): frame \(first) at \(time.formattedSeconds()), focus \(focus ?? 0) D, f/\(plan.lens.fNumber)\(clampNote(plan)), \(quality)"
            )
        } else if let part {
            let shard = part.shardCount > 0 ? " (shard \(part.shardIndex)/\(part.shardCount))" : ""
            print(
                "wrote \(output): program frames \(part.frames.lowerBound)..\(part.frames.upperBound)\(shard), \(frames) frames, \(quality), \(codec)"
            )
        } else {
            print(
                "wrote \(output): \(frames) frames, f/\(plan.lens.fNumber)\(clampNote(plan)), \(plan.lens.focalLength35mm) mm, \(quality), \(codec)"
            )
        }
    }

    func clampNote(_ plan: RenderPlan) -> String {
        let p = plan.movie.parameters
        guard let requested = plan.requestedFNumber, requested != plan.fixedFNumber else { return "" }
        return " (f/\(requested) is outside this movie's range f/\(p.minFNumber)…f/\(p.maxFNumber); clamped)"
    }
}
