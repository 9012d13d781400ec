import CinepackContainer
import CinepackFormat

/// A cinematic movie together with its stored edit-decision list: what `cinepack edl …`, the
/// editor and the renderer work on. Reading never changes the file; `save` goes through the
/// crash-safe slot update (spec/format.md §8).
public struct MovieEdits: Sendable {
    public let movie: CinematicMovie
    package private(set) var store: EDLStore
    /// The current EDL: the stored one, or an empty list bound to this movie.
    public private(set) var edl: EditDecisionList
    /// The binding of this movie (frame count, rate, fingerprint).
    public let binding: MediaBinding
    /// Problems found while reading the stored EDL (e.g. an interrupted edit left a torn slot).
    public let warnings: [String]
    /// Whether `edl.media` was added on opening rather than stored: an undo step must hold the EDL
    /// as it was stored (spec/edl.md §8), so the binding added here is not part of it.
    private var bindingAdded = false

    /// Opens the movie and its stored EDL. Refused, before anything can be written, when the
    /// file is not a cinematic movie (no `cnpk` brand, disparity track or focus metadata: a
    /// remuxed copy has lost what editing needs) or when its samples lie past the end of the file
    /// (a truncated copy that `inspect` rejects too).
    ///
    /// With `recovering`, a stored EDL that cannot be read (too large for the reader, broken XML,
    /// rules broken) is set aside with a warning and the edits start empty, so `edl clear` and
    /// `edl import --force` can always replace it (spec/format.md §8).
    public static func open(path: String, recovering: Bool = false) throws(EDLCommandError) -> MovieEdits {
        let movie: CinematicMovie
        do {
            movie = try CinematicMovie.open(path: path)
            try movie.requireCinepack()
        } catch { throw .format(error) }
        try checkEditable(movie)
        let store: EDLStore
        do { store = try EDLStore(path: path) } catch { throw .storage(error) }
        let binding: MediaBinding
        do { binding = try MediaBinding(movie: movie) } catch { throw .format(error) }
        var edl = EditDecisionList()
        var warnings = store.current.warnings
        if let text = store.current.text, !text.isEmpty {
            do { edl = try EditDecisionList.parse(text, source: "\(path) (stored EDL)") } catch {
                guard recovering else {
                    var failure = EDLCommandError(
                        "\(error) — the movie's media is intact: clearing the stored EDL, or storing another in its place, replaces it")
                    failure.unreadableStoredEDL = error
                    throw failure
                }
                warnings.append("the stored EDL cannot be read (\(error)); it is replaced")
            }
        }
        var edits = MovieEdits(movie: movie, store: store, edl: edl, binding: binding, warnings: warnings)
        if edl.media == nil {
            edits.edl.media = binding
            edits.bindingAdded = true
        }
        return edits
    }

    /// `edl` as an undo step must hold it (spec/edl.md §8): the EDL as stored. While `edl` is
    /// still what was opened from a movie with no stored EDL, that is without the binding this
    /// handle added on opening.
    public func historyBase(_ edl: EditDecisionList) -> EditDecisionList {
        guard bindingAdded, edl == self.edl else { return edl }
        var stored = edl
        stored.media = nil
        return stored
    }

    /// What an editor needs from the file, checked before any write.
    static func checkEditable(_ movie: CinematicMovie) throws(EDLCommandError) {
        guard CinematicMovie.looksCinematic(movie.movie) else {
            throw EDLCommandError(
                "\(movie.path): not a cinematic movie (no 'cnpk' brand, disparity track or focus metadata; a remuxed copy loses them); nothing to edit or refocus (spec/format.md §3)"
            )
        }
        let size = movie.movie.fileSize
        for track in movie.movie.tracks {
            var beyond: SampleInfo?
            track.samples.forEach { sample in
                if beyond == nil, sample.byteRange.upperBound > size { beyond = sample }
            }
            if let beyond {
                throw EDLCommandError(
                    "\(movie.path): sample \(beyond.index) of track \(track.id) ends at byte \(beyond.byteRange.upperBound), past the end of the file (\(size) bytes); the file is truncated and is not edited"
                )
            }
        }
    }

