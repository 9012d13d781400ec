import Cinepack
import Foundation
import TestSupport
import Testing

/// SIGINT, SIGTERM and SIGHUP during `demo`, `render` and `pack` remove the hidden partial file
/// and the command dies of that signal; an existing output of the same name is untouched.
@Suite struct InterruptTests {
    /// Starts `arguments`, waits until a partial file exists in `dir`, sends `signal`, and returns
    /// how the process ended.
    static func interrupt(_ arguments: [String], in dir: TemporaryDirectory, signal: Int32) throws -> (Process.TerminationReason, Int32) {
        let process = Process()
        // A test runner may start children with these signals blocked or ignored; python resets
        // them to what a shell gives a command, then becomes cinepack (same process id).
        process.executableURL = URL(fileURLWithPath: try Peers.require("python3"))
        process.arguments =
            [
                "-c",
                "import os, signal, sys; s = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}; "
                    + "signal.pthread_sigmask(signal.SIG_UNBLOCK, s); [signal.signal(n, signal.SIG_DFL) for n in s]; "
                    + "os.execv(sys.argv[1], sys.argv[1:])",
                Paths.cinepackBinary,
            ] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning, try partials(dir).isEmpty { usleep(5_000) }
        #expect(process.isRunning, "\(arguments[0]) ended before it could be interrupted")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus)
    }

    static func partials(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".partial") }
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func demoRemovesItsPartialFile(signal: Int32) throws {
        let dir = try Paths.temporaryDirectory()
        let output = dir.file("demo.mov")
        let old = Data("existing\n".utf8)
        try old.write(to: URL(fileURLWithPath: output))
        let (reason, status) = try Self.interrupt(
            ["demo", "-o", output, "--seconds", "60", "--size", "640x360", "-y"], in: dir, signal: signal)
        #expect(reason == .uncaughtSignal && status == signal, "ended with \(reason) \(status)")
        #expect(try Self.partials(dir).isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == old)
    }

    @Test func renderAndPackRemoveTheirPartialFiles() throws {
        let dir = try Paths.temporaryDirectory()
        let input = dir.file("in.mov")
        #expect(try CLI.run(["demo", "-o", input, "--seconds", "1", "--size", "320x180"]).status == 0)
        let (reason, status) = try Self.interrupt(["render", input, "-o", dir.file("out.mov")], in: dir, signal: SIGTERM)
        #expect(reason == .uncaughtSignal && status == SIGTERM, "render ended with \(reason) \(status)")
        #expect(try Self.partials(dir).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mov")))

        if try Peers.available("ffmpeg") {
            let (ffReason, ffStatus) = try Self.interrupt(
                ["render", input, "-o", dir.file("out.mp4"), "--codec", "h264"], in: dir, signal: SIGHUP)
            #expect(ffReason == .uncaughtSignal && ffStatus == SIGHUP, "render h264 ended with \(ffReason) \(ffStatus)")
            usleep(200_000)  // ffmpeg, told to stop, lets go of the file it was writing
            #expect(try Self.partials(dir).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
        }

        // pack: 200 copies of one picture and one map, so it runs long enough to be interrupted.
        for folder in ["f", "d"] { try FileManager.default.createDirectory(atPath: dir.file(folder), withIntermediateDirectories: true) }
        #expect(try CLI.run(["extract", input, "--at", "0f", "-o", dir.file("f/0001.png")]).status == 0)
        #expect(try CLI.run(["extract", input, "--at", "0f", "--track", "disparity", "--raw", "-o", dir.file("d/0001.png")]).status == 0)
        for n in 2...200 {
            for folder in ["f", "d"] {
                try FileManager.default.copyItem(
                    atPath: dir.file("\(folder)/0001.png"), toPath: dir.file(String(format: "\(folder)/%04d.png", n)))
            }
        }
        let (packReason, packStatus) = try Self.interrupt(
            [
                "pack", "-o", dir.file("packed.mov"), "--frames", dir.file("f/%04d.png"), "--disparity", dir.file("d/%04d.png"),
                "--disparity-range", "0:4",
            ],
            in: dir, signal: SIGINT)
        #expect(packReason == .uncaughtSignal && packStatus == SIGINT, "pack ended with \(packReason) \(packStatus)")
        #expect(try Self.partials(dir).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("packed.mov")))
    }
}
