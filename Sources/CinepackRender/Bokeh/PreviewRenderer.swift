import CinepackFormat

/// Preview quality: the same algorithm on the picture at a quarter of its width and height (half
/// for small pictures), then one cheap pass at full resolution that upsamples it and keeps
/// in-focus pixels exactly.
///
/// The reduced render produces two layers: the near field (premultiplied colour and coverage) and
/// what lies behind it. Each full-resolution pixel takes the near layer bilinearly and, behind
/// it, a blend of its own picture value and the upsampled behind layer by its blur radius: whole
/// below half a pixel across, the share of fine detail a disk of that radius keeps up to about
/// a cell (see `PreviewUpsampler`). Sharp pixels stay exactly sharp, a blurred foreground still
/// spills over them, and the bokeh costs about a sixteenth of export's. The price: blur circles
/// under a few pixels come out softer than at export (the resampling's own spread, about a cell,
/// adds to theirs).
struct PreviewRenderer {
    let renderer: BokehRenderer

    /// How much smaller the reduced render is: 4, or 2 for pictures under 96 pixels on a side.
    static func factor(width: Int, height: Int) -> Int { min(width, height) >= 96 ? 4 : 2 }

    /// With a disparity value for every picture pixel.
    func render(picture: LinearImage, disparity: [Float], focusDisparity: Float, lens: LensModel) -> LinearImage {
        disparity.withUnsafeBufferPointer { depth in
            render(picture: picture, disparity: .pixels(depth.baseAddress!), focusDisparity: focusDisparity, lens: lens)
        }
    }

    /// With a disparity map of another size than the picture's: the reduced render takes the map
    /// resampled to its cells, the combine each pixel's disparity from those cells, guided by the
    /// picture where it decides the result (`PreviewEdgeDisparity`).
    /// Highlights are rebuilt by the caller (`BokehRenderer`).
    func render(picture: LinearImage, map: DisparityMap, focusDisparity: Float, lens: LensModel) -> LinearImage {
        render(picture: picture, disparity: .map(map), focusDisparity: focusDisparity, lens: lens)
    }