    /// The EDL sequence number this handle read (or last stored): a save is refused with
    /// `EDLStorageError.Kind.changedByAnotherWriter` when the file holds another one by then.
    public var sequence: UInt64 { store.current.sequence }

    /// The largest EDL text `save` stores: what a reader accepts (`XMLLimits.maxInputBytes`). A
    /// caller may lower it (never raise it: a larger EDL could not be read back).
    public var storedEDLLimit = XMLLimits.maxInputBytes {
        didSet { storedEDLLimit = min(storedEDLLimit, XMLLimits.maxInputBytes) }
    }

    /// Oldest undo steps dropped by the last save so the stored EDL stays readable (under
    /// `XMLLimits.maxInputBytes`); 0 when none were.
    public private(set) var droppedHistorySteps = 0

    /// Whether `other` was made for this movie.
    public func isBound(_ other: EditDecisionList) -> Bool {
        guard let media = other.media else { return true }
        return media == binding
    }

    /// Most undo steps kept; older ones are dropped so the EDL stays small.
    public static let maxHistory = 50
    /// Undo history is trimmed (oldest first) to keep the whole EDL under this size, so that an
    /// edit stays an in-place slot write (slots hold 64 KiB) rather than a rewrite of the movie.
    public static let historyBudget = 40 * 1024

    /// Applies `change` to the current EDL as one undoable edit named `description` and stores it.
    /// With `dryRun`, nothing is written and the result is the EDL that would be stored.
    @discardableResult
    public mutating func edit(
        _ description: String, dryRun: Bool = false,
        _ change: (inout EditDecisionList) throws(EDLCommandError) -> Void
    )
        throws(EDLCommandError) -> (edl: EditDecisionList, result: EDLUpdateResult?)
    {
        var next = edl
        try change(&next)
        next = Self.recording(next, step: description, from: historyBase(edl))
        if dryRun {
            var bound = next
            bound.media = binding
            do { try bound.validate(source: movie.path) } catch { throw .edl(error) }
            return (bound, nil)
        }
        return (next, try save(next))
    }

    /// `next` with one more undo step, named `description`, that returns to `previous`, and no redo
    /// steps (a new edit drops them); trimmed as `trimmed` does.
    public static func recording(
        _ next: EditDecisionList, step description: String, from previous: EditDecisionList
    )
        -> EditDecisionList
    {
        var next = next
        next.history.append(HistoryEntry(description: description, previous: previous))
        next.redo = []
        return trimmed(next)
    }

    /// `edl` with its undo history cut to `maxHistory` steps and the whole under `historyBudget`
    /// bytes: redo steps go first (oldest first), then undo steps (oldest first; the last is kept).
    public static func trimmed(_ edl: EditDecisionList) -> EditDecisionList {
        var edl = edl
        if edl.history.count > maxHistory { edl.history.removeFirst(edl.history.count - maxHistory) }
        if edl.redo.count > maxHistory { edl.redo.removeFirst(edl.redo.count - maxHistory) }
        while !edl.redo.isEmpty || edl.history.count > 1, edl.xmlData().count > historyBudget {
            if edl.redo.isEmpty { edl.history.removeFirst() } else { edl.redo.removeFirst() }
        }
        return edl
    }

    /// The EDL before its last step, with that step kept for redo (spec/edl.md §8), and the step's
    /// description; nil when there is nothing to undo.
    public static func undoing(_ edl: EditDecisionList) throws(EDLError) -> (description: String, edl: EditDecisionList)? {
        guard let step = edl.history.last else { return nil }
        var previous = try step.previousList()
        previous.history = Array(edl.history.dropLast())
        previous.redo = edl.redo + [HistoryEntry(description: step.description, previous: edl)]
        return (step.description, trimmed(previous))
    }

    /// The EDL with its last undone step re-applied (an undo step again), and the step's
    /// description; nil when there is nothing to redo.
    public static func redoing(_ edl: EditDecisionList) throws(EDLError) -> (description: String, edl: EditDecisionList)? {
        guard let step = edl.redo.last else { return nil }
        var next = try step.previousList()
        next.history = edl.history + [HistoryEntry(description: step.description, previous: edl)]
        next.redo = Array(edl.redo.dropLast())
        return (step.description, trimmed(next))
    }

