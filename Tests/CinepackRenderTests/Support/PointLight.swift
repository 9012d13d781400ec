@testable import CinepackRender

/// A black square frame with one bright pixel, everything `radius` px behind the focus plane
/// (26 mm, f/2): the scene the lens-look and placement tests read a spot's shape and place from.
enum PointLight {
    /// The frame `size` px square with the light (energy 400 a channel) at (x, y).
    static func render(
        _ look: LensLook, radius: Float, size n: Int, x: Int, y: Int, quality: RenderQuality = .export
    ) -> LinearImage {
        var picture = LinearImage(width: n, height: n)
        picture.setPixel(x, y, SIMD3(repeating: 400))
        let lens = LensModel(focalLength35mm: 26, fNumber: 2, width: n)
        let focus: Float = 1
        let d = focus - 2 * radius / lens.scale(focusDisparity: focus)
        var renderer = BokehRenderer(quality: quality)
        renderer.look = look
        return renderer.render(
            picture: picture, fullResolutionDisparity: [Float](repeating: d, count: n * n), focusDisparity: focus, lens: lens)
    }
}
