/// A JSON value with ordered object members, and its serialisation.
///
/// mdmconf writes all of its JSON through this type so that key order is stable, absent values are
/// `null`, and escaping is done once, correctly (RFC 8259).
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, already in its JSON text form (so integers never pass through a Double).
    case number(String)
    /// A string, escaped when written.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, its members in the order given (the order they are written in).
    case object([(String, JSONValue)])

    /// An integer as a JSON number.
    public static func integer<T: BinaryInteger>(_ value: T) -> JSONValue { .number(String(value)) }

    /// A string, or `null` when absent.
    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// An integer, or `null` when absent.
    public static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.integer) ?? .null }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .number(let n): hasher.combine(n)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let members):
            for (key, value) in members {
                hasher.combine(key)
                hasher.combine(value)
            }
        }
    }

    /// The JSON text, indented by two spaces per level when `pretty`, with a final newline when pretty.
    public func serialized(pretty: Bool = true) -> String {
        String(decoding: serializedBytes(pretty: pretty), as: UTF8.self)
    }

    /// `serialized(pretty:)` as UTF-8 bytes, for writers that send bytes (HTTP bodies, the store): written byte by
    /// byte into one buffer, which is several times faster than appending to a `String` (a check-in answer was 15 %
    /// of the server's CPU that way).
    public func serializedBytes(pretty: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(into: &out, pretty: pretty, indent: 0)
        if pretty { out.append(UInt8(ascii: "\n")) }
        return out
    }

    /// Appends the JSON text as it stands `indent` levels deep in a pretty document (no final newline), for
    /// documents written in pieces.
    public func write(into out: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let text): JSONValue.appendQuoted(text, to: &out)
        case .array(let items):
            if items.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for index in items.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(&out, pretty: pretty, indent: indent + 1)
                items[index].write(into: &out, pretty: pretty, indent: indent + 1)
            }
            JSONValue.newline(&out, pretty: pretty, indent: indent)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            for index in members.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(&out, pretty: pretty, indent: indent + 1)
                JSONValue.appendQuoted(members[index].0, to: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                members[index].1.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            JSONValue.newline(&out, pretty: pretty, indent: indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], pretty: Bool, indent: Int) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<(2 * indent) { out.append(UInt8(ascii: " ")) }
    }

    /// Appends `text` as a JSON string literal in UTF-8: quotes, backslashes and control characters escaped.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                start = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    out.append(contentsOf: "u00".utf8)
                    out.append(hexDigit(UInt32(byte >> 4)))
                    out.append(hexDigit(UInt32(byte & 0xF)))
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ value: UInt32) -> UInt8 {
        UInt8(value < 10 ? 0x30 + value : 0x61 + value - 10)
    }
}
