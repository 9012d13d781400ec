import CinepackEDL

/// The look of the lens beyond its blur size (spec/render.md §5): the aperture's shape (blades,
/// an anamorphic squeeze) and the rebuild of clipped highlights. The default is today's round
/// aperture with no highlight rebuild, and renders exactly as a renderer without a look.
public struct LensLook: Sendable, Equatable {
    /// Aperture blades; 0 (or fewer than 3) is a circle.
    public var blades: Int
    /// Rotation of the blade polygon, degrees clockwise on screen (0: a corner points up).
    public var bladeRotation: Float
    /// 0 = straight blades, 1 = a circle; in between the sides bow outwards.
    public var bladeCurvature: Float
    /// Height : width of the bokeh (1 = round; 2 = an oval twice as tall as wide), its area kept.
    public var anamorphic: Float
    /// Optical vignetting: 0 = none; else the displacement, in aperture radii, of the disc that
    /// clips blur spots in the frame's corners into a cat's eye (spec/render.md §5).
    public var catEye: Float
    /// Linear-light level above which a pixel counts as a clipped highlight; nil = no rebuild.
    public var highlightThreshold: Float?
    /// Factor applied to the part of a highlight above the threshold.
    public var highlightGain: Float
    /// A custom aperture shape; it replaces the blades when set.
    public var kernel: ApertureKernel?

    public init(
        blades: Int = 0, bladeRotation: Float = 0, bladeCurvature: Float = 0, anamorphic: Float = 1,
        highlightThreshold: Float? = nil, highlightGain: Float = 1, kernel: ApertureKernel? = nil,
        catEye: Float = 0
    ) {
        self.catEye = catEye
        self.kernel = kernel
        self.blades = blades
        self.bladeRotation = bladeRotation
        self.bladeCurvature = bladeCurvature
        self.anamorphic = anamorphic
        self.highlightThreshold = highlightThreshold
        self.highlightGain = highlightGain
    }

    /// True when the aperture is round (the renderer's disk path is used unchanged).
    public var isRound: Bool { (blades < 3 || bladeCurvature >= 1) && anamorphic == 1 && kernel == nil && !clipsCatEyes }

    /// True when blur spots are clipped toward the frame's edges.
    public var clipsCatEyes: Bool { catEye > 0 }

    /// True when highlights are rebuilt.
    public var rebuildsHighlights: Bool { highlightThreshold != nil && highlightGain != 1 }

    /// The look without its highlight rebuild: everything that shapes the aperture's tap tables.
    var apertureShape: LensLook {
        var shape = self
        shape.highlightThreshold = nil
        shape.highlightGain = 1
        return shape
    }

    /// The look an EDL's `<aperture>` (or render options) describe, its ranges checked
    /// (spec/edl.md §4); absent values keep the defaults.
    /// A `kernel` path is read as a PNG (`ApertureKernel.load`).
    public init(_ look: ApertureLook) throws(LensLookError) {
        if let (attribute, message) = look.problem { throw LensLookError("\(attribute) \(message)") }
        self.init(
            blades: look.blades ?? 0, bladeRotation: look.bladeRotation ?? 0, bladeCurvature: look.bladeCurvature ?? 0,
            anamorphic: look.anamorphic ?? 1, highlightThreshold: look.highlightThreshold, highlightGain: look.highlightGain ?? 1,
            kernel: try look.kernel.map { path throws(LensLookError) in try ApertureKernel.load(path: path) },
            catEye: look.catEye ?? 0)
    }

    /// Rebuilds clipped highlights in place (linear light): a channel at full white is
    /// multiplied by the gain, one at the threshold is kept, with a smooth ramp between (no step
    /// in gradients), so a light clipped at the sensor's white regains the energy it spreads when
    /// defocused.
    package func rebuildHighlights(_ image: inout LinearImage) {
        guard let t = highlightThreshold, highlightGain != 1 else { return }
        let g = highlightGain
        let span = max(1 - t, 1e-6)
        for i in image.values.indices {
            let v = image.values[i]
            guard v > t else { continue }
            let u = min((v - t) / span, 1)
            image.values[i] = v * (1 + (g - 1) * u * u * (3 - 2 * u))
        }
    }
}

/// A lens-look value out of range.
public struct LensLookError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
