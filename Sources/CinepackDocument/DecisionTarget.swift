import CinepackEDL
import CinepackFormat

/// What a focus decision is on, as an editor asks for it. `CinematicDocument.addDecision` resolves it
/// to a stored `FocusTarget` with the rules of spec/focus.md and spec/retime.md §4–5.
public enum DecisionTarget: Sendable, Equatable {
    /// A detected subject (captured, or a user track).
    case object(UInt32)
    /// The group (face, head, torso of one subject) of a detected subject.
    case group(ofObject: UInt32)
    /// A point: the smallest detection containing it, else the salient region there, tracked through
    /// the following frames as a custom track.
    case point(PicturePoint)
    /// A fixed focus plane at the depth of a point.
    case planeAtPoint(PicturePoint)
    /// A fixed focus plane at this disparity (diopters).
    case plane(disparity: Float)

    /// Fixed planes are strong unless said otherwise; subjects and points weak (the tap logic).
    public var defaultStrength: DecisionStrength {
        switch self {
        case .object, .group, .point: .weak
        case .planeAtPoint, .plane: .strong
        }
    }
}

/// A point of the picture as a user gives it: normalized (0…1, origin top-left) when both values
/// are at most 1, else pixels.
public struct PicturePoint: Sendable, Equatable, CustomStringConvertible {
    public var x: Float
    public var y: Float
    public init(x: Float, y: Float) {
        self.x = x
        self.y = y
    }

    public var isPixels: Bool { x > 1 || y > 1 }

    /// Normalized coordinates in a `width`×`height` picture.
    public func normalized(width: Int, height: Int) throws(DocumentError) -> (x: Float, y: Float) {
        let nx = isPixels ? x / Float(max(width, 1)) : x
        let ny = isPixels ? y / Float(max(height, 1)) : y
        guard x.isFinite, y.isFinite, nx >= 0, nx <= 1, ny >= 0, ny <= 1 else {
            throw .pointOutsidePicture(self, width: width, height: height)
        }
        return (nx, ny)
    }

    public var description: String { "\(FocusTarget.text(x)),\(FocusTarget.text(y))" }
}
