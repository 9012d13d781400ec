import CinepackContainer
import CinepackEDL
import CinepackEditor
import CinepackFormat
import CinepackTime

/// A cinematic movie opened for editing: the one object an editing tool needs. It reads the
/// captured subjects and focus, takes edits (focus decisions, taps, aperture, trims, speed) with
/// every rule of spec/focus.md, spec/edl.md and spec/retime.md applied, keeps undo and redo, and
/// stores the edits in the movie with `save()` (crash-safe, never touching the media).
///
/// Edits stay in memory until `save()`; `hasUnsavedChanges` says whether there are any.
public struct CinematicDocument: Sendable {
    package private(set) var edits: MovieEdits
    /// What capture recorded, frame by frame (detections, captured focus and decisions).
    public let capture: CaptureTimeline
    /// The edits as they stand (saved or not), undo history included.
    public private(set) var edl: EditDecisionList
    /// The focus the movie shows with these edits, frame by frame.
    public private(set) var script: FocusScript
    public private(set) var hasUnsavedChanges = false

    /// The file this document reads and saves.
    public var path: String { edits.movie.path }
    /// Problems found while reading the stored edits (e.g. a torn slot left by an interrupted save).
    public var warnings: [String] { edits.warnings }
    public var width: Int { edits.movie.width }
    public var height: Int { edits.movie.height }
    public var frameCount: Int { capture.frameCount }
    /// Frame n starts at `grid.time(ofFrame: n)`.
    public var grid: FrameGrid { capture.grid }
    /// The clip's length: the end of its last frame.
    public var duration: MediaTime { grid.time(ofFrame: Int64(frameCount)) }
    /// Focus timing and the aperture range, as captured.
    public var parameters: CinematicParameters { edits.movie.parameters }
    /// The f-number renders use: the edited one, else the captured default.
    public var fNumber: Float { edl.fNumber ?? parameters.defaultFNumber }
    /// The user's focus decisions, in time order.
    public var decisions: [UserDecision] { edl.decisions }
    /// Descriptions of the steps `undo()` would revert, oldest first.
    public var undoSteps: [String] { edl.history.map(\.description) }
    /// Descriptions of the steps `redo()` would re-apply, next first.
    public var redoSteps: [String] { edl.redo.reversed().map(\.description) }

    /// Opens the movie at `path` with its stored edits.
    /// - Throws: `.notCinematic` for a movie without disparity and focus-metadata tracks,
    ///   `.unreadable` when the file or its stored edits cannot be read.
    ///
    /// With `recovering`, a stored EDL that cannot be read (too large, broken XML, rules broken) is
    /// set aside with a warning and the edits start empty, so `clear()` then `save()` always
    /// recovers a movie whose media is intact.
    public init(path: String, recovering: Bool = false) throws(DocumentError) {
        // Identify first: a plain or remuxed movie is "not cinematic", not an unreadable one.
        let probe: CinematicMovie
        do { probe = try CinematicMovie.open(path: path) } catch { throw .unreadable(path: path, cause: error) }
        // A file that claims to be cinematic but fails identification says why (spec/format.md §2).
        if CinematicMovie.looksCinematic(probe.movie) {
            do { try probe.requireCinepack() } catch { throw .unreadable(path: path, cause: error) }
        }
        guard probe.disparity != nil || probe.metadata != nil else { throw .notCinematic(path: path) }
        do { edits = try MovieEdits.open(path: path, recovering: recovering) } catch {
            throw .unreadable(path: path, cause: error)
        }
        do { capture = try CaptureTimeline(movie: edits.movie) } catch { throw .unreadable(path: path, cause: error) }
        edl = edits.edl
        script = FocusScript(capture: capture, edl: edl)
    }

    // MARK: - Reading

    /// The subjects detected at frame `n` (captured detections, then user tracks with a sample there).
    public func subjects(frame n: Int) -> [Detection] {
        guard capture.frames.indices.contains(n) else { return [] }
        var found = capture.frames[n].detections
        for track in edl.detectionTracks {
            if let s = track.samples.first(where: { $0.frame == Int64(n) }) {
                found.append(Detection(id: track.id, type: .custom, rect: s.rect, disparity: s.disparity))
            }
        }
        return found
    }

    /// Every subject of the movie with the time spans it is seen in, by id.
    public var subjects: [SubjectSpans] {
        var frames: [UInt32: (DetectionType, [Int])] = [:]
        for (n, meta) in capture.frames.enumerated() {
            for d in meta.detections { frames[d.id, default: (d.type, [])].1.append(n) }
        }
        for track in edl.detectionTracks {
            frames[track.id] = (.custom, track.samples.map { Int($0.frame) })
        }
        return frames.keys.sorted().map { id in
            SubjectSpans(id: id, type: frames[id]!.0, seen: spans(of: frames[id]!.1))
        }
    }

