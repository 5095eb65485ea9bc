import MDMDiagnostics

/// Writes plist values as canonical Apple-style XML or as JSON.
///
/// XML: tabs for indentation, Apple's XML declaration and DOCTYPE, `<plist version="1.0">`, empty containers
/// as `<dict/>` and `<array/>`. Reals use the shortest text that reads back to the same Double. Characters that
/// XML would otherwise change are escaped (`&amp;`, `&lt;`, `&gt;`, and a carriage return as `&#13;`).
///
/// JSON: dict→object, array→array, string→string, integer→number, real→number (`"nan"`, `"inf"`, `"-inf"` as
/// strings), boolean→boolean, date→RFC 3339 string, data→base64 string.
public enum PlistWriter {
    /// A string that an XML 1.0 document cannot carry (a control character other than tab, LF and CR, or
    /// U+FFFE/U+FFFF).
    public struct UnrepresentableString: Error, Sendable {
        /// Where the string is.
        public var keyPath: KeyPath
        /// The first character XML 1.0 cannot carry.
        public var scalar: Unicode.Scalar

        /// The problem as a finding.
        public var diagnostic: Diagnostic {
            Diagnostic(
                PlistCode.unrepresentableString, severity: .error,
                message: "string holds U+\(String(scalar.value, radix: 16, uppercase: true)), which XML cannot carry",
                keyPath: keyPath.diagnosticValue, hint: "store such bytes in <data> instead")
        }
    }

    /// The XML declaration and plist DOCTYPE every written plist starts with.
    public static let xmlHeader = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// The value as a complete XML plist document.
    public static func xml(_ value: PlistValue) throws(UnrepresentableString) -> String {
        var out = xmlHeader
        var path: [KeyPath.Component] = []
        try writeXML(value, into: &out, indent: 0, path: &path)
        out += "</plist>\n"
        return out
    }

    private static func writeXML(
        _ value: PlistValue, into out: inout String, indent: Int, path: inout [KeyPath.Component]
    ) throws(UnrepresentableString) {
        let tabs = String(repeating: "\t", count: indent)
        out += tabs
        switch value {
        case .string(let text):
            out += "<string>"
            try appendEscaped(text, to: &out, path: path)
            out += "</string>\n"
        case .integer(let number): out += "<integer>\(number)</integer>\n"
        case .real(let number): out += "<real>\(realText(number))</real>\n"
        case .boolean(let flag): out += flag ? "<true/>\n" : "<false/>\n"
        case .date(let date): out += "<date>\(date.iso8601)</date>\n"
        case .data(let bytes):
            let encoded = Base64.encode(bytes)
            if encoded.utf8.count <= 60 {
                out += "<data>\(encoded)</data>\n"
            } else {
                out += "<data>\n"
                var line = ""
                for character in encoded {
                    line.append(character)
                    if line.utf8.count == 68 {
                        out += tabs + line + "\n"
                        line = ""
                    }
                }
                if !line.isEmpty { out += tabs + line + "\n" }
                out += tabs + "</data>\n"
            }
        case .array(let items):
            guard !items.isEmpty else {
                out += "<array/>\n"
                return
            }
            out += "<array>\n"
            for (index, item) in items.enumerated() {
                path.append(.index(index))
                try writeXML(item.value, into: &out, indent: indent + 1, path: &path)
                path.removeLast()
            }
            out += tabs + "</array>\n"
        case .dictionary(let dictionary):
            guard !dictionary.isEmpty else {
                out += "<dict/>\n"
                return
            }
            out += "<dict>\n"
            for entry in dictionary.entries {
                path.append(.key(entry.key))
                out += tabs + "\t<key>"
                try appendEscaped(entry.key, to: &out, path: path)
                out += "</key>\n"
                try writeXML(entry.value.value, into: &out, indent: indent + 1, path: &path)
                path.removeLast()
            }
            out += tabs + "</dict>\n"
        }
    }

    private static func appendEscaped(
        _ text: String, to out: inout String, path: [KeyPath.Component]
    ) throws(UnrepresentableString) {
        // Fast path: nothing to escape or refuse (0xEF starts U+FFFE and U+FFFF).
        let plain = text.utf8.allSatisfy { byte in
            (byte >= 0x20 || byte == 0x09 || byte == 0x0A) && byte != 0x26 && byte != 0x3C && byte != 0x3E
                && byte != 0xEF
        }
        if plain {
            out += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if PlistTextRules.xmlCannotCarry(scalar) {
                    throw UnrepresentableString(keyPath: KeyPath(path), scalar: scalar)
                }
                out.unicodeScalars.append(scalar)
            }
        }
    }

    /// The shortest decimal text that reads back to `value`; `nan`, `inf`, `-inf` for the special values.
    public static func realText(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return value.description
    }

    /// The value as JSON (pretty-printed with two spaces and a final newline, or compact).
    public static func json(_ value: PlistValue, pretty: Bool = true) -> String {
        jsonValue(value).serialized(pretty: pretty)
    }

    /// The JSON mapping of a plist value.
    public static func jsonValue(_ value: PlistValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .integer(let number): .number(String(number))
        case .real(let number): number.isFinite ? .number(number.description) : .string(realText(number))
        case .boolean(let flag): .bool(flag)
        case .date(let date): .string(date.iso8601)
        case .data(let bytes): .string(Base64.encode(bytes))
        case .array(let items): .array(items.map { jsonValue($0.value) })
        case .dictionary(let dictionary): .object(dictionary.entries.map { ($0.key, jsonValue($0.value.value)) })
        }
    }
}
