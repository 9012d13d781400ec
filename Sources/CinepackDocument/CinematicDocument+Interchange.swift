import CinepackContainer
import CinepackEDL
import CinepackFormat
import Foundation

/// Edits in and out of the movie: the EDL sidecar (spec/edl.md) and timelines for editing tools
/// (spec/interchange.md). Every file is written through `OutputTarget`'s rules (never an input,
/// never an existing file unless the target allows it) and appears whole or not at all.
extension CinematicDocument {
    /// Reads and validates an EDL sidecar (schema and rules; errors give line and column).
    /// - Throws: `.sidecarUnreadable` when the file cannot be read, `.invalidEdits` when it breaks a rule.
    public static func readEDL(path: String) throws(DocumentError) -> EditDecisionList {
        guard let data = FileManager.default.contents(atPath: path) else { throw .sidecarUnreadable(path: path) }
        do { return try EditDecisionList.parse(Array(data), source: path) } catch { throw .invalidEdits(error) }
    }

    /// Takes `other` (e.g. a sidecar from `readEDL`) as the document's edits, as it is: its own undo
    /// history comes with it, as `exportEDL` wrote it. Stored by `save()`.
    /// - Throws: `.boundToOtherMedia` when `other` was made for other media (frames, rate or picture
    ///   fingerprint differ), unless `allowingOtherMedia`.
    public mutating func importEDL(_ other: EditDecisionList, allowingOtherMedia: Bool = false) throws(DocumentError) {
        if !edits.isBound(other) && !allowingOtherMedia {
            throw .boundToOtherMedia(edl: other.media, movie: edits.binding)
        }
        set(other)
    }

    /// The edits as an EDL sidecar's bytes (spec/edl.md), undo history included.
    public func exportEDL() -> [UInt8] { edl.xmlData() }

    /// Writes the edits as an EDL sidecar to `target`, atomically. Returns the bytes written.
    @discardableResult
    public func exportEDL(to target: OutputTarget) throws(DocumentError) -> Int {
        let data = exportEDL()
        do {
            let writer = try AtomicFileWriter(target: target)
            try writer.write(data)
            try writer.commit()
        } catch { throw .writeFailed(path: target.path, cause: error) }
        return data.count
    }

    /// Writes the clip with its edits for editing tools, OpenTimelineIO or FCPXML (spec/interchange.md),
    /// to `target` as it is made (never whole in memory), atomically. `mediaURL` is where the timeline
    /// says the media is (default: this file's `file://` URL).
    public func exportTimeline(_ format: TimelineExport.Format, mediaURL: String? = nil, to target: OutputTarget) throws(DocumentError) {
        let url = mediaURL ?? TimelineExport.fileURL(forPath: path)
        let writer: AtomicFileWriter
        do { writer = try AtomicFileWriter(target: target) } catch { throw .writeFailed(path: target.path, cause: error) }
        do { try TimelineExport.export(format, movie: edits.movie, edl: edl, mediaURL: url, to: writer) } catch {
            if let output = error.output { throw .writeFailed(path: target.path, cause: output) }
            throw .frameUnreadable(frame: -1, cause: error)
        }
        do { try writer.commit() } catch { throw .writeFailed(path: target.path, cause: error) }
    }
}
