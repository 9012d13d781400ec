import Foundation
import TestSupport
import Testing

/// `cinepack inspect` through the real binary: golden text and JSON on committed fixtures, and the
/// error paths a user meets.
@Suite struct InspectCommandTests {
    struct GoldenCase: CustomStringConvertible, Sendable {
        var file: String
        var arguments: [String]
        var golden: String
        var description: String { golden }
    }

    /// Files are relative to corpus/, where the binary runs, so the printed names are stable.
    static let goldenCases: [GoldenCase] = [
        GoldenCase(file: "valid/raw-moov-last.mov", arguments: [], golden: "raw-moov-last.inspect.txt"),
        GoldenCase(file: "valid/raw-moov-last.mov", arguments: ["--json"], golden: "raw-moov-last.inspect.json"),
        GoldenCase(file: "valid/raw-moov-last.mov", arguments: ["--boxes"], golden: "raw-moov-last.boxes.txt"),
        GoldenCase(file: "valid/raw-moov-last.mov", arguments: ["--boxes", "--json"], golden: "raw-moov-last.boxes.json"),
        GoldenCase(file: "valid/one-chunk-stss.mov", arguments: ["--samples", "1"], golden: "one-chunk-stss.samples.txt"),
        GoldenCase(file: "valid/one-chunk-stss.mov", arguments: ["--samples", "1", "--json"], golden: "one-chunk-stss.samples.json"),
        GoldenCase(file: "valid/compressed-moov.mov", arguments: ["--boxes"], golden: "compressed-moov.boxes.txt"),
        GoldenCase(file: "valid/quicktime-meta.mov", arguments: ["--boxes"], golden: "quicktime-meta.boxes.txt"),
        GoldenCase(file: "cinematic/demo-small.mov", arguments: [], golden: "demo-small.inspect.txt"),
        GoldenCase(file: "cinematic/demo-small.mov", arguments: ["--json"], golden: "demo-small.inspect.json"),
        GoldenCase(file: "cinematic/demo-small.mov", arguments: ["--boxes"], golden: "demo-small.boxes.txt"),
        GoldenCase(file: "cinematic/demo-small.mov", arguments: ["--boxes", "--json"], golden: "demo-small.boxes.json"),
    ]

    @Test(arguments: goldenCases)
    func outputMatchesGolden(_ c: GoldenCase) throws {
        let result = try CLI.run(["inspect", c.file] + c.arguments, in: Paths.corpus(""))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try Golden.expected(c.golden, actual: result.stdout)))
        if c.arguments.contains("--json") {
            let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            #expect(parsed is [String: Any])
        }
    }

    /// The JSON carries the documented field names with values from the hand-made layout.
    @Test func jsonFieldsHaveDocumentedNames() throws {
        let result = try CLI.run(["inspect", "raw-moov-last.mov", "--json"], in: Paths.corpus("valid"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let movie = try #require(root["movie"] as? [String: Any])
        #expect(movie["timescale"] as? Int == 600)
        #expect(movie["duration"] as? Int == 600)
        let track = try #require((root["tracks"] as? [[String: Any]])?.first)
        #expect(track["codec"] as? String == "raw ")
        #expect(track["width"] as? Int == 16)
        #expect(track["sample_count"] as? Int == 3)
        #expect(track["frame_rate_exact"] as? String == "30/1")
        #expect(track["bytes"] as? Int == 3 * 768)
    }

    @Test(arguments: ["box-larger-than-parent.mov", "truncated-mid-box.mov", "no-moov.mov", "not-a-movie.mov"])
    func invalidFileFailsWithOneClearLine(_ name: String) throws {
        let path = Paths.corpus("invalid/\(name)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try CLI.run(["inspect", path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(name))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func warningsPrintByDefaultAndFailWithStrict() throws {
        let path = Paths.corpus("invalid/stco-past-end.mov")
        let lenient = try CLI.run(["inspect", path])
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("warning: 2 of 3 samples lie outside the file"))
        let strict = try CLI.run(["inspect", path, "--strict"])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("2 of 3 samples lie outside the file"))
        #expect(strict.stderr.contains("stbl/stco"))
    }

    @Test func unknownTrackAndMissingFileAreExplained() throws {
        let unknown = try CLI.run(["inspect", Paths.corpus("valid/raw-moov-last.mov"), "--samples", "7"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no track 7; tracks are 1"))
        let missing = try CLI.run(["inspect", "/nonexistent/clip.mov"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot open /nonexistent/clip.mov"))
        let usage = try CLI.run(["inspect"])
        #expect(usage.status == 64)
    }
}
