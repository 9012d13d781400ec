import CinepackFormat
import CinepackRender
import Foundation
import Testing

/// Speed of the bokeh renderer at 1920 × 1080 (DESIGN §5: measured in a benchmark, never in a
/// timed test). Runs only with CINEPACK_BOKEH_BENCH=1, best in release:
///
///     CINEPACK_BOKEH_BENCH=1 swift test -c release --filter BokehBenchmark
///
/// Prints milliseconds per frame (median of several runs after a warm-up) for preview and export
/// on a few scenes, with the disparity at full resolution and at quarter resolution (upsampled).
@Suite struct BokehBenchmark {
    static var enabled: Bool { ProcessInfo.processInfo.environment["CINEPACK_BOKEH_BENCH"] == "1" }

    static func milliseconds(runs: Int, _ body: () -> LinearImage) -> (median: Double, best: Double) {
        _ = body()
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            let image = body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            precondition(image.width > 0)
        }
        times.sort()
        return (times[times.count / 2], times[0])
    }

    @Test(.enabled(if: BokehBenchmark.enabled))
    func fullHD() {
        let (w, h) = (1920, 1080)
        let scene = RendererTestScene.make(width: w, height: h)
        let quarter = DisparityMap(
            width: w / 4, height: h / 4,
            values: (0..<(w / 4 * h / 4)).map { scene.disparity[(($0 / (w / 4)) * 4 + 2) * w + ($0 % (w / 4)) * 4 + 2] })
        let threads = ProcessInfo.processInfo.activeProcessorCount
        print("bokeh benchmark, 1920×1080, \(threads) cores, ms per frame (median / best of 7)")
        let cases: [(String, Float, [Float]?)] = [
            ("focus everywhere (nothing to blur)", 4, [Float](repeating: 1, count: w * h)),
            ("scene f/4 (background r≈14, near bar r≈35, floor)", 4, nil),
            ("scene f/2 (background r≈28, near bar r≈70, floor)", 2, nil),
            ("uniform r=3 (largest full-resolution radius, export)", 0, [Float](repeating: 0, count: w * h)),
            ("uniform r=12", 0, [Float](repeating: 0, count: w * h)),
        ]
        for (name, fNumber, uniform) in cases {
            var lens = RendererTestScene.lens(width: w, fNumber: fNumber)
            var disparity = uniform ?? scene.disparity
            if fNumber == 0 {
                // Uniform blur of the named radius behind a focus at 1 D.
                lens = RendererTestScene.lens(width: w, fNumber: 2)
                let radius: Float = name.contains("r=3") ? 3 : 12
                disparity = [Float](repeating: 1 - 2 * radius / lens.scale(focusDisparity: 1), count: w * h)
            }
            for quality in RenderQuality.allCases {
                let renderer = BokehRenderer(quality: quality)
                let t = Self.milliseconds(runs: 7) {
                    renderer.render(picture: scene.picture, fullResolutionDisparity: disparity, focusDisparity: 1, lens: lens)
                }
                print(String(format: "  %-55@ %-7@ %7.1f / %7.1f", name as NSString, quality.rawValue as NSString, t.median, t.best))
            }
        }
        for quality in RenderQuality.allCases {
            let renderer = BokehRenderer(quality: quality)
            let lens = RendererTestScene.lens(width: w, fNumber: 2)
            let t = Self.milliseconds(runs: 7) {
                renderer.render(picture: scene.picture, disparity: quarter, focusDisparity: 1, lens: lens)
            }
            print(
                String(
                    format: "  %-55@ %-7@ %7.1f / %7.1f", "scene f/2, 480×270 disparity (upsampled inside)" as NSString,
                    quality.rawValue as NSString, t.median, t.best))
        }
        let picture = scene.picture
        let t = Self.milliseconds(runs: 7) {
            LinearImage(
                width: w, height: h,
                values: DisparityUpsampler.upsample(quarter, guide: picture).map { _ in 0 } + [Float](repeating: 0, count: 2 * w * h))
        }
        print(
            String(
                format: "  %-55@ %-7@ %7.1f / %7.1f", "DisparityUpsampler alone, 480×270 → 1920×1080" as NSString, "" as NSString, t.median,
                t.best))
    }
}
