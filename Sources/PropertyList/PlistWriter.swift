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
        String(decoding: try xmlBytes(value), as: UTF8.self)
    }

    /// `xml(_:)` as UTF-8 bytes, written straight into them (appending to a `String` piece by piece made writing a
    /// configuration take 40 % longer, and a catalog's load writes one per inventory device and app).
    public static func xmlBytes(_ value: PlistValue) throws(UnrepresentableString) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        out += xmlHeader.utf8
        var path: [KeyPath.Component] = []
        try writeXML(value, into: &out, indent: 0, path: &path)
        out += "</plist>\n".utf8
        // An array of its own size: a catalog keeps one per inventory device and app, and the room left by
        // doubling was half again the memory of a catalog's load.
        return out.withUnsafeBufferPointer { Array($0) }
    }

    private static func writeXML(
        _ value: PlistValue, into out: inout [UInt8], indent: Int, path: inout [KeyPath.Component]
    ) throws(UnrepresentableString) {
        func tabs(_ count: Int) { out.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: count)) }
        tabs(indent)
        switch value {
        case .string(let text):
            out += "<string>".utf8
            try appendEscaped(text, to: &out, path: path)
            out += "</string>\n".utf8
        case .integer(let number):
            out += "<integer>".utf8
            out += String(number).utf8
            out += "</integer>\n".utf8
        case .real(let number):
            out += "<real>".utf8
            out += realText(number).utf8
            out += "</real>\n".utf8
        case .boolean(let flag): out += flag ? "<true/>\n".utf8 : "<false/>\n".utf8
        case .date(let date):
            out += "<date>".utf8
            out += date.iso8601.utf8
            out += "</date>\n".utf8
        case .data(let bytes):
            let encoded = Array(Base64.encode(bytes).utf8)
            if encoded.count <= 60 {
                out += "<data>".utf8
                out += encoded
                out += "</data>\n".utf8
            } else {
                out += "<data>\n".utf8
                // Lines of 68 characters, at the element's indent (base64 is ASCII: a byte is a character).
                var start = 0
                while start < encoded.count {
                    let end = min(start + 68, encoded.count)
                    tabs(indent)
                    out += encoded[start..<end]
                    out.append(UInt8(ascii: "\n"))
                    start = end
                }
                tabs(indent)
                out += "</data>\n".utf8
            }
        case .array(let items):
            guard !items.isEmpty else {
                out += "<array/>\n".utf8
                return
            }
            out += "<array>\n".utf8
            for (index, item) in items.enumerated() {
                path.append(.index(index))
                try writeXML(item.value, into: &out, indent: indent + 1, path: &path)
                path.removeLast()
            }
            tabs(indent)
            out += "</array>\n".utf8
        case .dictionary(let dictionary):
            guard !dictionary.isEmpty else {
                out += "<dict/>\n".utf8
                return
            }
            out += "<dict>\n".utf8
            for entry in dictionary.entries {
                path.append(.key(entry.key))
                tabs(indent + 1)
                out += "<key>".utf8
                try appendEscaped(entry.key, to: &out, path: path)
                out += "</key>\n".utf8
                try writeXML(entry.value.value, into: &out, indent: indent + 1, path: &path)
                path.removeLast()
            }
            tabs(indent)
            out += "</dict>\n".utf8
        }
    }

    private static func appendEscaped(
        _ text: String, to out: inout [UInt8], path: [KeyPath.Component]
    ) throws(UnrepresentableString) {
        // Fast path: nothing to escape or refuse (0xEF starts U+FFFE and U+FFFF).
        let plain = text.utf8.allSatisfy { byte in
            (byte >= 0x20 || byte == 0x09 || byte == 0x0A) && byte != 0x26 && byte != 0x3C && byte != 0x3E
                && byte != 0xEF
        }
        if plain {
            out += text.utf8
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;".utf8
            case "<": out += "&lt;".utf8
            case ">": out += "&gt;".utf8
            case "\r": out += "&#13;".utf8
            default:
                if scalar != "\t", scalar != "\n", PlistTextRules.xmlCannotCarry(scalar) {
                    throw UnrepresentableString(keyPath: KeyPath(path), scalar: scalar)
                }
                UTF8.encode(scalar) { out.append($0) }
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
