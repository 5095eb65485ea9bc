import MDMDiagnostics

/// Reads XML plists with libxml2's SAX2 interface (see `SAXParser` for the hardening): no tree is built in C,
/// and every value keeps the line and column of its start tag.
public struct XMLPlistReader: Sendable {
    /// The limits the XML is read with.
    public var options: PlistReaderOptions

    /// A reader with `options`.
    public init(options: PlistReaderOptions = PlistReaderOptions()) { self.options = options }

    /// The XML plist in `bytes`, every node with its line and column, findings reported against `file`.
    public func read(_ bytes: [UInt8], file: String) -> PlistDocument {
        let builder = XMLPlistBuilder(file: file, options: options)
        guard bytes.count <= options.maxInputSize else {
            let diagnostic = PlistCode.fileTooLarge(size: bytes.count, limit: options.maxInputSize, file: file)
            return PlistDocument(file: file, root: nil, shape: nil, diagnostics: [diagnostic])
        }
        var input = bytes
        let prolog = Prolog.check(&input, file: file)
        if prolog.stop {
            return PlistDocument(file: file, root: nil, shape: nil, diagnostics: prolog.diagnostics)
        }
        return input.withUnsafeBufferPointer { buffer in
            let parser = PlistSAXParser(builder: builder, bytes: buffer)
            parser.parse()
            parser.builder.finish(wellFormed: parser.wellFormed)
            return PlistDocument(
                file: file, root: parser.builder.root, shape: parser.builder.shape,
                diagnostics: prolog.diagnostics + parser.builder.diagnostics)
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

/// The SAX parser that feeds an `XMLPlistBuilder`.
private final class PlistSAXParser: SAXParser {
    // One parse runs on one thread, one event at a time: the dynamic exclusivity checks on this hot field
    // buy nothing.
    @exclusivity(unchecked) var builder: XMLPlistBuilder

    init(builder: XMLPlistBuilder, bytes: UnsafeBufferPointer<UInt8>) {
        self.builder = builder
        super.init(bytes: bytes)
    }

    override func startElement(
        _ name: UnsafeBufferPointer<UInt8>, namespaced: Bool, attributes: SAXAttributes, position: SourcePosition
    ) {
        // Plist elements have no namespace: `<x:dict xmlns:x="…">` is not a dict.
        let element = namespaced ? .unknown(String(decoding: name, as: UTF8.self)) : PlistElement(name: name)
        let version = element == .plist ? attributes.value(of: "version") : nil
        builder.startElement(element, position: position, version: version)
        if builder.mustStop { stop() }
    }

    override func characters(_ text: UnsafeBufferPointer<UInt8>, position: () -> SourcePosition) {
        builder.characters(text, position: position())
        if builder.mustStop { stop() }
    }

    override func endElement() { builder.endElement() }

    override func report(_ code: DiagnosticCode, _ message: String, at position: SourcePosition, hint: String?) {
        builder.report(code, .error, message, at: position, hint: hint)
    }
}
