import Cinepack
import Foundation
import TestSupport

/// A 12-frame clip and its depth in every input kind `pack` takes, made by peer tools (numpy,
/// Python OpenEXR, ffmpeg) from one ground-truth disparity sequence: a floor ramp, a static box
/// (object 2, 2.5 m) and a subject moving right (object 1, 0.625 m).
final class DepthInputFixture: @unchecked Sendable {
    static let frames = 12, width = 64, height = 36
    let directory: TemporaryDirectory

    /// Whether the peers are here: ffmpeg, and python3 with numpy and OpenEXR. Always true in CI
    /// (a missing peer must fail there, not skip).
    static var peersPresent: Bool {
        Peers.isCI
            || (Peers.find("ffmpeg") != nil
                && (try? Peers.run("python3", ["-c", "import numpy, OpenEXR"], allowFailure: true))?.status == 0)
    }

    /// Ground truth in diopters (the same formula as the generator below).
    static func truth(_ t: Int) -> [Float] {
        var d = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var v = 0.25 + 0.5 * Double(y) / Double(height - 1)
                if (4..<14).contains(y) && (44..<56).contains(x) { v = 0.4 }
                if (20..<32).contains(y) && ((4 + 3 * t)..<(16 + 3 * t)).contains(x) { v = 1.6 }
                d[y * width + x] = Float(v)
            }
        }
        return d
    }

    static let generator = #"""
        import sys, os, json, subprocess, numpy as np, OpenEXR
        out = sys.argv[1]; N, W, H = 12, 64, 36
        def truth(t):
            d = np.broadcast_to(0.25 + 0.5 * np.arange(H)[:, None] / (H - 1), (H, W)).copy()
            d[4:14, 44:56] = 0.4
            d[20:32, 4 + 3 * t:16 + 3 * t] = 1.6
            return d
        D = np.stack([truth(t) for t in range(N)]).astype(np.float32)
        tiles = OpenEXR.TileDescription(); tiles.xSize = 16; tiles.ySize = 16; tiles.mode = OpenEXR.ONE_LEVEL
        for name, dtype, header in [
                ("exr_half_scan", np.float16, {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}),
                ("exr_float_scan", np.float32, {"compression": OpenEXR.PIZ_COMPRESSION, "type": OpenEXR.scanlineimage}),
                ("exr_half_tiled", np.float16, {"compression": OpenEXR.PIZ_COMPRESSION, "type": OpenEXR.tiledimage, "tiles": tiles}),
                ("exr_float_tiled", np.float32, {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.tiledimage, "tiles": tiles})]:
            os.makedirs(f"{out}/{name}")
            for t in range(N):
                OpenEXR.File(dict(header), {"Z": (1.0 / D[t]).astype(dtype)}).write(f"{out}/{name}/{t:04d}.exr")
        # A render layer: depth in "depth.Z", and an unrelated "R" that must not be read.
        os.makedirs(f"{out}/exr_layer")
        for t in range(N):
            OpenEXR.File({"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage},
                         {"depth.Z": (1.0 / D[t]).astype(np.float32), "R": np.full((H, W), 7.0, np.float32)}).write(f"{out}/exr_layer/{t:04d}.exr")
        np.save(f"{out}/disp.npy", D)
        np.save(f"{out}/disp_short.npy", D[:-1])
        os.makedirs(f"{out}/disp_frames")
        for t in range(N): np.save(f"{out}/disp_frames/{t:04d}.npy", D[t].astype(np.float64))
        np.savez_compressed(f"{out}/depth.npz", depths=(1.0 / D).astype(np.float32))
        np.savez(f"{out}/disp_stored.npz", other=np.zeros(3), disp=D)
        neg = (1.0 / D).astype(np.float32); neg[3, 5, 7] = -2.0; np.save(f"{out}/depth_negative.npy", neg)
        nan = D.copy(); nan[2] = np.nan; np.save(f"{out}/disp_nan.npy", nan)
        # Depth camera: 16-bit PNG in millimetres, 0 = no depth, written by ffmpeg.
        mm = np.round(1000.0 / D).astype("<u2"); mm[:, 0, 0] = 0
        mm.tofile(f"{out}/mm.raw"); os.makedirs(f"{out}/cam")
        subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "gray16le", "-s", f"{W}x{H}", "-i", f"{out}/mm.raw",
                        "-start_number", "0", f"{out}/cam/%04d.png"], check=True)
        # 16-bit disparity codes on 0:2 for the bit-exact round trip.
        codes = (1 + np.round(D / 2 * 65534)).astype("<u2"); codes[:, 1, 1] = 0
        codes.tofile(f"{out}/codes.raw"); os.makedirs(f"{out}/codes")
        subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "gray16le", "-s", f"{W}x{H}", "-i", f"{out}/codes.raw",
                        "-start_number", "0", f"{out}/codes/%04d.png"], check=True)
        # 8-bit grey H.264 (lossless) of disparity codes on 0:2: 0 = no depth, 1…255 linear.
        c8 = (1 + np.round(D / 2 * 254)).astype(np.uint8); c8.tofile(f"{out}/c8.raw")
        subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{W}x{H}", "-r", "30", "-i", f"{out}/c8.raw",
                        "-c:v", "libx264", "-qp", "0", "-pix_fmt", "gray", "-color_range", "pc", f"{out}/depth8.mp4"], check=True)
        # Relative disparity as a model gives it: per-frame random scale and shift.
        rng = np.random.default_rng(7)
        a = rng.uniform(0.6, 1.6, N); b = rng.uniform(-0.5, 0.5, N)
        rel = (a[:, None, None] * D + b[:, None, None]).astype(np.float32)
        np.save(f"{out}/rel.npy", rel)
        np.save(f"{out}/rel_white_far.npy", (3.0 - rel).astype(np.float32))
        frames = []
        for t in range(N):
            frames.append({"frame": t, "detections": [
                {"id": 1, "type": "torso", "rect": [(4 + 3 * t) / W, 20 / H, 12 / W, 12 / H]},
                {"id": 2, "type": "custom", "rect": [44 / W, 4 / H, 12 / W, 10 / H]}]})
        json.dump({"version": 1, "frames": frames}, open(f"{out}/det.json", "w"))
        """#

    init() throws {
        directory = try Paths.temporaryDirectory("depthinput")
        try Peers.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=128x72:rate=30", "-frames:v", "\(Self.frames)", "-start_number", "0",
                directory.file("rgb%04d.png"),
            ])
        try Peers.run("python3", ["-c", Self.generator, directory.path])
    }

    func file(_ name: String) -> String { directory.file(name) }

    /// `pack` with the picture frames and `arguments`; returns the output path and the result.
    func pack(_ arguments: [String], output: String = "out.mov") throws -> (path: String, result: CLI.Output) {
        let path = file(output)
        try? FileManager.default.removeItem(atPath: path)
        let result = try CLI.run(["pack", "-o", path, "--frames", file("rgb%04d.png")] + arguments)
        return (path, result)
    }

    /// Largest |stored − truth| − tolerance(truth) over every valid pixel; NaN pixels of the
    /// stored map must be exactly `holes`.
    static func worstExcess(_ movie: CinematicMovie, holes: Set<Int> = [], tolerance: (Float) -> Float) throws -> Float {
        var worst: Float = -.infinity
        for t in 0..<frames {
            let stored = try movie.disparityMap(t).values
            let truth = truth(t)
            for i in 0..<stored.count {
                if holes.contains(i) {
                    if !stored[i].isNaN { return .infinity }
                    continue
                }
                worst = max(worst, abs(stored[i] - truth[i]) - tolerance(truth[i]))
            }
        }
        return worst
    }
}
