import CinepackContainer
import CinepackFormat
import CinepackTime
import Foundation
import TestSupport
import Testing

/// Pack as a task: progress after every frame, the same movie as the synchronous pack (what
/// `cinepack pack` runs), and cancellation part way leaves no file and no temporary file.
@Suite struct AsyncPackTests {
    static func request(_ inputs: RoundTripTests.Inputs, _ output: String) throws -> PackRequest {
        PackRequest(
            output: inputs.file(output),
            pictures: .frames(
                try ImageSequence(pattern: inputs.file("rgb/%04d.png"), input: .frames), codec: .png,
                rate: try #require(FrameRate(frames: 30, per: 1))),
            disparity: try ImageSequence(pattern: inputs.file("depth/%04d.png"), input: .maps(.disparity)), disparityFormat: .png16,
            disparityRange: RoundTripTests.range)
    }

    @Test func aTaskPacksWhatTheSynchronousPackDoes() async throws {
        let inputs = try RoundTripTests.Inputs()
        for n in 0..<RoundTripTests.frames { try inputs.writePNG16Map(n) }
        var seen: [Int] = []
        let summary = try await Packer.pack(try Self.request(inputs, "task.mov")) { done, total in
            #expect(total == RoundTripTests.frames)
            seen.append(done)
        }
        #expect(summary.frames == RoundTripTests.frames && seen == Array(1...RoundTripTests.frames))
        try Packer.pack(try Self.request(inputs, "plain.mov"), isCancelled: { false })  // the synchronous core
        let a = try CinematicMovie.open(path: inputs.file("task.mov")), b = try CinematicMovie.open(path: inputs.file("plain.mov"))
        for n in 0..<RoundTripTests.frames {
            #expect(try a.pictureSample(n) == b.pictureSample(n), "frame \(n)")
            // Bit patterns: invalid disparity is NaN, which equals nothing.
            #expect(try a.disparityMap(n).values.map(\.bitPattern) == b.disparityMap(n).values.map(\.bitPattern), "frame \(n)")
        }
    }

    @Test func cancellingPartWayLeavesNothing() async throws {
        let inputs = try RoundTripTests.Inputs()
        for n in 0..<RoundTripTests.frames { try inputs.writePNG16Map(n) }
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: inputs.directory.path))
        var last = 0
        do {
            _ = try await Packer.pack(try Self.request(inputs, "cancelled.mov")) { done, _ in
                last = done
                if done == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            Issue.record("not cancelled")
        } catch let error as FormatError {
            #expect(error.isCancellation, "\(error)")
        }
        #expect(last == 3)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: inputs.directory.path)) == before)
    }
}
