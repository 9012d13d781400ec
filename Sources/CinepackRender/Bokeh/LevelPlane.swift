/// The planes of a coarse level, in memory order. Three groups are gathered, each laid out as
/// `GroupPlane` says from its first plane: the far field with exclusion (gathered by far pixels),
/// the far field without exclusion (the fill behind a blurred foreground; colour and alpha only)
/// and the near field. Then, per cell, the largest far and near radius among the
/// full-resolution pixels below (pixels, 0 if none).
enum LevelPlane: Int, PlaneSet {
    case farRed, farGreen, farBlue, farAlpha, farRadius, farInverseArea
    case fillRed, fillGreen, fillBlue, fillAlpha
    /// The near group's last plane is the level's share of the sample over its disk area.
    case nearRed, nearGreen, nearBlue, nearAlpha, nearRadius, nearInverseArea
    case maxFar, maxNear

    static let count = allCases.count

    /// The planes the gathers read, whose padding repeats the edge cells.
    static let gathered = farRed.rawValue..<maxFar.rawValue
}

/// A gathered group's planes, as offsets from its first plane: premultiplied colour, alpha, then
/// (far and near groups) the radius in cells and the weight over the disk area.
enum GroupPlane: Int {
    case red, green, blue, alpha, radius, inverseArea
}
