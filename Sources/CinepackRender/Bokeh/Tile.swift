/// Tiles: 16 × 16 full-resolution pixels = 8 × 8 cells of level 1; every coarse level is tiled
/// 8 × 8 cells too, so a tile row of cells is one SIMD8 group.
enum Tile {
    static let pixels = 16
    static let cells = 8
}
