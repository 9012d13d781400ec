import CinepackFormat
import Testing

@testable import CinepackRender

/// Transfer functions against published reference points, their exact inverses, and the
/// 8/16-bit picture round trips the renderer relies on for in-focus pixels.
@Suite struct TransferFunctionTests {
    @Test func referencePoints() throws {
        // SMPTE ST 2084: 100 cd/m² is code 0.5081 (BT.2100 / BT.2408 tables), 1 000 cd/m² 0.7518.
        #expect(abs(TransferFunction.pq.fromLinear(0.01) - 0.5081) < 0.0005)
        #expect(abs(TransferFunction.pq.fromLinear(0.1) - 0.7518) < 0.0005)
        #expect(abs(TransferFunction.pq.toLinear(1) - 1) < 1e-5)
        // BT.2100 HLG: E' = 0.5 at E = 1/12, 1 at 1.
        #expect(abs(TransferFunction.hlg.fromLinear(1.0 / 12) - 0.5) < 1e-5)
        #expect(abs(TransferFunction.hlg.fromLinear(1) - 1) < 1e-5)
        #expect(abs(TransferFunction.hlg.toLinear(0.75) - 0.264_962) < 1e-4)
        // BT.1886 with black at 0: a pure 2.4 power.
        #expect(abs(TransferFunction.bt1886.toLinear(0.5) - 0.189_465) < 1e-5)
        #expect(try TransferFunction(code: 18) == .hlg && TransferFunction(code: 16) == .pq && TransferFunction(code: 1) == .bt1886)
        #expect(try TransferFunction(code: 2) == .sRGB)
        #expect(throws: ColourModelError.unsupportedTransfer(code: 9)) { try TransferFunction(code: 9) }
    }

    @Test(arguments: [TransferFunction.sRGB, .bt1886, .pq, .hlg, .linear, .gamma(2.2)])
    func sixteenBitRoundTripIsExact(_ transfer: TransferFunction) throws {
        let codec = LinearLightCodec(transfer: transfer, sourceBitDepth: 16)
        let samples = (0..<(256 * 3)).map { UInt16(truncatingIfNeeded: $0 * 85 + $0 / 3) }
        let picture = try PixelImage(width: 256, height: 1, layout: .rgb, samples: samples)
        let back = codec.picture(codec.linear(picture), bitDepth: 16)
        let worst = zip(picture.samples16!, back.samples16!).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "\(transfer): a 16-bit code moved by \(worst)")
    }

    @Test(arguments: [TransferFunction.sRGB, .bt1886, .pq, .hlg])
    func eightBitRoundTripIsExact(_ transfer: TransferFunction) throws {
        let codec = LinearLightCodec(transfer: transfer)
        let picture = try PixelImage(width: 256, height: 1, layout: .rgb, samples: (0..<768).map { UInt8($0 / 3) })
        #expect(codec.picture(codec.linear(picture), bitDepth: 8) == picture)
    }
}
