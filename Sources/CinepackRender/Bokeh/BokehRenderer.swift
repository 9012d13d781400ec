import CinepackFormat
import Foundation

/// Bakes depth of field into a picture (spec/render.md).
///
/// The blur circle of every pixel comes from the lens model (spec/render.md §1), signed: negative in front of the
/// focus plane (the near field), positive behind it (the far field). The two fields are rendered
/// separately and composited near over far:
///
/// - far field: a gather in which a sample reaches a pixel only within the smaller of the two blur
///   radii ("scatter as gather", weights coverage / disk area), so a sharp foreground never bleeds
///   into the blurred background and background never bleeds onto a sharp subject;
/// - near field: every near sample spreads over its own disk whatever lies behind, so a blurred
///   foreground spills over the sharp subject; its accumulated coverage is the alpha of the
///   composite, and behind it the background is filled from the far samples around;
/// - large blur circles are rendered at reduced resolution (half, quarter, …) so each level gathers
///   at most a few cells' radius: work grows with blur size but stays bounded per pixel. Small
///   circles are gathered at full resolution; circles under a pixel across pass the pixel through;
/// - all weights are continuous functions of the blur radius (soft near/far membership, linear
///   blends between levels), taps are fixed disks (no random taps): the result is deterministic,
///   thread-count independent and free of flicker on a static scene or during a rack focus;
/// - everything is in linear light with normalised weights, so highlights keep their energy.
public struct BokehRenderer: Sendable {
    public var quality: RenderQuality
    /// Worker threads; `nil` uses every core. The output never depends on it.
    public var threads: Int?
    /// The aperture's shape and the highlight rebuild (spec/render.md §5); the default is round.
    public var look = LensLook() {
        // The tap tables (cat's-eye zones included) are costly to build: only a new shape rebuilds them.
        didSet { if look.apertureShape != oldValue.apertureShape { aperture = ApertureTaps.make(look) } }
    }
    var aperture = ApertureTaps.circle
    /// Working buffers kept between frames (one renderer for a whole clip avoids reallocating
    /// them; concurrent renders each take their own).
    let pool = LevelPool()

    public init(quality: RenderQuality) {
        self.quality = quality
        self.threads = nil
    }

    /// Renders `picture` (linear light) with a disparity map at any resolution: the map is
    /// upsampled edge-aware, guided by the picture (`DisparityUpsampler`); preview quality works
    /// from the map itself (`PreviewRenderer`, spec/render.md §3). `focusDisparity` in
    /// diopters; `lens` gives the f-number, focal length and output width (normally the picture's).
    /// A picture handed over (`consume`, or a temporary) is reused as the engine's input instead
    /// of copied.
    public func render(picture: consuming LinearImage, disparity: DisparityMap, focusDisparity: Float, lens: LensModel) -> LinearImage {
        if previewsFromMap(picture, disparity) {
            // Preview needs each pixel's disparity only near depth steps close to the focus (spec/render.md §3).
            let (picture, renderer) = rebuildingHighlights(consume picture)
            return PreviewRenderer(renderer: renderer).render(picture: picture, map: disparity, focusDisparity: focusDisparity, lens: lens)
        }
        let full = fullResolution(disparity, guide: picture)
        return render(picture: consume picture, fullResolutionDisparity: consume full, focusDisparity: focusDisparity, lens: lens)
    }

    /// Renders as `render(picture:disparity:focusDisparity:lens:)` does and also gives the
    /// disparity of every picture pixel the render worked from, for focus aids drawn over it: the
    /// map brought to the picture's size, or in a preview from the map the preview's own
    /// (spec/render.md §3), so the aid shows what the render did and costs no second upsampling.
    public func renderKeepingDisparity(
        picture: consuming LinearImage, disparity: DisparityMap, focusDisparity: Float, lens: LensModel
    ) -> (image: LinearImage, disparity: [Float]) {
        if previewsFromMap(picture, disparity) {
            let (picture, renderer) = rebuildingHighlights(consume picture)
            return PreviewRenderer(renderer: renderer).renderKeepingDisparity(
                picture: picture, map: disparity, focusDisparity: focusDisparity, lens: lens)
        }
        let full = fullResolution(disparity, guide: picture)
        return (render(picture: consume picture, fullResolutionDisparity: full, focusDisparity: focusDisparity, lens: lens), full)
    }

