import MDMDiagnostics

/// The plist elements the reader knows.
enum PlistElement: Equatable {
    case plist, dict, array, key, string, integer, real, `true`, `false`, date, data
    case unknown(String)

    init(name: UnsafeBufferPointer<UInt8>) {
        switch name.count {
        case 3 where Self.equals(name, "key"): self = .key
        case 4 where Self.equals(name, "dict"): self = .dict
        case 4 where Self.equals(name, "real"): self = .real
        case 4 where Self.equals(name, "true"): self = .true
        case 4 where Self.equals(name, "date"): self = .date
        case 4 where Self.equals(name, "data"): self = .data
        case 5 where Self.equals(name, "plist"): self = .plist
        case 5 where Self.equals(name, "array"): self = .array
        case 5 where Self.equals(name, "false"): self = .false
        case 6 where Self.equals(name, "string"): self = .string
        case 7 where Self.equals(name, "integer"): self = .integer
        default: self = .unknown(String(decoding: name, as: UTF8.self))
        }
    }

    private static func equals(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { $0.elementsEqual(name) }
    }

    var isTextValue: Bool {
        switch self {
        case .key, .string, .integer, .real, .date, .data: true
        default: false
        }
    }
}

/// Builds plist values from a stream of XML events and collects every plist-level finding.
///
/// It knows nothing of libxml2: `XMLPlistReader` feeds it start tags, text and end tags with byte offsets,
/// which keeps the value rules testable and the C interop in one file.
struct XMLPlistBuilder {
    private enum FrameKind {
        case plist, dict, array, text(PlistElement), boolean(Bool), skipped
    }

    private struct Frame {
        var kind: FrameKind
        var position: SourcePosition
        var items: [PlistNode] = []
        var entries: [PlistDictionary.Entry] = []
        var index: [String: Int]? = nil
        var pendingKey: (key: String, position: SourcePosition)? = nil
        /// Invalid values left out of `items`, counted so that key paths keep the document's indexes.
        var dropped = 0
        /// Stray text was reported here already (once per container is enough).
        var reportedText = false
    }

    let file: String
    let options: PlistReaderOptions
    private(set) var diagnostics: [Diagnostic] = []
    private(set) var root: PlistNode?
    private(set) var shape: PlistShape?
    private(set) var nodeCount = 0
    /// Set when the builder has hit a limit: the caller stops the parse.
    private(set) var mustStop = false

    private var stack: [Frame] = []
    private var text: [UInt8] = []
    private var sawRootElement = false

    init(file: String, options: PlistReaderOptions) {
        self.file = file
        self.options = options
    }

    // MARK: Events

