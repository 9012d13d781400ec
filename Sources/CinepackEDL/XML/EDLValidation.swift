import CinepackFormat
import CinepackTime

extension EditDecisionList {
    /// Checks this list against the rules of spec/edl.md §11, and that `xmlData()` can represent it
    /// (history steps hold canonical EDL text, foreign elements are canonical XML, strings are XML
    /// text). When this passes, `parse(xmlData(), …)` succeeds and returns an equal list.
    /// Places in messages are model indices (`decision 2`), as there is no file.
    package func validate(source: String = "EDL") throws(EDLError) {
        try EDLRules(source: source, locate: { _ in (nil, nil) }).check(self, places: nil)
    }

    /// `xml`, one element in a namespace other than the EDL's, in the exclusive canonical form
    /// `foreignElements` holds (spec/edl.md §9).
    package static func canonicalForeignElement(_ xml: String) throws(EDLError) -> String {
        let sink = XMLDiagnosticSink()
        return try SafeXML.withCapturedErrors(sink) { () throws(EDLError) -> String in
            let document = try SafeXML.parse(Array(xml.utf8), source: "foreign element")
            let root = document.root
            let reader = EDLTreeReader(document: document)
            guard let uri = root.namespaceURI, uri != namespace else {
                throw reader.rangeError(root, "<\(root.qualifiedName)> must be in a namespace other than \(namespace) (spec/edl.md §9)")
            }
            if let bare = EDLTreeReader.firstUnqualified(in: root) {
                throw reader.rangeError(
                    bare, "<\(bare.localName)> is in no namespace; elements inside extensions must be in a namespace (spec/edl.md §9)")
            }
            guard let text = SafeXML.canonicalXML(of: root, in: document) else {
                throw reader.rangeError(root, "<\(root.qualifiedName)> cannot be put in canonical form (spec/edl.md §9)")
            }
            return text
        }
    }
}

extension HistoryEntry {
    /// A step whose `previous` is the canonical text of `previous` without its own history (§8).
    package init(description: String, previous: EditDecisionList) {
        var body = previous
        body.history = []
        body.redo = []
        self.init(description: description, previous: String(decoding: body.xmlData(), as: UTF8.self))
    }

    /// The EDL this step recorded, read back from `previous`.
    package func previousList() throws(EDLError) -> EditDecisionList {
        try EditDecisionList.parse(Array(previous.utf8), source: "history step \"\(description)\"")
    }
}

/// The rules of spec/edl.md §11 that the schema cannot express, checked on the model in document
/// order. Used by the reader (with places, so messages carry line and column) and by `validate()`.
struct EDLRules {
    let source: String
    let locate: (Int?) -> (line: Int?, column: Int?)

    /// Longest history description, in Unicode scalars.
    static let maxDescription = 1024
    /// How far past the frame edge a rect may reach, for float rounding of x + w.
    static let rectTolerance = 1e-6
    /// User track ids start here, above any captured id (spec/format.md §6).
    static let firstUserTrackID: UInt32 = 1_000_000

    func fail(_ offset: Int?, _ prefix: String, _ message: String) -> EDLError {
        let p = locate(offset)
        return .invalid(source: source, line: p.line, column: p.column, "\(prefix)\(message) (spec/edl.md §11)")
    }

    static func rateText(_ r: FrameRate) -> String { "\(r) fps" }