    /// The map at the picture's size: upsampled edge-aware, guided by the picture
    /// (`DisparityUpsampler`), or its own values with the holes filled when it is that size.
    private func fullResolution(_ disparity: DisparityMap, guide picture: LinearImage) -> [Float] {
        var clock = PassClock()
        let full: [Float]
        if disparity.width == picture.width && disparity.height == picture.height {
            full = DisparityUpsampler.filled(disparity.values, width: disparity.width, height: disparity.height)
        } else {
            full = DisparityUpsampler.upsample(disparity, guide: picture, threads: threads)
        }
        clock.lap("disparity \(disparity.width)x\(disparity.height) to picture")
        clock.report()
        return full
    }

    /// Whether the render of `picture` with `disparity` is a preview straight from the map (the
    /// map is not the picture's size; spec/render.md §3).
    func previewsFromMap(_ picture: LinearImage, _ disparity: DisparityMap) -> Bool {
        quality == .preview && picture.width >= 32 && picture.height >= 32 && disparity.width > 0 && disparity.height > 0
            && (disparity.width != picture.width || disparity.height != picture.height)
    }

    /// The same with a disparity map already at picture resolution (no upsampling). NaN disparity
    /// counts as in focus.
    public func render(
        picture: consuming LinearImage, fullResolutionDisparity: consuming [Float], focusDisparity: Float, lens: LensModel
    ) -> LinearImage {
        precondition(
            fullResolutionDisparity.count == picture.width * picture.height,
            "the disparity map must have one value per picture pixel")
        guard picture.width > 0, picture.height > 0 else { return picture }
        if look.rebuildsHighlights {
            let (rebuilt, plain) = rebuildingHighlights(consume picture)
            return plain.render(
                picture: consume rebuilt, fullResolutionDisparity: consume fullResolutionDisparity, focusDisparity: focusDisparity,
                lens: lens)
        }
        if quality == .preview && picture.width >= 32 && picture.height >= 32 {
            return PreviewRenderer(renderer: self).render(
                picture: picture, disparity: fullResolutionDisparity, focusDisparity: focusDisparity, lens: lens)
        }
        // Mixed pixels at sharp-over-blurred depth edges: the engine gets their blurred side only
        // (patched into the picture and disparity handed over here, not into a copy).
        var clock = PassClock()
        let matte = DepthEdgeMatte(
            picture: consume picture, disparity: consume fullResolutionDisparity, focusDisparity: focusDisparity, lens: lens,
            threads: threads)
        clock.lap("depth-edge matte")
        var image = matte.picture.values.withUnsafeBufferPointer { pixels in
            matte.disparity.withUnsafeBufferPointer { disparity in
                BokehEngine(
                    width: matte.picture.width, height: matte.picture.height, picture: pixels.baseAddress!,
                    disparity: disparity.baseAddress!,
                    focus: focusDisparity, lens: lens, quality: quality, threads: threads, pool: pool, aperture: aperture
                ).run()
            }
        }
        clock.lap("engine")
        matte.composite(over: &image)
        clock.lap("matte composite")
        clock.report()
        return image
    }

    /// The picture with its clipped highlights rebuilt as the look asks (spec/render.md §5), and
    /// the renderer to blur it with, which rebuilds nothing more (the picture and itself when the
    /// look rebuilds nothing).
    private func rebuildingHighlights(_ picture: consuming LinearImage) -> (LinearImage, BokehRenderer) {
        guard look.rebuildsHighlights else { return (picture, self) }
        // In place when the picture was handed over.
        look.rebuildHighlights(&picture)
        var plain = self
        plain.look.highlightThreshold = nil
        return (picture, plain)
    }
}
