import MDMDiagnostics

/// Reads a JSON document (RFC 8259) into plist values, keeping line and column of every value.
///
/// Objects become dicts (member order kept), integers that fit in 64 bits become integers, other numbers
/// reals, `true`/`false` booleans. `null` has no plist form and is an error, as are duplicate members.
public struct JSONPlistReader: Sendable {
    /// The limits the JSON is read with.
    public var options: PlistReaderOptions
    /// Object members whose value is `null` are left out instead of being errors (JSON requests, where
    /// null means absent).
    public var nullMembersAreAbsent: Bool
    /// What `null` reads as, for callers that give it a meaning of their own (nil: an error).
    public var nullValue: PlistValue?
    /// Strings and keys an XML plist cannot carry (control characters, keys with outer whitespace) are errors, as
    /// in the XML reader, so a JSON document converts to XML and back equal. On by default for documents; off
    /// for JSON requests and answers (`nullMembersAreAbsent`), whose own grammars name the bad field.
    public var refusesWhatXMLCannotCarry: Bool

    /// A reader with `options` and the choices above; the defaults read a JSON document, where `null` is an error.
    public init(
        options: PlistReaderOptions = PlistReaderOptions(), nullMembersAreAbsent: Bool = false,
        nullValue: PlistValue? = nil, refusesWhatXMLCannotCarry: Bool? = nil
    ) {
        self.options = options
        self.nullMembersAreAbsent = nullMembersAreAbsent
        self.nullValue = nullValue
        self.refusesWhatXMLCannotCarry = refusesWhatXMLCannotCarry ?? !nullMembersAreAbsent
    }

    /// The JSON in `bytes` as a plist tree with positions, findings reported against `file`.
    public func read(_ bytes: [UInt8], file: String) -> PlistDocument {
        var parser = Parser(bytes: bytes, file: file, options: options)
        parser.nullMembersAreAbsent = nullMembersAreAbsent
        parser.nullValue = nullValue
        do throws(Failure) {
            parser.skipSpace()
            let root = try parser.value(depth: 0)
            parser.skipSpace()
            if parser.index < bytes.count { throw parser.failure("unexpected text after the JSON value") }
            return PlistDocument(
                file: file, root: root, shape: .json,
                diagnostics: parser.diagnostics
                    + (refusesWhatXMLCannotCarry ? PlistTextRules.findings(in: root, file: file) : []))
        } catch {
            return PlistDocument(
                file: file, root: nil, shape: .json, diagnostics: parser.diagnostics + [error.diagnostic])
        }
    }

    struct Failure: Error {
        var diagnostic: Diagnostic
    }

    private struct Parser {
        let bytes: [UInt8]
        let file: String
        let options: PlistReaderOptions
        var index = 0
        var line = 1
        var lineStart = 0
        var path: [KeyPath.Component] = []
        var diagnostics: [Diagnostic] = []
        var nullMembersAreAbsent = false
        var nullValue: PlistValue?

        init(bytes: [UInt8], file: String, options: PlistReaderOptions) {
            self.bytes = bytes
            self.file = file
            self.options = options
        }

        var position: SourcePosition { SourcePosition(line: line, column: index - lineStart + 1, offset: index) }

