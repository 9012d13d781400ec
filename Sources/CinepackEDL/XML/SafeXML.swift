import CLibXML2

// Reading XML from untrusted bytes with libxml2 2.9 (spec/edl.md §2, §13).
//
// - Network off (XML_PARSE_NONET); never XML_PARSE_NOENT (entity substitution), XML_PARSE_DTDLOAD,
//   XML_PARSE_DTDATTR, XML_PARSE_XINCLUDE or XML_PARSE_HUGE.
// - Any DOCTYPE is refused: a SAX hook stops the parser at `<!DOCTYPE name`, before the internal
//   subset is read, so no entity is ever declared (this is what stops XXE and billion laughs);
//   the tree is checked again afterwards.
// - Size is capped before parsing; depth is capped while parsing (a SAX hook stops the parser)
//   and checked again on the tree.
// - Every diagnostic is collected with its line and column through handlers private to this
//   parse; none reaches stderr. Any diagnostic, warnings included, rejects the document.

/// Limits for untrusted XML (spec/edl.md §2).
package enum XMLLimits {
    /// Largest input accepted, checked before libxml2 sees a byte.
    package static let maxInputBytes = 16 * 1024 * 1024
    /// Deepest element nesting accepted (the root is depth 1).
    package static let maxDepth = 64
    /// Most attributes on one element, namespace declarations included. libxml2 checks an element's
    /// attributes for duplicates, and canonicalizes them, in time quadratic in their number (40 000 on
    /// one element: 38 s), so the count is checked on the bytes before libxml2 sees them.
    package static let maxAttributes = 1024
}

/// One libxml2 diagnostic and where it points.
struct XMLDiagnostic {
    var message: String
    var line: Int?
    var column: Int?
    /// The element the diagnostic is about (validation errors), if libxml2 said.
    var node: xmlNodePtr?
    var domain: Int32
    var code: Int32
}

/// Collects diagnostics from libxml2 callbacks; reached through an unmanaged pointer.
final class XMLDiagnosticSink {
    var diagnostics: [XMLDiagnostic] = []
    /// A runaway document can produce an error per byte; the first few are all anyone reads.
    static let keep = 32

    func record(_ error: UnsafePointer<xmlError>) {
        guard diagnostics.count < Self.keep else { return }
        let e = error.pointee
        var text = e.message.map { String(cString: $0) } ?? "unknown libxml2 error \(e.code)"
        // libxml2 ends messages with "\n" and sometimes adds a second line of bytes; keep the first.
        if let newline = text.firstIndex(of: "\n") { text = String(text[..<newline]) }
        diagnostics.append(
            XMLDiagnostic(
                message: text.trimmingSpaces(),
                line: e.line > 0 ? Int(e.line) : nil,
                column: e.int2 > 0 ? Int(e.int2) : nil,
                node: e.node?.assumingMemoryBound(to: xmlNode.self),
                domain: Int32(e.domain),
                code: Int32(e.code)))
    }

    /// The C callback for handlers whose context is the sink itself.
    static let handler: xmlStructuredErrorFunc = { context, error in
        guard let context, let error else { return }
        Unmanaged<XMLDiagnosticSink>.fromOpaque(context).takeUnretainedValue().record(error)
    }
}

/// State one parse shares with its SAX callbacks through `ctxt->_private`.
private final class ParseState {
    let sink = XMLDiagnosticSink()
    let maxDepth: Int
    /// Where the parser stood when it met a DOCTYPE or went too deep, as (line, column).
    var doctypeAt: (line: Int, column: Int)?
    var tooDeepAt: Int?
    /// Byte offset (in the parser's input, i.e. after any BOM) of the end of each element's start tag.
    var startTagEnds: [UnsafeMutableRawPointer: Int] = [:]

    init(maxDepth: Int) { self.maxDepth = maxDepth }

    static func from(_ context: UnsafeMutableRawPointer?) -> (UnsafeMutablePointer<xmlParserCtxt>, ParseState)? {
        guard let context else { return nil }
        let ctxt = context.assumingMemoryBound(to: xmlParserCtxt.self)
        guard let state = ctxt.pointee._private else { return nil }
        return (ctxt, Unmanaged<ParseState>.fromOpaque(state).takeUnretainedValue())
    }
}

/// A well-formed document read by `SafeXML.parse`. Owns the libxml2 tree; not shared across threads.
final class SafeXMLDocument {
    let pointer: xmlDocPtr
    let source: String
    let root: xmlNodePtr
    private let bytes: [UInt8]
    private let bomLength: Int
    private let startTagEnds: [UnsafeMutableRawPointer: Int]
    /// Byte offsets where lines start; built on first use (only error messages need it).
    private lazy var lineStarts: [Int] = {
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        return starts
    }()

