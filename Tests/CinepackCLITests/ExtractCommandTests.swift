import Cinepack
import Foundation
import TestSupport
import Testing

/// `cinepack extract` through the real binary, on a clip packed by `cinepack pack` at 21 fps:
/// 0.5 s is then frame 10.5, a tie that snaps to the earlier frame 10 (README: "a tie goes to the
/// earlier frame").
@Suite struct ExtractCommandTests {
    /// Packs the fixture at 21 fps.
    static func clip(_ name: String = #function) throws -> (ClipFixture, String) {
        let clip = try ClipFixture(name: name)
        let path = try clip.packed(["--fps", "21"])
        return (clip, path)
    }

    func extract(_ clip: ClipFixture, _ arguments: [String]) throws -> CLI.Output {
        try CLI.run(["extract", "out/clip.mov"] + arguments, in: clip.root)
    }

    @Test func videoFrameIsThePackedPNGOfTheSnappedFrame() throws {
        let (clip, _) = try Self.clip()
        let result = try extract(clip, ["--at", "0.5s", "--track", "video", "-o", "frame.png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "wrote frame.png: video frame 10 at 0.476s (snapped from 0.5s)\n", "\(result.stdout)")
        #expect(try clip.bytes(clip.file("frame.png")) == (try clip.bytes(clip.framePath(10))))

        // An exact time is not reported as snapped; a frame number works the same way.
        let exact = try extract(clip, ["--at", "3f", "-o", "three.png"])
        #expect(exact.stdout == "wrote three.png: video frame 3 at 0.143s\n", "\(exact.stdout)")
        #expect(try clip.bytes(clip.file("three.png")) == (try clip.bytes(clip.framePath(3))))
    }

    @Test func jsonReportNamesTheSnappedFrame() throws {
        let (clip, _) = try Self.clip()
        let result = try extract(clip, ["--at", "0.5s", "-o", "frame.png", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["frame"] as? Int == 10)
        #expect(report["time"] as? String == "10/21s")
        #expect(report["requested"] as? String == "0.5s")
        #expect(report["track"] as? String == "video")
    }

    @Test func rawDisparityIsTheStoredCodes() throws {
        let (clip, _) = try Self.clip()
        let result = try extract(clip, ["--at", "0.5s", "--track", "disparity", "--raw", "-o", "codes.png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("disparity frame 10"))
        let image = try PNGDecoder.decode(try clip.bytes(clip.file("codes.png")))
        #expect(image.layout == .gray && image.bitDepth == 16)
        #expect(image.width == clip.mapWidth && image.height == clip.mapHeight)
        #expect(image.samples16 == clip.mapCodes(10).map(ClipFixture.storedCode))
    }

    @Test func falseColourIsAnRGBPictureOfTheMap() throws {
        let (clip, _) = try Self.clip()
        let result = try extract(clip, ["--at", "10f", "--track", "disparity", "-o", "colour.png"])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try PNGDecoder.decode(try clip.bytes(clip.file("colour.png")))
        #expect(image.layout == .rgb && image.bitDepth == 8)
        #expect(image.width == clip.mapWidth && image.height == clip.mapHeight)
        // Pixel (0, 0) is the far end of the range (cool), pixel (1, 0) the near end (warm).
        let far = image.pixel(x: 0, y: 0), near = image.pixel(x: 1, y: 0)
        #expect(far[2] > far[0], "far pixel \(far)")
        #expect(near[0] > near[2], "near pixel \(near)")
        // Different disparities, different colours: the picture follows the map.
        let codes = clip.mapCodes(10)
        let distinct = Set((0..<codes.count).map { image.pixel(x: $0 % clip.mapWidth, y: $0 / clip.mapWidth) })
        #expect(distinct.count > 50)
    }

    @Test(arguments: ["5s", "12f", "0.58s", "00:00:01:00"])
    func timeOutsideTheClipNamesTheRange(_ time: String) throws {
        let (clip, _) = try Self.clip()
        let result = try extract(clip, ["--at", time, "-o", "out/frame.png"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)")
        #expect(result.stderr.contains("outside the clip (frames 0…11, 0s…0.571s)"), "\(result.stderr)")
        #expect(try clip.outputFolder() == ["clip.mov"])
    }

    @Test(arguments: ["12.3x", "abc", "1:2:3:4:5", "-", ""])
    func badTimeIsAUsageError(_ time: String) throws {
        let (clip, _) = try Self.clip()
        let existing = Array("keep me".utf8)
        try clip.write(existing, to: clip.file("frame.png"))
        let result = try extract(clip, ["--at=\(time)", "-o", "frame.png"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)")
        #expect(result.stderr.contains("--at"), "\(result.stderr)")
        #expect(try clip.bytes(clip.file("frame.png")) == existing)
    }

    @Test func usageErrorsAndUnreadableFiles() throws {
        let (clip, _) = try Self.clip()
        let rawVideo = try extract(clip, ["--at", "1f", "--raw", "-o", "x.png"])
        #expect(rawVideo.status == 64)
        #expect(rawVideo.stderr.contains("--raw applies to --track disparity only"))
        let badTrack = try extract(clip, ["--at", "1f", "--track", "audio", "-o", "x.png"])
        #expect(badTrack.status == 64)
        #expect(badTrack.stderr.contains("--track must be video or disparity"))
        let missing = try CLI.run(["extract", "nothing.mov", "--at", "1f", "-o", "x.png"], in: clip.root)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nothing.mov"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: clip.file("x.png")))
    }
}