    mutating func startElement(_ element: PlistElement, position: SourcePosition, version: String?) {
        nodeCount += 1
        if nodeCount > options.maxNodes {
            report(
                PlistCode.tooManyNodes, .error, "document has more than \(options.maxNodes) elements", at: position,
                keyPath: .root, hint: "the reader stops here to bound memory; split the document")
            mustStop = true
            return
        }
        if stack.count >= options.maxDepth {
            report(
                PlistCode.nestingTooDeep, .error, "elements are nested deeper than \(options.maxDepth) levels",
                at: position, keyPath: .root,
                hint: "real plists nest a few levels; this looks like an attack on the reader")
            mustStop = true
            return
        }
        if let kind = topKind {
            switch kind {
            case .skipped:
                stack.append(Frame(kind: .skipped, position: position))
                return
            case .text(let parent):
                report(
                    PlistCode.unexpectedContent, .error, "<\(Self.name(element))> inside <\(Self.name(parent))>",
                    at: position, hint: "a <\(Self.name(parent))> holds text only")
                stack.append(Frame(kind: .skipped, position: position))
                return
            case .boolean(let value):
                report(
                    PlistCode.unexpectedContent, .error, "<\(Self.name(element))> inside <\(value)/>", at: position,
                    hint: "write <true/> or <false/> as an empty element")
                stack.append(Frame(kind: .skipped, position: position))
                return
            case .plist, .dict, .array:
                break
            }
        } else {
            sawRootElement = true
            shape = element == .plist ? .document : .fragment
        }
        switch element {
        case .plist:
            if !stack.isEmpty {
                report(
                    PlistCode.unexpectedContent, .error, "<plist> may only be the root element", at: position)
                stack.append(Frame(kind: .skipped, position: position))
                return
            }
            if let version, version != "1.0" {
                report(
                    PlistCode.unsupportedVersion, .info, "plist version \(quoted(version)) is not 1.0",
                    at: position)
            }
            stack.append(Frame(kind: .plist, position: position))
        case .dict: stack.append(Frame(kind: .dict, position: position))
        case .array: stack.append(Frame(kind: .array, position: position))
        case .true: stack.append(Frame(kind: .boolean(true), position: position))
        case .false: stack.append(Frame(kind: .boolean(false), position: position))
        case .key, .string, .integer, .real, .date, .data:
            text.removeAll(keepingCapacity: true)
            stack.append(Frame(kind: .text(element), position: position))
        case .unknown(let name):
            report(
                PlistCode.unknownElement, .error, "unknown element <\(name)>", at: position,
                hint: Self.elementSuggestion(name))
            // An unknown element stands where a value would: it uses up a pending key or an array slot.
            attach(nil)
            stack.append(Frame(kind: .skipped, position: position))
        }
    }

    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>, position: @autoclosure () -> SourcePosition) {
        guard let kind = topKind else { return }
        switch kind {
        case .text:
            if text.count + bytes.count > options.maxTextLength {
                report(
                    PlistCode.textTooLarge, .error,
                    "text node is larger than \(options.maxTextLength) bytes", at: stack[stack.count - 1].position,
                    hint: "libxml2 refuses text nodes over 10 MB without XML_PARSE_HUGE; store large data elsewhere")
                mustStop = true
                return
            }
            text.append(contentsOf: bytes)
        case .skipped:
            return
        case .plist, .dict, .array, .boolean:
            guard bytes.contains(where: { !Self.isXMLSpace($0) }), !stack[stack.count - 1].reportedText else { return }
            stack[stack.count - 1].reportedText = true
            let shown = String(decoding: bytes, as: UTF8.self).trimmingXMLSpace()
            let message: String
            if case .boolean(let value) = kind {
                message = "text \(quoted(shown)) inside <\(value)/>"
                report(
                    PlistCode.unexpectedContent, .error, message, at: position(), hint: "<\(value)/> is always empty")
            } else {
                message = "text \(quoted(shown)) outside of any value element"
                report(
                    PlistCode.textOutsideElements, .error, message, at: position(),
                    hint: "wrap it in <string>…</string>, or remove it")
            }
        }
    }

    mutating func endElement() {
        guard let kind = topKind else { return }
        // Only the kind is switched on: a text, boolean or skipped element's frame holds nothing and is dropped where
        // it stands, not moved out and destroyed as a whole (most elements of a document are text).
        switch kind {
        case .skipped:
            stack.removeLast()
        case .boolean(let value):
            let position = stack.removeLast().position
            attach(PlistNode(.boolean(value), at: position))
        case .text(let element):
            let position = stack.removeLast().position
            finishText(element, at: position)
        case .plist:
            let frame = stack.removeLast()
            if frame.items.isEmpty && frame.dropped == 0 {
                report(PlistCode.emptyDocument, .error, "<plist> holds no value", at: frame.position)
            }
            if let first = frame.items.first { root = first }
        case .dict:
            let frame = stack.removeLast()
            if let pending = frame.pendingKey {
                keyWithoutValue(pending.key, at: pending.position, path: currentPath().appending(key: pending.key))
            }
            attach(PlistNode(.dictionary(PlistDictionary(frame.entries)), at: frame.position))
        case .array:
            let frame = stack.removeLast()
            attach(PlistNode(.array(frame.items), at: frame.position))
        }
    }

    /// Called once the input ends: reports a document that held nothing.
    mutating func finish(wellFormed: Bool) {
        if !sawRootElement && wellFormed {
            report(PlistCode.emptyDocument, .error, "the input holds no plist value", at: nil)
        }
    }

    mutating func report(
        _ code: DiagnosticCode, _ severity: Severity, _ message: String, at position: SourcePosition?,
        keyPath: KeyPath? = nil, hint: String? = nil, notes: [Diagnostic.Note] = []
    ) {
        diagnostics.append(
            Diagnostic(
                code, severity: severity, message: message,
                location: position.map { SourceLocation(file: file, position: $0) },
                keyPath: (keyPath ?? currentPath()).diagnosticValue, hint: hint, notes: notes))
    }

    // MARK: Values

    private mutating func finishText(_ element: PlistElement, at position: SourcePosition) {
        switch element {
        case .key:
            let key = String(decoding: text, as: UTF8.self)
            addKey(key, at: position)
        case .string:
            attach(PlistNode(.string(String(decoding: text, as: UTF8.self)), at: position))
        case .integer:
            attach(parseInteger(at: position))
        case .real:
            attach(parseReal(at: position))
        case .date:
            let body = String(decoding: text, as: UTF8.self)
            if let date = PlistDate(iso8601: body.trimmingXMLSpace()) {
                attach(PlistNode(.date(date), at: position))
            } else {
                report(
                    PlistCode.invalidDate, .error, "invalid date \(quoted(body))", at: position,
                    keyPath: currentPath(),
                    hint: "write dates as YYYY-MM-DDTHH:MM:SSZ in UTC, e.g. 2024-05-01T08:30:00Z")
                attach(nil)
            }
        case .data:
            switch Base64.decode(text) {
            case .success(let bytes):
                attach(PlistNode(.data(bytes), at: position))
            case .failure(let failure):
                let detail: String
                switch failure {
                case .invalidCharacter(let byte, _):
                    detail = byte < 0x80 ? "character \(quoted(String(UnicodeScalar(byte))))" : "a non-ASCII byte"
                    report(
                        PlistCode.invalidData, .error, "<data> is not base64: \(detail) is not allowed",
                        at: position, hint: "base64 uses A-Z, a-z, 0-9, + and / with = padding")
                case .badLength:
                    report(
                        PlistCode.invalidData, .error, "<data> is not base64: its length is not a multiple of 4",
                        at: position, hint: "the data may be truncated or missing its = padding")
                case .misplacedPadding:
                    report(
                        PlistCode.invalidData, .error, "<data> is not base64: '=' padding inside the data",
                        at: position)
                }
                attach(nil)
            }
        default:
            break
        }
    }

    private mutating func parseInteger(at position: SourcePosition) -> PlistNode? {
        let body = String(decoding: text, as: UTF8.self)
        switch IntegerText.parse(body) {
        case .value(let value):
            return PlistNode(.integer(value), at: position)
        case .overflow:
            report(
                PlistCode.integerOverflow, .error, "integer \(quoted(body.trimmingXMLSpace())) does not fit in 64 bits",
                at: position, hint: "integers range from -9223372036854775808 to 9223372036854775807")
        case .invalid:
            let trimmed = body.trimmingXMLSpace()
            var hint = "write a decimal integer such as 42 or -7, or hexadecimal such as 0x2A"
            if Double(trimmed) != nil { hint = "use <real> for numbers with a fraction or exponent" }
            if trimmed.isEmpty { hint = "an <integer> must hold a number" }
            report(PlistCode.invalidInteger, .error, "invalid integer \(quoted(body))", at: position, hint: hint)
        }
        return nil
    }

    private mutating func parseReal(at position: SourcePosition) -> PlistNode? {
        let body = String(decoding: text, as: UTF8.self)
        if let value = RealText.parse(body) { return PlistNode(.real(value), at: position) }
        report(
            PlistCode.invalidReal, .error, "invalid real \(quoted(body))", at: position,
            hint: "write a decimal number such as 2.5, 1e-3, nan, inf or -inf")
        return nil
    }

    private mutating func addKey(_ key: String, at position: SourcePosition) {
        guard let kind = topKind, case .dict = kind else {
            report(
                PlistCode.unexpectedContent, .error, "<key> \(quoted(key)) outside of a <dict>", at: position,
                hint: "keys name the members of a <dict>")
            return
        }
        if let pending = stack[stack.count - 1].pendingKey {
            // The pending key is still part of the current path here.
            keyWithoutValue(pending.key, at: pending.position, path: currentPath())
        }
        stack[stack.count - 1].pendingKey = (key, position)
        if Self.mayHaveOuterSpace(key), let first = key.unicodeScalars.first, let last = key.unicodeScalars.last,
            Self.isWhitespace(first) || Self.isWhitespace(last)
        {
            let trimmed = key.trimmingXMLSpace()
            report(
                PlistCode.keyWhitespace, .error, "key \(quoted(key)) has leading or trailing whitespace", at: position,
                keyPath: currentPath(), hint: "did you mean \(quoted(trimmed))? apps look keys up exactly")
        }
    }

    private mutating func keyWithoutValue(_ key: String, at position: SourcePosition, path: KeyPath) {
        report(
            PlistCode.keyWithoutValue, .error, "key \(quoted(key)) has no value", at: position, keyPath: path,
            hint: "follow every <key> with exactly one value element")
    }

    /// Adds a finished value to its container, or as the root; nil stands for an invalid value.
    private mutating func attach(_ node: PlistNode?) {
        guard let kind = topKind else {
            root = node
            return
        }
        let last = stack.count - 1
        switch kind {
        case .plist:
            if stack[last].items.isEmpty && stack[last].dropped == 0 {
                if let node { stack[last].items.append(node) } else { stack[last].dropped += 1 }
            } else if let node {
                report(
                    PlistCode.extraValue, .error,
                    "<plist> holds more than one value; this <\(node.value.typeName)> is extra",
                    at: node.position, hint: "a plist has exactly one root value, usually a <dict>")
            }
        case .array:
            if let node { stack[last].items.append(node) } else { stack[last].dropped += 1 }
        case .dict:
            guard let pending = stack[last].pendingKey else {
                if let node {
                    report(
                        PlistCode.valueWithoutKey, .error, "<\(node.value.typeName)> in a <dict> has no <key>",
                        at: node.position, hint: "add a <key> before it, or remove it")
                }
                return
            }
            stack[last].pendingKey = nil
            guard let node else { return }
            addEntry(PlistDictionary.Entry(key: pending.key, keyPosition: pending.position, value: node), at: last)
        case .text, .boolean, .skipped:
            break
        }
    }

    private mutating func addEntry(_ entry: consuming PlistDictionary.Entry, at frameIndex: Int) {
        let existing: Int?
        if let index = stack[frameIndex].index {
            existing = index[entry.key]
        } else {
            let entries = stack[frameIndex].entries
            existing = entries.indices.first { entries[$0].key == entry.key }
        }
        if let existing {
            let first = stack[frameIndex].entries[existing]
            report(
                PlistCode.duplicateKey, .error, "duplicate key \(quoted(entry.key))", at: entry.keyPosition,
                keyPath: currentPath().appending(key: entry.key),
                hint: "readers disagree which value wins; keep one",
                notes: [.init("first defined here", at: SourceLocation(file: file, position: first.keyPosition))])
            // As Python's plistlib and CoreFoundation: the later value wins, in the first one's place.
            stack[frameIndex].entries[existing].value = entry.value
            return
        }
        // Room for a payload's worth of keys at once, instead of growing through 1, 2 and 4.
        if stack[frameIndex].entries.isEmpty { stack[frameIndex].entries.reserveCapacity(8) }
        let key = entry.key
        stack[frameIndex].entries.append(entry)
        let count = stack[frameIndex].entries.count
        if let _ = stack[frameIndex].index {
            stack[frameIndex].index?[key] = count - 1
        } else if count >= 12 {
            var index: [String: Int] = [:]
            for (offset, item) in stack[frameIndex].entries.enumerated() { index[item.key] = offset }
            stack[frameIndex].index = index
        }
    }

    // MARK: Helpers

    /// The kind of the innermost open element, read where it stands: `stack.last?.kind` copies the whole frame first
    /// (a retain and a release of each of its arrays), on every event of the document.
    private var topKind: FrameKind? { stack.isEmpty ? nil : stack[stack.count - 1].kind }

    /// The key path of the value being read now.
    func currentPath() -> KeyPath {
        var components: [KeyPath.Component] = []
        for frame in stack {
            switch frame.kind {
            case .dict:
                if let key = frame.pendingKey?.key { components.append(.key(key)) }
            case .array:
                components.append(.index(frame.items.count + frame.dropped))
            default:
                break
            }
        }
        return KeyPath(components)
    }

    private static func name(_ element: PlistElement) -> String {
        switch element {
        case .plist: "plist"
        case .dict: "dict"
        case .array: "array"
        case .key: "key"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .true: "true"
        case .false: "false"
        case .date: "date"
        case .data: "data"
        case .unknown(let name): name
        }
    }

    static func elementSuggestion(_ name: String) -> String {
        switch name.lowercased() {
        case "bool", "boolean": "booleans are written <true/> or <false/>"
        case "int", "long", "number": "did you mean <integer>?"
        case "float", "double", "decimal": "did you mean <real>?"
        case "str", "text": "did you mean <string>?"
        case "dictionary", "map", "object": "did you mean <dict>?"
        case "list", "arr": "did you mean <array>?"
        case "datetime", "timestamp": "did you mean <date>?"
        default:
            "plist elements are plist, dict, key, array, string, integer, real, true, false, date and data"
        }
    }

    static func isXMLSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool { PlistTextRules.isOuterWhitespace(scalar) }

    /// False when a key's UTF-8 starts and ends with ASCII that is not white space (nearly every key), which spares
    /// decoding its first and last scalars.
    private static func mayHaveOuterSpace(_ key: String) -> Bool {
        guard let first = key.utf8.first, let last = key.utf8.last else { return false }
        func plain(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x80 }
        return !plain(first) || !plain(last)
    }
}

/// XML's notion of white space.
extension String {
    /// The string without leading and trailing XML whitespace (space, tab, CR, LF).
    public func trimmingXMLSpace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !" \t\r\n".unicodeScalars.contains($0) }),
            let end = scalars.lastIndex(where: { !" \t\r\n".unicodeScalars.contains($0) })
        else { return "" }
        return String(scalars[start...end])
    }
}
