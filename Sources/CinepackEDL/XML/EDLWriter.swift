import CinepackFormat
import CinepackTime

extension EditDecisionList {
    /// The canonical XML of this EDL (spec/edl.md §12): UTF-8, LF line ends, two-space indent, a
    /// trailing newline, elements and attributes in the fixed order of the spec, empty containers
    /// left out. Equal lists with equal stored time pairs give the same bytes, and
    /// `parse(xmlData())` gives back a list equal to this one when `validate()` passes.
    ///
    /// The writer does not check the list: one that breaks spec/edl.md §11 (see `validate()`) gives
    /// a document the reader refuses, never a trap.
    public func xmlData() -> [UInt8] {
        var out = EDLTextOutput()
        out.line(0, #"<?xml version="1.0" encoding="UTF-8"?>"#)
        write(into: &out, indent: 0, isRoot: true)
        return Array(out.text.utf8)
    }

    /// `<edl>` and everything in it. History steps hold an EDL without history (§8).
    func write(into out: inout EDLTextOutput, indent: Int, isRoot: Bool) {
        let ns = isRoot ? #" xmlns="\#(Self.namespace)""# : ""
        let open = #"edl\#(ns) version="\#(version)""#
        let history = isRoot ? self.history : []
        let redo = isRoot ? self.redo : []
        let isEmpty =
            media == nil && fNumber == nil && look.isEmpty && decisions.isEmpty && detectionTracks.isEmpty
            && sourceRanges.isEmpty && speedSegments.isEmpty && history.isEmpty && redo.isEmpty && foreignElements.isEmpty
        if isEmpty {
            out.line(indent, "<\(open)/>")
            return
        }
        out.line(indent, "<\(open)>")
        let i1 = indent + 1, i2 = indent + 2, i3 = indent + 3

        if let media {
            out.line(
                i1,
                #"<media frames="\#(media.frameCount)" rate="\#(media.frameRate.frames)/\#(media.frameRate.seconds)" fingerprint="\#(XMLEscape.attribute(media.fingerprint, forbidden: .keep))"/>"#
            )
        }
        if fNumber != nil || !look.isEmpty {
            var attributes = ""
            func add(_ name: String, _ value: Float?) {
                if let value { attributes += #" \#(name)="\#(EDLValue.text(value))""# }
            }
            add("f-number", fNumber)
            if let blades = look.blades { attributes += #" blades="\#(blades)""# }
            add("blade-rotation", look.bladeRotation)
            add("blade-curvature", look.bladeCurvature)
            add("anamorphic", look.anamorphic)
            add("highlight-threshold", look.highlightThreshold)
            add("highlight-gain", look.highlightGain)
            if let kernel = look.kernel { attributes += #" kernel="\#(XMLEscape.attribute(kernel, forbidden: .keep))""# }
            out.line(i1, "<aperture\(attributes)/>")
        }
        if !decisions.isEmpty {
            out.line(i1, "<decisions>")
            for d in decisions {
                var attributes = #"time="\#(EDLValue.text(d.time))" frame="\#(d.frame)" strength="\#(d.strength.rawValue)""#
                if let m = d.minTransition { attributes += #" min-transition="\#(EDLValue.text(m))""# }
                if let m = d.maxTransition { attributes += #" max-transition="\#(EDLValue.text(m))""# }
                out.line(i2, "<decision \(attributes)>")
                out.line(i3, Self.targetElement(d.target))
                out.line(i2, "</decision>")
            }
            out.line(i1, "</decisions>")
        }
        if !detectionTracks.isEmpty {
            out.line(i1, "<tracks>")
            for track in detectionTracks {
                out.line(i2, #"<track id="\#(track.id)" kind="\#(track.kind.rawValue)">"#)
                for s in track.samples {
                    let r = s.rect
                    out.line(
                        i3,
                        #"<sample frame="\#(s.frame)" x="\#(EDLValue.text(r.x))" y="\#(EDLValue.text(r.y))" w="\#(EDLValue.text(r.width))" h="\#(EDLValue.text(r.height))" disparity="\#(EDLValue.text(s.disparity))"/>"#
                    )
                }
                out.line(i2, "</track>")
            }
            out.line(i1, "</tracks>")
        }
        if !sourceRanges.isEmpty || !speedSegments.isEmpty {
            out.line(i1, "<timeline>")
            for r in sourceRanges {
                out.line(i2, #"<range start="\#(EDLValue.text(r.start))" end="\#(EDLValue.text(r.end))"/>"#)
            }
            for s in speedSegments {
                out.line(
                    i2,
                    #"<speed start="\#(EDLValue.text(s.start))" end="\#(EDLValue.text(s.end))" rate="\#(s.rateNumerator)/\#(s.rateDenominator)"/>"#
                )
            }
            out.line(i1, "</timeline>")
        }
        if !history.isEmpty || !redo.isEmpty {
            out.line(i1, "<history>")
            for (name, step) in history.map({ ("step", $0) }) + redo.map({ ("redo", $0) }) {
                let open = #"\#(name) description="\#(XMLEscape.attribute(step.description, forbidden: .keep))""#
                // `previous` is canonical EDL text; re-read its structure to write it at this depth
                // (rules are not checked here: a step is kept whole even if it breaks one). Text
                // that is no EDL at all leaves the step empty, which readers refuse (validate()
                // says why).
                guard let previous = try? EditDecisionList.parseStructure(Array(step.previous.utf8), source: "history") else {
                    out.line(i2, "<\(open)/>")
                    continue
                }
                out.line(i2, "<\(open)>")
                previous.write(into: &out, indent: i3, isRoot: false)
                out.line(i2, "</\(name)>")
            }
            out.line(i1, "</history>")
        }
        if !foreignElements.isEmpty {
            out.line(i1, "<extensions>")
            // Canonical XML already; re-indenting would change its text content, so verbatim.
            for element in foreignElements { out.line(i2, element) }
            out.line(i1, "</extensions>")
        }
        out.line(indent, "</edl>")
    }

    static func targetElement(_ target: FocusTarget) -> String {
        switch target {
        case .detection(let id): return #"<detection id="\#(id)"/>"#
        case .group(let id): return #"<group id="\#(id)"/>"#
        case .fixedDisparity(let d): return #"<disparity value="\#(EDLValue.text(d))"/>"#
        case .point(let x, let y): return #"<point x="\#(EDLValue.text(x))" y="\#(EDLValue.text(y))"/>"#
        // Not a user decision's target (spec/edl.md §5); written so that the reader names the problem.
        case .none: return "<none/>"
        }
    }
}

/// Lines of canonical output: two spaces per level, LF after every line.
struct EDLTextOutput {
    var text = ""
    mutating func line(_ indent: Int, _ content: String) {
        text += String(repeating: "  ", count: indent)
        text += content
        text += "\n"
    }
}
