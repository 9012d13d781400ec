import Cinepack
import Foundation
import TestSupport
import Testing

/// Values at the edges of what the validators accept, through every command of the real binary:
/// accepted means handled (no trap), refused means refused by the validator with a clear message,
/// before anything is written. Each run is bounded in time and memory.
@Suite struct ExtremeValueTests {
    static let memoryBound = 1 << 30
    static let timeBound = 60.0

    /// A 1-second 64×64 demo clip (30 frames at 30 fps).
    static func clip(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("clip.mov")
        let made = try CLI.run(["demo", "-o", path, "--seconds", "1", "--size", "64x64"])
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    static func fingerprint(_ movie: String) throws -> String {
        let edl = try CLI.run(["edl", "export", movie]).stdout
        let range = try #require(edl.range(of: #"fingerprint="[0-9a-f]+""#, options: .regularExpression))
        return String(edl[range].dropFirst(13).dropLast())
    }

    static func edl(_ movie: String, _ body: String) throws -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <edl xmlns="urn:cinepack:edl:1" version="1">
          <media frames="30" rate="30/1" fingerprint="\(try fingerprint(movie))"/>
        \(body)
        </edl>

        """
    }

    /// Runs a command and checks it ended by itself (no signal), within the time and memory bounds.
    @discardableResult
    static func bounded(_ arguments: [String], expect status: Int32 = 0) throws -> MeasuredRun.Result {
        let r = try MeasuredRun.cinepack(arguments, timeLimit: timeBound)
        #expect(!r.signalled, "\(arguments.joined(separator: " ")) crashed: \(r.stderr.suffix(2000))")
        #expect(r.status == status, "\(arguments.joined(separator: " ")): \(r.stderr.prefix(2000))")
        #expect(r.peakMemory <= memoryBound, "\(arguments.joined(separator: " ")) peaked at \(r.peakMemory) bytes")
        #expect(r.seconds < timeBound)
        return r
    }

    /// `count` 16×16 PNG frames in `f/` and 8×8 16-bit disparity maps in `d/`, numbered from 1.
    static func writeFrames(_ dir: TemporaryDirectory, count: Int) throws {
        try FileManager.default.createDirectory(atPath: dir.file("f"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("d"), withIntermediateDirectories: true)
        for n in 1...count {
            let picture = try PixelImage(width: 16, height: 16, layout: .rgb, samples: [UInt8](repeating: 128, count: 16 * 16 * 3))
            try Data(PNGEncoder.encode(picture)).write(to: URL(fileURLWithPath: dir.file(String(format: "f/%04d.png", n))))
            let depth = try PixelImage(width: 8, height: 8, layout: .gray, samples: [UInt16](repeating: 30000, count: 64))
            try Data(PNGEncoder.encode(depth)).write(to: URL(fileURLWithPath: dir.file(String(format: "d/%04d.png", n))))
        }
    }

    /// Every reading command on `movie`, none may crash.
    static func everyCommand(_ movie: String, _ dir: TemporaryDirectory) throws {
        try bounded(["inspect", movie])
        try bounded(["focus", movie, "--csv"])
        try bounded(["decisions", movie])
        try bounded(["extract", movie, "--at", "1f", "-o", dir.file("e.png")])
        try bounded(["plot", movie, "-o", dir.file("p.svg")])
        try bounded(["render", movie, "--at", "1f", "-o", dir.file("r.png")])
        try bounded(["export-timeline", movie, "--format", "otio", "-o", dir.file("t.otio")])
        try bounded(["export-timeline", movie, "--format", "fcpxml", "-o", dir.file("t.fcpxml")])
        for name in ["e.png", "p.svg", "r.png", "t.otio", "t.fcpxml"] { try? FileManager.default.removeItem(atPath: dir.file(name)) }
    }

    /// Speed 1/(2⁶³−1) over one second: its program lasts longer than a time can say. `edl validate`
    /// refuses it with the rule that `render` applies (it used to pass, and `export-timeline` trapped).
    @Test func speedWhoseProgramCannotBeRepresentedIsRefusedByValidate() throws {
        let dir = try Paths.temporaryDirectory()
        let movie = try Self.clip(dir)
        let sidecar = dir.file("slow.xml")
        try Self.edl(movie, #"  <timeline><speed start="0s" end="1s" rate="1/9223372036854775807"/></timeline>"#).write(
            toFile: sidecar, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: movie))
        let validate = try Self.bounded(["edl", "validate", sidecar], expect: 1)
        #expect(validate.stderr.contains("slow.xml:4:"), "\(validate.stderr)")
        #expect(validate.stderr.contains("the program's duration cannot be represented exactly (spec/retime.md §1)"))
        let imported = try Self.bounded(["edl", "import", movie, sidecar], expect: 1)
        #expect(imported.stderr.contains("cannot be represented exactly"), "\(imported.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: movie)) == before)
    }

    /// The slowest speed whose program still fits (2 frames at 1/2⁶¹: 2⁶² + 28 program frames) passes
    /// validate, and then every command handles it: OTIO gets the exact frame count, FCPXML and the plot
    /// are written, one frame renders.
    @Test func extremeButRepresentableSpeedWorksEverywhere() throws {
        let dir = try Paths.temporaryDirectory()
        let movie = try Self.clip(dir)
        let sidecar = dir.file("slow.xml")
        try Self.edl(movie, #"  <timeline><speed start="0s" end="1/15s" rate="1/2305843009213693952"/></timeline>"#).write(
            toFile: sidecar, atomically: true, encoding: .utf8)
        try Self.bounded(["edl", "validate", sidecar])
        try Self.bounded(["edl", "import", movie, sidecar])
        try Self.everyCommand(movie, dir)
        try Self.bounded(["export-timeline", movie, "--format", "otio", "-o", dir.file("t.otio")])
        let otio = try String(contentsOfFile: dir.file("t.otio"), encoding: .utf8)
        // 2 source frames × 2⁶¹ = 2⁶² program frames for the slowed piece.
        #expect(otio.contains("\"value\": 4611686018427387904"))
    }

    /// A fixed focus plane at 10¹⁹ D (a finite binary32) is accepted by `refocus`, so `plot` and every
    /// other command must handle it (the plot's labels used to trap converting it to Int).
    @Test func hugeFixedDisparityIsHandledByEveryCommand() throws {
        let dir = try Paths.temporaryDirectory()
        let movie = try Self.clip(dir)
        try Self.bounded(["refocus", movie, "--at", "10f", "--disparity", "1e19"])
        try Self.everyCommand(movie, dir)
        try Self.bounded(["plot", movie, "-o", dir.file("p.svg")])
        let svg = try String(contentsOfFile: dir.file("p.svg"), encoding: .utf8)
        #expect(svg.contains(">1e+19<"), "the axis is labelled up to the plane's disparity")
    }

    /// A user track whose disparity is the largest binary32 (3.4e38), imported from an EDL.
    @Test func largestTrackDisparityIsHandledByEveryCommand() throws {
        let dir = try Paths.temporaryDirectory()
        let movie = try Self.clip(dir)
        let sidecar = dir.file("track.xml")
        let body = """
              <decisions>
                <decision time="1/3s" frame="10" strength="strong"><detection id="1000000"/></decision>
              </decisions>
              <tracks>
                <track id="1000000" kind="custom">
                  <sample frame="5" x="0.1" y="0.1" w="0.2" h="0.2" disparity="3.4e38"/>
                  <sample frame="12" x="0.1" y="0.1" w="0.2" h="0.2" disparity="3.4028234e38"/>
                </track>
              </tracks>
            """
        try Self.edl(movie, body).write(toFile: sidecar, atomically: true, encoding: .utf8)
        try Self.bounded(["edl", "validate", sidecar])
        try Self.bounded(["edl", "import", movie, sidecar])
        try Self.everyCommand(movie, dir)
    }

    /// `pack --fps` at the slowest rates a frame rate can hold (one frame every 2³¹−1 s) and the fastest:
    /// the writer picks a timescale whose frame duration fits the 32-bit sample delta (it used to trap),
    /// and ffprobe reads the same rate and duration back.
    @Test(arguments: ["1/10000000", "0.0000001", "1/2147483647", "2147483647", "2147483647/2147483646"])
    func packAtExtremeFrameRates(fps: String) throws {
        let dir = try Paths.temporaryDirectory()
        try Self.writeFrames(dir, count: 2)
        let movie = dir.file("out.mov")
        try Self.bounded([
            "pack", "-o", movie, "--frames", dir.file("f/%04d.png"), "--disparity", dir.file("d/%04d.png"),
            "--disparity-range", "0:4", "--fps", fps,
        ])
        try Self.everyCommand(movie, dir)
        let rate = try #require(FrameRate(parsing: fps))
        if Peers.shouldRun("ffprobe") {
            let probe = try Peers.run(
                "ffprobe",
                ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate,duration", "-of", "csv=p=0", movie])
            let fields = probe.text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
            #expect(fields.first.map(String.init) == "\(rate.frames)/\(rate.seconds)", "\(probe.text)")
            let duration = try #require(fields.last.flatMap { Double($0) })
            let expected = 2 * Double(rate.seconds) / Double(rate.frames)
            #expect(abs(duration - expected) <= max(1e-6, expected * 1e-6), "\(probe.text)")
        }
    }
}
