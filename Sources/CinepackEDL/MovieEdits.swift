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

    public static func open(path: String) throws(EDLCommandError) -> MovieEdits {
        let movie: CinematicMovie
        do { movie = try CinematicMovie.open(path: path) } catch { throw .format(error) }
        let store: EDLStore
        do { store = try EDLStore(path: path) } catch { throw .storage(error) }
        let binding: MediaBinding
        do { binding = try MediaBinding(movie: movie) } catch { throw .format(error) }
        var edl = EditDecisionList()
        if let text = store.current.text, !text.isEmpty {
            do { edl = try EditDecisionList.parse(text, source: "\(path) (stored EDL)") } catch { throw .edl(error) }
        }
        if edl.media == nil { edl.media = binding }
        return MovieEdits(movie: movie, store: store, edl: edl, binding: binding, warnings: store.current.warnings)
    }

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
        next = Self.recording(next, step: description, from: edl)
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
    @discardableResult
    public mutating func save(_ edl: EditDecisionList) throws(EDLCommandError) -> EDLUpdateResult {
        var bound = edl
        bound.media = binding
        do { try bound.validate(source: movie.path) } catch { throw .edl(error) }
        let result: EDLUpdateResult
        do { result = try store.update(text: bound.xmlData()) } catch { throw .storage(error) }
        self.edl = bound
        return result
    }
}

/// One error type for the EDL commands: format, storage and XML errors keep their own messages.
public struct EDLCommandError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
    public static func format(_ e: FormatError) -> EDLCommandError { EDLCommandError(e.description) }
    public static func storage(_ e: EDLStorageError) -> EDLCommandError { EDLCommandError(e.description) }
    public static func edl(_ e: EDLError) -> EDLCommandError { EDLCommandError(e.description) }
}
