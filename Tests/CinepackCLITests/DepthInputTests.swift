import Cinepack
import Foundation
import TestSupport
import Testing

/// `pack --disparity|--depth|--relative-disparity` against ground truth made by peer tools
/// (spec/depth-input.md), and `extract --format exr|pfm|npy`.
@Suite(
    .enabled(
        if: DepthInputFixture.peersPresent,
        Comment(rawValue: "skipping interop test: needs ffmpeg and python3 with numpy and OpenEXR (CI != \"true\")")),
    .serialized)
struct DepthInputTests {
    static let fixture = Result { try DepthInputFixture() }
    let range = ["--disparity-range", "0:2"]
    let step: Float = 2.0 / 65534

    func fixture() throws -> DepthInputFixture { try Self.fixture.get() }

    @Test("metric inputs: EXR half/float × scanline/tiled (Python OpenEXR), .npy, .npz, depth camera PNG, 8-bit H.264")
    func metricInputs() throws {
        let f = try fixture()
        let step = self.step
        let cases: [(args: [String], holes: Set<Int>, tolerance: (Float) -> Float)] = [
            (["--depth", f.file("exr_float_scan/%04d.exr")] + range, [], { step + 1e-5 * $0 }),
            (["--depth", f.file("exr_float_tiled/%04d.exr")] + range, [], { step + 1e-5 * $0 }),
            (["--depth", f.file("exr_half_scan/%04d.exr")] + range, [], { step + 1e-3 * $0 }),
            (["--depth", f.file("exr_half_tiled/%04d.exr")] + range, [], { step + 1e-3 * $0 }),
            (["--depth", f.file("exr_layer/%04d.exr")] + range, [], { step + 1e-5 * $0 }),
            (["--disparity", f.file("disp.npy")] + range, [], { _ in step }),
            (["--disparity", f.file("disp_frames/%04d.npy")] + range, [], { _ in step }),
            (["--depth", f.file("depth.npz")] + range, [], { step + 1e-5 * $0 }),
            (["--disparity", f.file("disp_stored.npz"), "--npz-key", "disp"] + range, [], { _ in step }),
            (["--depth", f.file("cam/%04d.png"), "--depth-scale", "1000"] + range, [0], { step + 0.0005 * $0 * $0 * 1.01 }),
            (["--disparity", f.file("depth8.mp4")] + range, [], { _ in step + 1.0 / 254 }),
        ]
        for c in cases {
            let (path, result) = try f.pack(c.args)
            #expect(result.status == 0, "\(c.args): \(result.stderr)")
            guard result.status == 0 else { continue }
            let movie = try CinematicMovie.open(path: path)
            #expect(movie.quantization == DisparityQuantization(minimum: 0, maximum: 2))
            let excess = try DepthInputFixture.worstExcess(movie, holes: c.holes, tolerance: c.tolerance)
            #expect(excess <= 0, "\(c.args): worst error exceeds the tolerance by \(excess) D")
        }
    }

    @Test("--disparity-range auto covers the data with a margin")
    func autoRange() throws {
        let f = try fixture()
        let (path, result) = try f.pack(["--disparity", f.file("disp.npy")])
        #expect(result.status == 0, "\(result.stderr)")
        let q = try #require(try CinematicMovie.open(path: path).quantization)
        #expect(q.minimum < 0.25 && q.minimum > 0.2 && q.maximum > 1.6 && q.maximum < 1.65, "\(q)")
        let excess = try DepthInputFixture.worstExcess(try CinematicMovie.open(path: path)) { _ in q.step }
        #expect(excess <= 0)
    }

    @Test("16-bit PNG disparity codes come back bit for bit from extract --raw (ffmpeg decodes both)")
    func pngCodesRoundTrip() throws {
        let f = try fixture()
        // A narrow range far from 0 too, where a round trip through floats would lose codes.
        for range in ["0:2", "2:2.001"] {
            let (path, result) = try f.pack(["--disparity", f.file("codes/%04d.png"), "--disparity-range", range])
            #expect(result.status == 0, "\(result.stderr)")
            for t in [0, 7] {
                let out = f.file("raw\(t).png")
                let extracted = try CLI.run(["extract", path, "--at", "\(t)f", "--track", "disparity", "--raw", "-o", out])
                #expect(extracted.status == 0, "\(extracted.stderr)")
                func codes(_ png: String) throws -> Data {
                    try Peers.run("ffmpeg", ["-v", "error", "-i", png, "-f", "rawvideo", "-pix_fmt", "gray16le", "-"]).stdout
                }
                #expect(try codes(out) == codes(f.file(String(format: "codes/%04d.png", t))), "range \(range), frame \(t)")
                try FileManager.default.removeItem(atPath: out)
            }
        }
    }

