import Cinepack
import Foundation
import TestSupport
import Testing

/// `render --colour-space` through the real binary: a BT.2020 PQ 10-bit source with colour
/// patches (in and out of BT.709's gamut) converted to BT.709 gives what ffmpeg's `zscale` (zimg)
/// makes of the same pictures, and the output is tagged BT.709.
@Suite(.enabled(if: Peers.shouldRun("ffmpeg"), Peers.skipNote("ffmpeg")))
struct ColourSpaceRenderTests {
    static var hasZscale: Bool {
        (try? Peers.run("ffmpeg", ["-hide_banner", "-filters"]).text.contains(" zscale ")) ?? false
    }

    /// Six 32×32 patches: three inside BT.709's gamut, a saturated BT.2020 green and red far
    /// outside it, and a grey.
    static let patches = [
        "color=c=0x707070:size=96x64:rate=24",
        "drawbox=x=0:y=0:w=32:h=32:color=0x806050:t=fill", "drawbox=x=32:y=0:w=32:h=32:color=0x507060:t=fill",
        "drawbox=x=64:y=0:w=32:h=32:color=0x606088:t=fill", "drawbox=x=0:y=32:w=32:h=32:color=0x10E010:t=fill",
        "drawbox=x=32:y=32:w=32:h=32:color=0xD02010:t=fill", "drawbox=x=64:y=32:w=32:h=32:color=0xB0B0B0:t=fill",
    ].joined(separator: ",")

