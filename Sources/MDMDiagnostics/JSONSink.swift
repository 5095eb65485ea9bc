/// Where a JSON document goes as it is described, member by member: into a ``JSONValue`` (``JSONTree``) or straight
/// into its bytes (``JSONText``). A type describes its document once, to any sink, and gets both forms from that one
/// description; the text is the bytes ``JSONValue/serializedBytes(pretty:)`` writes for the same value, without
/// making the value first.
public protocol JSONSink {
    /// Opens an object (as a member's value after `key`, an array's item, or the document).
    mutating func beginObject()
    /// Closes the innermost object.
    mutating func endObject()
    /// Opens an array.
    mutating func beginArray()
    /// Closes the innermost array.
    mutating func endArray()
    /// The next member's name, in the innermost object; its value follows.
    mutating func key(_ name: String)
    /// The next member's name given as a literal: plain ASCII that needs no escape.
    mutating func key(literal name: StaticString)
    /// A value: a scalar (`null`, a boolean, a number or a string), or a whole array or object made before, written
    /// as it stands.
    mutating func value(_ scalar: JSONValue)
    /// A member whose value is a scalar, named by a literal: plain ASCII that needs no escape (a document's own
    /// member names; a name made at run time goes through `key(_:)` and `value(_:)`).
    mutating func member(_ name: StaticString, _ scalar: JSONValue)
}

extension JSONSink {
    /// The member as its name, then its value.
    public mutating func member(_ name: StaticString, _ scalar: JSONValue) {
        key(literal: name)
        value(scalar)
    }

    /// The next member's name given as a literal.
    public mutating func key(literal name: StaticString) { key(name.description) }
}

/// A type whose JSON document is described once, member by member, to any sink: the value (``json``) and the text
/// (``jsonText(pretty:)``, or written into a larger document) come from that one description.
public protocol JSONDocument {
    /// Describes the document to `sink`.
    func write(to sink: inout some JSONSink)
}

extension JSONDocument {
    /// The document as a value.
    public var json: JSONValue {
        var tree = JSONTree()
        write(to: &tree)
        return tree.document
    }

    /// The document's text, as `json.serializedBytes(pretty:)` writes it, without making the value first.
    public func jsonText(pretty: Bool = true) -> [UInt8] {
        var text = JSONText(pretty: pretty)
        write(to: &text)
        return text.bytes
    }
}

/// A sink that builds the ``JSONValue``.
public struct JSONTree: JSONSink {
    private enum Open {
        case object([(String, JSONValue)], key: String?)
        case array([JSONValue])
    }

    private var open: [Open] = []
    /// The finished document (`null` until the outermost container is closed or a scalar is written).
    public private(set) var document: JSONValue = .null

    /// An empty tree.
    public init() {}

    public mutating func beginObject() { open.append(.object([], key: nil)) }
    public mutating func beginArray() { open.append(.array([])) }

    public mutating func endObject() {
        guard case .object(let members, _)? = open.popLast() else { preconditionFailure("endObject without an object") }
        value(.object(members))
    }

    public mutating func endArray() {
        guard case .array(let items)? = open.popLast() else { preconditionFailure("endArray without an array") }
        value(.array(items))
    }

    public mutating func key(_ name: String) {
        guard case .object(let members, _)? = open.popLast() else { preconditionFailure("key outside an object") }
        open.append(.object(members, key: name))
    }

    public mutating func value(_ scalar: JSONValue) {
        switch open.popLast() {
        case nil: document = scalar
        case .object(var members, let key?)?:
            members.append((key, scalar))
            open.append(.object(members, key: nil))
        case .array(var items)?:
            items.append(scalar)
            open.append(.array(items))
        case .object(_, nil)?: preconditionFailure("a value in an object without its key")
        }
    }
}

