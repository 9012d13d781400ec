import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackRender
import CinepackTime

/// Why a `CinematicDocument` refused a request. Every case carries what a user interface needs to
/// explain it (ids, times, ranges); `description` is a sentence in the vocabulary of the movie, never
/// of a command line, and `underlying` is the lower layer's error when there was one.
public enum DocumentError: Error, Sendable, CustomStringConvertible {
    /// The file is a movie, but without the disparity and focus-metadata tracks of a cinematic movie.
    case notCinematic(path: String)
    /// The file could not be read as a movie (or its stored edits could not be read).
    case unreadable(path: String, cause: any Error & Sendable)
    /// A time outside the clip: what was asked for, and the clip's frames and duration.
    case outOfRange(requested: String, frameCount: Int, duration: MediaTime)
    /// A time that cannot be placed on the clip's frame grid.
    case badTime(requested: String, cause: TimeParseError)
    /// No detection with this id anywhere in the movie; `visible` are the subjects at the time asked.
    case noSuchObject(UInt32, at: SnappedTime, visible: [Subject])
    /// The detection exists but not at this time; `seen` are the time spans where it is.
    case notVisible(UInt32, at: SnappedTime, seen: [ClosedRange<MediaTime>])
    /// Focus on an object's group was asked for, but the object has no group.
    case noGroup(UInt32)
    /// A point outside the picture (normalized 0…1, or pixels of a `width`×`height` picture).
    case pointOutsidePicture(PicturePoint, width: Int, height: Int)
    /// No valid depth at a point, so no fixed plane or region can be made there.
    case noDepth(x: Float, y: Float, at: SnappedTime)
    /// No salient region at a point to follow.
    case noSalientRegion(x: Float, y: Float, at: SnappedTime)
    /// Every user track id is taken.
    case noTrackIDLeft
    /// A user decision number (from 1) that does not exist; `count` is how many there are.
    case noSuchDecision(Int, count: Int)
    /// An f-number that is not a positive finite number.
    case badFNumber(Float)
    /// A lens-look value out of range: the attribute (`blades`, `anamorphic`, …) and why.
    case badLensLook(attribute: String, reason: String)
    /// A focus-plane disparity that is not a finite number ≥ 0.
    case badDisparity(Float)
    case nothingToUndo
    case nothingToRedo
    /// A retime, trim or speed change the timeline rules refuse.
    case timeline(RetimeError)
    /// The edits break a rule of the EDL format (they are not stored).
    case invalidEdits(EDLError)
    /// Another writer holds the file's lock; nothing was written.
    case busy(path: String)
    /// Another writer changed the file's edits since this document read them; nothing was written.
    case changedByAnotherWriter(path: String)
    /// Writing the edits failed; the file keeps its previous edits.
    case saveFailed(path: String, cause: any Error & Sendable)
    /// Reading a frame's picture, depth or metadata failed (frame -1: not one frame's fault).
    case frameUnreadable(frame: Int, cause: FormatError)
    /// The render cannot be planned as asked (a range without frames, a frame outside the program).
    case render(RenderPlanError)
    /// Writing an output file failed; nothing is left under its name.
    case writeFailed(path: String, cause: any Error & Sendable)
    /// An export refused its settings or failed while encoding (e.g. an ffmpeg codec without
    /// ffmpeg, rate control in a farm part); nothing is left under `path`.
    case exportFailed(path: String, cause: any Error & Sendable)
    /// The task was cancelled; nothing was written.
    case cancelled
    /// An EDL sidecar that cannot be read (missing, a folder, no permission).
    case sidecarUnreadable(path: String)
    /// An EDL made for other media: its binding (nil: none) and this movie's.
    case boundToOtherMedia(edl: MediaBinding?, movie: MediaBinding)

    /// A subject at one frame, as the errors and `subjects(at:)` list it.
    public struct Subject: Sendable, Equatable, CustomStringConvertible {
        public var id: UInt32
        public var type: DetectionType
        public init(id: UInt32, type: DetectionType) {
            self.id = id
            self.type = type
        }
        public var description: String { "\(id) (\(type))" }
    }

