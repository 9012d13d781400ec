import ArgumentParser
import Cinepack
import Dispatch
import Foundation

/// `cinepack bench render`: the renderer's speed against ffmpeg's gblur on the same frames.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks (speed and memory, measured against a peer in the same run).",
        subcommands: [RenderBench.self])

    struct RenderBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Frames per second of the bokeh renderer against ffmpeg gblur=sigma=8 on the same frames.",
            discussion: """
                Renders demo-scene frames (subjects at several depths, focus on the nearest person, f/2, 26 mm) at \
                each size and quality, after one warm-up frame, and times ffmpeg's gblur=sigma=8 on the same \
                frames piped as raw RGB (ffmpeg's own start-up is measured once and subtracted). Reports the \
                median per-frame time, the ratio to gblur, and the process's peak memory.

                Then the whole process: a demo clip of --clip-seconds at the largest size is written, and \
                `cinepack render CLIP -o OUT.mov` (PNG frames in, PNG frames out) is timed against \
                `ffmpeg -i CLIP -map 0:v:0 -vf gblur=sigma=8 -c:v png OUT.mov` (decode, blur, encode), wall time, \
                median of three runs each, export and preview. --clip-seconds 0 skips it.
                Example: cinepack bench render --frames 10
                """)

        @Option(help: "Frames per measurement.") var frames: Int = 8
        @Option(help: "Sizes to measure, e.g. 1280x720,1920x1080.") var sizes: String = "1280x720,1920x1080"
        @Option(help: "Qualities to measure: preview, export or both, comma-separated.") var quality: String = "preview,export"
        @Option(help: "Seconds of demo clip for the whole-process comparison (0 skips it).") var clipSeconds: Double = 2
        @OptionGroup var jsonOutput: JSONOption
        var json: Bool { jsonOutput.json }

        func validate() throws {
            guard (1...1000).contains(frames) else { throw ValidationError("--frames must be 1…1000 (got \(frames))") }
            guard clipSeconds >= 0 && clipSeconds <= 60 else { throw ValidationError("--clip-seconds must be 0…60 (got \(clipSeconds))") }
        }

        func run() throws {
            FrameLoopMemory.keepFreedMemory()
            let qualities = try quality.split(separator: ",").map { name in
                guard let q = RenderQuality(rawValue: String(name)) else {
                    throw ValidationError("--quality: \(name) is not preview or export")
                }
                return q
            }
            var rows: [InspectValue] = []
            for size in sizes.split(separator: ",") {
                let parts = size.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2 else { throw ValidationError("--sizes: \(size) is not WIDTHxHEIGHT") }
                let scene = try DemoScene(options: .init(width: parts[0], height: parts[1], seconds: max(1, Double(frames) / 30 + 0.2)))
                let inputs = (0..<frames).map { scene.frame($0) }
                let peer = try gblurMilliseconds(inputs.map(\.picture))
                for quality in qualities {
                    let renderer = BokehRenderer(quality: quality)
                    let lens = LensModel(focalLength35mm: 26, fNumber: 2, width: parts[0])
                    var times: [Double] = []
                    for (i, frame) in ([inputs[0]] + inputs).enumerated() {
                        let picture = SRGB.linear(frame.picture)
                        let map = DisparityMap(width: frame.disparityWidth, height: frame.disparityHeight, values: frame.disparity)
                        let focus = frame.metadata.focus?.focusDisparity ?? 0.5
                        let start = DispatchTime.now().uptimeNanoseconds
                        _ = renderer.render(picture: picture, disparity: map, focusDisparity: focus.isFinite ? focus : 0.5, lens: lens)
                        if i > 0 { times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
                    }
                    let ms = times.sorted()[times.count / 2]
                    let ratio = ms / peer
                    rows.append(
                        .object([
                            ("size", .string(String(size))), ("quality", .string(quality.rawValue)), ("ms_per_frame", .double(ms)),
                            ("fps", .double(1000 / ms)), ("gblur_ms_per_frame", .double(peer)), ("ratio_to_gblur", .double(ratio)),
                        ]))
                    if !json {
                        print(
                            String(
                                format: "%@ %@: %.1f ms/frame (%.1f fps); ffmpeg gblur %.1f ms/frame; ratio %.2f×", String(size),
                                quality.rawValue, ms, 1000 / ms, peer, ratio))
                    }
                }
            }
            var whole: [(String, InspectValue)] = []
            if clipSeconds > 0, let largest = sizes.split(separator: ",").last {
                whole = try wholeProcess(size: String(largest), qualities: qualities)
            }
            var usage = rusage()
            #if os(Linux)
                getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            #else
                getrusage(RUSAGE_SELF, &usage)
            #endif
            let peakMiB = Double(usage.ru_maxrss) / 1024
            if json {
                print(
                    JSONText.encode(
                        .object([("results", .list(rows)), ("whole_process", .object(whole)), ("peak_memory_mib", .double(peakMiB))]),
                        pretty: true))
            } else {
                print(String(format: "peak memory %.0f MiB", peakMiB))
            }
        }

        /// `cinepack render` of a demo clip against ffmpeg decoding, blurring and encoding it as PNG:
        /// wall times (median of three, runs alternating) and their ratio per quality.
        func wholeProcess(size: String, qualities: [RenderQuality]) throws -> [(String, InspectValue)] {
            let ffmpeg = try FFmpegTool.require("the render benchmark's peer")
            let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cinepack-bench-\(getpid())").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            func wall(_ tool: String, _ arguments: [String]) throws -> Double {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: tool)
                process.arguments = arguments
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let start = DispatchTime.now().uptimeNanoseconds
                try process.run()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else {
                    throw CLIErrors.failure("bench: \(tool) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))")
                }
                return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            }
            let clip = folder + "/clip.mov"
            _ = try wall(me, ["demo", "-o", clip, "--seconds", String(clipSeconds), "--size", size])
            let out = folder + "/out.mov"
            let peer = folder + "/peer.mov"
            var fields: [(String, InspectValue)] = [("size", .string(size)), ("seconds", .double(clipSeconds))]
            var peerTimes: [Double] = []
            var ours: [RenderQuality: [Double]] = [:]
            for _ in 0..<3 {
                try? FileManager.default.removeItem(atPath: peer)
                peerTimes.append(
                    try wall(ffmpeg, ["-v", "error", "-y", "-i", clip, "-map", "0:v:0", "-vf", "gblur=sigma=8", "-c:v", "png", peer]))
                for quality in qualities {
                    try? FileManager.default.removeItem(atPath: out)
                    ours[quality, default: []].append(try wall(me, ["render", clip, "-o", out, "--quality", quality.rawValue]))
                }
            }
            let peerMedian = peerTimes.sorted()[1]
            fields.append(("ffmpeg_seconds", .double(peerMedian)))
            for quality in qualities {
                let median = ours[quality]!.sorted()[1]
                fields.append(("\(quality.rawValue)_seconds", .double(median)))
                fields.append(("\(quality.rawValue)_ratio", .double(median / peerMedian)))
                if !json {
                    print(
                        String(
                            format:
                                "whole process, %@ %.1f s clip, %@: cinepack render %.2f s; ffmpeg decode+gblur+encode %.2f s; ratio %.2f×",
                            size, clipSeconds, quality.rawValue, median, peerMedian, median / peerMedian))
                }
            }
            return fields
        }

        /// Median-free total: ffmpeg's wall time for N frames minus its time for one, per frame.
        func gblurMilliseconds(_ pictures: [PixelImage]) throws -> Double {
            let ffmpeg = try FFmpegTool.require("the render benchmark's peer")
            func time(_ count: Int) throws -> Double {
                let process = Process()
                let pipe = Pipe()
                let w = pictures[0].width, h = pictures[0].height
                process.executableURL = URL(fileURLWithPath: ffmpeg)
                process.arguments = [
                    "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(w)x\(h)", "-i", "-", "-vf", "gblur=sigma=8", "-f",
                    "null", "-",
                ]
                process.standardInput = pipe
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let start = DispatchTime.now().uptimeNanoseconds
                try process.run()
                for i in 0..<count { try pipe.fileHandleForWriting.write(contentsOf: Data(pictures[i % pictures.count].samples8 ?? [])) }
                try pipe.fileHandleForWriting.close()
                process.waitUntilExit()
                return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            }
            let n = max(pictures.count * 4, 16)
            let one = (0..<3).map { _ in (try? time(1)) ?? 0 }.sorted()[1]
            let many = (0..<3).map { _ in (try? time(n)) ?? 0 }.sorted()[1]
            return max(0.001, (many - one) / Double(n - 1))
        }
    }
}
