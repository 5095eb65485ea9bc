import CLibXML2
import MDMDiagnostics

/// Reads XML plists with libxml2's SAX2 interface: no tree is built in C, every value keeps the line and
/// column of its start tag, and hostile input is refused early.
///
/// Hardening: no network, no entity substitution, no external DTD or entity loading (a loader that refuses
/// everything is installed), an internal subset that declares any entity stops the parse, and libxml2's
/// depth limit stays on (no `XML_PARSE_HUGE`). This is the only file that touches libxml2's parser.
public struct XMLPlistReader: Sendable {
    public var options: PlistReaderOptions

    public init(options: PlistReaderOptions = PlistReaderOptions()) { self.options = options }

    public func read(_ bytes: [UInt8], file: String) -> PlistDocument {
        var builder = XMLPlistBuilder(file: file, options: options)
        guard bytes.count <= options.maxInputSize else {
            builder.report(
                PlistCode.fileTooLarge, .error,
                "input is \(bytes.count) bytes, more than the limit of \(options.maxInputSize)",
                at: SourcePosition(line: 1, column: 1, offset: 0))
            return PlistDocument(file: file, root: nil, shape: nil, diagnostics: builder.diagnostics)
        }
        var input = bytes
        let prolog = Prolog.check(&input, file: file)
        if prolog.stop {
            return PlistDocument(file: file, root: nil, shape: nil, diagnostics: prolog.diagnostics)
        }
        return input.withUnsafeBufferPointer { buffer in
            let context = SAXContext(builder: builder, bytes: buffer, preDiagnostics: prolog.diagnostics)
            context.parse()
            context.builder.finish(wellFormed: context.wellFormed)
            let diagnostics = context.preDiagnostics + context.builder.diagnostics
            return PlistDocument(
                file: file, root: context.builder.root, shape: context.builder.shape, diagnostics: diagnostics)
        }
    }
}

/// Checks of the text before the root element, done before libxml2 sees the input.
enum Prolog {
    /// Reports non-UTF-8 input and typographic quotes in the XML declaration, DOCTYPE and `<plist>` tag.
    ///
    /// Typographic quotes are replaced in `input`, byte for byte, by straight quotes padded with spaces
    /// where XML allows spaces, so that the rest of the document is still read and positions stay true.
    static func check(_ input: inout [UInt8], file: String) -> (diagnostics: [Diagnostic], stop: Bool) {
        var diagnostics: [Diagnostic] = []
        func location(_ offset: Int) -> SourceLocation {
            let (line, column) = input.withUnsafeBufferPointer { buffer in
                var tracker = LineTracker(buffer)
                return tracker.position(at: offset)
            }
            return SourceLocation(file: file, position: SourcePosition(line: line, column: column, offset: offset))
        }
        if input.starts(with: [0xFE, 0xFF]) || input.starts(with: [0xFF, 0xFE]) {
            diagnostics.append(
                Diagnostic(
                    PlistCode.invalidEncoding, severity: .error, message: "input is UTF-16; plists here must be UTF-8",
                    location: location(0), hint: "convert it first, e.g. iconv -f UTF-16 -t UTF-8"))
            return (diagnostics, true)
        }
        // The end of the root element's start tag; nothing after it is looked at.
        var end = 0
        var sawRoot = false
        let limit = min(input.count, 65_536)
        while end < limit {
            if input[end] == 0x3C, end + 1 < input.count, input[end + 1] != 0x3F, input[end + 1] != 0x21 {
                sawRoot = true
            }
            if sawRoot && input[end] == 0x3E { break }
            end += 1
        }
        if let declared = declaredEncoding(input[..<end]) {
            let name = declared.lowercased()
            if !["utf-8", "utf8", "us-ascii", "ascii"].contains(name) {
                diagnostics.append(
                    Diagnostic(
                        PlistCode.invalidEncoding, severity: .error,
                        message: "the document declares encoding \(quoted(declared)); plists here must be UTF-8",
                        location: location(0), hint: "convert it, e.g. iconv -f \(declared) -t UTF-8, and declare UTF-8"
                    ))
                return (diagnostics, true)
            }
        }
        var doubleOpen = true
        var singleOpen = true
        var reportedLines: Set<Int> = []
        var index = 0
        while index + 2 < end {
            guard input[index] == 0xE2, input[index + 1] == 0x80,
                [0x98, 0x99, 0x9C, 0x9D].contains(input[index + 2])
            else {
                index += 1
                continue
            }
            let isDouble = input[index + 2] >= 0x9C
            let quote: UInt8 = isDouble ? 0x22 : 0x27
            let opening = isDouble ? doubleOpen : singleOpen
            if isDouble { doubleOpen.toggle() } else { singleOpen.toggle() }
            let here = location(index)
            if let line = here.position.line, reportedLines.insert(line).inserted {
                diagnostics.append(
                    Diagnostic(
                        PlistCode.smartQuotes, severity: .error,
                        message:
                            "typographic quote \(isDouble ? "“ or ”" : "‘ or ’") in markup; XML needs straight quotes",
                        location: here,
                        hint: "replace “ ” with \" (this often comes from copying out of a word processor)"))
            }
            input.replaceSubrange(index..<index + 3, with: opening ? [0x20, 0x20, quote] : [quote, 0x20, 0x20])
            index += 3
        }
        return (diagnostics, false)
    }