    /// The same, also giving each pixel's disparity as the combine took it (for focus aids drawn
    /// over the render: they show what the preview did).
    func renderKeepingDisparity(
        picture: LinearImage, map: DisparityMap, focusDisparity: Float, lens: LensModel
    ) -> (image: LinearImage, disparity: [Float]) {
        var image: LinearImage?
        let count = picture.width * picture.height
        let disparity = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            image = render(
                picture: picture, disparity: .map(map), focusDisparity: focusDisparity, lens: lens, keptDisparity: buffer.baseAddress!)
            initialized = count
        }
        return (image!, disparity)
    }

    /// Where the disparity comes from.
    private enum Source {
        case pixels(UnsafePointer<Float>)
        case map(DisparityMap)
    }

    private func render(
        picture: LinearImage, disparity source: Source, focusDisparity: Float, lens: LensModel,
        keptDisparity: UnsafeMutablePointer<Float>? = nil
    ) -> LinearImage {
        let W = picture.width
        let H = picture.height
        let f = Self.factor(width: W, height: H)
        let w = (W + f - 1) / f
        let h = (H + f - 1) / f
        let threads = renderer.threads
        // Every value is written before it is read.
        let smallPictureBuffer = RawBuffer<Float>(count: w * h * 3, zeroed: false)
        let smallDisparityBuffer = RawBuffer<Float>(count: w * h, zeroed: false)
        let layersBuffer = RawBuffer<Float>(count: w * h * PreviewLayer.count, zeroed: false)
        defer { withExtendedLifetime((smallPictureBuffer, smallDisparityBuffer, layersBuffer)) {} }
        let smallPicture = smallPictureBuffer.base
        let smallDisparity = smallDisparityBuffer.base
        let layers = layersBuffer.base
        var pixelDisparity: UnsafePointer<Float>? = nil
        if case .pixels(let p) = source { pixelDisparity = p }
        return picture.values.withUnsafeBufferPointer { pixels in
            let pic = Shared(UnsafeMutablePointer(mutating: pixels.baseAddress!))
            let disp = pixelDisparity.map { Shared(UnsafeMutablePointer(mutating: $0)) }
            let sp = Shared(smallPicture)
            let sd = Shared(smallDisparity)
            var clock = PassClock()
            // Reduced resolution: colour averaged over f × f (linear light), disparity over the
            // finite values among them (or the map resampled to the cells).
            parallelFor(h, threads: threads) { j in
                // Whole cells of 4 × 4: four rows of twelve floats summed as three vectors, then
                // the channels picked out of them.
                let whole = f == 4 && 4 * j + 4 <= H ? W / 4 : 0
                @inline(__always) func load4(_ q: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
                    UnsafeRawPointer(q).loadUnaligned(as: SIMD4<Float>.self)
                }
                for i in 0..<whole {
                    var (a, b, c) = (SIMD4<Float>(), SIMD4<Float>(), SIMD4<Float>())
                    for y in (4 * j)..<(4 * j + 4) {
                        let q = pic.p + 3 * (y * W + 4 * i)
                        (a, b, c) = (a + load4(q), b + load4(q + 4), c + load4(q + 8))
                    }
                    let k = 3 * (j * w + i)
                    sp.p[k] = (a[0] + a[3] + b[2] + c[1]) / 16
                    sp.p[k + 1] = (a[1] + b[0] + b[3] + c[2]) / 16
                    sp.p[k + 2] = (a[2] + b[1] + c[0] + c[3]) / 16
                }
                for i in whole..<w {
                    var colour = SIMD3<Float>.zero
                    var n: Float = 0
                    for y in (f * j)..<min(H, f * j + f) {
                        for x in (f * i)..<min(W, f * i + f) {
                            let p = y * W + x
                            colour += SIMD3(pic.p[3 * p], pic.p[3 * p + 1], pic.p[3 * p + 2])
                            n += 1
                        }
                    }
                    colour /= n
                    sp.p[3 * (j * w + i)] = colour.x
                    sp.p[3 * (j * w + i) + 1] = colour.y
                    sp.p[3 * (j * w + i) + 2] = colour.z
                }
                guard let disp else { return }
                for i in 0..<w {
                    var d: Float = 0
                    var valid: Float = 0
                    for y in (f * j)..<min(H, f * j + f) {
                        for x in (f * i)..<min(W, f * i + f) where disp.p[y * W + x].isFinite {
                            d += disp.p[y * W + x]
                            valid += 1
                        }
                    }
                    sd.p[j * w + i] = valid > 0 ? d / valid : .nan
                }
            }
            if case .map(let map) = source {
                PreviewMapResampler.resample(map, pictureWidth: W, pictureHeight: H, factor: f, into: smallDisparity)
            }
            clock.lap("preview downsample")
            BokehEngine(
                width: w, height: h, picture: smallPicture, disparity: smallDisparity, focus: focusDisparity, lens: lens,
                quality: .preview, threads: threads, pool: renderer.pool, radiusScale: Float(w) / Float(W),
                aperture: renderer.aperture
            ).run(into: CompositeTarget(layers: layers))
            clock.lap("preview engine")
            let radius = BlurRadius(half: 0.5 * lens.scale(focusDisparity: focusDisparity), focus: focusDisparity, limit: 1e6)
            let edges =
                disp == nil
                ? PreviewEdgeDisparity(
                    cellDisparity: smallDisparity, picture: pic.p, width: W, height: H, cells: w, rows: h, factor: f, radius: radius,
                    threads: threads)
                : nil
            clock.lap("preview edges")
            let image = PreviewUpsampler(
                picture: pic.p, disparity: disp?.p, edges: edges, width: W, height: H, layers: layers, cellDisparity: smallDisparity,
                cells: w, rows: h, factor: f, radius: radius
            ).run(threads: threads, pixelDisparity: keptDisparity)
            clock.lap("preview combine")
            clock.report()
            return image
        }
    }
}
