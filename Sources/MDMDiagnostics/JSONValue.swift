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

    /// An integer as a JSON number. Inlinable, so it is specialized where it is called: through the generic
    /// `BinaryInteger` description, the one integer of an update check's answer took a tenth of writing its text
    /// (perf, 2026-11-28).
    @inlinable
    public static func integer<T: BinaryInteger>(_ value: T) -> JSONValue { .number(String(value)) }

    /// A string, or `null` when absent. Inlinable: called for most members of a device document.
    @inlinable
    public static func optional(_ value: String?) -> JSONValue {
        if let value { .string(value) } else { .null }
    }

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

    /// `serialized(pretty:)` as UTF-8 bytes, for writers that send bytes (HTTP bodies, the store): written into one
    /// buffer of raw memory and copied out once (appending to a `String` made a check-in answer 15 % of the
    /// server's CPU; appending to an array, a check of its storage on every append, a third of an update check).
    public func serializedBytes(pretty: Bool = true) -> [UInt8] {
        let writer = GrowingBytes(capacity: 1024)
        write(to: writer, pretty: pretty, indent: 0)
        return writer.array(then: pretty ? UInt8(ascii: "\n") : nil)
    }

    /// Appends the JSON text as it stands `indent` levels deep in a pretty document (no final newline), for
    /// documents written in pieces.
    public func write(into out: inout [UInt8], pretty: Bool, indent: Int) {
        let writer = GrowingBytes(capacity: 4096)
        write(to: writer, pretty: pretty, indent: indent)
        writer.append(to: &out)
    }

    func write(to out: GrowingBytes, pretty: Bool, indent: Int) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        case .number(let text): JSONValue.appendUTF8(text, to: out)
        case .string(let text): JSONValue.appendQuoted(text, to: out)
        case .array(let items):
            if items.isEmpty {
                out.append("[]")
                return
            }
            out.append(UInt8(ascii: "["))
            var first = true
            for item in items {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                if pretty { JSONValue.newline(out, indent: indent + 1) }
                item.write(to: out, pretty: pretty, indent: indent + 1)
            }
            if pretty { JSONValue.newline(out, indent: indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                out.append("{}")
                return
            }
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in members {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                if pretty { JSONValue.newline(out, indent: indent + 1) }
                JSONValue.appendQuoted(key, to: out)
                out.append(pretty ? ": " : ":")
                value.write(to: out, pretty: pretty, indent: indent + 1)
            }
            if pretty { JSONValue.newline(out, indent: indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A line break and the indent of `indent` levels: up to 32 levels copied from one literal.
    @inline(__always)
    static func newline(_ out: GrowingBytes, indent: Int) {
        let text: StaticString = "\n                                                                "
        if indent <= 32 {
            out.append(UnsafeBufferPointer(start: text.utf8Start, count: 1 + 2 * indent))
        } else {
            out.append(UInt8(ascii: "\n"))
            out.appendSpaces(2 * indent)
        }
    }

    /// Appends `text` as a JSON string literal in UTF-8: quotes, backslashes and control characters escaped.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        let writer = GrowingBytes(capacity: text.utf8.count + 16)
        appendQuoted(text, to: writer)
        writer.append(to: &out)
    }

    static func appendQuoted(_ text: String, to out: GrowingBytes) {
        out.append(UInt8(ascii: "\""))
        // A native string's bytes in place; a bridged or small one through a copy.
        if text.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: out) }) == nil {
            var text = text
            text.withUTF8 { appendEscaped($0, to: out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendUTF8(_ text: String, to out: GrowingBytes) {
        if text.utf8.withContiguousStorageIfAvailable({ out.append($0) }) == nil {
            var text = text
            text.withUTF8 { out.append($0) }
        }
    }

    /// Appends `bytes` escaped for a JSON string: runs that need no escape (most strings are one) in one copy.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: GrowingBytes) {
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else {
                index += 1
                continue
            }
            out.append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            index += 1
            start = index
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
                out.append("u00")
                out.append(hexDigit(UInt32(byte >> 4)))
                out.append(hexDigit(UInt32(byte & 0xF)))
            }
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[start...]))
    }

    private static func hexDigit(_ value: UInt32) -> UInt8 {
        UInt8(value < 10 ? 0x30 + value : 0x61 + value - 10)
    }
}

/// JSON's own appends to a text being written.
extension GrowingBytes {
    /// A member's literal name quoted, and its separator, with one check of the room.
    @inline(__always)
    func appendKey(_ name: StaticString, pretty: Bool) {
        let length = name.utf8CodeUnitCount
        reserve(length + 4)
        base[count] = UInt8(ascii: "\"")
        (base + count + 1).update(from: name.utf8Start, count: length)
        count += length + 1
        base[count] = UInt8(ascii: "\"")
        base[count + 1] = UInt8(ascii: ":")
        count += 2
        if pretty {
            base[count] = UInt8(ascii: " ")
            count += 1
        }
    }
}
