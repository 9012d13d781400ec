import Foundation
import TestSupport
import Testing

/// Option values through the real binary: negative values are taken as values (not options), numbers
/// are decimal only, ranges are stated exactly, and every refused value exits 64 (README, "Exit
/// status") leaving the movie byte-identical.
@Suite struct OptionParsingTests {
    /// (arguments after the command's FILE, status, what stderr or stdout must contain)
    static let cases: [([String], Int32, String)] = [
        (
            ["refocus", "--at", "-1s", "--disparity", "1"], 64,
            #"'--at <at>': cannot read time "-1s" at character 1: a time cannot be negative"#
        ),
        (["focus", "--at", "-1s"], 64, "a time cannot be negative"),
        (["extract", "--at", "-1f", "-o", "x.png"], 64, "a time cannot be negative"),
        (["refocus", "--at", "1s", "--disparity", "-1"], 64, "--disparity must be a finite number of diopters ≥ 0 (got -1.0)"),
        (["refocus", "--at", "10f", "--disparity", "0x10"], 64, #""0x10" is not a decimal number"#),
        (["refocus", "--at", "10f", "--disparity", "1e39"], 64, "1e39 is too large a number"),
        (["render", "--at", "0f", "-o", "x.png", "--focal-length", "2000.5"], 64, "focal length must be 1…2000 mm (got 2000.5)"),
        (["render", "--at", "0f", "-o", "x.png", "--focal-length", "1e39"], 64, "focal length must be 1…2000 mm (got 1e+39)"),
        (["render", "--at", "0f", "-o", "x.png", "--focal-length", "0"], 64, "focal length must be 1…2000 mm (got 0)"),
        (["render", "--at", "0f", "-o", "x.png", "--f-number", "0x1p3"], 64, #""0x1p3" is not a decimal number"#),
        (["render", "--at", "0f", "-o", "x.png", "--f-number", "-2"], 64, "f-number must be a number > 0 (got -2)"),
        (["aperture", "--f-number", "0x1p3"], 64, #""0x1p3" is not a decimal number"#),
        (["aperture", "--f-number", "nan"], 64, #""nan" is not a decimal number"#),
        (["speed", "--range", "0s..1s", "--rate", "-2"], 64, "a rate is a positive number such as 2, 1/2 or 0.5 (got -2)"),
        (["trim", "--keep", "-1s..1s"], 64, "a time cannot be negative"),
        (["render", "--at", "0f", "-o", "x.png", "--bogus"], 64, "unknown option '--bogus'"),
        // Accepted at the edges.
        (["render", "--at", "0f", "-o", "x.png", "--focal-length", "2000"], 0, "wrote"),
        (["render", "--at", "0f", "-o", "x.png", "--focal-length", "1"], 0, "wrote"),
        // One rule with `aperture`: a tiny f-number is clamped to the movie's range, and said so.
        (
            ["render", "--at", "0f", "-o", "x.png", "--f-number", "1e-45"], 0,
            "f/1.4 (f/1e-45 is outside this movie's range f/1.4…f/16.0; clamped)"
        ),
        (["aperture", "--f-number", "1e-45", "--dry-run"], 0, "would set f/1.4"),
        (["retime", "--shift", "-3f", "--range", "0s..1s", "--dry-run"], 0, "nothing moved"),
    ]

    @Test func optionValues() throws {
        let dir = try Paths.temporaryDirectory()
        let movie = try ExtremeValueTests.clip(dir)
        let before = try Data(contentsOf: URL(fileURLWithPath: movie))
        for (arguments, status, expected) in Self.cases {
            var args = arguments
            args.insert(movie, at: 1)
            args = args.map { $0 == "x.png" ? dir.file("x.png") : $0 }
            let r = try CLI.run(args)
            let shown = "\(args.dropFirst(2).joined(separator: " ")) → \(r.status): \(r.stderr)\(r.stdout)"
            #expect(r.status == status, "\(shown)")
            #expect((r.stderr + r.stdout).contains(expected), "\(shown)")
            try? FileManager.default.removeItem(atPath: dir.file("x.png"))
        }
        // No case above changes the movie (`aperture` ran with --dry-run or was refused).
        #expect(try Data(contentsOf: URL(fileURLWithPath: movie)) == before)
    }

    /// `pack` refuses a hex f-number or an out-of-range focal length before reading any frame.
    @Test func packLensOptions() throws {
        let dir = try Paths.temporaryDirectory()
        let base = [
            "pack", "-o", dir.file("o.mov"), "--frames", dir.file("f%d.png"), "--disparity", dir.file("d%d.png"), "--disparity-range",
            "0:4",
        ]
        let hex = try CLI.run(base + ["--f-number", "0x1p3"])
        #expect(hex.status == 64 && hex.stderr.contains(#""0x1p3" is not a decimal number"#), "\(hex.stderr)")
        let long = try CLI.run(base + ["--focal-length", "2001"])
        #expect(long.status == 64 && long.stderr.contains("focal length must be 1…2000 mm (got 2001)"), "\(long.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("o.mov")))
    }
}