/// A sink that writes the JSON text, pretty-printed or compact, as ``JSONValue/serializedBytes(pretty:)`` writes
/// the same value (a final line break when pretty).
public struct JSONText: JSONSink {
    private let out: GrowingBytes
    private let pretty: Bool
    /// The indent of the document's own lines, in levels (a document written inside another).
    private let indent: Int
    /// How many containers are open.
    private var depth = 0
    /// For open containers 1…64 (bit n − 1), whether each has had an item yet; deeper ones in `deeper`.
    private var started: UInt64 = 0
    private var deeper: [Bool] = []
    /// A member's name was written: its value follows without a separator.
    private var afterKey = false

    /// An empty text; `indent` levels before each line after the first when pretty (a document written as a
    /// member or item of another at that depth).
    public init(pretty: Bool = true, indent: Int = 0) {
        self.init(into: GrowingBytes(capacity: 1024), pretty: pretty, indent: indent)
    }

    /// A text written after what `out` already holds, into `out` itself: a writer that reuses one buffer for
    /// document after document reads the bytes from `out` (``GrowingBytes/withBytes(_:)``) and empties it between.
    public init(into out: GrowingBytes, pretty: Bool = true, indent: Int = 0) {
        (self.out, self.pretty, self.indent) = (out, pretty, indent)
    }

    /// The text written (with the final line break of a pretty document).
    public var bytes: [UInt8] { out.array(then: pretty ? UInt8(ascii: "\n") : nil) }

    /// Appends `text` as it stands between documents written one after another into this text (a report's rows
    /// and the separators between them), never inside one.
    public mutating func raw(_ text: StaticString) {
        precondition(depth == 0, "raw text inside a document")
        out.append(text)
    }

    /// Before an array's item or an object's member: the comma and the line break.
    private mutating func item() {
        guard depth > 0 else { return }
        let had: Bool
        if depth <= 64 {
            let bit: UInt64 = 1 << UInt64(depth - 1)
            had = started & bit != 0
            started |= bit
        } else {
            had = deeper[depth - 65]
            deeper[depth - 65] = true
        }
        if had { out.append(UInt8(ascii: ",")) }
        if pretty { JSONValue.newline(out, indent: indent + depth) }
    }

    private mutating func beforeValue() {
        if afterKey { afterKey = false } else { item() }
    }

    private mutating func open(_ byte: UInt8) {
        beforeValue()
        out.append(byte)
        depth += 1
        if depth <= 64 { started &= ~(1 << UInt64(depth - 1)) } else { deeper.append(false) }
    }

    private mutating func close(_ byte: UInt8) {
        let had = depth <= 64 ? started & (1 << UInt64(depth - 1)) != 0 : deeper.removeLast()
        depth -= 1
        if had, pretty { JSONValue.newline(out, indent: indent + depth) }
        out.append(byte)
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    public mutating func key(_ name: String) {
        item()
        JSONValue.appendQuoted(name, to: out)
        out.append(pretty ? ": " : ":")
        afterKey = true
    }

    /// A literal name is written as it stands: it needs no escape.
    public mutating func key(literal name: StaticString) {
        writeKey(name)
        afterKey = true
    }

    /// A literal name, its separator, and what comes before it; inlined in `key(literal:)` and `member(_:_:)`.
    @inline(__always)
    private mutating func writeKey(_ name: StaticString) {
        item()
        out.appendKey(name, pretty: pretty)
    }

    public mutating func value(_ scalar: JSONValue) {
        beforeValue()
        scalar.write(to: out, pretty: pretty, indent: indent + depth)
    }

    /// The name and the value written in one call (the members of a report's device documents are most of its
    /// text).
    public mutating func member(_ name: StaticString, _ scalar: JSONValue) {
        writeKey(name)
        // The scalars a document's members mostly are, written here rather than through the value's own writer.
        switch scalar {
        case .string(let text): JSONValue.appendQuoted(text, to: out)
        case .null: out.append("null")
        case .bool(let value): out.append(value ? "true" : "false")
        default: scalar.write(to: out, pretty: pretty, indent: indent + depth)
        }
    }
}
