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
}
