import CinepackContainer
import CinepackEDL
import CinepackFormat
import Foundation

/// `cinepack concat`: checks that render parts belong together and joins them into one movie
/// (spec/farm.md §4), adding the program's audio once. Nothing is written unless every check
/// passes; the output appears under its name only when complete (temporary file + rename).
package enum FarmConcat {
    package struct Part: Sendable {
        package var movie: JoinPart
        package var record: RenderPartRecord
        package var path: String { movie.path }
    }

    package struct Result: Sendable {
        package var summary: JoinSummary
        /// The parts in program order.
        package var parts: [Part]
        /// What the user should know (e.g. why no audio was added).
        package var notes: [ConcatNote]
    }

    package static func run(parts paths: [String], output: OutputTarget, audioFrom: String? = nil) throws(FarmError) -> Result {
        var output = output
        output.inputs += paths + (audioFrom.map { [$0] } ?? [])
        do { try output.validate() } catch { throw .output(error) }
        let parts = try check(paths)
        var notes: [ConcatNote] = []
        let audio = try programAudio(for: parts[0].record, from: audioFrom, output: output.path, notes: &notes)
        defer { audio?.remove() }
        do {
            let summary = try MovieJoiner.join(parts.map(\.movie), to: output, audio: audio?.track)
            return Result(summary: summary, parts: parts, notes: notes)
        } catch {
            throw .format(error)
        }
    }

    /// Reads every part and its record, and checks they form one render: one source, one EDL, one
    /// set of settings, one program, every frame exactly once. Returns them in program order.
    package static func check(_ paths: [String]) throws(FarmError) -> [Part] {
        guard !paths.isEmpty else { throw .noParts }
        var parts: [Part] = []
        for path in paths {
            let movie: JoinPart
            do { movie = try JoinPart.open(path: path) } catch { throw .unreadablePart(path: path, reason: Self.reason(error, path)) }
            let record: RenderPartRecord?
            do { record = try RenderPartRecord.read(movie.movie, source: movie.source) } catch {
                throw .unreadablePart(path: path, reason: error.description)
            }
            guard let record else { throw .notAPart(path: path) }
            let frames = movie.movie.tracks.first { $0.kind == .video }?.samples.count ?? 0
            guard Int64(frames) == record.frames.upperBound - record.frames.lowerBound else {
                throw .inconsistentPart(
                    path: path, recordedFrames: record.frames.upperBound - record.frames.lowerBound, actualFrames: frames)
            }
            parts.append(Part(movie: movie, record: record))
        }
        let reference = parts[0]
        for part in parts.dropFirst() {
            let r = part.record, q = reference.record
            let what: String? =
                r.sourceFingerprint != q.sourceFingerprint
                ? "another source (\(r.sourceName), picture fingerprint \(hex(r.sourceFingerprint)); \(reference.path): \(q.sourceName), \(hex(q.sourceFingerprint)))"
                : r.edlDigest != q.edlDigest
                    ? "the same source with another EDL (the edits changed between the renders)"
                    : r.settingsDigest != q.settingsDigest
                        ? "other render settings (\(settingsDifference(r.settings, q.settings)))"
                        : r.program != q.program || r.syncInterval != q.syncInterval
                            ? "another program range (\(r.program.lowerBound)..\(r.program.upperBound) against \(q.program.lowerBound)..\(q.program.upperBound))"
                            : nil
            if let what { throw .foreignPart(path: part.path, reference: reference.path, what: what) }
        }
        parts.sort {
            ($0.record.frames.lowerBound, $0.record.frames.upperBound) < ($1.record.frames.lowerBound, $1.record.frames.upperBound)
        }
        let program = reference.record.program
        let shardCounts = Set(parts.map(\.record.shardCount))
        let n = shardCounts.count == 1 ? Int(shardCounts.first!) : 0
        let plan = ShardPlan(program: program, syncInterval: Int(reference.record.syncInterval))
        func missing(_ frames: Range<Int64>) -> [Int] { n > 0 ? plan.shards(covering: frames, of: n) : [] }
        var next = program.lowerBound
        var previous: Part?
        for part in parts {
            let frames = part.record.frames
            if frames.lowerBound > next {
                let gap = next..<frames.lowerBound
                throw .gap(gap, after: previous?.path, before: part.path, missingShards: missing(gap), shardCount: n)
            }
            if frames.lowerBound < next, let previous {
                throw .overlap(first: previous.path, second: part.path, frames: frames.lowerBound..<min(next, frames.upperBound))
            }
            next = frames.upperBound
            previous = part
        }
        if next < program.upperBound {
            let gap = next..<program.upperBound
            throw .gap(gap, after: previous?.path, before: nil, missingShards: missing(gap), shardCount: n)
        }
        return parts
    }

    /// The program's audio from the source the parts were rendered from, checked against their
    /// record; nil (with a note saying why) when there is none to add.
    static func programAudio(
        for record: RenderPartRecord, from path: String?, output: String, notes: inout [ConcatNote]
    ) throws(FarmError) -> ProgramAudioTrack? {
        guard let path else {
            if record.sourceHasAudio {
                notes.append(.sourceAudioNotAdded(sourceName: record.sourceName))
            }
            return nil
        }
        let edits: MovieEdits
        do { edits = try MovieEdits.open(path: path) } catch { throw .audioSourceMismatch(path: path, reason: error.description) }
        guard FarmRender.bytes(hex: MediaBinding.fingerprint(of: edits.movie.video)) == record.sourceFingerprint else {
            throw .audioSourceMismatch(path: path, reason: "its picture is not the source of these parts (\(record.sourceName))")
        }
        guard FarmRender.digest(of: edits.edl) == record.edlDigest else {
            throw .audioSourceMismatch(
                path: path, reason: "its EDL changed since the parts were rendered; render them again or undo the edit")
        }
        guard edits.movie.audio != nil else {
            notes.append(.audioSourceHasNoAudio(path: path))
            return nil
        }
        let plan: RenderPlan
        do { plan = try RenderPlan(edits: edits) } catch {
            if case .format(let cause) = error { throw .format(cause) }
            throw .format(FormatError("\(error)"))
        }
        guard record.program.clamped(to: plan.outputFrames) == record.program, !record.program.isEmpty else {
            throw .audioSourceMismatch(
                path: path,
                reason:
                    "its program has frames 0..\(plan.outputFrames.upperBound), but the parts hold \(record.program.lowerBound)..\(record.program.upperBound)"
            )
        }
        // The program range the parts were rendered from (a `--range` render holds part of it).
        do { return try ProgramAudioTrack.make(plan.restricted(to: record.program), besides: output) } catch { throw .format(error) }
    }

    private static func reason(_ error: FormatError, _ path: String) -> String {
        let text = error.description
        return text.hasPrefix("\(path): ") ? String(text.dropFirst(path.count + 2)) : text
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private static func settingsDifference(_ a: String, _ b: String) -> String {
        let x = a.split(separator: "\n"), y = b.split(separator: "\n")
        let differing = x.filter { !y.contains($0) }
        return differing.isEmpty ? "the settings digests differ" : differing.joined(separator: ", ")
    }
}