    fileprivate init(
        pointer: xmlDocPtr, root: xmlNodePtr, source: String, bytes: [UInt8], bomLength: Int,
        startTagEnds: [UnsafeMutableRawPointer: Int]
    ) {
        self.pointer = pointer
        self.root = root
        self.source = source
        self.bytes = bytes
        self.bomLength = bomLength
        self.startTagEnds = startTagEnds
    }

    deinit { xmlFreeDoc(pointer) }

    /// Byte offset of the `<` that opens `node`'s start tag, if the parser recorded the element.
    func offset(of node: xmlNodePtr) -> Int? {
        guard let end = startTagEnds[UnsafeMutableRawPointer(node)] else { return nil }
        // Attribute values cannot hold a raw '<', so the nearest one before the tag's end opens it.
        var i = min(end + bomLength, bytes.count - 1)
        while i >= 0, bytes[i] != UInt8(ascii: "<") { i -= 1 }
        return i >= 0 ? i : nil
    }

    /// 1-based line and column (in Unicode scalars, as libxml2 counts) of a byte offset.
    func position(ofOffset offset: Int) -> (line: Int, column: Int) {
        let starts = lineStarts
        var lo = 0, hi = starts.count - 1
        while lo < hi {  // the last line start <= offset
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        var column = 1
        var i = starts[lo] + (lo == 0 ? bomLength : 0)
        while i < offset, i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }  // count lead bytes only
            i += 1
        }
        return (lo + 1, column)
    }

    /// Where `node` starts: exact for elements the parser saw, else libxml2's line number.
    func position(of node: xmlNodePtr?) -> (line: Int?, column: Int?) {
        guard let node else { return (nil, nil) }
        if let offset = offset(of: node) {
            let p = position(ofOffset: offset)
            return (p.line, p.column)
        }
        let line = Int(xmlGetLineNo(node))
        return (line > 0 ? line : nil, nil)
    }
}

