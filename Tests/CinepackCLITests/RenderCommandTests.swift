import Cinepack
import Foundation
import TestSupport
import Testing

/// `cinepack render` through the real binary: stills, movies, ffmpeg codecs, bad requests.
@Suite struct RenderCommandTests {
    static func clip(seconds: String = "0.5", size: String = "160x90") throws -> (TemporaryDirectory, String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("demo.mov")
        let made = try CLI.run(["demo", "-o", path, "--seconds", seconds, "--size", size])
        #expect(made.status == 0, "\(made.stderr)")
        return (dir, path)
    }

    @Test func stillKeepsTheFocusedSubjectSharpAndBlursTheRest() throws {
        let (dir, path) = try Self.clip(size: "320x180")
        let still = dir.file("still.png")
        let result = try CLI.run(["render", path, "--at", "0.2s", "-o", still, "--f-number", "1.4", "--focal-length", "80", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let rendered = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: still))))
        let movie = try CinematicMovie.open(path: path)
        let original = try movie.picture(6)
        #expect(rendered.width == 320 && rendered.height == 180)
        // Focus is on person A (group 1) at frame 6: the middle of its torso (detection 3) stays close
        // to the original; the brick wall (top rows; at 80 mm, f/1.4 and 320 px its blur circle is
        // about 15 px) changes.
        let face = try #require(try movie.metadata(6).detections.first { $0.id == 3 })
        func meanDifference(x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
            var total = 0.0, count = 0.0
            for y in y0..<y1 {
                for x in x0..<x1 {
                    for c in 0..<3 {
                        total += abs(Double(rendered.sample(x: x, y: y, channel: c)) - Double(original.sample(x: x, y: y, channel: c)))
                        count += 1
                    }
                }
            }
            return total / max(count, 1)
        }
        let fx = Int(face.rect.centerX * 320), fy = Int(face.rect.centerY * 180)
        let onFace = meanDifference(x0: fx - 2, y0: fy - 2, x1: fx + 3, y1: fy + 3)
        let onWall = meanDifference(x0: 0, y0: 0, x1: 320, y1: 20)
        #expect(onFace < 4, "in-focus face changed by \(onFace)")
        #expect(onWall > onFace + 2, "background barely changed: \(onWall)")
    }

    @Test func movieIsAPlainMovieWithEveryFrame() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", path, "-o", out, "--quality", "preview", "--progress-json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(#""event":"progress""#))
        let movie = try Movie.read(path: out, options: .init(strict: true))
        #expect(movie.tracks.count == 1 && movie.tracks[0].samples.count == 15)
        #expect(movie.fileType?.compatibleBrands.contains("cnpk") == false)
        if try Peers.available("ffprobe") {
            let probe = try Peers.run(
                "ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", out])
            #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "15")
        }
    }

    /// The movie's frames (decoded, rendered and written by overlapping stages) are the stills of
    /// the same frames, in order, byte for byte: the renderer is deterministic.
    @Test func movieFramesAreTheStillsInOrder() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mov")
        let result = try CLI.run(["render", path, "-o", out, "--f-number", "1.4"])
        #expect(result.status == 0, "\(result.stderr)")
        let movie = try Movie.read(path: out)
        let samples = movie.tracks[0].samples
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        for frame in [0, 1, 7, 14] {
            let still = dir.file("still\(frame).png")
            let made = try CLI.run(["render", path, "--at", "\(frame)f", "-o", still, "--f-number", "1.4"])
            #expect(made.status == 0, "\(made.stderr)")
            let info = try #require(samples.sample(at: frame))
            let sample = Array(bytes[Int(info.offset)..<Int(info.offset) + Int(info.size)])
            let fromMovie = try PNGDecoder.decode(sample)
            let fromStill = try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: still))))
            #expect(fromMovie == fromStill, "frame \(frame)")
        }
    }

    @Test func h264GoesThroughFFmpeg() throws {
        guard try Peers.available("ffmpeg"), try Peers.available("ffprobe") else { return }
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mp4.mov")
        let result = try CLI.run(["render", path, "-o", out, "--quality", "preview", "--codec", "h264", "--range", "0s..0.2s"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try Peers.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", out])
        #expect(probe.text.contains("h264"))
    }

    @Test func badRequestsLeaveNoOutput() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mov")
        #expect(try CLI.run(["render", path, "-o", out, "--f-number", "0"]).status == 64)
        #expect(try CLI.run(["render", path, "-o", out, "--quality", "best"]).status == 64)
        let unwritable = try CLI.run(["render", path, "-o", dir.file("missing/out.mov")])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr.contains("missing/out.mov"))
        let outside = try CLI.run(["render", path, "-o", out, "--range", "5s..6s"])
        #expect(outside.status == 1)
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["demo.mov"])
    }
}
