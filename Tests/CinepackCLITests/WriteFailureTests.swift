import Cinepack
import Foundation
import TestSupport
import Testing

/// Write failures through the real binary: an ffmpeg that fails, dies or writes an incomplete
/// movie, a full disk or an I/O error at chosen system calls (the LD_PRELOAD library of
/// `Tests/FaultInjection`). Each ends in a clear message and a non-zero status (never SIGPIPE's
/// 141), no partial file, and the input byte-identical.
@Suite struct WriteFailureTests {
    static func copyOfDemo(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("in.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: path)
        return path
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Files in `dir` other than those named: partial files, logs, outputs.
    static func extra(_ dir: TemporaryDirectory, keeping: Set<String>) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !keeping.contains($0) }
    }

    /// A stand-in for ffmpeg: a shell script (`body` runs with the output path as `$out`).
    static func fakeFFmpeg(_ dir: TemporaryDirectory, _ body: String) throws -> String {
        let path = dir.file("fake-ffmpeg")
        try "#!/bin/sh\nfor a in \"$@\"; do out=\"$a\"; done\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    @Test func ffmpegFailuresAreExplainedAndLeaveNothing() throws {
        let dir = try Paths.temporaryDirectory()
        let input = try Self.copyOfDemo(dir)
        let before = try Self.bytes(input)
        let cases: [(String, String, String)] = [
            // name, fake ffmpeg body, what the message must say
            ("exits at once", "echo 'Unknown encoder libx999' >&2; exit 1", "Unknown encoder libx999"),
            ("killed", "head -c 30000 >/dev/null; echo 'about to die' >&2; kill -9 $$", "killed by signal 9"),
            ("exit 0 without a movie", "cat >/dev/null; printf 'not a movie' > \"$out\"; exit 0", "would be incomplete"),
            ("exit 0 with a cut movie", "cat >/dev/null; head -c 20000 \(input) > \"$out\"; exit 0", "would be incomplete"),
        ]
        for (name, body, expected) in cases {
            let fake = try Self.fakeFFmpeg(dir, body)
            let result = try CLI.run(
                ["render", input, "-o", dir.file("out.mp4"), "--codec", "h264", "--quality", "preview"],
                environment: ["CINEPACK_FFMPEG": fake])
            #expect(result.status == 1, "\(name): status \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(name): \(result.stderr)")
            #expect(try Self.extra(dir, keeping: ["in.mov", "fake-ffmpeg"]).isEmpty, "\(name)")
            #expect(try Self.bytes(input) == before)
        }
        let falseResult = try CLI.run(
            ["render", input, "-o", dir.file("out.mp4"), "--codec", "h264"], environment: ["CINEPACK_FFMPEG": "/bin/false"])
        #expect(falseResult.status == 1, "\(falseResult.stderr)")
        #expect(falseResult.stderr.contains("ffmpeg stopped accepting frames"), "\(falseResult.stderr)")
        #expect(falseResult.stderr.contains("exited with status 1"), "\(falseResult.stderr)")
        let missing = try CLI.run(["render", input, "-o", dir.file("nodir/x.mp4"), "--codec", "h264"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("the folder \(dir.file("nodir")) does not exist"), "\(missing.stderr)")
        #expect(try Self.extra(dir, keeping: ["in.mov", "fake-ffmpeg"]).isEmpty)
    }

    /// The real ffmpeg on a "full disk": its own writes fail (the preload library is inherited).
    @Test func realFFmpegOnAFullDisk() throws {
        guard try Peers.available("ffmpeg") else { return }
        let dir = try Paths.temporaryDirectory()
        let input = try Self.copyOfDemo(dir)
        let before = try Self.bytes(input)
        for faults in [["FAULT_WRITE": "1+"], ["FAULT_WRITE": "3+"]] {
            let result = try CLI.run(
                ["render", input, "-o", dir.file("out.mp4"), "--codec", "h264", "--quality", "preview"],
                environment: try FaultInjection.environment(faults))
            #expect(result.status == 1, "\(faults): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("ffmpeg"), "\(faults): \(result.stderr)")
            #expect(result.stderr.contains("nothing written"), "\(faults): \(result.stderr)")
            #expect(try Self.extra(dir, keeping: ["in.mov"]).isEmpty, "\(faults)")
            #expect(try Self.bytes(input) == before)
        }
    }

    /// pack, render (PNG), concat, extract and an in-place edit, each with a write, sync, rename/link or
    /// directory-sync failure injected, on a full disk (ENOSPC) and a failing drive (EIO).
    @Test func diskFullAndIOErrorsLeaveNoPartialOutput() throws {
        let dir = try Paths.temporaryDirectory()
        let input = try Self.copyOfDemo(dir)
        let before = try Self.bytes(input)
        try FileManager.default.createDirectory(atPath: dir.file("f"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: true)
        for n in 1...2 {
            let name = String(format: "%04d.png", n)
            #expect(try CLI.run(["extract", input, "--at", "\(n)f", "-o", dir.file("f/\(name)")]).status == 0)
            #expect(
                try CLI.run(["extract", input, "--at", "\(n)f", "--track", "disparity", "--raw", "-o", dir.file("d/\(name)")]).status == 0)
        }
        // Two farm parts, for concat.
        for k in 1...2 {
            let part = try CLI.run([
                "render", input, "--shard", "\(k)/2", "-o", dir.file("p\(k).mov"), "--quality", "preview", "--range", "0f..4f",
            ])
            #expect(part.status == 0, "\(part.stderr)")
        }
        let out = dir.file("out")
        let commands: [(String, [String])] = [
            ("concat", ["concat", "-o", out, dir.file("p1.mov"), dir.file("p2.mov")]),
            (
                "pack",
                ["pack", "-o", out, "--frames", dir.file("f/%04d.png"), "--disparity", dir.file("d/%04d.png"), "--disparity-range", "0:4"]
            ),
            ("render", ["render", input, "-o", out, "--quality", "preview", "--range", "0f..3f"]),
            ("extract", ["extract", input, "--at", "2f", "-o", out]),
        ]
        let faults: [([String: String], String)] = [
            (["FAULT_WRITE": "1"], "write failed"), (["FAULT_WRITE": "2+"], "write failed"), (["FAULT_FSYNC": "1"], "sync failed"),
            (["FAULT_LINK": "1"], "link failed"), (["FAULT_PWRITE": "1"], "write failed"),
        ]
        for (name, arguments) in commands {
            for (fault, message) in faults {
                // extract writes its one small buffer with one write at commit: no second write, no pwrite.
                if name == "extract" && (fault["FAULT_PWRITE"] != nil || fault["FAULT_WRITE"] == "2+") { continue }
                // concat copies the parts' samples and writes its moov with write(2): no pwrite.
                if name == "concat" && fault["FAULT_PWRITE"] != nil { continue }
                for errno in ["ENOSPC", "EIO"] {
                    let result = try CLI.run(arguments, environment: try FaultInjection.environment(fault, errno: errno))
                    defer { try? FileManager.default.removeItem(atPath: out) }
                    #expect(result.status == 1, "\(name) \(fault) \(errno): \(result.status) \(result.stdout) \(result.stderr)")
                    #expect(result.stderr.contains(message), "\(name) \(fault): \(result.stderr)")
                    #expect(result.stderr.contains("nothing written"), "\(name) \(fault): \(result.stderr)")
                    #expect(!FileManager.default.fileExists(atPath: out), "\(name) \(fault)")
                    #expect(try Self.extra(dir, keeping: ["in.mov", "f", "d", "p1.mov", "p2.mov"]).isEmpty, "\(name) \(fault)")
                }
            }
            // A failed folder sync comes after the rename: the file is there, and the failure is reported.
            let synced = try CLI.run(arguments, environment: try FaultInjection.environment(["FAULT_FSYNC": "2"], errno: "EIO"))
            #expect(synced.status == 1, "\(name): \(synced.stderr)")
            #expect(synced.stderr.contains("syncing its folder failed"), "\(name): \(synced.stderr)")
            try? FileManager.default.removeItem(atPath: out)
        }
        #expect(try Self.bytes(input) == before)

        // In-place edit: the slot write (pwrite) or its fsync fails; the slot is put back.
        for fault in [["FAULT_PWRITE": "1"], ["FAULT_FSYNC": "1"]] {
            let result = try CLI.run(["aperture", input, "--f-number", "2"], environment: try FaultInjection.environment(fault))
            #expect(result.status == 1, "aperture \(fault): \(result.stderr)")
            #expect(result.stderr.contains("the file is unchanged"), "aperture \(fault): \(result.stderr)")
            #expect(try Self.bytes(input) == before, "aperture \(fault)")
        }
        // In-place edit of a movie without slots: the whole-file rewrite fails at write, sync or rename.
        let plain = dir.file("plain.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: plain)
        try Self.stripSlots(plain)
        let plainBefore = try Self.bytes(plain)
        for fault in [["FAULT_WRITE": "1"], ["FAULT_FSYNC": "1"], ["FAULT_RENAME": "1"]] {
            let result = try CLI.run(["aperture", plain, "--f-number", "2"], environment: try FaultInjection.environment(fault))
            #expect(result.status == 1, "rewrite \(fault): \(result.stderr)")
            #expect(try Self.bytes(plain) == plainBefore, "rewrite \(fault)")
            #expect(try Self.extra(dir, keeping: ["in.mov", "f", "d", "p1.mov", "p2.mov", "plain.mov"]).isEmpty, "rewrite \(fault)")
        }
    }

    /// Turns `moov/udta/cpED` into a `free` box of the same size: a cinematic movie with no EDL
    /// slots, as another tool might leave it; its first edit rewrites the whole file.
    static func stripSlots(_ path: String) throws {
        let store = try EDLStore(path: path)
        let offset = Int(store.layout!.containerOffset)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(offset + 4))
        try handle.write(contentsOf: Data("free".utf8))
        try handle.close()
    }
}