    /// The `encoding` pseudo-attribute of an XML declaration at the start of `bytes`.
    private static func declaredEncoding(_ bytes: ArraySlice<UInt8>) -> String? {
        var text = bytes
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        guard text.starts(with: Array("<?xml".utf8)), let close = text.firstIndex(of: 0x3E) else { return nil }
        let declaration = Array(text[..<close])
        let keyword = Array("encoding".utf8)
        guard
            let found = (0..<max(0, declaration.count - keyword.count + 1)).first(where: {
                declaration[$0..<$0 + keyword.count].elementsEqual(keyword)
            })
        else { return nil }
        var rest = declaration[(found + keyword.count)...].drop { $0 == 0x20 || $0 == 0x3D || $0 == 0x09 }
        guard let quote = rest.first, quote == 0x22 || quote == 0x27 else { return nil }
        rest = rest.dropFirst()
        return String(decoding: rest.prefix { $0 != quote }, as: UTF8.self)
    }
}

/// One parse: the libxml2 context, the builder it feeds, and the position bookkeeping.
private final class SAXContext {
    // One parse runs on one thread and libxml2 calls back one event at a time, so the dynamic exclusivity
    // checks on these hot fields buy nothing.
    @exclusivity(unchecked) var builder: XMLPlistBuilder
    var preDiagnostics: [Diagnostic]
    var wellFormed = true
    private let bytes: UnsafeBufferPointer<UInt8>
    @exclusivity(unchecked) private var tracker: LineTracker
    private var parser: xmlParserCtxtPtr?
    private var stopped = false
    private var xmlErrors = 0

    init(builder: XMLPlistBuilder, bytes: UnsafeBufferPointer<UInt8>, preDiagnostics: [Diagnostic]) {
        self.builder = builder
        self.bytes = bytes
        self.tracker = LineTracker(bytes)
        self.preDiagnostics = preDiagnostics
    }

    func parse() {
        LibXML2.setUp()
        mdmconf_silence_generic_errors()
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let created = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            xmlCreateMemoryParserCtxt($0, Int32(bytes.count))
        }
        guard let parser = created else {
            report(PlistCode.notWellFormed, "libxml2 could not create a parser (out of memory?)", offset: 0)
            return
        }
        self.parser = parser
        defer {
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

    private func position(at offset: Int) -> SourcePosition {
        let (line, column) = tracker.position(at: offset)
        return SourcePosition(line: line, column: column, offset: offset)
    }

    private func stop() {
        guard !stopped, let parser else { return }
        stopped = true
        wellFormed = false
        xmlStopParser(parser)
    }

    private func report(_ code: DiagnosticCode, _ message: String, offset: Int, hint: String? = nil) {
        builder.report(code, .error, message, at: position(at: offset), hint: hint)
    }

    // MARK: Callbacks

    func startElement(
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
        var element = PlistElement(name: UnsafeBufferPointer(start: localname, count: nameLength))
        // Plist elements have no namespace: `<x:dict xmlns:x="…">` is not a dict.
        if uri != nil { element = .unknown(String(cString: localname)) }
        var version: String?
        if element == .plist, let attributes {
            for index in 0..<attributeCount {
                let base = index * 5
                guard let name = attributes[base], let valueStart = attributes[base + 3],
                    let valueEnd = attributes[base + 4], String(cString: name) == "version"
                else { continue }
                version = String(
                    decoding: UnsafeBufferPointer(start: valueStart, count: valueEnd - valueStart), as: UTF8.self)
            }
        }
        builder.startElement(element, position: position(at: offset), version: version)
        if builder.mustStop { stop() }
    }

    func endElement() {
        guard !stopped else { return }
        builder.endElement()
    }

    func characters(_ text: UnsafePointer<xmlChar>, count: Int) {
        guard !stopped else { return }
        let buffer = UnsafeBufferPointer(start: text, count: count)
        builder.characters(buffer, position: self.position(at: self.textOffset(text, count: count)))
        if builder.mustStop { stop() }
    }

    func entityDeclared(name: String) {
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

    func xmlError(_ error: xmlError) {
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
private enum LibXML2 {
    private static let initialized: Bool = {
        xmlInitParser()
        // Never load anything from outside the document: no external DTD, no external entity.
        xmlSetExternalEntityLoader { _, _, _ in nil }
        return true
    }()

    static func setUp() { _ = initialized }

    static func context(_ pointer: UnsafeMutableRawPointer?) -> SAXContext? {
        guard let pointer else { return nil }
        return Unmanaged<SAXContext>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The SAX2 callbacks; each forwards to the `SAXContext` in the parser's user data.
    static func makeHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, _, uri, _, _, attributeCount, _, attributes in
            guard let localname else { return }
            LibXML2.context(context)?.startElement(
                localname: localname, uri: uri, attributeCount: Int(attributeCount), attributes: attributes)
        }
        handler.endElementNs = { context, _, _, _ in LibXML2.context(context)?.endElement() }
        handler.characters = { context, text, count in
            guard let text else { return }
            LibXML2.context(context)?.characters(text, count: Int(count))
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = handler.characters
        handler.entityDecl = { context, name, _, _, _, _ in
            LibXML2.context(context)?.entityDeclared(name: name.map { String(cString: $0) } ?? "?")
        }
        handler.unparsedEntityDecl = { context, name, _, _, _ in
            LibXML2.context(context)?.entityDeclared(name: name.map { String(cString: $0) } ?? "?")
        }
        // Entities are never resolved: predefined ones are handled inside libxml2, anything else is an error.
        handler.getEntity = { _, _ in nil }
        handler.getParameterEntity = { _, _ in nil }
        handler.serror = { context, error in
            guard let error else { return }
            LibXML2.context(context)?.xmlError(error.pointee)
        }
        return handler
    }
}