enum SafeXML {
    /// libxml2 wants one initialisation before threads use it.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// The options every parse uses. BIG_LINES keeps line numbers past 65535 right.
    static let parseOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue)

    /// Runs `body` with this thread's libxml2 fallback handlers pointed at `sink`, so that no
    /// diagnostic from any libxml2 call inside reaches stderr; restores the caller's handlers after.
    /// libxml2 keeps these handlers per thread, so other threads' parses are unaffected.
    static func withCapturedErrors<T>(_ sink: XMLDiagnosticSink, _ body: () throws(EDLError) -> T) throws(EDLError) -> T {
        _ = initialized
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let saved = cinepack_xml_install_handlers(XMLDiagnosticSink.handler, context)
        defer {
            cinepack_xml_restore_handlers(saved)
            withExtendedLifetime(sink) {}
        }
        return try body()
    }

    /// Parses untrusted bytes into a well-formed tree, or throws the first problem.
    static func parse(
        _ data: [UInt8], source: String, maxDepth: Int = XMLLimits.maxDepth,
        maxBytes: Int = XMLLimits.maxInputBytes
    ) throws(EDLError) -> SafeXMLDocument {
        guard data.count <= maxBytes else { throw .tooLarge(source: source, size: data.count, limit: maxBytes) }
        guard !data.isEmpty else { throw .notWellFormed(source: source, line: nil, column: nil, "the file is empty") }
        // libxml2 would switch to these on its own; we read UTF-8 only (offsets stay byte offsets).
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0, 0])
            || data[0] == 0 || (data.count >= 2 && data[1] == 0)
        {
            throw .encoding(source: source, line: 1, column: 1, "the file is UTF-16 or UTF-32")
        }
        let bomLength = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        // The parser is told UTF-8 and then ignores the declaration, so check it here.
        if let declared = declaredEncoding(data.dropFirst(bomLength)), declared.lowercased() != "utf-8" {
            throw .encoding(source: source, line: 1, column: 1, "the XML declaration says encoding=\"\(declared)\"")
        }

        if let tag = firstStartTag(withMoreAttributesThan: XMLLimits.maxAttributes, in: data) {
            let p = SafeXMLDocument.Probe(bytes: data, bomLength: bomLength).position(ofTagEndingAt: tag - bomLength)
            throw .tooManyAttributes(source: source, line: p.line, column: p.column, limit: XMLLimits.maxAttributes)
        }

        _ = initialized
        let state = ParseState(maxDepth: maxDepth)
        return try withCapturedErrors(state.sink) { () throws(EDLError) -> SafeXMLDocument in
            guard let ctxt = xmlNewParserCtxt() else { throw .internal(source: source, "libxml2 has no memory for a parser") }
            defer { xmlFreeParserCtxt(ctxt) }
            installHooks(ctxt)
            ctxt.pointee._private = Unmanaged.passUnretained(state).toOpaque()

            let doc: xmlDocPtr? = data.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                    xmlCtxtReadMemory(ctxt, chars, Int32(buffer.count), source, "UTF-8", parseOptions)
                }
            }
            ctxt.pointee._private = nil
            // From here on the tree (if any) is ours to free, whatever we decide.
            var owned: xmlDocPtr? = doc
            defer { if let owned { xmlFreeDoc(owned) } }

            if let at = state.doctypeAt { throw .doctype(source: source, line: at.line, column: at.column) }
            if let offset = state.tooDeepAt {
                let p = SafeXMLDocument.Probe(bytes: data, bomLength: bomLength).position(ofTagEndingAt: offset)
                throw .tooDeep(source: source, line: p.line, column: p.column, limit: maxDepth)
            }
            if let first = state.sink.diagnostics.first {
                // "Input is not proper UTF-8" and friends are encoding problems, clearer said so.
                if first.code == Int32(XML_ERR_INVALID_CHAR.rawValue) && first.message.contains("UTF-8") {
                    throw .encoding(source: source, line: first.line, column: first.column, "the text is not valid UTF-8")
                }
                throw .notWellFormed(source: source, line: first.line, column: first.column, first.message)
            }
            guard let parsed = doc, let root = xmlDocGetRootElement(parsed) else {
                throw .notWellFormed(source: source, line: nil, column: nil, "no root element")
            }
            // Belt and braces: the hook above should have stopped any DTD.
            if parsed.pointee.intSubset != nil || parsed.pointee.extSubset != nil {
                throw .doctype(source: source, line: nil, column: nil)
            }
            owned = nil
            let document = SafeXMLDocument(
                pointer: parsed, root: root, source: source, bytes: data,
                bomLength: bomLength, startTagEnds: state.startTagEnds)
            // And the depth again, on the tree, without recursion.
            if let deep = deepestPoint(root, limit: maxDepth) {
                let p = document.position(of: deep)
                throw .tooDeep(source: source, line: p.line, column: p.column, limit: maxDepth)
            }
            return document
        }
    }

    /// The offset of the `<` of the first start tag with more than `limit` attributes, in one linear
    /// pass: `=` signs outside quotes in a tag, skipping comments, CDATA sections, processing
    /// instructions and end tags (whose `=` are not attributes). Malformed markup is left to libxml2.
    static func firstStartTag(withMoreAttributesThan limit: Int, in bytes: [UInt8]) -> Int? {
        let n = bytes.count
        func skip(past terminator: [UInt8], from start: Int) -> Int {
            var i = start
            while i + terminator.count <= n {
                if bytes[i] == terminator[0], bytes[i..<i + terminator.count].elementsEqual(terminator) { return i + terminator.count }
                i += 1
            }
            return n
        }
        var i = 0
        while i < n {
            guard bytes[i] == UInt8(ascii: "<"), i + 1 < n else {
                i += 1
                continue
            }
            let next = bytes[i + 1]
            if next == UInt8(ascii: "!") {
                if bytes[i...].starts(with: Array("<!--".utf8)) {
                    i = skip(past: Array("-->".utf8), from: i + 4)
                } else if bytes[i...].starts(with: Array("<![CDATA[".utf8)) {
                    i = skip(past: Array("]]>".utf8), from: i + 9)
                } else {
                    i += 2
                }
            } else if next == UInt8(ascii: "?") {
                i = skip(past: Array("?>".utf8), from: i + 2)
            } else if next == UInt8(ascii: "/") {
                i += 2
            } else {
                var count = 0
                var quote: UInt8 = 0
                var j = i + 1
                while j < n {
                    let c = bytes[j]
                    if quote != 0 {
                        if c == quote { quote = 0 }
                    } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                        quote = c
                    } else if c == UInt8(ascii: "=") {
                        count += 1
                        if count > limit { return i }
                    } else if c == UInt8(ascii: ">") || c == UInt8(ascii: "<") {
                        break
                    }
                    j += 1
                }
                i = j
            }
        }
        return nil
    }

    /// The `encoding` pseudo-attribute of an XML declaration at the start of `bytes`, if any.
    /// (Malformed declarations are left to the parser, which rejects them.)
    static func declaredEncoding(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.starts(with: Array("<?xml".utf8)) else { return nil }
        let head = Array(bytes.prefix(512))
        let key = Array("encoding".utf8)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        var i = 5
        while i + key.count <= head.count {
            if head[i] == UInt8(ascii: "?") { return nil }  // end of the declaration
            if Array(head[i..<(i + key.count)]) == key { break }
            i += 1
        }
        i += key.count
        while i < head.count, isSpace(head[i]) { i += 1 }
        guard i < head.count, head[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        while i < head.count, isSpace(head[i]) { i += 1 }
        guard i < head.count, head[i] == UInt8(ascii: "\"") || head[i] == UInt8(ascii: "'") else { return nil }
        let quote = head[i]
        guard let close = head[(i + 1)...].firstIndex(of: quote) else { return nil }
        return String(decoding: head[(i + 1)..<close], as: UTF8.self)
    }

    /// SAX hooks: refuse a DOCTYPE before its internal subset is read; record where each element
    /// starts and stop at the depth limit.
    private static func installHooks(_ ctxt: UnsafeMutablePointer<xmlParserCtxt>) {
        guard let sax = ctxt.pointee.sax else { return }
        sax.pointee.internalSubset = { context, _, _, _ in
            guard let (ctxt, state) = ParseState.from(context) else { return }
            if state.doctypeAt == nil, let input = ctxt.pointee.input {
                state.doctypeAt = (Int(input.pointee.line), Int(input.pointee.col))
            }
            xmlStopParser(ctxt)
        }
        // An external subset is never loaded (no DTDLOAD), but make sure nothing declares entities.
        sax.pointee.entityDecl = { context, _, _, _, _, _ in
            guard let (ctxt, _) = ParseState.from(context) else { return }
            xmlStopParser(ctxt)
        }
        sax.pointee.startElementNs = { context, localName, prefix, uri, nsCount, namespaces, attributeCount, defaulted, attributes in
            xmlSAX2StartElementNs(context, localName, prefix, uri, nsCount, namespaces, attributeCount, defaulted, attributes)
            guard let (ctxt, state) = ParseState.from(context), let input = ctxt.pointee.input,
                let base = input.pointee.base, let cur = input.pointee.cur
            else { return }
            let offset = Int(input.pointee.consumed) + base.distance(to: cur)
            if Int(ctxt.pointee.nodeNr) > state.maxDepth {
                if state.tooDeepAt == nil { state.tooDeepAt = offset }
                xmlStopParser(ctxt)
                return
            }
            if let node = ctxt.pointee.node { state.startTagEnds[UnsafeMutableRawPointer(node)] = offset }
        }
    }

    /// The first element deeper than `limit` (root = 1), found iteratively.
    private static func deepestPoint(_ root: xmlNodePtr, limit: Int) -> xmlNodePtr? {
        var stack: [(xmlNodePtr, Int)] = [(root, 1)]
        while let (node, depth) = stack.popLast() {
            if depth > limit { return node }
            var child = node.pointee.children
            while let c = child {
                if c.pointee.type == XML_ELEMENT_NODE { stack.append((c, depth + 1)) }
                child = c.pointee.next
            }
        }
        return nil
    }

    // MARK: RELAX NG

    /// Validates `document` against a RELAX NG schema (XML syntax). Returns the validity errors,
    /// empty when valid; throws only when the schema itself cannot be used.
    /// Validates with the children and attributes of `opaque` elements hidden. The EDL schema allows
    /// anything inside a foreign element, and libxml2's RELAX NG matches such content in quadratic time
    /// and memory (40 000 attributes: 38 s and 12 GB), so hiding it changes no verdict and keeps the
    /// check linear. The tree is restored before returning.
    static func validate(_ document: SafeXMLDocument, schema: String, opaque: [xmlNodePtr]) throws(EDLError) -> [XMLDiagnostic] {
        let saved = opaque.map { node in (node, node.pointee.children, node.pointee.last, node.pointee.properties) }
        for node in opaque {
            node.pointee.children = nil
            node.pointee.last = nil
            node.pointee.properties = nil
        }
        defer {
            for (node, children, last, properties) in saved {
                node.pointee.children = children
                node.pointee.last = last
                node.pointee.properties = properties
            }
        }
        return try validate(document, schema: schema)
    }

    static func validate(_ document: SafeXMLDocument, schema: String) throws(EDLError) -> [XMLDiagnostic] {
        let schemaSink = XMLDiagnosticSink()
        let sink = XMLDiagnosticSink()
        // The compiled schema is rebuilt per call (well under a millisecond): nothing global to
        // share between threads, nothing left allocated afterwards.
        let text = Array(schema.utf8)
        return try withCapturedErrors(schemaSink) { () throws(EDLError) -> [XMLDiagnostic] in
            let parserContext: xmlRelaxNGParserCtxtPtr? = text.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlRelaxNGNewMemParserCtxt($0, Int32(buffer.count))
                }
            }
            guard let parserContext else { throw .internal(source: document.source, "cannot load the RELAX NG schema") }
            defer { xmlRelaxNGFreeParserCtxt(parserContext) }
            xmlRelaxNGSetParserStructuredErrors(
                parserContext, XMLDiagnosticSink.handler,
                Unmanaged.passUnretained(schemaSink).toOpaque())
            guard let compiled = xmlRelaxNGParse(parserContext) else {
                let why = schemaSink.diagnostics.first?.message ?? "unknown reason"
                throw .internal(source: document.source, "the RELAX NG schema does not compile: \(why)")
            }
            defer { xmlRelaxNGFree(compiled) }
            guard let validContext = xmlRelaxNGNewValidCtxt(compiled) else {
                throw .internal(source: document.source, "libxml2 has no memory for a validator")
            }
            defer { xmlRelaxNGFreeValidCtxt(validContext) }
            xmlRelaxNGSetValidStructuredErrors(
                validContext, XMLDiagnosticSink.handler,
                Unmanaged.passUnretained(sink).toOpaque())
            let result = withExtendedLifetime(sink) { xmlRelaxNGValidateDoc(validContext, document.pointer) }
            if result < 0 { throw .internal(source: document.source, "RELAX NG validation failed to run (\(result))") }
            if result > 0 && sink.diagnostics.isEmpty {
                return [
                    XMLDiagnostic(
                        message: "the document does not match the schema", line: nil, column: nil,
                        node: nil, domain: 0, code: 0)
                ]
            }
            return result == 0 ? [] : sink.diagnostics
        }
    }

    // MARK: Canonical XML

    /// Exclusive canonical XML (with comments) of the subtree at `node`: self-contained text that
    /// declares the namespaces it uses. Nil if libxml2 cannot canonicalize it (e.g. a relative
    /// namespace URI, which libxml2 accepts while parsing but C14N refuses).
    static func canonicalXML(of node: xmlNodePtr, in document: SafeXMLDocument) -> String? {
        // C14N reports through the thread's fallback handler; keep it off stderr whoever calls.
        let sink = XMLDiagnosticSink()
        let saved = cinepack_xml_install_handlers(XMLDiagnosticSink.handler, Unmanaged.passUnretained(sink).toOpaque())
        defer {
            cinepack_xml_restore_handlers(saved)
            withExtendedLifetime(sink) {}
        }
        guard let out = xmlAllocOutputBuffer(nil) else { return nil }
        defer { xmlOutputBufferClose(out) }
        guard cinepack_xml_c14n_subtree(document.pointer, node, out) >= 0,
            let content = xmlOutputBufferGetContent(out)
        else { return nil }
        let count = Int(xmlOutputBufferGetSize(out))
        return String(decoding: UnsafeBufferPointer(start: content, count: count), as: UTF8.self)
    }
}

