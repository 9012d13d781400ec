/// Per full-resolution tile: smallest and largest radius of its far pixels with blur (radius >
/// 0.5) and of its near pixels; (∞, −1) when there are none.
struct TileStats {
    var minFar: Float = .infinity
    var maxFar: Float = -1
    var minNear: Float = .infinity
    var maxNear: Float = -1

    var hasWork: Bool { maxFar >= 0 || maxNear >= 0 }
}
