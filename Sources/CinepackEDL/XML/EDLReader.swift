import CLibXML2
import CinepackFormat
import CinepackTime

extension EditDecisionList {
    /// Reads an EDL from untrusted bytes (spec/edl.md §13): safe XML parsing, the root and version,
    /// the RELAX NG schema, then the rules of §10–§11. `source` names the input in messages
    /// (`source:line:column: message`). Stops at the first problem. A list it returns passes
    /// `validate()`, and `xmlData()` writes it back in canonical form.
    public static func parse(_ data: [UInt8], source: String) throws(EDLError) -> EditDecisionList {
        let sink = XMLDiagnosticSink()
        return try SafeXML.withCapturedErrors(sink) { () throws(EDLError) -> EditDecisionList in
            let document = try SafeXML.parse(data, source: source)
            try checkRoot(document)
            let reader = EDLTreeReader(document: document)
            let problems = try SafeXML.validate(document, schema: relaxNGSchema, opaque: EDLTreeReader.foreignElements(of: document))
            if !problems.isEmpty {
                // libxml2's RELAX NG messages are terse and sometimes point at the wrong place; our
                // reader checks the same grammar and says precisely what is wrong. Its verdict is
                // used when it finds the problem, the schema's otherwise: the schema always decides.
                _ = try reader.read()
                throw reader.schemaError(problems)
            }
            let (edl, places) = try reader.read()
            try EDLRules(source: source, locate: { document.locate($0) }).check(edl, places: places)
            return edl
        }
    }

    /// Reads the structure only: safe parsing, the root, and the reader's grammar checks, without
    /// RELAX NG or the rules of §11. For the writer, which re-reads history steps it wrote itself
    /// and must keep them whole even when they break a rule (the full reader then says which).
    static func parseStructure(_ data: [UInt8], source: String) throws(EDLError) -> EditDecisionList {
        let sink = XMLDiagnosticSink()
        return try SafeXML.withCapturedErrors(sink) { () throws(EDLError) -> EditDecisionList in
            let document = try SafeXML.parse(data, source: source)
            try checkRoot(document)
            return try EDLTreeReader(document: document).read().0
        }
    }

    /// The root must be `<edl>` in our namespace, at a version this reader knows (§2); said before
    /// schema validation, whose message for these would be obscure.
    private static func checkRoot(_ document: SafeXMLDocument) throws(EDLError) {
        let root = document.root
        let at = document.position(of: root)
        let uri = root.namespaceURI
        guard root.localName == "edl", uri == namespace else {
            let space = uri.map { "in namespace \"\($0)\"" } ?? "in no namespace"
            throw .notAnEDL(
                source: document.source, line: at.line, column: at.column,
                "the root element is <\(root.qualifiedName)> \(space); an EDL's root is <edl> in namespace \(namespace) (spec/edl.md §2)")
        }
        guard let version = EDLTreeReader.attribute(root, "version") else {
            throw .unsupportedVersion(source: document.source, line: at.line, column: at.column, "")
                .with(message: "the root <edl> has no version attribute; this cinepack reads version \(currentVersion) (spec/edl.md §2)")
        }
        guard version == "\(currentVersion)" else {
            throw .unsupportedVersion(source: document.source, line: at.line, column: at.column, version)
        }
    }
}

extension EDLError {
    func with(message: String) -> EDLError {
        var copy = self
        copy.message = message
        return copy
    }
}

extension SafeXMLDocument {
    /// Line and column of a byte offset recorded in `EDLPlaces`.
    func locate(_ offset: Int?) -> (line: Int?, column: Int?) {
        guard let offset else { return (nil, nil) }
        let p = position(ofOffset: offset)
        return (p.line, p.column)
    }
}

