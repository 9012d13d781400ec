import Cinepack
import Foundation
import TestSupport
import Testing

/// Editing commands refuse what the reader refuses, never edit a read-only movie (root
/// included), and can always replace a stored EDL that cannot be read.
@Suite struct EditSafetyTests {
    static func movie() throws -> (TemporaryDirectory, String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        try FileManager.default.copyItem(atPath: Paths.corpus("cinematic/demo-small.mov"), toPath: path)
        return (dir, path)
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// ffmpeg's stream copy drops the brand, the `cpdq` box and the keys: no longer cinematic.
    @Test func remuxedCopyIsNotEdited() throws {
        guard try Peers.available("ffmpeg") else { return }
        let (dir, path) = try Self.movie()
        let remux = dir.file("remux.mov")
        try Peers.run("ffmpeg", ["-v", "error", "-y", "-i", path, "-map", "0", "-c", "copy", remux])
        let before = try Self.bytes(remux)
        for arguments in [
            ["aperture", remux, "--f-number", "2"], ["focus", remux, "--at", "0s"], ["refocus", remux, "--at", "0s", "--disparity", "1"],
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 1, "\(arguments[0]): \(result.stdout)")
            #expect(result.stderr.contains("not a cinematic movie"), "\(arguments[0]): \(result.stderr)")
            #expect(!result.stdout.contains("fixed 0.0 D"))
        }
        #expect(try Self.bytes(remux) == before)
    }

    /// A movie with `moov` first, cut inside `mdat`: `inspect` rejects it, `aperture` must not touch it.
    @Test func truncatedMoovFirstMovieIsNotEdited() throws {
        let (dir, path) = try Self.movie()
        let first = dir.file("first.mov")
        try Self.moovFirst(path, to: first)
        #expect(try CLI.run(["inspect", first]).status == 0)
        let data = try Self.bytes(first)
        let cut = dir.file("cut.mov")
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let before = try Self.bytes(cut)
        #expect(try CLI.run(["inspect", cut]).status == 1)
        let result = try CLI.run(["aperture", cut, "--f-number", "2"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("past the end of the file"), "\(result.stderr)")
        #expect(try Self.bytes(cut) == before)
    }

    @Test func readOnlyMovieIsNotEditedEvenByRoot() throws {
        let (dir, path) = try Self.movie()
        defer { withExtendedLifetime(dir) {} }
        let before = try Self.bytes(path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        for arguments in [["aperture", path, "--f-number", "2"], ["edl", "clear", path]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stdout)")
            #expect(result.stderr.contains("is not writable (mode r--r--r--); nothing written"), "\(result.stderr)")
        }
        #expect(try Self.bytes(path) == before)
    }

    @Test func unreadableStoredEDLIsReplacedByClearOrForcedImport() throws {
        let (dir, path) = try Self.movie()
        let sidecar = dir.file("edits.xml")
        #expect(try CLI.run(["edl", "export", path, "-o", sidecar]).status == 0)
        var store = try EDLStore(path: path)
        try store.update(text: "<edl xmlns=\"urn:cinepack:edl:1\" version=\"1\"><broken")
        let stuck = try CLI.run(["undo", path])
        #expect(stuck.status == 1)
        #expect(stuck.stderr.contains("cinepack edl clear"), "\(stuck.stderr)")
        let plain = try CLI.run(["edl", "import", path, sidecar])
        #expect(plain.status == 1)
        let forced = try CLI.run(["edl", "import", path, sidecar, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stderr.contains("the stored EDL cannot be read"), "\(forced.stderr)")
        #expect(try CLI.run(["decisions", path]).status == 0)

        try store.update(text: "<not-xml")
        let cleared = try CLI.run(["edl", "clear", path])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(try CLI.run(["aperture", path, "--f-number", "2"]).status == 0)
    }

    /// Rewrites `path` as ftyp, moov, wide, mdat with every chunk offset moved by the moov's size.
    static func moovFirst(_ path: String, to output: String) throws {
        let data = try Self.bytes(path)
        var boxes: [(String, Data)] = []
        var offset = 0
        while offset + 8 <= data.count {
            let size = Int(data[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) })
            boxes.append((String(decoding: data[offset + 4..<offset + 8], as: UTF8.self), data[offset..<offset + size]))
            offset += size
        }
        let named = Dictionary(boxes, uniquingKeysWith: { a, _ in a })
        var moov = [UInt8](named["moov"]!)
        let shift = UInt32(moov.count)
        var i = 0
        while i + 16 <= moov.count {
            if moov[i..<i + 4] == [0x73, 0x74, 0x63, 0x6F] {  // 'stco'
                let count = Int(moov[i + 8..<i + 12].reduce(0) { $0 << 8 | UInt32($1) })
                for k in 0..<count {
                    let p = i + 12 + 4 * k
                    let value = moov[p..<p + 4].reduce(0) { $0 << 8 | UInt32($1) } + shift
                    moov[p..<p + 4] = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
                }
            }
            i += 1
        }
        let result = named["ftyp"]! + Data(moov) + named["wide"]! + named["mdat"]!
        try result.write(to: URL(fileURLWithPath: output))
    }
}