        func failure(_ message: String, at position: SourcePosition? = nil, hint: String? = nil) -> Failure {
            Failure(
                diagnostic: Diagnostic(
                    PlistCode.invalidJSON, severity: .error, message: message,
                    location: SourceLocation(file: file, position: position ?? self.position),
                    keyPath: KeyPath(path).diagnosticValue, hint: hint))
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x0A:
                    line += 1
                    lineStart = index + 1
                case 0x20, 0x09, 0x0D: break
                default: return
                }
                index += 1
            }
        }

        mutating func expect(_ literal: String) throws(Failure) {
            let start = position
            for byte in literal.utf8 {
                guard index < bytes.count, bytes[index] == byte else {
                    throw failure("invalid literal; expected '\(literal)'", at: start)
                }
                index += 1
            }
        }

        mutating func value(depth: Int) throws(Failure) -> PlistNode {
            guard depth < options.maxDepth else {
                throw Failure(
                    diagnostic: Diagnostic(
                        PlistCode.nestingTooDeep, severity: .error,
                        message: "values are nested deeper than \(options.maxDepth) levels",
                        location: SourceLocation(file: file, position: position)))
            }
            guard index < bytes.count else { throw failure("unexpected end of input; a value is missing") }
            let start = position
            switch bytes[index] {
            case 0x7B: return try object(depth: depth)
            case 0x5B: return try array(depth: depth)
            case 0x22: return PlistNode(.string(try string()), at: start)
            case 0x74:
                try expect("true")
                return PlistNode(.boolean(true), at: start)
            case 0x66:
                try expect("false")
                return PlistNode(.boolean(false), at: start)
            case 0x6E:
                try expect("null")
                if let nullValue { return PlistNode(nullValue, at: start) }
                throw failure("null has no plist form", at: start, hint: "leave the key out instead")
            case 0x2D, 0x30...0x39:
                return try number()
            default:
                throw failure("unexpected character; a JSON value was expected")
            }
        }

        mutating func object(depth: Int) throws(Failure) -> PlistNode {
            let start = position
            index += 1
            var entries: [PlistDictionary.Entry] = []
            // Keys seen so far, hashed once an object is large: below that, a linear search is cheaper.
            var seen: [String: SourcePosition]?
            skipSpace()
            if index < bytes.count, bytes[index] == 0x7D {
                index += 1
                return PlistNode(.dictionary(PlistDictionary()), at: start)
            }
            while true {
                skipSpace()
                let keyPosition = position
                guard index < bytes.count, bytes[index] == 0x22 else {
                    throw failure("expected a member name in quotes")
                }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == 0x3A else {
                    throw failure("expected ':' after the member name")
                }
                index += 1
                skipSpace()
                path.append(.key(key))
                if nullMembersAreAbsent, index < bytes.count, bytes[index] == 0x6E {
                    try expect("null")  // null means absent: the member is left out
                } else {
                    let value = try self.value(depth: depth + 1)
                    let first = seen.map { $0[key] } ?? entries.first { $0.key == key }?.keyPosition
                    if let first {
                        diagnostics.append(
                            Diagnostic(
                                PlistCode.duplicateKey, severity: .error, message: "duplicate key \(quoted(key))",
                                location: SourceLocation(file: file, position: keyPosition),
                                keyPath: KeyPath(path).diagnosticValue,
                                hint: "readers disagree which value wins; keep one",
                                notes: [.init("first defined here", at: SourceLocation(file: file, position: first))]))
                        if let existing = entries.firstIndex(where: { $0.key == key }) {
                            entries[existing].value = value
                        }
                    } else {
                        seen?[key] = keyPosition
                        entries.append(PlistDictionary.Entry(key: key, keyPosition: keyPosition, value: value))
                        if seen == nil, entries.count == 16 {
                            seen = Dictionary(
                                entries.map { ($0.key, $0.keyPosition) }, uniquingKeysWith: { first, _ in first })
                        }
                    }
                }
                path.removeLast()
                skipSpace()
                guard index < bytes.count else { throw failure("unexpected end of input inside an object") }
                if bytes[index] == 0x2C {
                    index += 1
                    continue
                }
                guard bytes[index] == 0x7D else { throw failure("expected ',' or '}' in an object") }
                index += 1
                return PlistNode(.dictionary(PlistDictionary(entries)), at: start)
            }
        }

        mutating func array(depth: Int) throws(Failure) -> PlistNode {
            let start = position
            index += 1
            var items: [PlistNode] = []
            skipSpace()
            if index < bytes.count, bytes[index] == 0x5D {
                index += 1
                return PlistNode(.array([]), at: start)
            }
            while true {
                skipSpace()
                path.append(.index(items.count))
                items.append(try value(depth: depth + 1))
                path.removeLast()
                skipSpace()
                guard index < bytes.count else { throw failure("unexpected end of input inside an array") }
                if bytes[index] == 0x2C {
                    index += 1
                    continue
                }
                guard bytes[index] == 0x5D else { throw failure("expected ',' or ']' in an array") }
                index += 1
                return PlistNode(.array(items), at: start)
            }
        }

        /// A string's bytes as text: when they are all `ascii`, as they stand (ASCII is valid UTF-8); otherwise
        /// validated, nil when they are not UTF-8. The standard library's validation is generic code, not
        /// specialized: about 1,000 instructions for a short string, most of what reading a check-in's strings cost.
        private static func text(_ bytes: UnsafeBufferPointer<UInt8>, ascii: Bool) -> String? {
            ascii ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
        }

        mutating func string() throws(Failure) -> String {
            let start = position
            index += 1
            // Most strings have no escape: up to the closing quote, they are their bytes as they stand.
            var end = index
            var bits: UInt8 = 0
            while end < bytes.count, bytes[end] != 0x22, bytes[end] != 0x5C, bytes[end] >= 0x20 {
                bits |= bytes[end]
                end += 1
            }
            if end < bytes.count, bytes[end] == 0x22 {
                guard
                    let text = bytes.withUnsafeBufferPointer({
                        Self.text(UnsafeBufferPointer(rebasing: $0[index..<end]), ascii: bits < 0x80)
                    })
                else {
                    throw failure("string is not valid UTF-8", at: start)
                }
                index = end + 1
                return text
            }
            var out: [UInt8] = []
            out.reserveCapacity(end - index + 16)
            out.append(contentsOf: bytes[index..<end])
            index = end
            while true {
                guard index < bytes.count else { throw failure("unterminated string", at: start) }
                let byte = bytes[index]
                switch byte {
                case 0x22:
                    index += 1
                    let ascii = !out.contains { $0 >= 0x80 }
                    let text = out.withUnsafeBufferPointer { Self.text($0, ascii: ascii) }
                    guard let text else { throw failure("string is not valid UTF-8", at: start) }
                    return text
                case 0x5C:
                    index += 1
                    guard index < bytes.count else { throw failure("unterminated escape", at: start) }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case 0x22, 0x5C, 0x2F: out.append(escape)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x6E: out.append(0x0A)
                    case 0x72: out.append(0x0D)
                    case 0x74: out.append(0x09)
                    case 0x75:
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard index + 1 < bytes.count, bytes[index] == 0x5C, bytes[index + 1] == 0x75 else {
                                throw failure("unpaired surrogate in \\u escape")
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else {
                                throw failure("unpaired surrogate in \\u escape")
                            }
                            scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                        }
                        guard let value = Unicode.Scalar(scalar) else {
                            throw failure("unpaired surrogate in \\u escape")
                        }
                        out.append(contentsOf: Array(String(value).utf8))
                    default:
                        throw failure("invalid escape in string")
                    }
                case 0x00..<0x20:
                    throw failure("control character in string; escape it")
                default:
                    out.append(byte)
                    index += 1
                }
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                default: throw failure("invalid \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func number() throws(Failure) -> PlistNode {
            let start = position
            let first = index
            if bytes[index] == 0x2D { index += 1 }
            func digits() -> Int {
                let begin = index
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
                return index - begin
            }
            let integerDigits = digits()
            guard integerDigits > 0 else { throw failure("invalid number", at: start) }
            if integerDigits > 1, bytes[index - integerDigits] == 0x30 {
                throw failure("invalid number: leading zero", at: start)
            }
            var isInteger = true
            if index < bytes.count, bytes[index] == 0x2E {
                index += 1
                isInteger = false
                guard digits() > 0 else { throw failure("invalid number: digits must follow '.'", at: start) }
            }
            if index < bytes.count, bytes[index] | 0x20 == 0x65 {
                index += 1
                isInteger = false
                if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
                guard digits() > 0 else { throw failure("invalid number: digits must follow the exponent", at: start) }
            }
            let text = String(decoding: bytes[first..<index], as: UTF8.self)
            if isInteger, case .value(let value) = IntegerText.parse(text) {
                return PlistNode(.integer(value), at: start)
            }
            guard let value = Double(text), value.isFinite else {
                throw failure("number \(quoted(text)) is out of range", at: start)
            }
            return PlistNode(.real(value), at: start)
        }
    }
}
