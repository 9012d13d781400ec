import ArgumentParser
import Cinepack
import Dispatch
import Foundation

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Write the built-in demo clip: a synthetic cinematic movie, no external assets needed.",
        discussion: """
            A textured background with bright highlights, subjects at different depths that move (one leaves \
            the frame and returns, one passes in front of another), their detections, captured focus decisions \
            with rack transitions, and a short span flagged not-enough-light. Use it to try every command.

            Examples:
              cinepack demo                       writes demo.mov, 6 s at 1280x720
              cinepack demo -o small.mov --seconds 2 --size 640x360
            """
    )

    @Option(name: .shortAndLong, help: "The movie to write.")
    var output: String = "demo.mov"

    @Option(parsing: .unconditional, help: "Length in seconds.", transform: OptionValue.double)
    var seconds: Double = 6

    @Option(help: "Picture size WIDTHxHEIGHT (even numbers).")
    var size: String = "1280x720"

    @Option(help: "Frames per second (whole number).")
    var fps: Int = 30

    @OptionGroup var overwrite: OverwriteOption

    @OptionGroup var jsonOutput: JSONOption
    var json: Bool { jsonOutput.json }

    @Flag(name: .customLong("progress-json"), help: "Report progress as JSON lines on stderr.")
    var progressJSON = false

    /// Checked here, not only in run(), so the usage line printed with the error is demo's.
    func validate() throws { _ = try Self.pictureSize(size) }

    static func pictureSize(_ size: String) throws -> (width: Int, height: Int) {
        let parts = size.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw ValidationError("--size must be WIDTHxHEIGHT, e.g. 1280x720 (got \(size))")
        }
        return (width, height)
    }

    func run() throws {
        let (width, height) = try Self.pictureSize(size)
        var options = DemoScene.Options()
        options.width = width
        options.height = height
        options.seconds = seconds
        options.framesPerSecond = fps
        let scene: DemoScene
        do { scene = try DemoScene(options: options) } catch { throw ValidationError("\(error)") }
        guard let rate = FrameRate(frames: Int64(fps), per: 1) else { throw ValidationError("--fps must be positive") }
        let target = try overwrite.target(output, inputs: [])
        let first = scene.frame(0)
        let quantization = scene.quantization
        var configuration = CinematicWriterConfiguration(
            video: .encoded(.png, width: width, height: height, rate: rate),
            disparity: (first.disparityWidth, first.disparityHeight, quantization), writesMetadata: true, parameters: scene.parameters)
        configuration.compressionLevel = 3
        let writer = try CinematicWriter(target: target, configuration: configuration)
        var progress = ProgressReporter(label: "demo", style: progressJSON ? .json : .automatic)
        // Frames are generated and PNG-encoded in parallel batches, then written in order:
        // memory stays a few frames whatever the length.
        let batch = max(2, ProcessInfo.processInfo.activeProcessorCount)
        var start = 0
        do {
            while start < scene.frameCount {
                let count = min(batch, scene.frameCount - start)
                let encoded = BatchResults<(DemoFrame, [UInt8])>(count: count)
                let base = start
                DispatchQueue.concurrentPerform(iterations: count) { i in
                    let frame = scene.frame(base + i)
                    encoded.set(i, Result { (frame, try PNGEncoder.encode(frame.picture, compressionLevel: 3)) })
                }
                for i in 0..<count {
                    let (frame, png) = try encoded.get(i)
                    let map = DisparityMap(width: frame.disparityWidth, height: frame.disparityHeight, values: frame.disparity)
                    try writer.append(picture: .png(png, width: width, height: height), disparity: map, metadata: frame.metadata)
                    progress.update(start + i + 1, of: scene.frameCount)
                }
                start += count
            }
            Summaries.print(try writer.finish(), json: json)
        } catch {
            writer.cancel()
            throw error
        }
    }
}

/// Results of a parallel batch, filled from worker threads.
final class BatchResults<T>: @unchecked Sendable {
    private var slots: [Result<T, any Error>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Result<T, any Error>) { lock.lock(); slots[i] = value; lock.unlock() }
    func get(_ i: Int) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = slots[i] else { throw FormatError("internal: batch slot \(i) empty") }
        return try slot.get()
    }
}
