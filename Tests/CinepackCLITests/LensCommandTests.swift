import Cinepack
import Foundation
import TestSupport
import Testing

/// `cinepack lens --cat-eye` and `render --cat-eye` through the real binary (spec/render.md §5):
/// stored in the EDL, used by a later render, overridden for one render, refused out of range.
@Suite struct LensCommandTests {
    static func pixels(_ path: String) throws -> PixelImage {
        try PNGDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// Mean absolute difference of two stills over the pixels `inside` selects.
    static func difference(_ a: PixelImage, _ b: PixelImage, _ inside: (Int, Int) -> Bool) -> Double {
        var total = 0.0
        var count = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width where inside(x, y) {
                for c in 0..<3 {
                    total += abs(Double(a.sample(x: x, y: y, channel: c)) - Double(b.sample(x: x, y: y, channel: c)))
                    count += 1
                }
            }
        }
        return total / max(count, 1)
    }

    @Test func catEyeIsStoredRenderedOverriddenAndChecked() throws {
        let (dir, path) = try RenderCommandTests.clip(size: "320x180")
        let plainClip = dir.file("plain.mov")
        try FileManager.default.copyItem(atPath: path, toPath: plainClip)
        let set = try CLI.run(["lens", path, "--cat-eye", "0.8", "--json"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains(#""cat_eye":0.8"#), "\(set.stdout)")
        let exported = try CLI.run(["edl", "export", path])
        #expect(exported.stdout.contains(#"cat-eye="0.8""#), "\(exported.stdout)")
        let text = try CLI.run(["lens", path, "--cat-eye", "0.8", "--dry-run"])
        #expect(text.stdout.contains("cat's eye 0.8"), "\(text.stdout)")

        let render = ["--at", "0.2s", "--f-number", "1.4", "--focal-length", "80"]
        let stored = dir.file("stored.png"), given = dir.file("given.png"), off = dir.file("off.png"), plain = dir.file("plain.png")
        #expect(try CLI.run(["render", path, "-o", stored] + render).status == 0)
        #expect(try CLI.run(["render", plainClip, "-o", given, "--cat-eye", "0.8"] + render).status == 0)
        #expect(try CLI.run(["render", path, "-o", off, "--cat-eye", "0"] + render).status == 0)
        #expect(try CLI.run(["render", plainClip, "-o", plain] + render).status == 0)
        // The stored look renders as the same look given as an option; 0 is no cat's eye at all.
        #expect(try Self.pixels(stored) == Self.pixels(given))
        #expect(try Self.pixels(off) == Self.pixels(plain))
        // The clipping grows toward the corners: the blurred wall changes more there than near
        // the middle of the top edge.
        let a = try Self.pixels(stored), b = try Self.pixels(plain)
        let corners = Self.difference(a, b) { x, y in y < 20 && (x < 40 || x >= 280) }
        let middle = Self.difference(a, b) { x, y in y < 20 && x >= 140 && x < 180 }
        #expect(corners > 0.5 && corners > 1.5 * middle, "corners \(corners), middle of the top edge \(middle)")

        // Out of range: refused, naming the option and its range; the movie and outputs untouched.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let refused = try CLI.run(["lens", path, "--cat-eye", "1.5"])
        #expect(refused.status != 0 && refused.stderr.contains("--cat-eye must be 0…1 (got 1.5)"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let bad = dir.file("bad.png")
        let badRender = try CLI.run(["render", path, "-o", bad, "--cat-eye", "2"] + render)
        #expect(badRender.status != 0 && badRender.stderr.contains("--cat-eye must be 0…1"), "\(badRender.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bad))
    }
}