    /// `edl` bound to this movie and checked against every rule of spec/edl.md: what `save` stores.
    public func bound(_ edl: EditDecisionList) throws(EDLError) -> EditDecisionList {
        var bound = edl
        bound.media = binding
        try bound.validate(source: movie.path)
        return bound
    }

    /// Reverts the last edit: the EDL as it was before it (its own history preserved).
    /// Returns the description of the undone step.
    @discardableResult
    public mutating func undo() throws(EDLCommandError) -> (description: String, result: EDLUpdateResult) {
        let undone: (description: String, edl: EditDecisionList)?
        do { undone = try Self.undoing(edl) } catch { throw .edl(error) }
        guard let undone else { throw EDLCommandError("\(movie.path): nothing to undo") }
        return (undone.description, try save(undone.edl))
    }

    /// Validates `edl`, binds it to this movie and stores it. Returns how it was written.
    ///
    /// The store takes the file's edit lock (waiting a bounded time; `busy` after it) and refuses
    /// with `changedByAnotherWriter` when another writer stored an edit since this handle read the
    /// EDL; nothing is written then, and this handle is unchanged. The oldest undo steps are
    /// dropped when the EDL would otherwise be larger than a reader accepts; an EDL too large even
    /// without history is refused (`tooLarge`).
    @discardableResult
    public mutating func save(_ edl: EditDecisionList) throws(EDLCommandError) -> EDLUpdateResult {
        var bound = edl
        bound.media = binding
        do { try bound.validate(source: movie.path) } catch { throw .edl(error) }
        var data = bound.xmlData()
        var dropped = 0
        while data.count > storedEDLLimit, !bound.history.isEmpty {
            // Steps hold whole earlier EDLs: drop enough of the oldest to cover the excess, then measure.
            var excess = data.count - storedEDLLimit
            repeat {
                excess -= bound.history.removeFirst().previous.utf8.count
                dropped += 1
            } while excess > 0 && !bound.history.isEmpty
            data = bound.xmlData()
        }
        guard data.count <= storedEDLLimit else {
            throw .storage(
                EDLStorageError(
                    .tooLarge,
                    "\(movie.path): the EDL would be stored as \(data.count) bytes, above the \(storedEDLLimit) bytes a reader accepts, even without undo history; nothing written",
                    clause: "spec/format.md §8"))
        }
        let result: EDLUpdateResult
        do { result = try store.update(text: data, expectedSequence: store.current.sequence) } catch { throw .storage(error) }
        self.edl = bound
        bindingAdded = false
        droppedHistorySteps = dropped
        return result
    }
}

/// One error type for the EDL commands: format, storage and XML errors keep their own messages.
/// A storage error is kept whole in `storage`, so callers can act on its kind: `busy` (another
/// process held the lock too long: try again later) and `changedByAnotherWriter` (another process
/// stored an edit since this one read the file: read again and redo the edit).
public struct EDLCommandError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// The storage error behind this one, when there is one.
    public var storage: EDLStorageError?
    /// Set when the EDL stored in the movie cannot be read (the media is intact): why it cannot.
    public var unreadableStoredEDL: EDLError?
    public init(_ description: String) { self.description = description }
    public static func format(_ e: FormatError) -> EDLCommandError { EDLCommandError(e.description) }
    public static func storage(_ e: EDLStorageError) -> EDLCommandError {
        var error = EDLCommandError(e.description)
        error.storage = e
        return error
    }
    public static func edl(_ e: EDLError) -> EDLCommandError { EDLCommandError(e.description) }

    /// Another process stored an edit since this one read the EDL; nothing was written.
    public var isChangedByAnotherWriter: Bool { storage?.kind == .changedByAnotherWriter }
    /// Another process held the file's edit lock past the bounded wait; nothing was written.
    public var isBusy: Bool { storage?.kind == .busy }
}
