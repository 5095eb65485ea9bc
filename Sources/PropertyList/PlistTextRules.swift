import MDMDiagnostics

/// What the value model holds in its strings and keys: what an XML plist can carry and be read back as (issue 14).
/// The XML reader cannot produce anything else; the JSON and binary readers report the rest with the XML reader's
/// codes, so every value any reader accepts can be written in every format and read back equal.
enum PlistTextRules {
    /// A scalar an XML 1.0 document cannot carry: a control character other than tab, LF and CR, or U+FFFE/U+FFFF.
    static func xmlCannotCarry(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0xFFFE
            || scalar.value == 0xFFFF
    }

    /// Whitespace at either end of a key (XML's and Unicode's): the XML reader refuses such keys (MC1014).
    static func isOuterWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII first: the Unicode property lookup is slow, and nearly every key is ASCII.
        if scalar.isASCII {
            return scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0B}"
                || scalar == "\u{0C}"
        }
        return scalar.properties.isWhitespace
    }

    static func hasOuterWhitespace(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, let last = key.unicodeScalars.last else { return false }
        return isOuterWhitespace(first) || isOuterWhitespace(last)
    }

    /// The first scalar of `text` XML cannot carry, if any.
    static func uncarriable(_ text: String) -> Unicode.Scalar? {
        // Fast path: bytes that cannot start such a scalar (0xEF starts U+FFFE and U+FFFF).
        if text.utf8.allSatisfy({ ($0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) && $0 != 0xEF }) { return nil }
        return text.unicodeScalars.first(where: xmlCannotCarry)
    }

    /// Findings (errors) for every key with outer whitespace and every string or key XML cannot carry in `root`.
    static func findings(in root: PlistNode, file: String) -> [Diagnostic] {
        var found: [Diagnostic] = []
        var path: [KeyPath.Component] = []
        func location(_ position: SourcePosition) -> SourceLocation {
            position.isUnknown ? SourceLocation(file: file) : SourceLocation(file: file, position: position)
        }
        func report(_ scalar: Unicode.Scalar, at position: SourcePosition, what: String) {
            found.append(
                Diagnostic(
                    PlistCode.unrepresentableString, severity: .error,
                    message:
                        "\(what) holds U+\(String(scalar.value, radix: 16, uppercase: true)), which an XML plist cannot carry",
                    location: location(position), keyPath: KeyPath(path).diagnosticValue,
                    hint: "store such bytes in <data> instead"))
        }
        func visit(_ node: PlistNode) {
            switch node.value {
            case .string(let text):
                if let scalar = Self.uncarriable(text) { report(scalar, at: node.position, what: "string") }
            case .array(let items):
                for (index, item) in items.enumerated() {
                    path.append(.index(index))
                    visit(item)
                    path.removeLast()
                }
            case .dictionary(let dictionary):
                for entry in dictionary.entries {
                    path.append(.key(entry.key))
                    if let scalar = Self.uncarriable(entry.key) {
                        report(scalar, at: entry.keyPosition, what: "key")
                    } else if hasOuterWhitespace(entry.key) {
                        var trimmed = Substring(entry.key)
                        while let first = trimmed.unicodeScalars.first, isOuterWhitespace(first) {
                            trimmed = trimmed.dropFirst()
                        }
                        while let last = trimmed.unicodeScalars.last, isOuterWhitespace(last) {
                            trimmed = trimmed.dropLast()
                        }
                        found.append(
                            Diagnostic(
                                PlistCode.keyWhitespace, severity: .error,
                                message: "key '\(entry.key)' has leading or trailing whitespace",
                                location: location(entry.keyPosition), keyPath: KeyPath(path).diagnosticValue,
                                hint: "did you mean '\(trimmed)'? apps look keys up exactly"))
                    }
                    visit(entry.value)
                    path.removeLast()
                }
            default:
                break
            }
        }
        visit(root)
        return found
    }
}
