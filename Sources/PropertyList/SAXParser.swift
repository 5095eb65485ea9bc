import CLibXML2
import MDMDiagnostics

/// One hardened libxml2 SAX2 parse of a document held in memory; subclasses receive start tags, text and end
/// tags with exact positions. This is the only place that drives libxml2's parser.
///
/// Hardening: no network (`XML_PARSE_NONET`), no entity substitution, no external DTD or entity loading (a
/// loader that refuses everything is installed), an internal subset that declares any entity stops the parse,
/// any entity other than the predefined five is an error, and libxml2's depth limit stays on (no
/// `XML_PARSE_HUGE`). The input must be UTF-8; positions are computed from byte offsets into it.
class SAXParser {
    private(set) var wellFormed = true
    private let bytes: UnsafeBufferPointer<UInt8>
    @exclusivity(unchecked) private var tracker: LineTracker
    private var parser: xmlParserCtxtPtr?
    private(set) var stopped = false
    private var xmlErrors = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.tracker = LineTracker(bytes)
    }

    // MARK: Hooks for subclasses

    func startElement(
        _ name: UnsafeBufferPointer<UInt8>, namespaced: Bool, attributes: SAXAttributes, position: SourcePosition
    ) {}

    func characters(_ text: UnsafeBufferPointer<UInt8>, position: () -> SourcePosition) {}

    func endElement() {}

    /// An error found by libxml2 or by the hardening (always severity error).
    func report(_ code: DiagnosticCode, _ message: String, at position: SourcePosition, hint: String?) {}

    // MARK: Parsing

    final func parse() {
        LibXML2.setUp()
        mdmconf_silence_generic_errors()
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let created = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            xmlCreateMemoryParserCtxt($0, Int32(bytes.count))
        }
        guard let parser = created else {
            report(
                PlistCode.notWellFormed, "libxml2 could not create a parser (out of memory?)", at: position(at: 0),
                hint: nil)
            wellFormed = false
            return
        }
        self.parser = parser
        defer {
            // libxml2's SAX2 handlers build a document to hold a DOCTYPE's internal subset; the context does
            // not free it (found by fuzzing: every document with an internal subset leaked it).
            if let document = parser.pointee.myDoc {
                xmlFreeDoc(document)
                parser.pointee.myDoc = nil
            }
            xmlFreeParserCtxt(parser)
            self.parser = nil
        }
        let flags = XML_PARSE_NONET.rawValue | XML_PARSE_IGNORE_ENC.rawValue
        xmlCtxtUseOptions(parser, Int32(flags))
        parser.pointee.sax.pointee = LibXML2.makeHandler()
        parser.pointee.userData = Unmanaged.passUnretained(self).toOpaque()
        parser.pointee.replaceEntities = 0
        parser.pointee.loadsubset = 0
        xmlParseDocument(parser)
        if parser.pointee.wellFormed == 0 { wellFormed = false }
    }

    /// Stops the parse after the current event (a limit was hit).
    final func stop() {
        guard !stopped, let parser else { return }
        stopped = true
        wellFormed = false
        xmlStopParser(parser)
    }

    final func position(at offset: Int) -> SourcePosition {
        let (line, column) = tracker.position(at: offset)
        return SourcePosition(line: line, column: column, offset: offset)
    }

    /// The absolute byte offset libxml2 has reached.
    private var currentOffset: Int {
        guard let input = parser?.pointee.input, let cur = input.pointee.cur, let start = input.pointee.base else {
            return 0
        }
        return Int(input.pointee.consumed) + (cur - start)
    }

    /// Where text handed to `characters` starts: libxml2 passes a pointer into its input buffer when it can,
    /// and a copy (after it has moved past the text) when it had to normalise line ends.
    private func textOffset(_ text: UnsafePointer<xmlChar>, count: Int) -> Int {
        if let input = parser?.pointee.input, let base = input.pointee.base, let end = input.pointee.end,
            text >= base, text < end
        {
            return Int(input.pointee.consumed) + (text - base)
        }
        return max(0, currentOffset - count)
    }

    private func report(_ code: DiagnosticCode, _ message: String, offset: Int, hint: String? = nil) {
        report(code, message, at: position(at: offset), hint: hint)
    }

    // MARK: Callbacks

    fileprivate func startElementEvent(
        localname: UnsafePointer<xmlChar>, uri: UnsafePointer<xmlChar>?, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        guard !stopped else { return }
        // libxml2 calls back with `cur` at the end of the start tag; the tag begins at the last '<'
        // before it (attribute values cannot hold a literal '<').
        var offset = currentOffset
        if let input = parser?.pointee.input, var cursor = input.pointee.cur, let start = input.pointee.base {
            while cursor > start && cursor.pointee != 0x3C { cursor -= 1 }
            offset = Int(input.pointee.consumed) + (cursor - start)
        }
        var nameLength = 0
        while localname[nameLength] != 0 { nameLength += 1 }
        startElement(
            UnsafeBufferPointer(start: localname, count: nameLength), namespaced: uri != nil,
            attributes: SAXAttributes(base: attributes, count: attributeCount), position: position(at: offset))
    }

    fileprivate func endElementEvent() {
        guard !stopped else { return }
        endElement()
    }

    fileprivate func charactersEvent(_ text: UnsafePointer<xmlChar>, count: Int) {
        guard !stopped else { return }
        let buffer = UnsafeBufferPointer(start: text, count: count)
        characters(buffer, position: { self.position(at: self.textOffset(text, count: count)) })
    }

    fileprivate func entityDeclared(name: String) {
        guard !stopped else { return }
        // Point at the `<!ENTITY` that libxml2 has just read.
        var offset = currentOffset
        if let input = parser?.pointee.input, var cursor = input.pointee.cur, let start = input.pointee.base {
            while cursor > start && !(cursor.pointee == 0x3C && cursor[1] == 0x21) { cursor -= 1 }
            offset = Int(input.pointee.consumed) + (cursor - start)
        }
        report(
            PlistCode.entityDeclaration, "the document declares the entity \(quoted(name)); entities are not allowed",
            offset: offset,
            hint: "plists never need entities; this is how entity-expansion and external-file attacks begin")
        stop()
    }

    fileprivate func xmlError(_ error: xmlError) {
        guard !stopped else { return }
        let code = Int(error.code)
        var message = error.message.map { String(cString: $0) } ?? "XML error \(code)"
        while message.last == "\n" || message.last == " " { message.removeLast() }
        if let first = message.first { message = first.lowercased() + message.dropFirst() }
        let offset = currentOffset
        switch code {
        case Int(XML_ERR_UNDECLARED_ENTITY.rawValue), Int(XML_WAR_UNDECLARED_ENTITY.rawValue):
            let name = error.str1.map { String(cString: $0) } ?? "?"
            report(
                PlistCode.undeclaredEntity, "reference to undeclared entity \(quoted("&" + name + ";"))",
                offset: offset,
                hint: "only &amp; &lt; &gt; &quot; &apos; and character references such as &#10; exist here")
            return
        case Int(XML_ERR_DOCUMENT_EMPTY.rawValue):
            report(PlistCode.emptyDocument, "the input holds no XML element", offset: offset)
            stop()
            return
        default:
            break
        }
        if message.hasPrefix("input is not proper UTF-8") || code == Int(XML_ERR_INVALID_ENCODING.rawValue) {
            report(
                PlistCode.invalidEncoding, "input is not valid UTF-8", offset: offset,
                hint: "plists are UTF-8 text; re-save the file as UTF-8")
            stop()
            return
        }
        if message.hasPrefix("excessive depth") {
            report(
                PlistCode.nestingTooDeep, "elements are nested deeper than libxml2 allows (256 levels)", offset: offset)
            stop()
            return
        }
        if error.level == XML_ERR_WARNING { return }
        xmlErrors += 1
        // After the first fatal error libxml2 has lost its place; later errors are mostly echoes of it.
        guard xmlErrors == 1 else { return }
        message = message.replacingNewlines()
        // libxml2 notices a bad tag once it has read past it; point at the tag's start instead.
        var start = offset
        if let input = parser?.pointee.input, let cur = input.pointee.cur, let base = input.pointee.base, cur > base,
            cur[-1] == 0x3E
        {
            var cursor = cur - 1
            while cursor > base && cursor.pointee != 0x3C { cursor -= 1 }
            start = Int(input.pointee.consumed) + (cursor - base)
        }
        report(PlistCode.notWellFormed, message, offset: start)
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "; ")
    }
}