/// Where each part of a read EDL came from (byte offsets of start tags), for messages about rules
/// that are checked on the model (spec/edl.md §11).
struct EDLPlaces {
    var media: Int?
    var aperture: Int?
    var decisions: [Int?] = []
    var targets: [Int?] = []
    var tracks: [Int?] = []
    var samples: [[Int?]] = []
    var ranges: [Int?] = []
    var speeds: [Int?] = []
    var steps: [Int?] = []
    /// The EDL inside each history step, read, and its places.
    var previous: [EDLPlacedList] = []
    var redoSteps: [Int?] = []
    /// The EDL inside each redo step, read, and its places.
    var redone: [EDLPlacedList] = []
    var foreign: [Int?] = []
}

/// A read EDL and where its parts came from.
struct EDLPlacedList {
    var list: EditDecisionList
    var places: EDLPlaces
}

/// Turns a parsed tree into the model. It checks the grammar of spec/edl.rng (elements, order,
/// attributes, value syntax) itself, so that every structural error gets a precise message; the
/// schema is still run on every document and has the last word.
struct EDLTreeReader {
    let document: SafeXMLDocument
    var source: String { document.source }
    static let ns = EditDecisionList.namespace

    /// The children of `<edl>`, in order (§2); a history step's `<edl>` has no `<history>`.
    static let rootOrder = ["media", "aperture", "decisions", "tracks", "timeline", "history", "extensions"]
    static let targetNames = ["detection", "group", "disparity", "point"]

    func read() throws(EDLError) -> (EditDecisionList, EDLPlaces) {
        try readEDL(document.root, nested: false)
    }

    // MARK: Errors

    func place(_ node: xmlNodePtr?) -> (line: Int?, column: Int?) { document.position(of: node) }

    func schemaError(_ node: xmlNodePtr?, _ message: String) -> EDLError {
        let p = place(node)
        return .schema(source: source, line: p.line, column: p.column, message)
    }

    func rangeError(_ node: xmlNodePtr?, _ message: String) -> EDLError {
        let p = place(node)
        return .invalid(source: source, line: p.line, column: p.column, message)
    }

    /// The schema's own verdict, when our reader found nothing: the first specific message.
    func schemaError(_ problems: [XMLDiagnostic]) -> EDLError {
        // libxml2 reports a failed attribute value as three messages; the generic two say little.
        let specific =
            problems.first {
                !$0.message.hasPrefix("failed to compare type") && !$0.message.hasSuffix("failed to validate attributes")
            } ?? problems[0]
        var p = place(specific.node)
        if p.line == nil { p = (specific.line, nil) }
        return .schema(
            source: source, line: p.line, column: p.column,
            "does not match the schema spec/edl.rng: \(specific.message)")
    }

    // MARK: Tree access

    /// The value of an unqualified attribute, or nil.
    static func attribute(_ node: xmlNodePtr, _ name: String) -> String? {
        var attr = node.pointee.properties
        while let a = attr {
            if a.pointee.ns == nil, let n = a.pointee.name, String(cString: n) == name { return text(of: a) }
            attr = a.pointee.next
        }
        return nil
    }

    /// An attribute's value: its text children (no entity can be declared, so there is nothing else).
    static func text(of attribute: xmlAttrPtr) -> String {
        var value = ""
        var child = attribute.pointee.children
        while let c = child {
            if let content = c.pointee.content { value += String(cString: content) }
            child = c.pointee.next
        }
        return value
    }