    @Test func bt2020PQToBT709MatchesZimgAndIsTagged() throws {
        let dir = try Paths.temporaryDirectory("colour-space")
        var source = ProVideoTests.Source.pq
        source.name = "patches"
        source.picture = Self.patches
        let (plain, cinematic) = try ProVideoTests.make(source, in: dir, frames: 2)
        try ProVideoTests.focusEverywhere(cinematic)

        let out = dir.file("bt709.mov")
        let result = try CLI.run(["render", cinematic, "-o", out, "--codec", "png16", "--colour-space", "bt709"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try ProVideoTests.probe(out)
        #expect(probe["color_primaries"] == "bt709" && probe["color_transfer"] == "smpte2084", "\(probe)")

        // The expected picture: the source's RGB (zimg's YCbCr → RGB, the standard's, what cinepack
        // decodes) converted by zimg from BT.2020 to BT.709 primaries, PQ both sides.
        guard Self.hasZscale else {
            #expect(!Peers.isCI, "ffmpeg has no zscale filter (libzimg): the comparison with zimg cannot run")
            return
        }
        let expected = try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-i", plain, "-frames:v", "1", "-vf",
                ProVideoTests.zimgToRGB48 + ","
                    + "zscale=primariesin=bt2020:transferin=smpte2084:matrixin=gbr:rangein=full:primaries=bt709:transfer=smpte2084:"
                    + "matrix=gbr:range=full:npl=10000,format=rgb48le",
                "-f", "rawvideo", "-pix_fmt", "rgb48le", "-",
            ]
        ).stdout
        let rendered = try Peers.run(
            "ffmpeg", ["-v", "error", "-i", out, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb48le", "-"]
        ).stdout
        func samples(_ data: Data) -> [Int] { stride(from: 0, to: data.count - 1, by: 2).map { Int(data[$0]) | Int(data[$0 + 1]) << 8 } }
        let a = samples(expected), b = samples(rendered)
        #expect(a.count == 96 * 64 * 3 && b.count == a.count)
        // Within one code value at the source's 10 bits (64 at 16 bits), over the whole frame.
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? .max
        #expect(worst <= 64, "a sample is \(Double(worst) / 64) 10-bit codes from zimg's conversion")
        // The saturated green is outside BT.709: its red and blue clip to 0 in both.
        let green = (48 * 96 + 16) * 3
        #expect(b[green] == 0 && b[green + 2] == 0 && a[green] == 0, "\(b[green...(green + 2)])")
        // The in-gamut patches changed (a real conversion), the grey did not.
        let inside = (16 * 96 + 16) * 3, grey = (48 * 96 + 80) * 3
        let before = samples(
            try Peers.run(
                "ffmpeg",
                [
                    "-v", "error", "-i", plain, "-frames:v", "1", "-vf", ProVideoTests.zimgToRGB48,
                    "-f", "rawvideo", "-pix_fmt", "rgb48le", "-",
                ]
            ).stdout)
        #expect(abs(before[inside] - b[inside]) > 640, "the patch moved by \(abs(before[inside] - b[inside])) of 65535")
        #expect((0..<3).allSatisfy { abs(before[grey + $0] - b[grey + $0]) <= 64 })
    }

    @Test func yCbCrOutputsCarryTheNewPrimariesAndTheirMatrix() throws {
        let dir = try Paths.temporaryDirectory("colour-space-prores")
        let (_, cinematic) = try ProVideoTests.make(.hlg, in: dir, frames: 2)
        let out = dir.file("p3.mov")
        let result = try CLI.run(["render", cinematic, "-o", out, "--codec", "prores", "--colour-space", "p3d65"])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try ProVideoTests.probe(out)
        #expect(probe["color_primaries"] == "smpte432" && probe["color_space"] == "bt709", "\(probe)")
        #expect(probe["color_transfer"] == "arib-std-b67", "the transfer is kept: \(probe)")
        let h264 = dir.file("709.mov")
        let r2 = try CLI.run(["render", cinematic, "-o", h264, "--codec", "h264", "--colour-space", "bt709", "--preset", "ultrafast"])
        #expect(r2.status == 0, "\(r2.stderr)")
        let p2 = try ProVideoTests.probe(h264)
        #expect(p2["color_primaries"] == "bt709" && p2["color_space"] == "bt709", "\(p2)")
        // The H.264 VUI itself (not only the container's colr), as ffmpeg's bitstream tracer reads it.
        let trace = try Peers.run("ffmpeg", ["-v", "debug", "-i", h264, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"]).stderr
        func vui(_ field: String) -> Int? {
            trace.split(separator: "\n").first { $0.contains(" \(field) ") }.flatMap { $0.split(separator: "=").last }
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        #expect(vui("colour_primaries") == 1 && vui("matrix_coefficients") == 1 && vui("transfer_characteristics") == 18)

        let bad = try CLI.run(["render", cinematic, "-o", dir.file("bad.mov"), "--colour-space", "rec709"])
        #expect(bad.status != 0 && bad.stderr.contains("--colour-space must be one of bt709, bt2020, p3d65"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("bad.mov")))
    }

    /// Sources whose primaries cannot be converted: the exact lines users see, and nothing written.
    @Test func unconvertiblePrimariesAreRefusedNamingTheOption() throws {
        let dir = try Paths.temporaryDirectory("colour-space-refusals")
        for (primaries, line) in [
            (
                "jedec-p22",
                "colour primaries 22 (jedec-p22) cannot be converted: --colour-space converts from BT.709, BT.601, BT.2020 and Display P3 primaries (spec/colour.md §5)"
            ),
            (
                "smpte431",
                "colour primaries 11 (smpte431) have a white point other than D65; --colour-space converts only between D65 colour spaces (spec/colour.md §5)"
            ),
        ] {
            var source = ProVideoTests.Source.h264
            source.name = primaries
            source.primaries = primaries
            let (_, cinematic) = try ProVideoTests.make(source, in: dir, frames: 2)
            let before = try Data(contentsOf: URL(fileURLWithPath: cinematic))
            let out = dir.file("\(primaries)-out.mov")
            let result = try CLI.run(["render", cinematic, "-o", out, "--colour-space", "bt709"])
            #expect(result.status == 1)
            #expect(result.stderr == "Error: \(cinematic): --colour-space bt709: \(line)\n", "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
            #expect(try Data(contentsOf: URL(fileURLWithPath: cinematic)) == before)
        }
    }
}