    func check(_ edl: EditDecisionList, places: EDLPlaces?, prefix: String = "") throws(EDLError) {
        let p = places ?? EDLPlaces()
        func at(_ list: [Int?], _ i: Int) -> Int? { i < list.count ? list[i] : nil }

        if edl.version != EditDecisionList.currentVersion {
            throw .unsupportedVersion(source: source, line: nil, column: nil, "\(edl.version)")
        }

        // §3
        var grid: FrameGrid?
        var duration: MediaTime?
        if let media = edl.media {
            if media.frameCount < 1 {
                throw fail(p.media, prefix, "media: frames must be at least 1 (got \(media.frameCount))")
            }
            if !EDLValue.isFingerprint(media.fingerprint) {
                throw fail(p.media, prefix, "media: fingerprint \"\(media.fingerprint)\" is not \(EDLValue.Syntax.fingerprint.rawValue)")
            }
            let g = FrameGrid(rate: media.frameRate, frameCount: Int64(media.frameCount))
            guard let end = g.checkedTime(ofFrame: Int64(media.frameCount)) else {
                throw fail(
                    p.media, prefix,
                    "media: \(media.frameCount) frames at \(Self.rateText(media.frameRate)) last longer than a time can say")
            }
            grid = g
            duration = end
        }

        // §4
        if let n = edl.fNumber, !(n.isFinite && n > 0) {
            throw fail(p.aperture, prefix, "aperture: f-number must be a number > 0 (got \(n))")
        }
        if let (attribute, message) = edl.look.problem {
            throw fail(p.aperture, prefix, "aperture: \(attribute) \(message)")
        }

        // Frames and times are checked on the media's grid, so anything timed needs <media>.
        if edl.media == nil {
            let needy: (String, Int?)? =
                !edl.decisions.isEmpty
                ? ("decision 1", at(p.decisions, 0))
                : !edl.detectionTracks.isEmpty
                    ? ("track 1", at(p.tracks, 0))
                    : !edl.sourceRanges.isEmpty
                        ? ("range 1", at(p.ranges, 0))
                        : !edl.speedSegments.isEmpty ? ("speed 1", at(p.speeds, 0)) : nil
            if let (what, offset) = needy {
                throw fail(
                    offset, prefix,
                    "\(what): an EDL with decisions, tracks or a timeline needs <media>, whose frame grid its frames and times are on")
            }
        }

        /// `t` must be a frame start of the grid; returns its frame.
        func frame(of t: MediaTime, _ offset: Int?, _ what: String, _ g: FrameGrid) throws(EDLError) -> Int64 {
            guard t.value >= 0 else { throw fail(offset, prefix, "\(what): time \(EDLValue.text(t)) is negative") }
            guard let snap = g.checkedSnap(t) else {
                throw fail(offset, prefix, "\(what): time \(EDLValue.text(t)) is far outside the media")
            }
            guard snap.wasExact else {
                throw fail(
                    offset, prefix,
                    "\(what): time \(EDLValue.text(t)) is not on the frame grid of \(Self.rateText(g.rate)); the nearest frame is \(snap.frame), at \(EDLValue.text(snap.time))"
                )
            }
            return snap.frame
        }

        // §5
        let trackIDs = Set(edl.detectionTracks.map(\.id))
        for (i, d) in edl.decisions.enumerated() {
            let offset = at(p.decisions, i)
            let what = "decision \(i + 1)"
            guard let g = grid, let media = edl.media else { break }
            let onGrid = try frame(of: d.time, offset, what, g)
            if d.frame != onGrid {
                throw fail(
                    offset, prefix,
                    "\(what): frame \(d.frame) does not agree with time \(EDLValue.text(d.time)), which is frame \(onGrid) at \(Self.rateText(g.rate))"
                )
            }
            if onGrid >= Int64(media.frameCount) {
                throw fail(offset, prefix, "\(what): frame \(onGrid) is past the media's last frame, \(media.frameCount - 1)")
            }
            if i > 0, d.time <= edl.decisions[i - 1].time {
                throw fail(
                    offset, prefix,
                    "\(what): time \(EDLValue.text(d.time)) is not after decision \(i)'s \(EDLValue.text(edl.decisions[i - 1].time)); decisions are in increasing time order, at most one per frame"
                )
            }
            for (name, value) in [("min-transition", d.minTransition), ("max-transition", d.maxTransition)] {
                if let v = value, !(v.isFinite && v > 0) {
                    throw fail(offset, prefix, "\(what): \(name) must be a number of seconds > 0 (got \(v))")
                }
            }
            if let lo = d.minTransition, let hi = d.maxTransition, lo > hi {
                throw fail(offset, prefix, "\(what): min-transition \(lo) is greater than max-transition \(hi)")
            }
            let targetOffset = at(p.targets, i) ?? offset
            switch d.target {
            case .detection(let id):
                if id == 0 {
                    throw fail(targetOffset, prefix, "\(what): detection 0 is not a detection id; ids start at 1")
                }
                if id >= Self.firstUserTrackID && !trackIDs.contains(id) {
                    throw fail(
                        targetOffset, prefix,
                        "\(what): detection \(id) is a user track id (≥ \(Self.firstUserTrackID)), but <tracks> has no track \(id)")
                }
            case .group(let id):
                if id == 0 {
                    throw fail(targetOffset, prefix, "\(what): group 0 is not a group id (0 means no group); ids start at 1")
                }
            case .fixedDisparity(let v):
                if !(v.isFinite && v >= 0) {
                    throw fail(targetOffset, prefix, "\(what): disparity must be a number ≥ 0 (diopters; got \(v))")
                }
            case .point(let x, let y):
                if !(x.isFinite && y.isFinite && (0...1).contains(x) && (0...1).contains(y)) {
                    throw fail(targetOffset, prefix, "\(what): point (\(x), \(y)) is outside the frame; x and y are in 0…1")
                }
            case .none:
                throw fail(targetOffset, prefix, "\(what): has no target; a decision names a detection, a group, a disparity or a point")
            }
        }

        // §6
        var seen: [UInt32: Int] = [:]
        for (i, track) in edl.detectionTracks.enumerated() {
            let offset = at(p.tracks, i)
            let what = "track \(i + 1)"
            guard let media = edl.media else { break }
            if track.id < Self.firstUserTrackID {
                throw fail(
                    offset, prefix,
                    "\(what): id \(track.id) is below \(Self.firstUserTrackID); user track ids start there so they never collide with captured ones"
                )
            }
            if let first = seen[track.id] {
                throw fail(offset, prefix, "\(what): id \(track.id) is already used by track \(first)")
            }
            seen[track.id] = i + 1
            if track.samples.isEmpty { throw fail(offset, prefix, "\(what): has no samples") }
            let samplePlaces = i < p.samples.count ? p.samples[i] : []
            for (j, s) in track.samples.enumerated() {
                let sOffset = at(samplePlaces, j)
                let sWhat = "\(what), sample \(j + 1)"
                if s.frame < 0 || s.frame >= Int64(media.frameCount) {
                    throw fail(sOffset, prefix, "\(sWhat): frame \(s.frame) is outside the media's frames 0…\(media.frameCount - 1)")
                }
                if j > 0, s.frame <= track.samples[j - 1].frame {
                    throw fail(
                        sOffset, prefix,
                        "\(sWhat): frame \(s.frame) is not after the previous sample's frame \(track.samples[j - 1].frame); samples are in increasing frame order"
                    )
                }
                let r = s.rect
                guard [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite), r.x >= 0, r.y >= 0, r.width > 0, r.height > 0,
                    Double(r.x) + Double(r.width) <= 1 + Self.rectTolerance,
                    Double(r.y) + Double(r.height) <= 1 + Self.rectTolerance
                else {
                    throw fail(
                        sOffset, prefix,
                        "\(sWhat): rect x=\(r.x) y=\(r.y) w=\(r.width) h=\(r.height) is not inside the frame (x, y ≥ 0; w, h > 0; x + w and y + h at most 1)"
                    )
                }
                if !(s.disparity.isFinite && s.disparity >= 0) {
                    throw fail(sOffset, prefix, "\(sWhat): disparity must be a number ≥ 0 (diopters; got \(s.disparity))")
                }
            }
        }

        // §7
        if let g = grid, let end = duration {
            func span(_ start: MediaTime, _ stop: MediaTime, _ offset: Int?, _ what: String) throws(EDLError) {
                _ = try frame(of: start, offset, what, g)
                _ = try frame(of: stop, offset, what, g)
                if !(start < stop) {
                    throw fail(offset, prefix, "\(what): start \(EDLValue.text(start)) is not before end \(EDLValue.text(stop))")
                }
                if stop > end {
                    throw fail(
                        offset, prefix, "\(what): end \(EDLValue.text(stop)) is past the end of the media, \(EDLValue.text(end.reduced))")
                }
            }
            for (i, r) in edl.sourceRanges.enumerated() {
                try span(r.start, r.end, at(p.ranges, i), "range \(i + 1)")
            }
            for (i, s) in edl.speedSegments.enumerated() {
                let offset = at(p.speeds, i)
                let what = "speed \(i + 1)"
                try span(s.start, s.end, offset, what)
                if s.rateNumerator < 1 || s.rateDenominator < 1 {
                    throw fail(offset, prefix, "\(what): rate \(s.rateNumerator)/\(s.rateDenominator) must have both parts ≥ 1")
                }
                if i > 0, s.start < edl.speedSegments[i - 1].end {
                    let previous = edl.speedSegments[i - 1]
                    throw fail(
                        offset, prefix,
                        "\(what): starts at \(EDLValue.text(s.start)), before speed \(i) ends (\(EDLValue.text(previous.end))); speed changes are in time order and do not overlap"
                    )
                }
            }
            // Every command plays the program (export, plot, render), so it must be exact (spec/retime.md §1).
            if !edl.sourceRanges.isEmpty || !edl.speedSegments.isEmpty {
                do {
                    _ = try EditTimeline(sourceRanges: edl.sourceRanges, speedSegments: edl.speedSegments, grid: g)
                } catch {
                    let where_ = locate(at(p.speeds, 0) ?? at(p.ranges, 0))
                    throw .invalid(source: source, line: where_.line, column: where_.column, "\(prefix)\(error.message)")
                }
            }
        }

        // §8: undo steps, then redo steps.
        let steps = edl.history.enumerated().map { ($0.offset, $0.element, "history step", p.steps, places?.previous) }
        let redos = edl.redo.enumerated().map { ($0.offset, $0.element, "redo step", p.redoSteps, places?.redone) }
        for (i, step, kind, offsets, inners) in steps + redos {
            let offset = at(offsets, i)
            let what = "\(kind) \(i + 1)"
            if step.description.unicodeScalars.count > Self.maxDescription {
                throw fail(offset, prefix, "\(what): description is longer than \(Self.maxDescription) characters")
            }
            if !EDLValue.isXMLText(step.description) {
                throw fail(offset, prefix, "\(what): description holds a character XML cannot carry")
            }
            if !prefix.isEmpty {
                throw fail(offset, prefix, "has a history of its own; a step holds an EDL without history")
            }
            if let inners, i < inners.count {
                let inner = inners[i]
                try check(inner.list, places: inner.places, prefix: "\(what): ")
            } else {
                // From the model: `previous` must be canonical EDL text without history.
                let previous: EditDecisionList
                do {
                    previous = try EditDecisionList.parse(Array(step.previous.utf8), source: "previous")
                } catch {
                    // The inner error already names its clause.
                    let p = locate(offset)
                    throw .invalid(
                        source: source, line: p.line, column: p.column,
                        "\(prefix)\(what): the previous EDL is refused: \(error)")
                }
                if !previous.history.isEmpty || !previous.redo.isEmpty {
                    throw fail(offset, prefix, "\(what): the previous EDL has a history of its own; a step holds an EDL without history")
                }
                if Array(step.previous.utf8) != previous.xmlData() {
                    throw fail(
                        offset, prefix,
                        "\(what): previous is not canonical EDL text; make the step with HistoryEntry(description:previous:)")
                }
            }
        }

        // §9: what the reader produced is canonical by construction; text from elsewhere is checked.
        if places == nil {
            for (i, element) in edl.foreignElements.enumerated() {
                let what = "extension \(i + 1)"
                let canonical: String
                do {
                    canonical = try EditDecisionList.canonicalForeignElement(element)
                } catch {
                    throw fail(nil, prefix, "\(what): \(error.message)")
                }
                if canonical != element {
                    throw fail(nil, prefix, "\(what): is not in canonical form; make it with EditDecisionList.canonicalForeignElement(_:)")
                }
            }
        }
    }
}
