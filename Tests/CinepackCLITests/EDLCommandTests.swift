import Cinepack
import Foundation
import TestSupport
import Testing

/// `cinepack edl …`, `aperture`, `undo` and `export-timeline` through the real binary: the
/// movie's media bytes never change, hostile or foreign sidecars leave it byte-identical.
@Suite struct EDLCommandTests {
    /// A small demo movie in a fresh directory.
    static func movie() throws -> (TemporaryDirectory, String) {
        let dir = try Paths.temporaryDirectory()
        let path = dir.file("clip.mov")
        let made = try CLI.run(["demo", "-o", path, "--seconds", "1", "--size", "160x90"])
        #expect(made.status == 0, "\(made.stderr)")
        return (dir, path)
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Hash of everything outside the EDL slots: the media and all other boxes.
    static func outsideSlots(_ path: String) throws -> Data {
        let data = try bytes(path)
        let store = try EDLStore(path: path)
        var kept = Data()
        var cursor = 0
        for slot in store.layout?.slots ?? [] {
            kept += data[cursor..<Int(slot.recordOffset)]
            cursor = Int(slot.recordOffset) + slot.capacity
        }
        return kept + data[cursor...]
    }

    @Test func importExportRoundTripTouchesOnlyTheSlots() throws {
        let (dir, path) = try Self.movie()
        let before = try Self.outsideSlots(path)
        let exported = try CLI.run(["edl", "export", path])
        #expect(exported.status == 0)
        let edl = try EditDecisionList.parse(Array(exported.stdout.utf8), source: "export")
        #expect(edl.decisions.isEmpty && edl.media != nil)

        var edited = edl
        edited.fNumber = 2.8
        edited.decisions = [UserDecision(time: MediaTime(value: 1, timescale: 2), frame: 15, target: .detection(4), strength: .strong)]
        let sidecar = dir.file("edits.xml")
        try Data(edited.xmlData()).write(to: URL(fileURLWithPath: sidecar))
        #expect(try CLI.run(["edl", "validate", sidecar]).status == 0)
        let imported = try CLI.run(["edl", "import", path, sidecar, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains(#""method":"in-place""#))
        #expect(try Self.outsideSlots(path) == before)
        let again = try CLI.run(["edl", "export", path])
        #expect(again.stdout == String(decoding: edited.xmlData(), as: UTF8.self))

        #expect(try CLI.run(["edl", "clear", path]).status == 0)
        let cleared = try EditDecisionList.parse(Array(try CLI.run(["edl", "export", path]).stdout.utf8), source: "cleared")
        #expect(cleared.decisions.isEmpty && cleared.fNumber == nil)
        #expect(try Self.outsideSlots(path) == before)
    }

    @Test(arguments: ["billion-laughs.xml", "xxe-local-file.xml", "doctype.xml", "undefined-entity.xml", "bad-utf8.xml"])
    func hostileSidecarLeavesTheMovieByteIdentical(_ name: String) throws {
        let (dir, path) = try Self.movie()
        defer { withExtendedLifetime(dir) {} }
        let before = try Self.bytes(path)
        let result = try CLI.run(["edl", "import", path, Paths.corpus("edl/invalid/\(name)")])
        #expect(result.status == 1)
        #expect(result.stderr.contains(name))
        #expect(!result.stderr.contains("root:"), "local file content leaked")
        #expect(try Self.bytes(path) == before)
    }

    @Test func sidecarForOtherMediaIsRefusedUnlessForced() throws {
        let (dir, path) = try Self.movie()
        var other = EditDecisionList()
        other.media = MediaBinding(frameCount: 30, frameRate: FrameRate(frames: 30, per: 1)!, fingerprint: "0123456789abcdef")
        other.fNumber = 2
        let sidecar = dir.file("other.xml")
        try Data(other.xmlData()).write(to: URL(fileURLWithPath: sidecar))
        let before = try Self.bytes(path)
        let refused = try CLI.run(["edl", "import", path, sidecar])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("was made for other media"))
        #expect(refused.stderr.contains("--force"))
        #expect(try Self.bytes(path) == before)
        let forced = try CLI.run(["edl", "import", path, sidecar, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
    }

    @Test func validateReportsLineAndColumn() throws {
        let dir = try Paths.temporaryDirectory()
        let bad = dir.file("bad.xml")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <edl xmlns="urn:cinepack:edl:1" version="1">
              <aperture f-number="-2"/>
            </edl>

            """.utf8
        ).write(to: URL(fileURLWithPath: bad))
        let result = try CLI.run(["edl", "validate", bad])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.xml:3:"), "\(result.stderr)")
    }

    @Test func apertureClampsAndUndoRestores() throws {
        let (dir, path) = try Self.movie()
        defer { withExtendedLifetime(dir) {} }
        let set = try CLI.run(["aperture", path, "--f-number", "0.5"])
        #expect(set.status == 0)
        #expect(set.stdout.contains("clamped"))
        #expect(set.stdout.contains("f/1.4"))
        let dry = try CLI.run(["aperture", path, "--f-number", "8", "--dry-run"])
        #expect(dry.stdout.contains("would set f/8"))
        #expect(try EditDecisionList.parse(Array(try CLI.run(["edl", "export", path]).stdout.utf8), source: "x").fNumber == 1.4)
        #expect(try CLI.run(["undo", path]).status == 0)
        #expect(try EditDecisionList.parse(Array(try CLI.run(["edl", "export", path]).stdout.utf8), source: "x").fNumber == nil)
        let nothing = try CLI.run(["undo", path])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("nothing to undo"))
    }

    @Test func timelineExportLoadsInOpenTimelineIO() throws {
        guard try Peers.available("python3") else { return }
        let (dir, path) = try Self.movie()
        #expect(try CLI.run(["aperture", path, "--f-number", "2.8"]).status == 0)
        let otio = dir.file("clip.otio")
        let result = try CLI.run(["export-timeline", path, "--format", "otio", "-o", otio])
        #expect(result.status == 0, "\(result.stderr)")
        let script = """
            import sys, opentimelineio as otio
            t = otio.adapters.read_from_file(sys.argv[1])
            clip = t.tracks[0][0]
            print(len(clip.markers), clip.effects[0].effect_name, clip.effects[0].metadata["f_number"])
            """
        let out = try Peers.run("python3", ["-c", script, otio])
        let fields = out.text.split(separator: " ").map(String.init)
        #expect(fields.count == 3)
        #expect(Int(fields[0]) ?? 0 >= 1)
        #expect(fields[1] == "cinepack.Cinematic")
        #expect(Double(fields[2].trimmingCharacters(in: .whitespacesAndNewlines)) == 2.8)
    }
}