    /// The snapped frame of `time`, or `.outOfRange` / `.badTime`.
    public func frame(at time: TimeExpression) throws(DocumentError) -> SnappedTime {
        let snapped: SnappedTime
        do { snapped = try time.resolve(on: grid) } catch { throw .badTime(requested: time.description, cause: error) }
        guard snapped.frame >= 0, snapped.frame < Int64(frameCount) else {
            throw .outOfRange(requested: time.description, frameCount: frameCount, duration: duration)
        }
        return snapped
    }

    public func frame(at time: MediaTime) throws(DocumentError) -> SnappedTime { try frame(at: .seconds(time)) }

    /// The focus at the frame `time` falls on.
    public func focus(at time: MediaTime) throws(DocumentError) -> FocusFrame {
        script.frame(Int(try frame(at: time).frame))
    }

    public func focus(at time: TimeExpression) throws(DocumentError) -> FocusFrame {
        script.frame(Int(try frame(at: time).frame))
    }

    public func focus(frame n: Int) throws(DocumentError) -> FocusFrame {
        guard n >= 0, n < frameCount else {
            throw .outOfRange(requested: "\(n)f", frameCount: frameCount, duration: duration)
        }
        return script.frame(n)
    }

    /// Frame runs as closed time ranges: first frame's start to last frame's start.
    func spans(of frames: [Int]) -> [ClosedRange<MediaTime>] {
        var runs: [(Int, Int)] = []
        for f in frames.sorted() {
            if let end = runs.last?.1, f == end + 1 { runs[runs.count - 1].1 = f } else if runs.last?.1 != f { runs.append((f, f)) }
        }
        return runs.map { grid.time(ofFrame: Int64($0.0))...grid.time(ofFrame: Int64($0.1)) }
    }

    // MARK: - Editing, undo, redo

    /// Applies `change` as one undoable step named `description`; clears the redo steps.
    mutating func apply(
        _ description: String, _ change: (inout EditDecisionList) throws(DocumentError) -> Void
    )
        throws(DocumentError)
    {
        var next = edl
        try change(&next)
        if next.media == nil { next.media = edits.binding }
        set(MovieEdits.recording(next, step: description, from: edits.historyBase(edl)))
    }

    mutating func set(_ next: EditDecisionList) {
        edl = next
        script = FocusScript(capture: capture, edl: edl)
        hasUnsavedChanges = true
    }

    /// Removes every user edit (aperture, decisions, tracks, trims, speed) as one undoable step.
    public mutating func clear() throws(DocumentError) {
        try apply("clear all edits") { edl in
            let history = edl.history
            edl = EditDecisionList()
            edl.history = history
        }
    }

    /// Replaces the edits with `other` (e.g. an imported sidecar) as one undoable step.
    public mutating func replaceEdits(with other: EditDecisionList, description: String = "import edits") throws(DocumentError) {
        try apply(description) { edl in
            let history = edl.history
            edl = other
            edl.history = history
        }
    }

    /// Reverts the last step, keeping it for `redo()`. Returns its description.
    @discardableResult
    public mutating func undo() throws(DocumentError) -> String {
        let undone: (description: String, edl: EditDecisionList)?
        do { undone = try MovieEdits.undoing(edl) } catch { throw .invalidEdits(error) }
        guard let undone else { throw .nothingToUndo }
        set(undone.edl)
        return undone.description
    }

    /// Re-applies the last step `undo()` reverted (redo steps are stored with the edits, so this
    /// works in a later session too; any other edit drops them). Returns its description.
    @discardableResult
    public mutating func redo() throws(DocumentError) -> String {
        let redone: (description: String, edl: EditDecisionList)?
        do { redone = try MovieEdits.redoing(edl) } catch { throw .invalidEdits(error) }
        guard let redone else { throw .nothingToRedo }
        set(redone.edl)
        return redone.description
    }

    // MARK: - Saving

    /// Checks the edits against every rule of the EDL format without writing anything.
    public func validate() throws(DocumentError) {
        do { _ = try edits.bound(edl) } catch { throw .invalidEdits(error) }
    }

    /// Oldest undo steps the last `save()` dropped so the stored edits stay readable; 0 when none.
    public var droppedHistorySteps: Int { edits.droppedHistorySteps }

    /// Stores the edits in the movie (an in-place slot write, or a rewrite of the movie's header when
    /// the edits outgrow their slots). Refuses, writing nothing, when another writer changed the
    /// file's edits since this document read them (`.changedByAnotherWriter`) or holds its lock
    /// (`.busy`).
    @discardableResult
    public mutating func save() throws(DocumentError) -> EDLUpdateResult {
        try validate()
        let result: EDLUpdateResult
        do { result = try edits.save(edl) } catch {
            if error.isChangedByAnotherWriter { throw .changedByAnotherWriter(path: path) }
            if error.isBusy { throw .busy(path: path) }
            throw .saveFailed(path: path, cause: error)
        }
        edl = edits.edl
        hasUnsavedChanges = false
        return result
    }
}

/// A subject of the movie and where it is seen.
public struct SubjectSpans: Sendable, Equatable {
    public var id: UInt32
    public var type: DetectionType
    /// Time spans (first frame's start…last frame's start) where it is detected.
    public var seen: [ClosedRange<MediaTime>]
}
