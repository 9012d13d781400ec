/// The planes of a coarse level's gather results, in memory order: per field (far, fill, near),
/// Σ w·colour and Σ w·alpha (near: Σ colour and Σ alpha, the level share in the weights). One
/// plane per channel, so that a gather stores its eight cells and the composite reads a row of
/// cells as vectors.
enum GatherPlane: Int, PlaneSet {
    case farRed, farGreen, farBlue, farAlpha
    case fillRed, fillGreen, fillBlue, fillAlpha
    case nearRed, nearGreen, nearBlue, nearAlpha

    static let count = allCases.count

    /// The first (red) plane of field 0 (far), 1 (fill) or 2 (near); the others follow.
    static func red(field: Int) -> Int { field * 4 }
}
