import Foundation

/// Coarse levels kept between the frames of a renderer (same-size frames reuse them;
/// `BokehLevel.clearStale` clears only what the previous frame left and this one does not write).
final class LevelPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [BokehLevel] = []

    func take(level: Int, width: Int, height: Int, pad: Int, pictureWidth: Int) -> BokehLevel {
        lock.lock()
        let found = idle.firstIndex {
            $0.level == level && $0.width == width && $0.height == height && $0.planes.pad == pad && $0.column.count == pictureWidth
        }.map { idle.remove(at: $0) }
        lock.unlock()
        if let found {
            found.reset()
            return found
        }
        return BokehLevel(level: level, width: width, height: height, pad: pad, pictureWidth: pictureWidth)
    }

    func give(_ levels: [BokehLevel]) {
        lock.lock()
        idle.append(contentsOf: levels)
        // Enough for two renders in flight at two sizes; the oldest go first.
        if idle.count > 40 { idle.removeFirst(idle.count - 40) }
        lock.unlock()
    }
}
