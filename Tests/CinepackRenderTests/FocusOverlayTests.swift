import CinepackFormat
import CinepackRender
import Testing

/// `render --overlay`: the focus aids drawn over a rendered picture, checked pixel by pixel
/// against values worked out by hand from spec/render.md §4.
@Suite struct FocusOverlayTests {
    static let lens = LensModel(focalLength35mm: 50, fNumber: 2, width: 300)  // about 11 px per diopter
    static let focus: Float = 1

    /// Three vertical bands 10 px wide: near (3 D), in focus (1 D), far (0.1 D); grey 128.
    static func bands() -> (PixelImage, [Float]) {
        let picture = try! PixelImage(width: 30, height: 4, layout: .rgb, samples: [UInt8](repeating: 128, count: 30 * 4 * 3))
        let disparity = (0..<(30 * 4)).map { p -> Float in [3, 1, 0.1][(p % 30) / 10] }
        return (picture, disparity)
    }

    @Test func zonesFollowTheLensModel() {
        // One pixel of blur-circle diameter is the boundary of the depth of field.
        let perDiopter = Self.lens.scale(focusDisparity: Self.focus)
        #expect(FocusOverlay.zone(disparity: Self.focus + 0.9 / perDiopter, focus: Self.focus, lens: Self.lens) == .inFocus)
        #expect(FocusOverlay.zone(disparity: Self.focus + 1.1 / perDiopter, focus: Self.focus, lens: Self.lens) == .near)
        #expect(FocusOverlay.zone(disparity: Self.focus - 1.1 / perDiopter, focus: Self.focus, lens: Self.lens) == .far)
        #expect(FocusOverlay.zone(disparity: .nan, focus: Self.focus, lens: Self.lens) == .inFocus)
    }

    @Test func matteTintsNearInFocusAndFar() {
        let (picture, disparity) = Self.bands()
        let out = FocusOverlay.matte.draw(
            on: picture, disparity: disparity, focus: Self.focus, lens: Self.lens, range: .init(minimum: 0, maximum: 4))
        // Half grey 128, half the zone's colour: (128 + 255) / 2 = 191.5 → 192, 128 / 2 = 64.
        func rgb(_ x: Int) -> [UInt16] { (0..<3).map { out.sample(x: x, y: 2, channel: $0) } }
        #expect(rgb(5) == [192, 64, 64])
        #expect(rgb(15) == [64, 192, 64])
        #expect(rgb(25) == [64, 64, 192])
    }

    /// 16-bit renders keep their depth: grey 32768 half under red is (32768 + 65535) / 2 = 49151.5
    /// → 49152 and 32768 / 2 = 16384.
    @Test func matteKeepsSixteenBits() {
        let picture = try! PixelImage(width: 30, height: 4, layout: .rgb, samples: [UInt16](repeating: 32768, count: 30 * 4 * 3))
        let out = FocusOverlay.matte.draw(
            on: picture, disparity: Self.bands().1, focus: Self.focus, lens: Self.lens, range: .init(minimum: 0, maximum: 4))
        #expect(out.bitDepth == 16)
        #expect((0..<3).map { out.sample(x: 5, y: 1, channel: $0) } == [49152, 16384, 16384])
        #expect((0..<3).map { out.sample(x: 25, y: 1, channel: $0) } == [16384, 16384, 49152])
    }

    @Test func disparityIsHalfFalseColour() {
        let (picture, disparity) = Self.bands()
        let out = FocusOverlay.disparity.draw(
            on: picture, disparity: disparity, focus: Self.focus, lens: Self.lens, range: .init(minimum: 0, maximum: 4))
        for (x, d) in [(5, Float(3)), (15, 1), (25, 0.1)] {
            let (r, g, b) = FalseColour.colour(d / 4)
            let expected = [r, g, b].map { UInt16(((128 + Float($0)) / 2).rounded()) }
            #expect((0..<3).map { out.sample(x: x, y: 1, channel: $0) } == expected, "x \(x)")
        }
    }

    @Test func peakingMarksSharpEdgesInFocusOnly() {
        // A black/white step at x = 15 (in focus) and at x = 25 (far field).
        var samples = [UInt8](repeating: 0, count: 30 * 4 * 3)
        for y in 0..<4 {
            for x in 0..<30 where (x >= 15 && x < 20) || x >= 25 {
                for c in 0..<3 { samples[(y * 30 + x) * 3 + c] = 255 }
            }
        }
        let picture = try! PixelImage(width: 30, height: 4, layout: .rgb, samples: samples)
        let out = FocusOverlay.peaking.draw(
            on: picture, disparity: Self.bands().1, focus: Self.focus, lens: Self.lens, range: .init(minimum: 0, maximum: 4))
        func isGreen(_ x: Int) -> Bool { (0..<3).map { out.sample(x: x, y: 2, channel: $0) } == [0, 255, 0] }
        #expect(isGreen(14) && isGreen(15) && isGreen(19))
        #expect(!isGreen(12) && !isGreen(17))
        #expect(!isGreen(24) && !isGreen(25))
        // Everything else is the picture.
        #expect(out.sample(x: 17, y: 2, channel: 0) == 255 && out.sample(x: 22, y: 2, channel: 0) == 0)
    }
}