extension SafeXMLDocument {
    /// Position arithmetic over the raw bytes, for an error found before there is a tree.
    struct Probe {
        let bytes: [UInt8]
        let bomLength: Int

        /// Line and column of the `<` opening the start tag that ends at parser offset `end`.
        func position(ofTagEndingAt end: Int) -> (line: Int, column: Int) {
            var start = min(end + bomLength, bytes.count - 1)
            while start > 0, bytes[start] != UInt8(ascii: "<") { start -= 1 }
            var line = 1, column = 1
            var i = bomLength
            while i < start {
                if bytes[i] == 0x0A {
                    line += 1
                    column = 1
                } else if bytes[i] & 0xC0 != 0x80 {
                    column += 1
                }
                i += 1
            }
            return (line, column)
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" { s.removeLast() }
        return String(s)
    }
}

// MARK: Tree helpers

extension UnsafeMutablePointer where Pointee == xmlNode {
    /// The element's local name.
    var localName: String { pointee.name.map { String(cString: $0) } ?? "" }
    /// The namespace URI, or nil for no namespace.
    var namespaceURI: String? { pointee.ns?.pointee.href.map { String(cString: $0) } }
    /// `prefix:name` as written, for messages.
    var qualifiedName: String {
        if let prefix = pointee.ns?.pointee.prefix { return "\(String(cString: prefix)):\(localName)" }
        return localName
    }
}
