import Cinepack
import Foundation
import TestSupport
import Testing

/// No writing command writes over one of its inputs (directly, through a symbolic link or a hard
/// link) or over an existing file without `--force`/`-y`, and a read-only file stays refused even
/// with `--force` and even for root. Every refusal leaves the files byte-identical.
@Suite struct OutputSafetyTests {
    /// A directory with the small demo movie as `in.mov` and a two-frame PNG sequence made from
    /// it (`f/0001.png`, `d/0001.png`: picture and 16-bit disparity) for `pack`.
    static func workspace() throws -> TemporaryDirectory {
        let dir = try Paths.temporaryDirectory()
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: dir.file("in.mov"))
        try FileManager.default.createDirectory(atPath: dir.file("f"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: true)
        for n in 1...2 {
            let name = String(format: "%04d.png", n)
            #expect(try CLI.run(["extract", dir.file("in.mov"), "--at", "\(n)f", "-o", dir.file("f/\(name)")]).status == 0)
            let depth = try CLI.run([
                "extract", dir.file("in.mov"), "--at", "\(n)f", "--track", "disparity", "--raw", "-o", dir.file("d/\(name)"),
            ])
            #expect(depth.status == 0, "\(depth.stderr)")
        }
        return dir
    }

    /// Every writing command, writing to `output`, reading `in.mov` (pack: the PNG sequences).
    static func commands(_ dir: TemporaryDirectory, output: String) -> [(name: String, arguments: [String])] {
        let input = dir.file("in.mov")
        return [
            ("render", ["render", input, "-o", output, "--quality", "preview"]),
            ("render --at", ["render", input, "--at", "0f", "-o", output]),
            ("extract", ["extract", input, "--at", "0f", "-o", output]),
            ("plot", ["plot", input, "-o", output]),
            ("export-timeline", ["export-timeline", input, "--format", "otio", "-o", output]),
            ("edl export", ["edl", "export", input, "-o", output]),
            (
                "pack",
                [
                    "pack", "-o", output, "--frames", dir.file("f/%04d.png"), "--disparity", dir.file("d/%04d.png"),
                    "--disparity-range", "0:4",
                ]
            ),
        ]
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func leftovers(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".partial") }
    }

    @Test func outputThatIsAnInputIsRefusedDirectlyThroughSymlinkAndHardLink() throws {
        let dir = try Self.workspace()
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.mov"), withDestinationPath: "in.mov")
        try FileManager.default.linkItem(atPath: dir.file("in.mov"), toPath: dir.file("hard.mov"))
        let frame = dir.file("f/0001.png")
        try FileManager.default.createSymbolicLink(atPath: dir.file("frame-link.png"), withDestinationPath: frame)
        try FileManager.default.linkItem(atPath: frame, toPath: dir.file("frame-hard.png"))
        let movie = try Self.bytes(dir.file("in.mov"))
        let picture = try Self.bytes(frame)
        for (how, movieAlias, frameAlias) in [
            ("directly", dir.file("in.mov"), frame), ("symlink", dir.file("link.mov"), dir.file("frame-link.png")),
            ("hard link", dir.file("hard.mov"), dir.file("frame-hard.png")),
        ] {
            for (name, arguments) in Self.commands(dir, output: movieAlias) where name != "pack" {
                for force in [false, true] {
                    let result = try CLI.run(arguments + (force ? ["--force"] : []))
                    #expect(result.status == 1, "\(name) \(how): \(result.stderr)")
                    #expect(result.stderr.contains("refusing to write \(movieAlias)"), "\(name) \(how): \(result.stderr)")
                    #expect(result.stderr.contains("in.mov"), "\(name) \(how): \(result.stderr)")
                    #expect(try Self.bytes(dir.file("in.mov")) == movie, "\(name) \(how)")
                }
            }
            let pack = Self.commands(dir, output: frameAlias).first { $0.name == "pack" }!.arguments
            let result = try CLI.run(pack + ["-y"])
            #expect(result.status == 1, "pack \(how): \(result.stderr)")
            #expect(result.stderr.contains("refusing to write \(frameAlias)"), "pack \(how): \(result.stderr)")
            #expect(try Self.bytes(frame) == picture, "pack \(how)")
        }
        // pack carrying the video of the very file it would write.
        let carried = try CLI.run(
            [
                "pack", "-o", dir.file("in.mov"), "--video", dir.file("in.mov"), "--disparity", dir.file("d/%04d.png"), "--disparity-range",
                "0:4", "-y",
            ])
        #expect(carried.status == 1 && carried.stderr.contains("it is also an input"), "\(carried.stderr)")
        #expect(try Self.bytes(dir.file("in.mov")) == movie)
        // The hard link is named for what it is.
        let hard = try CLI.run(["plot", dir.file("in.mov"), "-o", dir.file("hard.mov"), "-y"])
        #expect(hard.stderr.contains("hard link"), "\(hard.stderr)")
        #expect(try Self.leftovers(dir).isEmpty)
    }

    @Test func existingOutputNeedsForceAndIsThenReplaced() throws {
        let dir = try Self.workspace()
        let output = dir.file("out.bin")
        var all = Self.commands(dir, output: output)
        all.append(("demo", ["demo", "-o", output, "--seconds", "0.5", "--size", "128x72"]))
        for (name, arguments) in all {
            let old = Data("an existing file that must survive\n".utf8)
            try old.write(to: URL(fileURLWithPath: output))
            let refused = try CLI.run(arguments)
            #expect(refused.status == 1, "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("already exists"), "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("--force"), "\(name): \(refused.stderr)")
            #expect(try Self.bytes(output) == old, "\(name)")
            for flag in ["--force", "-y"] {
                try old.write(to: URL(fileURLWithPath: output))
                let forced = try CLI.run(arguments + [flag])
                #expect(forced.status == 0, "\(name) \(flag): \(forced.stderr)")
                #expect(try Self.bytes(output) != old, "\(name) \(flag)")
            }
            try FileManager.default.removeItem(atPath: output)
        }
        #expect(try Self.leftovers(dir).isEmpty)
    }

    /// Checked on the mode bits, so this holds for root too.
    @Test func readOnlyOutputIsRefusedEvenWithForce() throws {
        let dir = try Self.workspace()
        let output = dir.file("locked.svg")
        let old = Data("read-only\n".utf8)
        try old.write(to: URL(fileURLWithPath: output))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: output)
        let result = try CLI.run(["plot", dir.file("in.mov"), "-o", output, "--force"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is not writable (mode r--r--r--)"), "\(result.stderr)")
        #expect(try Self.bytes(output) == old)
    }

    /// The library gives the same typed refusals.
    @Test func libraryTargetsRefuseWithTypedErrors() throws {
        let dir = try Self.workspace()
        let input = dir.file("in.mov")
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.mov"), withDestinationPath: "in.mov")
        #expect(throws: OutputError.isInput(output: dir.file("link.mov"), input: input, identity: .symbolicLink)) {
            try OutputTarget(path: dir.file("link.mov"), inputs: [input], overwrite: true).validate()
        }
        #expect(throws: OutputError.exists(path: input)) { try OutputTarget(path: input).validate() }
        #expect(throws: OutputError.noDirectory(path: dir.file("none/x.mov"), directory: dir.file("none"))) {
            try OutputTarget(path: dir.file("none/x.mov")).validate()
        }
        do {
            _ = try CinematicWriter(
                target: OutputTarget(path: input),
                configuration: CinematicWriterConfiguration(
                    video: .encoded(.png, width: 64, height: 64, rate: FrameRate(frames: 30, per: 1)!), disparity: nil))
            Issue.record("an existing output was accepted")
        } catch {
            #expect(error.output == .exists(path: input))
        }
    }
}
