/// A JSON value with ordered object members, and its serialisation.
///
/// mdmconf writes all of its JSON through this type so that key order is stable, absent values are
/// `null`, and escaping is done once, correctly (RFC 8259).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, already in its JSON text form (so integers never pass through a Double).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

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
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        if pretty { out.append("\n") }
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .number(let text): out.append(text)
        case .string(let text): JSONValue.appendQuoted(text, to: &out)
        case .array(let items):
            if items.isEmpty {
                out.append("[]")
                return
            }
            out.append("[")
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(",") }
                JSONValue.newline(&out, pretty: pretty, indent: indent + 1)
                item.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            JSONValue.newline(&out, pretty: pretty, indent: indent)
            out.append("]")
        case .object(let members):
            if members.isEmpty {
                out.append("{}")
                return
            }
            out.append("{")
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(",") }
                JSONValue.newline(&out, pretty: pretty, indent: indent + 1)
                JSONValue.appendQuoted(key, to: &out)
                out.append(pretty ? ": " : ":")
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            JSONValue.newline(&out, pretty: pretty, indent: indent)
            out.append("}")
        }
    }

    private static func newline(_ out: inout String, pretty: Bool, indent: Int) {
        guard pretty else { return }
        out.append("\n")
        out.append(String(repeating: "  ", count: indent))
    }

    /// Appends `text` as a JSON string literal: quotes, backslashes and control characters escaped.
    public static func appendQuoted(_ text: String, to out: inout String) {
        out.append("\"")
        var needsEscaping = false
        for byte in text.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            needsEscaping = true
            break
        }
        if !needsEscaping {
            out.append(text)
            out.append("\"")
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case "\u{08}": out.append("\\b")
            case "\u{0C}": out.append("\\f")
            default:
                if scalar.value < 0x20 {
                    out.append("\\u00")
                    out.append(hexDigit(scalar.value >> 4))
                    out.append(hexDigit(scalar.value & 0xF))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append("\"")
    }

    private static func hexDigit(_ value: UInt32) -> Character {
        Character(Unicode.Scalar(UInt8(value < 10 ? 0x30 + value : 0x61 + value - 10)))
    }
}