    /// Median relative error after calibration, and the worst frame-to-frame change of the
    /// static floor (rows 0…3, a region no subject crosses) as a fraction of the range.
    func relativeQuality(_ path: String) throws -> (medianError: Float, flicker: Float) {
        let movie = try CinematicMovie.open(path: path)
        let q = try #require(movie.quantization)
        var errors: [Float] = []
        var flicker: Float = 0
        var previous: [Float]?
        for t in 0..<DepthInputFixture.frames {
            let stored = try movie.disparityMap(t).values
            let truth = DepthInputFixture.truth(t)
            for i in 0..<stored.count where !stored[i].isNaN { errors.append(abs(stored[i] - truth[i]) / truth[i]) }
            let floor = Array(stored[0..<(4 * DepthInputFixture.width)])
            if let previous {
                for i in 0..<floor.count { flicker = max(flicker, abs(floor[i] - previous[i]) / (q.maximum - q.minimum)) }
            }
            previous = floor
        }
        errors.sort()
        return (errors[errors.count / 2], flicker)
    }

    @Test("relative disparity with per-frame flicker: two object anchors, stabilized vs not, --invert vs white-far")
    func relativeCalibrated() throws {
        let f = try fixture()
        let anchors = ["--detections", f.file("det.json"), "--calibrate", "object 1 = 0.625m", "--calibrate", "object 2 = 2.5m"]
        let stable = try f.pack(["--relative-disparity", f.file("rel.npy")] + anchors)
        #expect(stable.result.status == 0, "\(stable.result.stderr)")
        #expect(stable.result.stdout.contains("calibration (scale and shift, least squares)"), "\(stable.result.stdout)")
        #expect(stable.result.stdout.contains("stabilized: per-frame scale"), "\(stable.result.stdout)")
        let good = try relativeQuality(stable.path)
        #expect(good.medianError <= 0.03, "median relative error \(good.medianError)")
        #expect(good.flicker <= 0.005, "static floor changes by \(good.flicker) of the range between frames")

        let raw = try f.pack(["--relative-disparity", f.file("rel.npy"), "--no-stabilize"] + anchors, output: "raw.mov")
        #expect(raw.result.status == 0, "\(raw.result.stderr)")
        let bad = try relativeQuality(raw.path)
        #expect(bad.flicker > 5 * max(good.flicker, 0.001), "unstabilized flicker \(bad.flicker) vs stabilized \(good.flicker)")

        let inverted = try f.pack(["--relative-disparity", f.file("rel_white_far.npy"), "--invert"] + anchors, output: "inv.mov")
        #expect(inverted.result.status == 0, "\(inverted.result.stderr)")
        let a = try CinematicMovie.open(path: stable.path), b = try CinematicMovie.open(path: inverted.path)
        for t in [0, 5, 11] {
            let x = try a.disparityMap(t).values, y = try b.disparityMap(t).values
            let worst = zip(x, y).map { abs($0 - $1) }.max() ?? 0
            #expect(worst < 0.002, "frame \(t): --invert of a white-far map differs from white-near by \(worst) D")
        }
        // The calibration is recorded in the movie-level metadata.
        let meta = try Peers.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", stable.path]).text
        #expect(meta.contains("org.cinepack.input.depth-calibration"), "\(meta)")
    }

    @Test("relative disparity calibrated by two point anchors, and by --near/--far percentiles")
    func relativePointsAndPercentiles() throws {
        let f = try fixture()
        // Floor at row 18 (0.5071 D) in frame 0, and the static box (0.4 D) in frame 3.
        let points = try f.pack([
            "--relative-disparity", f.file("rel.npy"), "--calibrate", "0.1,0.5 @ 0f = 1.972m", "--calibrate", "0.78,0.25 @ 0.1s = 2.5m",
        ])
        #expect(points.result.status == 0, "\(points.result.stderr)")
        #expect(try relativeQuality(points.path).medianError <= 0.03)
        // The subject (6 % of the pixels) is the 98th percentile, 0.625 m; the top floor blocks the
        // 2nd, about 3.89 m. Percentiles of block means are coarser than anchors: 5 %.
        let percentiles = try f.pack(["--relative-disparity", f.file("rel.npy"), "--near", "0.625m", "--far", "3.89m"], output: "p.mov")
        #expect(percentiles.result.status == 0, "\(percentiles.result.stderr)")
        #expect(try relativeQuality(percentiles.path).medianError <= 0.05)
    }

