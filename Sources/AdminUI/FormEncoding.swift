/// The two bodies an HTML form sends (`application/x-www-form-urlencoded` and `multipart/form-data`), read into
/// fields. Both are bounded by the server's body limit before they get here; malformed input gives nil, never a
/// crash.
public enum FormEncoding {
    /// A form field; `filename` is set for a file input.
    public struct Part: Sendable, Equatable {
        /// The field's name.
        public var name: String
        /// The uploaded file's name, for a file input.
        public var filename: String?
        /// The field's value as sent.
        public var bytes: [UInt8]

        /// The value as text (invalid UTF-8 repaired).
        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// `a=1&b=x+y%21` → `[a: 1, b: "x y!"]`; a repeated name keeps its last value; nil for a bad escape.
    public static func urlEncoded(_ bytes: some Sequence<UInt8>) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in Array(bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]), let value = parts.count > 1 ? unescape(parts[1]) : "" else {
                return nil
            }
            fields[name] = value
        }
        return fields
    }

    static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                    let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Percent-escapes everything but unreserved characters, for links the page builds.
    public static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(digits[Int(byte >> 4)])
                out.unicodeScalars.append(digits[Int(byte & 15)])
            }
        }
        return out
    }

    /// The boundary of a `multipart/form-data; boundary=…` content type.
    public static func boundary(contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingSpaces }
        guard let type = parts.first, type.lowercased() == "multipart/form-data" else { return nil }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingSpaces
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// The parts of a multipart body (RFC 7578); nil when it is not well formed.
    public static func multipart(_ body: [UInt8], boundary: String) -> [Part]? {
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = find(delimiter, in: body, from: 0) else { return nil }
        var parts: [Part] = []
        while true {
            position += delimiter.count
            // `--` after a delimiter ends the body.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-")
            {
                return parts
            }
            guard body.count >= position + 2, body[position] == 13, body[position + 1] == 10 else { return nil }
            position += 2
            guard let headersEnd = find([13, 10, 13, 10], in: body, from: position) else { return nil }
            let headerText = String(decoding: body[position..<headersEnd], as: UTF8.self)
            let contentStart = headersEnd + 4
            guard let next = find([13, 10] + delimiter, in: body, from: contentStart) else { return nil }
            var name: String?
            var filename: String?
            for line in headerText.split(separator: "\r\n") {
                let pair = line.split(separator: ":", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "content-disposition" else { continue }
                for parameter in pair[1].split(separator: ";").dropFirst() {
                    let field = parameter.split(separator: "=", maxSplits: 1)
                    guard field.count == 2 else { continue }
                    var value = field[1].trimmingSpaces
                    if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                        value = String(value.dropFirst().dropLast())
                    }
                    switch field[0].trimmingSpaces.lowercased() {
                    case "name": name = value
                    case "filename": filename = value
                    default: break
                    }
                }
            }
            guard let name else { return nil }
            parts.append(Part(name: name, filename: filename, bytes: Array(body[contentStart..<next])))
            position = next + 2
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        let first = needle[0]
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