/// libxml2's process-wide set-up and the SAX handler shared by every parse.
enum LibXML2 {
    private static let initialized: Bool = {
        xmlInitParser()
        // Never load anything from outside the document: no external DTD, no external entity.
        xmlSetExternalEntityLoader { _, _, _ in nil }
        return true
    }()

    static func setUp() { _ = initialized }

    /// Calls `body` with the parser in libxml2's user data, without retaining it: the parser outlives the parse.
    @inline(__always)
    static func withParser(_ pointer: UnsafeMutableRawPointer?, _ body: (SAXParser) -> Void) {
        guard let pointer else { return }
        Unmanaged<SAXParser>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// The SAX2 callbacks; each forwards to the `SAXParser` in the parser's user data.
    static func makeHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, _, uri, _, _, attributeCount, _, attributes in
            guard let localname else { return }
            LibXML2.withParser(context) {
                $0.startElementEvent(
                    localname: localname, uri: uri, attributeCount: Int(attributeCount), attributes: attributes)
            }
        }
        handler.endElementNs = { context, _, _, _ in LibXML2.withParser(context) { $0.endElementEvent() } }
        handler.characters = { context, text, count in
            guard let text else { return }
            LibXML2.withParser(context) { $0.charactersEvent(text, count: Int(count)) }
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = handler.characters
        handler.entityDecl = { context, name, _, _, _, _ in
            let name = name.map { String(cString: $0) } ?? "?"
            LibXML2.withParser(context) { $0.entityDeclared(name: name) }
        }
        handler.unparsedEntityDecl = { context, name, _, _, _ in
            let name = name.map { String(cString: $0) } ?? "?"
            LibXML2.withParser(context) { $0.entityDeclared(name: name) }
        }
        // Entities are never resolved: predefined ones are handled inside libxml2, anything else is an error.
        handler.getEntity = { _, _ in nil }
        handler.getParameterEntity = { _, _ in nil }
        handler.serror = { context, error in
            guard let error else { return }
            LibXML2.withParser(context) { $0.xmlError(error.pointee) }
        }
        return handler
    }
}

/// The attributes of a start tag as libxml2 hands them over: five pointers each (local name, prefix, URI,
/// value start, value end). Read only during the `startElement` call.
struct SAXAttributes {
    let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int

    /// Every attribute as (name, value), in document order.
    var all: [(name: String, value: String)] {
        guard let base else { return [] }
        return (0..<count).compactMap { index in
            guard let name = base[index * 5], let start = base[index * 5 + 3], let end = base[index * 5 + 4] else {
                return nil
            }
            return (
                String(cString: name),
                String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
            )
        }
    }

    /// The value of attribute `name`, if present.
    func value(of name: String) -> String? {
        guard base != nil, count > 0 else { return nil }
        return all.first { $0.name == name }?.value
    }
}
