/// The scratch planes of the full-resolution (level 0) gathers around a tile, in memory order:
/// the far group (also read as the fill group) and the near group, each laid out as `GroupPlane`
/// says; the near group's last plane is the level-0 share over the disk area.
enum FullResolutionPlane: Int, PlaneSet {
    case farRed, farGreen, farBlue, farAlpha, farRadius, farInverseArea
    case nearRed, nearGreen, nearBlue, nearAlpha, nearRadius, nearInverseArea

    static let count = allCases.count
}
