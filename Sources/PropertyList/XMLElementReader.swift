import MDMDiagnostics

/// An XML element with its position, attributes, child elements and direct text, for documents that are
/// not plists (AppConfig specfiles). Read with the same hardened parser as plists.
public struct XMLElement: Sendable {
    /// The element's local name.
    public var name: String
    /// Its attributes in document order.
    public var attributes: [(name: String, value: String)]
    /// Its child elements in document order.
    public var children: [XMLElement]
    /// The element's own text (child elements' text excluded), as written.
    public var text: String
    /// Where its start tag is.
    public var position: SourcePosition
    /// The element has a namespace prefix or default namespace.
    public var namespaced: Bool

    /// An element; readers build them, tests too.
    public init(
        name: String, attributes: [(name: String, value: String)] = [], children: [XMLElement] = [], text: String = "",
        position: SourcePosition = .unknown, namespaced: Bool = false
    ) {
        (self.name, self.attributes, self.children, self.text) = (name, attributes, children, text)
        (self.position, self.namespaced) = (position, namespaced)
    }

    /// The value of attribute `name`, if present.
    public func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }

    /// The children called `name`.
    public func children(named name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// The first child called `name`.
    public func child(named name: String) -> XMLElement? { children.first { $0.name == name } }
}

/// The result of reading an XML document into elements.
public struct XMLElementDocument: Sendable {
    /// The file's name as reported.
    public var file: String
    /// The root element; nil when the XML is not well formed.
    public var root: XMLElement?
    /// Every finding of the reader.
    public var diagnostics: [Diagnostic]
}

/// Reads a whole XML document into `XMLElement`s, with the plist reader's hardening and limits.
public struct XMLElementReader: Sendable {
    /// The limits the XML is read with.
    public var options: PlistReaderOptions

    /// A reader with `options`.
    public init(options: PlistReaderOptions = PlistReaderOptions()) { self.options = options }

    /// The element tree of `bytes`, with positions, findings reported against `file`.
    public func read(_ bytes: [UInt8], file: String) -> XMLElementDocument {
        guard bytes.count <= options.maxInputSize else {
            let diagnostic = PlistCode.fileTooLarge(size: bytes.count, limit: options.maxInputSize, file: file)
            return XMLElementDocument(file: file, root: nil, diagnostics: [diagnostic])
        }
        var input = bytes
        let prolog = Prolog.check(&input, file: file)
        if prolog.stop { return XMLElementDocument(file: file, root: nil, diagnostics: prolog.diagnostics) }
        return input.withUnsafeBufferPointer { buffer in
            let parser = ElementTreeParser(file: file, options: options, bytes: buffer)
            parser.parse()
            var diagnostics = prolog.diagnostics + parser.diagnostics
            if parser.root == nil && parser.wellFormed && diagnostics.isEmpty {
                diagnostics.append(
                    Diagnostic(
                        PlistCode.emptyDocument, severity: .error, message: "the input holds no XML element",
                        location: SourceLocation(file: file)))
            }
            return XMLElementDocument(file: file, root: parser.wellFormed ? parser.root : nil, diagnostics: diagnostics)
        }
    }
}

private final class ElementTreeParser: SAXParser {
    let file: String
    let options: PlistReaderOptions
    var diagnostics: [Diagnostic] = []
    var root: XMLElement?
    private var stack: [XMLElement] = []
    private var texts: [[UInt8]] = []
    private var nodes = 0

    init(file: String, options: PlistReaderOptions, bytes: UnsafeBufferPointer<UInt8>) {
        self.file = file
        self.options = options
        super.init(bytes: bytes)
    }

    override func startElement(
        _ name: UnsafeBufferPointer<UInt8>, namespaced: Bool, attributes: SAXAttributes, position: SourcePosition
    ) {
        nodes += 1
        if nodes > options.maxNodes || stack.count >= options.maxDepth {
            let tooDeep = stack.count >= options.maxDepth
            report(
                tooDeep ? PlistCode.nestingTooDeep : PlistCode.tooManyNodes,
                tooDeep
                    ? "elements are nested deeper than \(options.maxDepth) levels"
                    : "document has more than \(options.maxNodes) elements", at: position, hint: nil)
            stop()
            return
        }
        stack.append(
            XMLElement(
                name: String(decoding: name, as: UTF8.self), attributes: attributes.all, position: position,
                namespaced: namespaced))
        texts.append([])
    }

    override func characters(_ text: UnsafeBufferPointer<UInt8>, position: () -> SourcePosition) {
        guard !texts.isEmpty else { return }
        if texts[texts.count - 1].count + text.count > options.maxTextLength {
            report(
                PlistCode.textTooLarge, "text node is larger than \(options.maxTextLength) bytes", at: position(),
                hint: nil)
            stop()
            return
        }
        texts[texts.count - 1].append(contentsOf: text)
    }

    override func endElement() {
        guard var element = stack.popLast(), let text = texts.popLast() else { return }
        element.text = String(decoding: text, as: UTF8.self)
        if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
    }

    override func report(_ code: DiagnosticCode, _ message: String, at position: SourcePosition, hint: String?) {
        diagnostics.append(
            Diagnostic(
                code, severity: .error, message: message, location: SourceLocation(file: file, position: position),
                hint: hint))
    }
}