    /// The lower layer's error this one wraps, if any.
    public var underlying: (any Error)? {
        switch self {
        case .unreadable(_, let cause), .saveFailed(_, let cause), .writeFailed(_, let cause), .exportFailed(_, let cause): cause
        case .badTime(_, let cause): cause
        case .timeline(let cause): cause
        case .invalidEdits(let cause): cause
        case .frameUnreadable(_, let cause): cause
        case .render(let cause): cause
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .notCinematic(let path):
            "\(path) is not a cinematic movie (no disparity/focus-metadata track)"
        case .unreadable(_, let cause): "\(cause)"
        case .outOfRange(let requested, let frameCount, let duration):
            "\(requested) is outside the clip (frames 0…\(frameCount - 1), 0s…\(duration.formattedSeconds()))"
        case .badTime(_, let cause): "\(cause)"
        case .noSuchObject(let id, let at, let visible):
            "no object \(id) in this movie; objects at \(Self.when(at)): "
                + (visible.isEmpty ? "none" : visible.map(\.description).joined(separator: ", "))
        case .notVisible(let id, let at, let seen):
            "object \(id) is not visible at \(Self.when(at)); it is seen at "
                + seen.prefix(4).map { "\($0.lowerBound.formattedSeconds())–\($0.upperBound.formattedSeconds())" }
                .joined(separator: ", ") + (seen.count > 4 ? ", …" : "")
        case .noGroup(let id): "object \(id) has no group (group id 0)"
        case .pointOutsidePicture(let point, let width, let height):
            "point \(point) is outside the frame (\(width)×\(height) pixels, or 0…1 normalized)"
        case .noDepth(let x, let y, let at):
            "no depth at point \(x),\(y) at \(Self.when(at)): the disparity map has no valid pixels there"
        case .noSalientRegion(let x, let y, let at):
            "no salient region at point \(x),\(y) at \(Self.when(at)): no valid depth there"
        case .noTrackIDLeft: "no user track ids left"
        case .noSuchDecision(let n, let count): "no user decision \(n); there are \(count)"
        case .badFNumber(let f): "the f-number must be a positive number (got \(f))"
        case .badLensLook(let attribute, let reason): "lens look: \(attribute) \(reason)"
        case .badDisparity(let d): "a focus plane must be a finite number of diopters ≥ 0 (got \(d))"
        case .nothingToUndo: "nothing to undo"
        case .nothingToRedo: "nothing to redo"
        case .timeline(let cause): "\(cause)"
        case .invalidEdits(let cause): "\(cause)"
        case .busy(let path): "\(path) is being edited by another writer; nothing written — try again"
        case .changedByAnotherWriter(let path):
            "\(path) was changed by another writer since it was read; nothing written — open it again"
        case .saveFailed(_, let cause): "\(cause)"
        case .frameUnreadable(_, let cause): "\(cause)"
        case .render(let cause): "\(cause)"
        case .writeFailed(let path, let cause): "cannot write \(path): \(cause)"
        case .exportFailed(_, let cause): "\(cause)"
        case .cancelled: "cancelled; nothing written"
        case .sidecarUnreadable(let path): "\(path): cannot read the file"
        case .boundToOtherMedia(let theirs, let ours):
            "the EDL was made for other media (\(theirs.map(\.description) ?? "-")); this movie has \(ours); nothing changed"
        }
    }

    /// `1.500s (frame 45)`: how a snapped time is named in messages.
    static func when(_ t: SnappedTime) -> String { "\(t.time.formattedSeconds()) (frame \(t.frame))" }
}

extension DocumentError {
    /// A render plan's refusal: unreadable input stays `.frameUnreadable` (of `frame`), the rest is `.render`.
    static func planning(_ error: RenderPlanError, frame: Int) -> DocumentError {
        if case .format(let cause) = error { return .frameUnreadable(frame: frame, cause: cause) }
        return .render(error)
    }
}
