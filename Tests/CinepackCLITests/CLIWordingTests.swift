import Cinepack
import Foundation
import TestSupport
import Testing

/// The libraries word refusals neutrally; the command line keeps its own wording with the flag or
/// command that helps. These are the exact messages users (and scripts) have always seen.
@Suite struct CLIWordingTests {
    static func clip() throws -> (TemporaryDirectory, String) { try EditSafetyTests.movie() }

    @Test func outputRefusalsNameTheFlag() throws {
        let (dir, path) = try Self.clip()
        let still = dir.file("still.png")
        try Data([1]).write(to: URL(fileURLWithPath: still))
        let exists = try CLI.run(["render", path, "--at", "0s", "-o", still])
        #expect(exists.status == 1)
        #expect(exists.stderr == "Error: \(still) already exists; nothing written (use --force or -y to replace it)\n", "\(exists.stderr)")
        chmod(still, 0o444)
        let locked = try CLI.run(["render", path, "--at", "0s", "-o", still, "-y"])
        #expect(locked.status == 1)
        #expect(
            locked.stderr == "Error: \(still) is not writable (mode r--r--r--); nothing written (--force does not override permissions)\n",
            "\(locked.stderr)")
    }

    @Test func emptyRangeNamesTheOption() throws {
        let (dir, path) = try Self.clip()
        let duration = try RenderPlan(edits: MovieEdits.open(path: path)).timeline.outputDuration.formattedSeconds()
        let result = try CLI.run(["render", path, "--range", "500s..600s", "-o", dir.file("out.mov")])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: --range 500s..600s holds no frames of the program (0s…\(duration))\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mov")))
    }

    @Test func unreadableStoredEDLNamesTheCommands() throws {
        let (dir, path) = try Self.clip()
        defer { withExtendedLifetime(dir) {} }
        var store = try EDLStore(path: path)
        try store.update(text: "<edl xmlns=\"urn:cinepack:edl:1\" version=\"1\"><broken")
        let stuck = try CLI.run(["aperture", path, "--f-number", "2"])
        #expect(stuck.status == 1)
        #expect(
            stuck.stderr.hasSuffix(
                " — the movie's media is intact: `cinepack edl clear` or `cinepack edl import --force` replaces the stored EDL\n"),
            "\(stuck.stderr)")
    }

    @Test func farmRefusalsNameTheOptions() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("part.mov")
        // Refused while the arguments are checked (usage follows the line, exit status 64).
        for (arguments, line) in [
            (["--shard", "5/4"], "--shard 5/4: expected K/N with 1 ≤ K ≤ N (e.g. 2/4)"),
            (["--frames", "3..3"], "--frames 3..3: expected A..B, program frames A up to (not including) B, 0 ≤ A < B (e.g. 0..60)"),
        ] {
            let result = try CLI.run(["render", path, "-o", out] + arguments)
            #expect(result.status == 64)
            #expect(result.stderr.hasPrefix("Error: \(line)\n"), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        for (arguments, line) in [
            (
                ["--frames", "10..99"],
                "--frames 10..99 is outside the program's frames 0..\(try RenderPlan(edits: MovieEdits.open(path: path)).outputFrames.upperBound)"
            ),
            (
                ["--codec", "h264", "--crf", "20", "--shard", "1/1"],
                "h264 rate control (--crf, --bitrate) looks across groups of pictures, so parts would not join into the one-process render; render farm parts with the default constant quantizer"
            ),
        ] {
            let result = try CLI.run(["render", path, "-o", out] + arguments)
            #expect(result.status == 1)
            #expect(result.stderr == "Error: \(line)\n", "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        let joined = dir.file("joined.mov")
        let notAPart = try CLI.run(["concat", "-o", joined, path])
        #expect(notAPart.status == 1)
        #expect(
            notAPart.stderr
                == "Error: \(path): not a cinepack render part (no moov/udta/cpRP record, spec/farm.md §2); parts come from `cinepack render --shard K/N` or `--frames A..B`\n",
            "\(notAPart.stderr)")
    }

    @Test func packInputRefusalsNameTheOptions() throws {
        let clip = try ClipFixture(frames: 3)
        for (arguments, line) in [
            (
                ["--frames", "none/%04d.png", "--disparity", ClipFixture.disparityPattern, "--disparity-range", "0:4"],
                "--frames: no file matches none/%04d.png (looked for none/0000.png and none/0001.png)"
            ),
            (
                ["--frames", "rgb/frame.png", "--disparity", ClipFixture.disparityPattern, "--disparity-range", "0:4"],
                "--frames pattern rgb/frame.png has no frame number placeholder such as %04d"
            ),
            (
                ["--frames", ClipFixture.framePattern, "--depth", "maps/%04d.exr"],
                "maps/%04d.exr: --depth: no file matches maps/%04d.exr (looked for maps/0000.exr and maps/0001.exr)"
            ),
        ] {
            let result = try clip.pack(arguments)
            #expect(result.status != 0)
            #expect(result.stderr.hasPrefix("Error: \(line)\n"), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: clip.output))
        }
    }

    @Test func exportSettingRefusalsNameTheOptions() throws {
        let (dir, path) = try Self.clip()
        let out = dir.file("out.mov")
        for (arguments, line) in [
            (
                ["--codec", "prores", "--crf", "20"],
                "--crf does not apply to --codec prores (ProRes 422 HQ, 10-bit 4:2:2); it applies to h264 and hevc"
            ),
            (["--codec", "png", "--pix-fmt", "rgb24"], "--pix-fmt does not apply to --codec png (PNG, 8-bit RGB); PNG output is RGB"),
            (["--codec", "h264", "--bitrate", "fast"], "--bitrate fast: expected a number with an optional k or M (20M, 8000k)"),
            (["--codec", "h264", "--crf", "60"], "--crf 60: expected 0…51"),
        ] {
            let result = try CLI.run(["render", path, "-o", out] + arguments)
            #expect(result.status == 1)
            #expect(result.stderr == "Error: \(line)\n", "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
