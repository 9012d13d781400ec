import CinepackFormat
import Testing

@testable import CinepackRender

/// The gamut matrices derived from the primaries' chromaticities, against the matrices ITU-R
/// publishes (BT.2087 for BT.709 → BT.2020, BT.2407 for BT.2020 → BT.709, both to four decimals),
/// and the refusals.
@Suite struct GamutConversionTests {
    static func expectClose(_ m: Matrix3, _ expected: [[Double]], sourceLocation: SourceLocation = #_sourceLocation) {
        for i in 0..<3 {
            for j in 0..<3 {
                #expect(abs(m[i, j] - expected[i][j]) < 0.000_6, "[\(i), \(j)] = \(m[i, j])", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func bt709ToBT2020IsTheMatrixOfBT2087() throws {
        let conversion = try #require(try GamutConversion(sourcePrimaries: 1, to: .bt2020))
        Self.expectClose(conversion.matrix, [[0.6274, 0.3293, 0.0433], [0.0691, 0.9195, 0.0114], [0.0164, 0.0880, 0.8956]])
    }

    @Test func bt2020ToBT709IsTheMatrixOfBT2407() throws {
        let conversion = try #require(try GamutConversion(sourcePrimaries: 9, to: .bt709))
        Self.expectClose(conversion.matrix, [[1.6605, -0.5876, -0.0728], [-0.1246, 1.1329, -0.0083], [-0.0182, -0.1006, 1.1187]])
    }

    @Test func whiteStaysWhiteAndTheBT709ToXYZMatrixIsSRGBs() throws {
        // IEC 61966-2-1 publishes the linear sRGB (BT.709 primaries, D65) to XYZ matrix.
        Self.expectClose(
            RGBPrimaries.bt709.rgbToXYZ, [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
        for (source, target) in [(1, ColourSpace.p3d65), (12, .bt2020), (9, .p3d65), (5, .bt709)] {
            let m = try #require(try GamutConversion(sourcePrimaries: source, to: target)).matrix
            for row in 0..<3 { #expect(abs(m[row, 0] + m[row, 1] + m[row, 2] - 1) < 1e-9, "\(source) → \(target)") }
        }
    }

    @Test func applyConvertsEveryPixel() throws {
        let conversion = try #require(try GamutConversion(sourcePrimaries: 9, to: .bt709))
        var image = LinearImage(width: 3, height: 2, values: (0..<18).map { Float($0) / 20 })
        let before = image
        conversion.apply(to: &image)
        for p in 0..<6 {
            let v = (0..<3).map { Double(before.values[p * 3 + $0]) }
            let expected = conversion.matrix * v
            for c in 0..<3 { #expect(abs(Double(image.values[p * 3 + c]) - expected[c]) < 1e-5) }
        }
    }

    @Test func samePrimariesConvertNothingAndOthersAreRefused() throws {
        #expect(try GamutConversion(sourcePrimaries: 9, to: .bt2020) == nil)
        // Unspecified primaries are rendered as sRGB, whose primaries are BT.709's.
        #expect(try GamutConversion(sourcePrimaries: 2, to: .bt709) == nil)
        #expect(throws: ColourModelError.whitePointNotD65(code: 11)) { try GamutConversion(sourcePrimaries: 11, to: .bt709) }
        #expect(throws: ColourModelError.unsupportedPrimaries(code: 22)) { try GamutConversion(sourcePrimaries: 22, to: .bt709) }
        #expect(ColourModelError.whitePointNotD65(code: 11).description.contains("smpte431"))
    }

    @Test func exportSettingsTagTheNewPrimariesWithTheirMatrix() throws {
        let hlg = ColourDescription(primaries: 9, transfer: 18, matrix: 9, fullRange: false)
        let prores = try ExportSettings(codec: .prores, colour: hlg, inputBitDepth: 16, colourSpace: .bt709)
        #expect(prores.outputColour == ColourDescription(primaries: 1, transfer: 18, matrix: 1, fullRange: false))
        let png = try ExportSettings(codec: .png16, colour: .bt709, inputBitDepth: 16, colourSpace: .bt2020)
        #expect(png.outputColour == ColourDescription(primaries: 9, transfer: 1, matrix: 0, fullRange: true))
        #expect(ColourSpace(name: "smpte432") == .p3d65 && ColourSpace(name: "p3") == nil)
    }
}
