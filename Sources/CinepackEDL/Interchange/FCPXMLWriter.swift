import CinepackFormat
import CinepackTime

/// FCPXML 1.10 (spec/interchange.md §3): one asset, one project whose spine holds one
/// `asset-clip` per kept source range, each with `adjust-cinematic` (the aperture) and a marker
/// per focus decision. Element order follows the 1.10 DTD; spec/fcpxml-subset.rng checks it.
enum FCPXMLWriter {
    static let version = "1.10"
    static let formatID = "r1", assetID = "r2"

    static func write(_ plan: TimelinePlan) -> [UInt8] {
        var xml = XMLText()
        xml.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        xml.line("<!DOCTYPE fcpxml>")
        xml.open("fcpxml", [("version", version)])
        xml.open("resources", [])
        xml.empty(
            "format",
            [
                ("id", formatID), ("frameDuration", "\(plan.frameDuration)"),
                ("width", "\(plan.width)"), ("height", "\(plan.height)"),
            ])
        var asset: [(String, String)] = [
            ("id", assetID), ("name", plan.name), ("start", "0s"), ("duration", "\(plan.time(ofFrame: plan.frameCount))"),
            ("hasVideo", "1"), ("format", formatID), ("hasAudio", plan.hasAudio ? "1" : "0"), ("videoSources", "1"),
        ]
        if plan.hasAudio { asset.append(("audioSources", "1")) }
        xml.open("asset", asset)
        xml.empty("media-rep", [("kind", "original-media"), ("src", plan.mediaURL)])
        xml.close("asset")
        xml.close("resources")

        let total = plan.keptRanges.reduce(Int64(0)) { $0 + Int64($1.count) }
        xml.open("library", [])
        xml.open("event", [("name", plan.name)])
        xml.open("project", [("name", plan.name)])
        // Timecode is non-drop-frame: drop-frame labels would not match the frame numbers in markers.
        xml.open("sequence", [("format", formatID), ("duration", "\(plan.time(ofFrame: total))"), ("tcStart", "0s"), ("tcFormat", "NDF")])
        xml.open("spine", [])
        var offset: Int64 = 0
        for (index, range) in plan.keptRanges.enumerated() {
            let name = plan.keptRanges.count == 1 ? plan.name : "\(plan.name) #\(index + 1)"
            // offset is on the sequence timeline; start is the source time of the first frame (the
            // asset-clip's local timeline is the media's, so markers below use source times too).
            xml.open(
                "asset-clip",
                [
                    ("ref", assetID), ("offset", "\(plan.time(ofFrame: offset))"), ("name", name),
                    ("start", "\(plan.time(ofFrame: range.lowerBound))"), ("duration", "\(plan.time(ofFrame: Int64(range.count)))"),
                    ("format", formatID), ("tcFormat", "NDF"),
                ])
            xml.empty("adjust-cinematic", [("enabled", "1"), ("aperture", InterchangeText.decimalText(plan.fNumber))])
            for d in plan.decisions[plan.decisionIndices(in: range)] {
                xml.empty(
                    "marker",
                    [
                        ("start", "\(plan.time(ofFrame: d.frame))"), ("duration", "\(plan.frameDuration)"),
                        ("value", d.label), ("note", note(d)),
                    ])
            }
            xml.close("asset-clip")
            offset += Int64(range.count)
        }
        xml.close("spine")
        xml.close("sequence")
        xml.close("project")
        xml.close("event")
        xml.close("library")
        xml.close("fcpxml")
        return Array(xml.text.utf8)
    }

    /// What the marker name leaves out, for an editor reading the marker: origin, exact time, bounds.
    static func note(_ d: TimelineDecision) -> String {
        var parts = [
            "cinepack \(d.origin.rawValue) decision", "frame \(d.frame)", "time \(d.time)",
            "target \(d.target)", d.strength,
        ]
        if let t = d.minTransition { parts.append("min transition \(t)s") }
        if let t = d.maxTransition { parts.append("max transition \(t)s") }
        return parts.joined(separator: "; ")
    }
}

/// A minimal indenting XML writer: enough for the fixed shapes we emit, every attribute escaped.
struct XMLText {
    private(set) var text = ""
    private var depth = 0

    mutating func line(_ s: String) {
        text += String(repeating: "    ", count: depth) + s + "\n"
    }

    private func tag(_ name: String, _ attributes: [(String, String)]) -> String {
        "<" + name + attributes.map { " \($0.0)=\"\(XMLEscape.attribute($0.1))\"" }.joined()
    }

    mutating func open(_ name: String, _ attributes: [(String, String)]) {
        line(tag(name, attributes) + ">")
        depth += 1
    }

    mutating func empty(_ name: String, _ attributes: [(String, String)]) {
        line(tag(name, attributes) + "/>")
    }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }
}
