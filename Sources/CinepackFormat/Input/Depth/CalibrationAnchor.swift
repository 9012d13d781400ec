import CinepackTime
import Foundation

/// One known distance that ties a relative map to metres: a detection's median, a point at a
/// time, or the near/far percentiles of the whole clip.
public struct CalibrationAnchor: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// The median map value inside detection `id`'s box, over the frames it is seen.
        case object(UInt32)
        /// The value at a normalized point at a time.
        case point(x: Float, y: Float, at: TimeExpression)
        /// The 98th percentile of the clip's values (the nearest things).
        case near
        /// The 2nd percentile (the farthest things).
        case far
    }

    public var target: Target
    public var metres: Float

    public init(target: Target, metres: Float) {
        self.target = target
        self.metres = metres
    }

    /// Parses `object 4 = 2.5m` or `0.62,0.40 @ 1.0s = 3m` (times as everywhere: `1.0s`, `30f`, …).
    public init(parsing text: String) throws(DepthInputError) {
        func bad(_ why: String) -> DepthInputError { DepthInputError(file: "calibration anchor '\(text)'", .calibration(why)) }
        let sides = text.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard sides.count == 2 else { throw bad("expected 'object ID = DISTANCEm' or 'X,Y @ TIME = DISTANCEm'") }
        metres = try Self.metres(sides[1], option: "calibration anchor '\(text)'")
        let left = sides[0]
        if left.lowercased().hasPrefix("object") {
            guard let id = UInt32(left.dropFirst(6).trimmingCharacters(in: .whitespaces)), id > 0 else {
                throw bad("'\(left)' needs a detection id: object 4")
            }
            target = .object(id)
            return
        }
        let parts = left.split(separator: "@", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let xy = parts.first?.split(separator: ",").compactMap { Float($0.trimmingCharacters(in: .whitespaces)) } ?? []
        guard parts.count == 2, xy.count == 2, (0...1).contains(xy[0]), (0...1).contains(xy[1]) else {
            throw bad("a point anchor is 'X,Y @ TIME = DISTANCEm' with X and Y in 0…1")
        }
        let time: TimeExpression
        do { time = try TimeExpression(parsing: parts[1]) } catch { throw bad("time \(parts[1]): \(error)") }
        target = .point(x: xy[0], y: xy[1], at: time)
    }

    /// A distance such as `2.5m`, `2.5` (metres), `250cm` or `2500mm`; positive and finite.
    public static func metres(_ text: String, option: String) throws(DepthInputError) -> Float {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let (number, factor): (Substring, Float) =
            t.hasSuffix("mm")
            ? (t.dropLast(2), 0.001) : t.hasSuffix("cm") ? (t.dropLast(2), 0.01) : t.hasSuffix("m") ? (t.dropLast(), 1) : (Substring(t), 1)
        guard let value = Float(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0, (value * factor).isNormal else {
            throw DepthInputError(file: option, .calibration("'\(text)' is not a positive distance such as 2.5m"))
        }
        return value * factor
    }

    public var label: String {
        switch target {
        case .object(let id): "object \(id) = \(metres) m"
        case .point(let x, let y, let t): "\(x),\(y) @ \(t) = \(metres) m"
        case .near: "near = \(metres) m"
        case .far: "far = \(metres) m"
        }
    }
}
