import CinepackFormat
import Testing

/// `colr` payloads laid out by hand (ISO/IEC 14496-12 §12.1.5, QuickTime nclc) and ffmpeg names.
@Suite struct ColourDescriptionTests {
    @Test func nclxAndNclc() throws {
        // nclx: BT.2020 primaries (9), HLG (18), BT.2020 NCL (9), full range.
        let nclx: [UInt8] = Array("nclx".utf8) + [0, 9, 0, 18, 0, 9, 0x80]
        #expect(
            try ColourDescription.parse(colr: nclx, at: 100, path: "a.mov")
                == ColourDescription(primaries: 9, transfer: 18, matrix: 9, fullRange: true))
        let nclc: [UInt8] = Array("nclc".utf8) + [0, 1, 0, 1, 0, 1]
        #expect(try ColourDescription.parse(colr: nclc, at: 100, path: "a.mov") == .bt709)
        #expect(try ColourDescription.parse(colr: Array("prof".utf8) + [1, 2, 3], at: 0, path: "a.mov") == nil)
        #expect(throws: ColourError.truncated(path: "a.mov", offset: 7, count: 8, needed: 11)) {
            try ColourDescription.parse(colr: Array("nclx".utf8) + [0, 9, 0, 18], at: 7, path: "a.mov")
        }
        #expect(throws: ColourError.unknownType(path: "a.mov", offset: 7, type: "abcd")) {
            try ColourDescription.parse(colr: Array("abcd".utf8), at: 7, path: "a.mov")
        }
        // What we write reads back, and is the 19-byte box ffmpeg's muxer writes for nclx.
        let box = ColourDescription(primaries: 9, transfer: 16, matrix: 9, fullRange: false).colrBox()
        #expect(box == [0, 0, 0, 19] + Array("colrnclx".utf8) + [0, 9, 0, 16, 0, 9, 0])
    }

    @Test func ffmpegNames() {
        let c = ColourDescription(ffprobe: "bt2020", transfer: "smpte2084", matrix: "bt2020nc", range: "tv")
        #expect(c == ColourDescription(primaries: 9, transfer: 16, matrix: 9, fullRange: false))
        #expect(c.primariesName == "bt2020" && c.transferName == "smpte2084" && c.matrixName == "bt2020nc" && c.rangeName == "tv")
        #expect(
            ColourDescription(ffprobe: nil, transfer: "unknown", matrix: nil, range: nil)
                == ColourDescription(primaries: 2, transfer: 2, matrix: 2, fullRange: false))
        #expect(SourcePictureFormat.bitDepth(ofPixelFormat: "yuv420p10le") == 10)
        #expect(SourcePictureFormat.bitDepth(ofPixelFormat: "yuv444p12le") == 12)
        #expect(SourcePictureFormat.bitDepth(ofPixelFormat: "rgb48be") == 16)
        #expect(SourcePictureFormat.bitDepth(ofPixelFormat: "p010le") == 10)
        #expect(SourcePictureFormat.bitDepth(ofPixelFormat: "yuv420p") == 8)
        #expect(SourcePictureFormat.bitDepth(ofPixelFormat: "gray16le") == 16)
    }
}
