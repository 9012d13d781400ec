/// The lens look chosen by the user (spec/edl.md §4, spec/render.md §5): the aperture's shape
/// and the highlight rebuild, stored as attributes of `<aperture>` so a re-render reproduces
/// it. Each value is optional; an absent one keeps the default (round, no rebuild).
public struct ApertureLook: Sendable, Equatable {
    /// Aperture blades: 0 = a circle, else 3…16.
    public var blades: Int?
    /// Degrees clockwise on screen; at 0 a corner points up.
    public var bladeRotation: Float?
    /// 0 = straight blades … 1 = round.
    public var bladeCurvature: Float?
    /// Height : width of the bokeh (its area kept), 0.25…4.
    public var anamorphic: Float?
    /// Optical vignetting, 0…1: how far toward the corners blur spots are clipped into a cat's eye
    /// (spec/render.md §5); 0 = none.
    public var catEye: Float?
    /// Linear-light level from which highlights are rebuilt, (0, 1].
    public var highlightThreshold: Float?
    /// Factor a highlight at full white is multiplied by, 1…100.
    public var highlightGain: Float?
    /// A PNG whose bright part is the aperture's shape (replaces the blades); a path, absolute as
    /// stored by `cinepack lens`.
    public var kernel: String?

    public init(
        blades: Int? = nil, bladeRotation: Float? = nil, bladeCurvature: Float? = nil, anamorphic: Float? = nil,
        highlightThreshold: Float? = nil, highlightGain: Float? = nil, kernel: String? = nil, catEye: Float? = nil
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

    /// True when nothing is set.
    public var isEmpty: Bool { self == ApertureLook() }

    /// `other`'s values where it has them, this look's elsewhere (render options over the EDL).
    public func overridden(by other: ApertureLook) -> ApertureLook {
        ApertureLook(
            blades: other.blades ?? blades, bladeRotation: other.bladeRotation ?? bladeRotation,
            bladeCurvature: other.bladeCurvature ?? bladeCurvature, anamorphic: other.anamorphic ?? anamorphic,
            highlightThreshold: other.highlightThreshold ?? highlightThreshold, highlightGain: other.highlightGain ?? highlightGain,
            kernel: other.kernel ?? kernel, catEye: other.catEye ?? catEye)
    }

    /// The first value out of range, as (attribute name, message); nil when all are valid.
    public var problem: (attribute: String, message: String)? {
        if let b = blades, !(b == 0 || (3...16).contains(b)) { return ("blades", "must be 0 (a circle) or 3…16 (got \(b))") }
        if let r = bladeRotation, !(r.isFinite && abs(r) <= 360) { return ("blade-rotation", "must be −360…360 degrees (got \(r))") }
        if let c = bladeCurvature, !(c.isFinite && (0...1).contains(c)) { return ("blade-curvature", "must be 0…1 (got \(c))") }
        if let a = anamorphic, !(a.isFinite && a >= 0.25 && a <= 4) { return ("anamorphic", "must be 0.25…4 (got \(a))") }
        if let t = highlightThreshold, !(t.isFinite && t > 0 && t <= 1) {
            return ("highlight-threshold", "must be in (0, 1] (got \(t))")
        }
        if let g = highlightGain, !(g.isFinite && g >= 1 && g <= 100) { return ("highlight-gain", "must be 1…100 (got \(g))") }
        if let c = catEye, !(c.isFinite && (0...1).contains(c)) { return ("cat-eye", "must be 0…1 (got \(c))") }
        if let k = kernel, k.isEmpty { return ("kernel", "must name an image file") }
        return nil
    }
}