    /// The attributes of one of our elements, checked against the names it may carry.
    func attributes(_ node: xmlNodePtr, allowed: [String], required: [String], clause: String) throws(EDLError) -> [String: String] {
        var values: [String: String] = [:]
        var attr = node.pointee.properties
        while let a = attr {
            let name = a.pointee.name.map { String(cString: $0) } ?? ""
            if let prefix = a.pointee.ns?.pointee.prefix {
                throw schemaError(
                    node,
                    "<\(node.localName)> has no attribute \"\(String(cString: prefix)):\(name)\"; attributes in other namespaces are not allowed on EDL elements (spec/edl.md \(clause))"
                )
            }
            guard allowed.contains(name) else {
                throw schemaError(
                    node, "<\(node.localName)> has no attribute \"\(name)\"; it has \(Self.list(allowed)) (spec/edl.md \(clause))")
            }
            values[name] = Self.text(of: a)
            attr = a.pointee.next
        }
        for name in required where values[name] == nil {
            throw schemaError(node, "<\(node.localName)> lacks the attribute \"\(name)\" (spec/edl.md \(clause))")
        }
        return values
    }

    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first.map { "\"\($0)\"" } ?? "none" }
        return names.dropLast().map { "\"\($0)\"" }.joined(separator: ", ") + " and \"\(names.last!)\""
    }

    /// The element children of one of our elements. Text other than whitespace is an error;
    /// comments and processing instructions are skipped (and not kept).
    func elementChildren(_ node: xmlNodePtr, clause: String) throws(EDLError) -> [xmlNodePtr] {
        var elements: [xmlNodePtr] = []
        var child = node.pointee.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE:
                elements.append(c)
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                let text = c.pointee.content.map { String(cString: $0) } ?? ""
                if !text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                    let shown = text.trimmingSpaces()
                    let excerpt = shown.count > 20 ? String(shown.prefix(20)) + "…" : shown
                    throw schemaError(
                        c, "<\(node.localName)> contains the text \"\(excerpt)\"; only elements belong there (spec/edl.md \(clause))")
                }
            case XML_COMMENT_NODE, XML_PI_NODE:
                break
            default:
                throw schemaError(c, "<\(node.localName)> contains an unexpected node (spec/edl.md \(clause))")
            }
            child = c.pointee.next
        }
        return elements
    }

    /// Checks that `child` is an element of ours named one of `names`.
    func expect(_ child: xmlNodePtr, in parent: xmlNodePtr, _ names: [String], clause: String) throws(EDLError) {
        if child.namespaceURI == Self.ns, names.contains(child.localName) { return }
        let what: String
        if let uri = child.namespaceURI, uri != Self.ns {
            what =
                "<\(child.qualifiedName)> (namespace \(uri)) is not allowed in <\(parent.localName)>; other tools' elements belong in <extensions> (spec/edl.md §9)"
        } else if child.namespaceURI == nil {
            what = "<\(child.qualifiedName)> is in no namespace; EDL elements are in \(Self.ns) (spec/edl.md §2)"
        } else {
            let expected = names.isEmpty ? "nothing" : names.map { "<\($0)>" }.joined(separator: ", ")
            what = "<\(child.localName)> is not allowed in <\(parent.localName)>; expected \(expected) (spec/edl.md \(clause))"
        }
        throw schemaError(child, what)
    }

    // MARK: Values

    func value<T>(
        _ parsed: EDLValue.Parsed<T>, _ node: xmlNodePtr, _ name: String, _ text: String,
        _ syntax: EDLValue.Syntax, range: String = "is out of range"
    ) throws(EDLError) -> T {
        switch parsed {
        case .value(let v): return v
        case .badSyntax:
            throw schemaError(node, "<\(node.localName)> \(name)=\"\(text)\" is not \(syntax.rawValue) (spec/edl.md §10)")
        case .outOfRange:
            throw rangeError(node, "<\(node.localName)> \(name)=\"\(text)\" \(range) (spec/edl.md §10)")
        }
    }

    func count(_ a: [String: String], _ name: String, _ node: xmlNodePtr) throws(EDLError) -> Int64 {
        let t = a[name]!
        return try value(EDLValue.count(t), node, name, t, .count, range: "is out of range (at most \(Int64.max))")
    }

    func id(_ a: [String: String], _ name: String, _ node: xmlNodePtr) throws(EDLError) -> UInt32 {
        let t = a[name]!
        return try value(EDLValue.id(t), node, name, t, .id, range: "is out of range (at most \(UInt32.max))")
    }

    func time(_ a: [String: String], _ name: String, _ node: xmlNodePtr) throws(EDLError) -> MediaTime {
        let t = a[name]!
        return try value(
            EDLValue.time(t), node, name, t, .time,
            range: "is out of range (value at most \(Int64.max), timescale at most \(Int32.max))")
    }

    /// The lens-look attributes of `<aperture>` (§4).
    static let lookAttributes = [
        "blades", "blade-rotation", "blade-curvature", "anamorphic", "highlight-threshold", "highlight-gain", "kernel",
    ]

    func readLook(_ a: [String: String], _ node: xmlNodePtr) throws(EDLError) -> ApertureLook {
        func number(_ name: String) throws(EDLError) -> Float? { a[name] == nil ? nil : try float(a, name, node) }
        var look = ApertureLook()
        if a["blades"] != nil {
            let n = try count(a, "blades", node)
            look.blades = n > 1000 ? 1000 : Int(n)
        }
        look.bladeRotation = try number("blade-rotation")
        look.bladeCurvature = try number("blade-curvature")
        look.anamorphic = try number("anamorphic")
        look.highlightThreshold = try number("highlight-threshold")
        look.highlightGain = try number("highlight-gain")
        look.kernel = a["kernel"]
        return look
    }

    func float(_ a: [String: String], _ name: String, _ node: xmlNodePtr) throws(EDLError) -> Float {
        let t = a[name]!
        return try value(EDLValue.float(t), node, name, t, .number, range: "is too large for a 32-bit float")
    }

    func double(_ text: String?, _ name: String, _ node: xmlNodePtr) throws(EDLError) -> Double? {
        guard let text else { return nil }
        return try value(EDLValue.double(text), node, name, text, .number, range: "is too large")
    }

    func choice(_ a: [String: String], _ name: String, _ node: xmlNodePtr, _ options: [String], clause: String) throws(EDLError) -> String {
        let t = a[name]!
        guard options.contains(t) else {
            throw schemaError(
                node,
                "<\(node.localName)> \(name)=\"\(t)\" is not \(options.map { "\"\($0)\"" }.joined(separator: " or ")) (spec/edl.md \(clause))"
            )
        }
        return t
    }

    // MARK: Elements

    func readEDL(_ node: xmlNodePtr, nested: Bool) throws(EDLError) -> (EditDecisionList, EDLPlaces) {
        var edl = EditDecisionList()
        var places = EDLPlaces()
        let a = try attributes(node, allowed: ["version"], required: ["version"], clause: "§2")
        if a["version"] != "\(EditDecisionList.currentVersion)" {
            let p = place(node)
            throw .unsupportedVersion(source: source, line: p.line, column: p.column, a["version"]!)
        }
        edl.version = EditDecisionList.currentVersion

        let order = nested ? Self.rootOrder.filter { $0 != "history" } : Self.rootOrder
        var next = 0  // index in `order` of the first child still allowed
        for child in try elementChildren(node, clause: "§2") {
            try expect(child, in: node, order, clause: "§2")
            let name = child.localName
            let index = order.firstIndex(of: name)!
            guard index >= next else {
                if index == next - 1 {
                    throw schemaError(child, "<\(name)> appears twice in <edl> (spec/edl.md §2)")
                }
                throw schemaError(
                    child,
                    "<\(name)> must come before <\(order[next - 1])>; the children of <edl> are, in order, \(order.map { "<\($0)>" }.joined(separator: ", ")) (spec/edl.md §2)"
                )
            }
            next = index + 1
            if let clause = Self.containerClauses[name] {  // containers carry no attributes
                _ = try attributes(child, allowed: [], required: [], clause: clause)
            }
            switch name {
            case "media":
                places.media = document.offset(of: child)
                edl.media = try readMedia(child)
            case "aperture":
                places.aperture = document.offset(of: child)
                let a = try attributes(child, allowed: ["f-number"] + Self.lookAttributes, required: [], clause: "§4")
                if a["f-number"] != nil { edl.fNumber = try float(a, "f-number", child) }
                edl.look = try readLook(a, child)
                if let extra = try elementChildren(child, clause: "§4").first { try expect(extra, in: child, [], clause: "§4") }
            case "decisions":
                for d in try elementChildren(child, clause: "§5") {
                    try expect(d, in: child, ["decision"], clause: "§5")
                    let (decision, target) = try readDecision(d)
                    edl.decisions.append(decision)
                    places.decisions.append(document.offset(of: d))
                    places.targets.append(document.offset(of: target))
                }
            case "tracks":
                for t in try elementChildren(child, clause: "§6") {
                    try expect(t, in: child, ["track"], clause: "§6")
                    let (track, samplePlaces) = try readTrack(t)
                    edl.detectionTracks.append(track)
                    places.tracks.append(document.offset(of: t))
                    places.samples.append(samplePlaces)
                }
            case "timeline":
                try readTimeline(child, into: &edl, places: &places)
            case "history":
                // Undo steps, then redo steps.
                for s in try elementChildren(child, clause: "§8") {
                    try expect(s, in: child, edl.redo.isEmpty ? ["step", "redo"] : ["redo"], clause: "§8")
                    let (entry, inner, innerPlaces) = try readStep(s)
                    if s.localName == "redo" {
                        edl.redo.append(entry)
                        places.redoSteps.append(document.offset(of: s))
                        places.redone.append(EDLPlacedList(list: inner, places: innerPlaces))
                    } else {
                        edl.history.append(entry)
                        places.steps.append(document.offset(of: s))
                        places.previous.append(EDLPlacedList(list: inner, places: innerPlaces))
                    }
                }
            default:  // "extensions"
                for f in try readExtensions(child) {
                    edl.foreignElements.append(f.text)
                    places.foreign.append(f.offset)
                }
            }
        }
        return (edl, places)
    }

    static let containerClauses = ["decisions": "§5", "tracks": "§6", "timeline": "§7", "history": "§8", "extensions": "§9"]

    func readMedia(_ node: xmlNodePtr) throws(EDLError) -> MediaBinding {
        let a = try attributes(
            node, allowed: ["frames", "rate", "fingerprint"], required: ["frames", "rate", "fingerprint"], clause: "§3")
        if let extra = try elementChildren(node, clause: "§3").first { try expect(extra, in: node, [], clause: "§3") }
        let frames = try count(a, "frames", node)
        guard let frameCount = Int(exactly: frames) else { throw rangeError(node, "<media> frames=\"\(frames)\" is out of range") }
        let rateText = a["rate"]!
        let rate = try value(
            EDLValue.frameRate(rateText), node, "rate", rateText, .rate,
            range: "is out of range (each part at most \(Int32.max))")
        let fingerprint = a["fingerprint"]!
        guard EDLValue.isFingerprint(fingerprint) else {
            throw schemaError(
                node, "<media> fingerprint=\"\(fingerprint)\" is not \(EDLValue.Syntax.fingerprint.rawValue) (spec/edl.md §3)")
        }
        return MediaBinding(frameCount: frameCount, frameRate: rate, fingerprint: fingerprint)
    }

    func readDecision(_ node: xmlNodePtr) throws(EDLError) -> (UserDecision, xmlNodePtr) {
        let a = try attributes(
            node, allowed: ["time", "frame", "strength", "min-transition", "max-transition"],
            required: ["time", "frame", "strength"], clause: "§5")
        let time = try time(a, "time", node)
        let frame = try count(a, "frame", node)
        let strength = DecisionStrength(rawValue: try choice(a, "strength", node, ["weak", "strong"], clause: "§5"))!
        let minTransition = try double(a["min-transition"], "min-transition", node)
        let maxTransition = try double(a["max-transition"], "max-transition", node)

        let children = try elementChildren(node, clause: "§5")
        guard let t = children.first else {
            throw schemaError(
                node, "<decision> has no target; it needs exactly one of <detection>, <group>, <disparity> or <point> (spec/edl.md §5)")
        }
        try expect(t, in: node, Self.targetNames, clause: "§5")
        if children.count > 1 {
            throw schemaError(
                children[1], "<decision> has a second target <\(children[1].qualifiedName)>; it needs exactly one (spec/edl.md §5)")
        }
        if let inner = try elementChildren(t, clause: "§5").first { try expect(inner, in: t, [], clause: "§5") }
        let target: FocusTarget
        switch t.localName {
        case "detection":
            target = .detection(try id(try attributes(t, allowed: ["id"], required: ["id"], clause: "§5"), "id", t))
        case "group":
            target = .group(try id(try attributes(t, allowed: ["id"], required: ["id"], clause: "§5"), "id", t))
        case "disparity":
            target = .fixedDisparity(try float(try attributes(t, allowed: ["value"], required: ["value"], clause: "§5"), "value", t))
        default:  // "point"
            let p = try attributes(t, allowed: ["x", "y"], required: ["x", "y"], clause: "§5")
            target = .point(x: try float(p, "x", t), y: try float(p, "y", t))
        }
        return (
            UserDecision(
                time: time, frame: frame, target: target, strength: strength,
                minTransition: minTransition, maxTransition: maxTransition), t
        )
    }

    func readTrack(_ node: xmlNodePtr) throws(EDLError) -> (UserDetectionTrack, [Int?]) {
        let a = try attributes(node, allowed: ["id", "kind"], required: ["id", "kind"], clause: "§6")
        let trackID = try id(a, "id", node)
        let kind = UserDetectionTrack.Kind(rawValue: try choice(a, "kind", node, ["custom", "fixed"], clause: "§6"))!
        var samples: [UserDetectionTrack.Sample] = []
        var places: [Int?] = []
        for s in try elementChildren(node, clause: "§6") {
            try expect(s, in: node, ["sample"], clause: "§6")
            if let inner = try elementChildren(s, clause: "§6").first { try expect(inner, in: s, [], clause: "§6") }
            let names = ["frame", "x", "y", "w", "h", "disparity"]
            let v = try attributes(s, allowed: names, required: names, clause: "§6")
            let rect = NormalizedRect(
                x: try float(v, "x", s), y: try float(v, "y", s),
                width: try float(v, "w", s), height: try float(v, "h", s))
            samples.append(.init(frame: try count(v, "frame", s), rect: rect, disparity: try float(v, "disparity", s)))
            places.append(document.offset(of: s))
        }
        guard !samples.isEmpty else {
            throw schemaError(node, "<track> has no <sample>; a track has at least one (spec/edl.md §6)")
        }
        return (UserDetectionTrack(id: trackID, kind: kind, samples: samples), places)
    }

    func readTimeline(_ node: xmlNodePtr, into edl: inout EditDecisionList, places: inout EDLPlaces) throws(EDLError) {
        var seenSpeed = false
        for c in try elementChildren(node, clause: "§7") {
            try expect(c, in: node, ["range", "speed"], clause: "§7")
            if let inner = try elementChildren(c, clause: "§7").first { try expect(inner, in: c, [], clause: "§7") }
            if c.localName == "range" {
                if seenSpeed {
                    throw schemaError(c, "<range> must come before every <speed> in <timeline> (spec/edl.md §7)")
                }
                let a = try attributes(c, allowed: ["start", "end"], required: ["start", "end"], clause: "§7")
                edl.sourceRanges.append(SourceRange(start: try time(a, "start", c), end: try time(a, "end", c)))
                places.ranges.append(document.offset(of: c))
            } else {
                seenSpeed = true
                let a = try attributes(c, allowed: ["start", "end", "rate"], required: ["start", "end", "rate"], clause: "§7")
                let start = try time(a, "start", c), end = try time(a, "end", c)
                let rateText = a["rate"]!
                let (n, d) = try value(
                    EDLValue.speedRate(rateText), c, "rate", rateText, .rate,
                    range: "is out of range (each part at most \(Int64.max))")
                edl.speedSegments.append(SpeedSegment(start: start, end: end, rateNumerator: n, rateDenominator: d))
                places.speeds.append(document.offset(of: c))
            }
        }
    }

    func readStep(_ node: xmlNodePtr) throws(EDLError) -> (HistoryEntry, EditDecisionList, EDLPlaces) {
        let a = try attributes(node, allowed: ["description"], required: ["description"], clause: "§8")
        let children = try elementChildren(node, clause: "§8")
        guard let inner = children.first else {
            let holds = node.localName == "redo" ? "each redo step holds the EDL after its step" : "each step holds the previous EDL"
            throw schemaError(node, "<\(node.localName)> has no <edl>; \(holds) (spec/edl.md §8)")
        }
        try expect(inner, in: node, ["edl"], clause: "§8")
        if children.count > 1 { try expect(children[1], in: node, [], clause: "§8") }
        let (previous, places) = try readEDL(inner, nested: true)
        let text = String(decoding: previous.xmlData(), as: UTF8.self)
        return (HistoryEntry(description: a["description"]!, previous: text), previous, places)
    }

    /// Foreign elements, each as exclusive canonical XML (§9).
    func readExtensions(_ node: xmlNodePtr) throws(EDLError) -> [(text: String, offset: Int?)] {
        var result: [(String, Int?)] = []
        for f in try elementChildren(node, clause: "§9") {
            guard let uri = f.namespaceURI, uri != Self.ns else {
                let why = f.namespaceURI == nil ? "is in no namespace" : "is in the EDL namespace"
                throw schemaError(f, "<\(f.qualifiedName)> \(why); <extensions> holds only elements of other namespaces (spec/edl.md §9)")
            }
            // Exclusive C14N drops an `xmlns=""` it sees no need for; written back under our default
            // namespace such an element would change namespace. So foreign content is qualified.
            if let bare = Self.firstUnqualified(in: f) {
                throw rangeError(
                    bare,
                    "<\(bare.localName)> inside <\(f.qualifiedName)> is in no namespace; elements inside extensions must be in a namespace (spec/edl.md §9)"
                )
            }
            guard let text = SafeXML.canonicalXML(of: f, in: document) else {
                throw rangeError(f, "<\(f.qualifiedName)> cannot be put in canonical form (is a namespace URI relative?) (spec/edl.md §9)")
            }
            result.append((text, document.offset(of: f)))
        }
        return result
    }

    /// The element children of every `<extensions>` in the EDL namespace (the root's and history
    /// steps'), found without entering foreign content.
    static func foreignElements(of document: SafeXMLDocument) -> [xmlNodePtr] {
        var result: [xmlNodePtr] = []
        guard let root = xmlDocGetRootElement(document.pointer) else { return result }
        func isOurs(_ node: xmlNodePtr) -> Bool {
            guard let ns = node.pointee.ns, let href = ns.pointee.href else { return false }
            return String(cString: href) == Self.ns
        }
        var stack: [xmlNodePtr] = [root]
        while let node = stack.popLast() {
            let isExtensions = String(cString: node.pointee.name) == "extensions"
            var child = node.pointee.children
            while let c = child {
                if c.pointee.type == XML_ELEMENT_NODE {
                    if isExtensions {
                        if !isOurs(c) { result.append(c) }
                    } else if isOurs(c) {
                        stack.append(c)
                    }
                }
                child = c.pointee.next
            }
        }
        return result
    }

    /// The first element in `root`'s subtree with no namespace, found iteratively.
    static func firstUnqualified(in root: xmlNodePtr) -> xmlNodePtr? {
        var stack: [xmlNodePtr] = [root]
        while let node = stack.popLast() {
            if node.pointee.ns == nil { return node }
            var child = node.pointee.last
            while let c = child {
                if c.pointee.type == XML_ELEMENT_NODE { stack.append(c) }
                child = c.pointee.prev
            }
        }
        return nil
    }
}
