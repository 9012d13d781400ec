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
            blur follows the lens model (DESIGN §3) at the EDL's f-number, and the program follows the EDL's trims \
            and speed changes. The output is an ordinary movie that can no longer be refocused. Memory stays \
            bounded whatever the clip length. Audio is carried through when the program has no trims or speed \
            changes.

            --codec png (default) writes lossless PNG samples, tuned for speed (zlib level 1, Sub filter); h264 \
            and hevc go through ffmpeg when it is installed. Sources whose video is not PNG or raw are decoded \
            through ffmpeg the same way. Decoding the next frame and writing the previous one overlap the \
            render of the current one.

            --quality export (default) renders every blur circle from the full-resolution picture; preview \
            renders from a quarter of the width and height (several times faster; blur circles under a few \
            pixels come out softer) and keeps in-focus pixels exact.

            Examples:
              cinepack render clip.mov -o out.mov
              cinepack render clip.mov -o out.mov --quality preview --range 2s..5s --codec h264 --crf 20
              cinepack render hdr.mov -o graded.mov --codec prores4444
              cinepack render clip.mov --at 2.5s -o still.png --f-number 1.8
            """)

    @Argument(help: "A cinematic movie.") var file: String
    @Option(name: .shortAndLong, help: "The movie (or, with --at, the PNG) to write.") var output: String
    @Option(help: "preview (fast, softer small blur) or export (best).") var quality: String = "export"
    @Option(help: "Program range A..B to render (e.g. 2s..5s).") var range: String?
    @Option(help: "One still at this time instead of a movie.") var at: String?
    @Option(name: .customLong("f-number"), help: "Override the aperture.") var fNumber: Float?
    @Option(name: .customLong("focal-length"), help: "Override the 35 mm-equivalent focal length (mm).") var focalLength: Float?
    @Option(help: "png, png16, prores, prores4444, dnxhr, h264 or hevc (default: see above).") var codec: String?
    @Option(help: "h264/hevc constant rate factor, 0…51 (0 = lossless).") var crf: Int?
    @Option(help: "h264/hevc target bitrate (20M, 8000k).") var bitrate: String?
    @Option(help: "h264/hevc encoder preset (slow, medium, veryfast…).") var preset: String?
    @Option(name: .customLong("pix-fmt"), help: "ffmpeg pixel format of the output (e.g. yuv444p10le).") var pixFmt: String?
    @Option(name: .customLong("frame-sampling"), help: "nearest or blend (speed changes).") var frameSampling: String = "nearest"
    @Flag(help: "Print the result as JSON.") var json = false
    @Flag(name: .customLong("progress-json"), help: "Report progress as JSON lines on stderr.") var progressJSON = false

    func validate() throws {
        guard RenderQuality(rawValue: quality) != nil else { throw ValidationError("--quality must be preview or export") }
        if let codec, ExportCodec(rawValue: codec) == nil {
            throw ValidationError("--codec must be one of \(ExportCodec.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard FrameSampling(rawValue: frameSampling) != nil else { throw ValidationError("--frame-sampling must be nearest or blend") }
        if at != nil && (codec != nil || crf != nil || bitrate != nil || preset != nil || pixFmt != nil) {
            throw ValidationError("--at writes one PNG still; --codec, --crf, --bitrate, --preset and --pix-fmt apply to movies")
        }
        if let fNumber, !(fNumber.isFinite && fNumber > 0) { throw ValidationError("--f-number must be > 0 (got \(fNumber))") }
        if let focalLength, !(focalLength.isFinite && focalLength > 0) { throw ValidationError("--focal-length must be > 0") }
        if at != nil && range != nil { throw ValidationError("--at renders one still; --range a movie: choose one") }
        if let at { _ = try Arguments.time(at, option: "--at") }
        if let range { do { _ = try TimeRangeExpression(parsing: range) } catch { throw ValidationError("--range: \(error)") } }
    }

    func run() throws {
        FrameLoopMemory.keepFreedMemory()
        let edits = try MovieEdits.open(path: file)
        let rangeExpression = try range.map { text throws -> TimeRangeExpression in try TimeRangeExpression(parsing: text) }
        let movie = edits.movie
        let decoder = try PictureDecoder(movie: movie)
        let source = decoder.format
        let plan = try RenderPlan(
            edits: edits,
            options: .init(
                fNumber: fNumber, focalLength35mm: focalLength, range: rangeExpression, source: source,
                frameSampling: FrameSampling(rawValue: frameSampling)!))
        let renderer = BokehRenderer(quality: RenderQuality(rawValue: quality)!)

        if let at {
            let snapped = try movie.frame(at: try Arguments.time(at, option: "--at"))
            let n = Int(snapped.frame)
            let still = try plan.render(picture: try decoder.picture(n), sourceFrame: n, renderer: renderer)
            let writer = try AtomicFileWriter(path: output)
            try writer.write(try PNGEncoder.encode(still))
            try writer.commit()
            report(frames: 1, first: n, time: snapped.time, plan: plan, focus: plan.focusDisparity(sourceFrame: n), codec: "png")
            return
        }
        guard let rate = movie.frameRate else { throw CLIErrors.failure("\(file): frames are not evenly spaced") }
        let (chosen, reason) = ExportCodec.choose(requested: codec.flatMap(ExportCodec.init(rawValue:)), output: output, source: source)
        if let reason { CLIErrors.note("note: \(reason)") }
        let settings = try ExportSettings(
            codec: chosen, crf: crf, bitrate: bitrate, preset: preset, pixelFormat: pixFmt, colour: source.colour,
            inputBitDepth: plan.outputBitDepth)
        try settings.check(width: movie.width, height: movie.height)
        let audio = programAudio(plan, alone: chosen.isBuiltIn)
        var progress = ProgressReporter(label: "render", style: progressJSON ? .json : .automatic)
        var done = 0
        if chosen.isBuiltIn {
            let depth = chosen == .png16 ? 16 : 8
            var temporaryAudio: String?
            defer { if let temporaryAudio { try? FileManager.default.removeItem(atPath: temporaryAudio) } }
            var carried: CarriedTrack?
            if let audio, audio.filter != nil {
                let url = URL(fileURLWithPath: output)
                let path = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).audio-\(getpid()).mov").path
                temporaryAudio = path
                try FFmpegAudio.render(audio, to: path)
                let audioSource = try CLIErrors.reporting(file: path) { () throws(ContainerError) in try FileByteSource(path: path) }
                let audioMovie = try CLIErrors.reporting(file: path) { () throws(ContainerError) in try Movie.read(source: audioSource) }
                carried = audioMovie.tracks.first { $0.kind == .audio }.map {
                    CarriedTrack(movie: audioMovie, track: $0, source: audioSource)
                }
            } else if audio != nil {
                carried = movie.audio.map { CarriedTrack(movie: movie.movie, track: $0, source: movie.source) }
            }
            var configuration = CinematicWriterConfiguration(
                video: .encoded(.png, width: movie.width, height: movie.height, rate: rate), disparity: nil, writesMetadata: false,
                audio: carried)
            configuration.isCinematic = false
            configuration.pictureColour = settings.outputColour.isSpecified || source.colour.isSpecified ? settings.outputColour : nil
            // An intermediate: encoding speed matters more than the last few per cent of size.
            configuration.compressionLevel = 1
            configuration.pictureFilter = .sub
            let writer = try CinematicWriter(path: output, configuration: configuration)
            do {
                try renderFrames(plan, renderer, decoder, done: &done, progress: &progress) { frame in
                    let picture = frame.bitDepth == depth ? frame : try frame.converted(toBitDepth: depth)
                    try writer.append(picture: .image(picture), disparity: nil, metadata: nil)
                }
                try writer.finish()
            } catch {
                writer.cancel()
                throw error
            }
        } else {
            let encoder = try FFmpegEncoder(
                path: output, settings: settings, width: movie.width, height: movie.height, rate: rate, audio: audio)
            do {
                try renderFrames(plan, renderer, decoder, done: &done, progress: &progress) { frame in
                    try encoder.write(frame)
                }
                try encoder.finish()
            } catch {
                encoder.abandon()
                throw error
            }
        }
        report(
            frames: done, first: plan.sourceFrame(ofOutput: plan.outputFrames.lowerBound), time: nil, plan: plan, focus: nil,
            codec: chosen.rawValue)
    }

    /// The source's audio as the program plays it: a plain copy when the program is the whole
    /// clip unedited, else the source cut and retimed by `ProgramAudio`'s filter graph.
    func programAudio(_ plan: RenderPlan, alone: Bool) -> EncoderAudio? {
        guard let track = plan.movie.audio else { return nil }
        let audio = ProgramAudio(timeline: plan.timeline, frames: plan.outputFrames)
        let whole =
            plan.outputFrames == 0..<plan.timeline.outputFrameCount && audio.isWholeSourceAtSpeedOne
            && audio.segments[0].sourceEnd == plan.timeline.sourceGrid.time(ofFrame: Int64(plan.movie.frameCount))
        if whole { return EncoderAudio(path: file, filter: nil) }
        let rate = Int(track.audio?.sampleRate ?? 0) > 0 ? Int(track.audio!.sampleRate) : Int(track.timescale)
        // The PNG path feeds the audio alone (input 0); the ffmpeg encoder has the pictures first.
        return EncoderAudio(path: file, filter: audio.ffmpegFilter(input: alone ? "0:a:0" : "1:a:0", sampleRate: rate, output: "aout"))
    }

    /// Every output frame of the plan through `write`, in order: decoding the next frame and
    /// writing the previous one overlap the render of this one (`FramePipeline`).
    func renderFrames(
        _ plan: RenderPlan, _ renderer: BokehRenderer, _ decoder: PictureDecoder, done: inout Int,
        progress: inout ProgressReporter, write: @escaping (PixelImage) throws -> Void
    ) throws {
        let first = plan.outputFrames.lowerBound
        let total = plan.outputFrames.count
        try FramePipeline.run(
            count: total,
            read: { i -> ([(PixelImage, Float)], DisparityMap, Int) in
                let samples = plan.sourceSamples(ofOutput: first + Int64(i))
                // Decoded in frame order: the decoder streams forward.
                var decoded: [Int: PixelImage] = [:]
                for n in samples.map(\.frame).sorted() { decoded[n] = try decoder.picture(n) }
                let pictures = samples.map { (decoded[$0.frame]!, $0.weight) }
                return (pictures, try plan.movie.disparityMap(samples[0].frame), samples[0].frame)
            },
            render: { _, input in
                plan.render(pictures: input.0, disparity: input.1, sourceFrame: input.2, renderer: renderer)
            },
            write: write,
            rendered: { n in
                done = n
                progress.update(n, of: total)
            })
    }

    func report(frames: Int, first: Int, time: MediaTime?, plan: RenderPlan, focus: Float?, codec: String) {
        if json {
            var fields: [(String, InspectValue)] = [
                ("output", .string(output)), ("frames", .int(frames)), ("quality", .string(quality)),
                ("codec", .string(codec)),
                ("f_number", .double(Double(plan.lens.fNumber))), ("focal_length_35mm", .double(Double(plan.lens.focalLength35mm))),
            ]
            if let time { fields += [("frame", .int(first)), ("time", .string(time.description))] }
            if let focus { fields.append(("focus_disparity", .double(Double(focus)))) }
            print(JSONText.encode(.object(fields), pretty: false))
        } else if let time {
            print(
                "wrote \(output): frame \(first) at \(time.formattedSeconds()), focus \(focus ?? 0) D, f/\(plan.lens.fNumber), \(quality)")
        } else {
            print("wrote \(output): \(frames) frames, f/\(plan.lens.fNumber), \(plan.lens.focalLength35mm) mm, \(quality), \(codec)")
        }
    }
}