    @Test("extract --format exr|pfm|npy [--as depth] is read back by Python OpenEXR and numpy")
    func extractFloats() throws {
        let f = try fixture()
        let (path, result) = try f.pack(["--disparity", f.file("disp.npy")] + range)
        #expect(result.status == 0, "\(result.stderr)")
        let truth = DepthInputFixture.truth(4)
        for (format, quantity) in [("exr", "depth"), ("exr", "disparity"), ("pfm", "disparity"), ("npy", "depth")] {
            let out = f.file("x4-\(quantity).\(format)")
            let r = try CLI.run(["extract", path, "--at", "4f", "--track", "disparity", "--format", format, "--as", quantity, "-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            let reader =
                switch format {
                case "exr": "import OpenEXR,sys; a=OpenEXR.File(sys.argv[1]).channels()['Z'].pixels"
                case "npy": "import numpy as np,sys; a=np.load(sys.argv[1])"
                default:
                    "import numpy as np,sys; b=open(sys.argv[1],'rb').read(); h=b.split(b'\\n',3); a=np.frombuffer(h[3],'<f4').reshape(36,64)[::-1]"
                }
            let text = try Peers.run("python3", ["-c", reader + "; print(' '.join(repr(float(v)) for v in a.reshape(-1)))", out]).text
            let values = text.split(separator: " ").compactMap { Float($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(values.count == truth.count, "\(format)")
            guard values.count == truth.count else { continue }
            let expected = quantity == "depth" ? truth.map { 1 / $0 } : truth
            let worst = zip(values, expected).map { abs($0 - $1) / $1 }.max() ?? 1
            #expect(worst < 1e-3, "\(format) \(quantity): worst relative error \(worst)")
        }
    }

    @Test("bad depth input: a clear error naming file and frame, and no output left behind")
    func badInput() throws {
        let f = try fixture()
        // A truncated EXR: frame 5 cut in half.
        try FileManager.default.createDirectory(atPath: f.file("cut"), withIntermediateDirectories: true)
        for t in 0..<DepthInputFixture.frames {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: f.file(String(format: "exr_float_scan/%04d.exr", t))))
            if t == 5 { bytes = bytes.prefix(bytes.count / 2) }
            try bytes.write(to: URL(fileURLWithPath: f.file(String(format: "cut/%04d.exr", t))))
        }
        let cases: [(args: [String], expected: [String])] = [
            (["--depth", f.file("cut/%04d.exr")] + range, ["cut/0005.exr, frame 5", "truncated"]),
            (
                ["--depth", f.file("depth.npz"), "--npz-key", "nope"] + range,
                ["depth.npz", "no array 'nope'", "depths", "); choose one with --npz-key"]
            ),
            (["--disparity", f.file("disp_short.npy")] + range, ["disp_short.npy", "11 depth maps but 12 video frames"]),
            (["--depth", f.file("depth_negative.npy")] + range, ["depth_negative.npy, frame 3", "negative depth -2.0 at pixel (7, 5)"]),
            (["--disparity", f.file("disp_nan.npy")] + range, ["disp_nan.npy, frame 2", "no pixel has depth"]),
            (
                ["--relative-disparity", f.file("rel.npy"), "--detections", f.file("det.json"), "--calibrate", "object 9 = 2m"],
                ["object 9 is not in the detections (objects: 1, 2)"]
            ),
            (
                ["--depth", f.file("cam/%04d.png")] + range,
                [
                    "cam/0000.png, frame 0: integer depth images need --depth-scale K (metres = value / K: 1000 for millimetres, 5000 for TUM RGB-D)"
                ]
            ),
            (
                ["--relative-disparity", f.file("rel.npy")],
                ["calibration: relative disparity has no scale: give --calibrate 'object ID = 2.5m' (or a point), or --near/--far"]
            ),
            (
                ["--disparity", f.file("disp_stored.npz"), "--npz-key", "disp", "--near", "1m", "--far", "9m"],
                ["calibration: calibration applies to --relative-disparity only"]
            ),
            (
                ["--depth", f.file("exr_layer/%04d.exr"), "--exr-channel", "Z"] + range,
                ["exr_layer/0000.exr", "no channel Z in this EXR (it has R, depth.Z); choose one with --exr-channel"]
            ),
        ]
        for c in cases {
            let (path, result) = try f.pack(c.args)
            #expect(result.status != 0, "\(c.args) succeeded")
            for text in c.expected { #expect(result.stderr.contains(text), "\(c.args): \(result.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: path), "\(c.args) left \(path)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: f.directory.path).filter { $0.contains("partial") }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    @Test("PFM: NaN and ±Inf are no depth (as in every float input), a negative value is refused")
    func pfmSpecialValues() throws {
        let f = try fixture()
        try FileManager.default.createDirectory(atPath: f.file("pfm"), withIntermediateDirectories: true)
        for t in 0..<DepthInputFixture.frames {
            var values = DepthInputFixture.truth(t)
            values[0] = .infinity
            values[1] = -.infinity
            values[2] = .nan
            if t == 6 { values[3] = -3 }
            let map = DisparityMap(width: DepthInputFixture.width, height: DepthInputFixture.height, values: values)
            try Data(PFM.write(map)).write(to: URL(fileURLWithPath: f.file(String(format: "pfm/%04d.pfm", t))))
        }
        let refused = try f.pack(["--disparity", f.file("pfm/%04d.pfm")] + range)
        #expect(
            refused.result.stderr.contains("pfm/0006.pfm, frame 6: negative disparity -3.0 at pixel (3, 0)"), "\(refused.result.stderr)")
        var values = DepthInputFixture.truth(6)
        values[0] = .infinity
        values[1] = -.infinity
        values[2] = .nan
        try Data(PFM.write(DisparityMap(width: DepthInputFixture.width, height: DepthInputFixture.height, values: values)))
            .write(to: URL(fileURLWithPath: f.file("pfm/0006.pfm")))
        let accepted = try f.pack(["--disparity", f.file("pfm/%04d.pfm")] + range)
        #expect(accepted.result.status == 0, "\(accepted.result.stderr)")
        let codes = try CinematicMovie.open(path: accepted.path).disparityCodes(6)
        #expect(codes.samples16?.prefix(4) == [0, 0, 0, UInt16(1 + (values[3] / 2 * 65534).rounded())])
    }

    @Test("a map larger than the picture or of another aspect ratio is refused from its header; --disparity-fit stretch accepts the latter")
    func mapSizes() throws {
        let f = try fixture()
        try FileManager.default.createDirectory(atPath: f.file("square"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: f.file("huge"), withIntermediateDirectories: true)
        for t in 0..<DepthInputFixture.frames {
            let square = DisparityMap(width: 32, height: 32, values: Array(repeating: 0.5, count: 32 * 32))
            try Data(PFM.write(square)).write(to: URL(fileURLWithPath: f.file(String(format: "square/%04d.pfm", t))))
            // Only the header of a 16384² PFM: the size must be refused before the samples are read.
            try Data("Pf\n16384 16384\n-1.0\n".utf8).write(to: URL(fileURLWithPath: f.file(String(format: "huge/%04d.pfm", t))))
        }
        let huge = try f.pack(["--disparity", f.file("huge/%04d.pfm")] + range)
        #expect(
            huge.result.stderr.contains("huge/0000.pfm, frame 0: the map is 16384×16384, larger than the 128×72 picture"),
            "\(huge.result.stderr)")
        let square = try f.pack(["--disparity", f.file("square/%04d.pfm")] + range)
        #expect(
            square.result.stderr.contains(
                "square/0000.pfm, frame 0: the map is 32×32 but the picture is 128×72, another aspect ratio; resize it, or give --disparity-fit stretch to stretch it over the picture"
            ), "\(square.result.stderr)")
        let stretched = try f.pack(["--disparity", f.file("square/%04d.pfm"), "--disparity-fit", "stretch"] + range)
        #expect(stretched.result.status == 0, "\(stretched.result.stderr)")
    }
}
