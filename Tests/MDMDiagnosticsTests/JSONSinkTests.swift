import MDMDiagnostics
import Testing

/// A document described to the two sinks gives the value itself (``JSONTree``) and exactly the bytes the value
/// serialises to (``JSONText``), pretty and compact.
struct JSONSinkTests {
    /// Describes `value` to `sink` as a type describing its document would.
    static func describe(_ value: JSONValue, to sink: inout some JSONSink) {
        switch value {
        case .object(let members):
            sink.beginObject()
            for (key, member) in members {
                sink.key(key)
                describe(member, to: &sink)
            }
            sink.endObject()
        case .array(let items):
            sink.beginArray()
            for item in items { describe(item, to: &sink) }
            sink.endArray()
        default:
            sink.value(value)
        }
    }

    static let documents: [JSONValue] = [
        .null, .bool(true), .integer(-12), .string("a \"quoted\"\nline\u{1}"), .array([]), .object([]),
        .object([("empty", .array([])), ("none", .object([])), ("n", .null)]),
        .array([.array([.array([])]), .object([("a", .array([.integer(1), .string("x")]))]), .bool(false)]),
        .object([
            ("decision", .string("required")),
            ("reasons", .array([.object([("policy", .null), ("code", .string("c"))])])),
            ("trace", .array([.object([("checks", .array([.object([("detail", .string("é ✓"))])]))])])),
        ]),
    ]

    @Test(arguments: documents)
    func bothSinksAgreeWithTheValue(_ document: JSONValue) {
        var tree = JSONTree()
        Self.describe(document, to: &tree)
        #expect(tree.document == document)
        for pretty in [true, false] {
            var text = JSONText(pretty: pretty)
            Self.describe(document, to: &text)
            #expect(
                String(decoding: text.bytes, as: UTF8.self) == document.serialized(pretty: pretty), "pretty: \(pretty)")
        }
    }

    /// Deeply nested documents (past the 64 levels the text tracks in a word) still agree.
    @Test func deepDocuments() {
        var document: JSONValue = .object([("leaf", .integer(1))])
        for level in 0..<80 { document = level % 2 == 0 ? .array([document, .null]) : .object([("k", document)]) }
        var text = JSONText()
        Self.describe(document, to: &text)
        let written = String(decoding: text.bytes, as: UTF8.self)
        #expect(written == document.serialized())
        // Every line is indented by two spaces per container open before it (one less on a closing line),
        // counted from the text itself (its strings hold no brackets): below and past the 32 levels indents are
        // copied from.
        var open = 0
        for line in written.split(separator: "\n") {
            let body = line.drop { $0 == " " }
            let closing = body.first == "]" || body.first == "}"
            #expect(line.count - body.count == 2 * (closing ? open - 1 : open), "\(line)")
            for character in body {
                if character == "[" || character == "{" { open += 1 }
                if character == "]" || character == "}" { open -= 1 }
            }
        }
        #expect(open == 0)
    }

    /// A document written as part of another, at an indent, has the bytes the value writes there (no final line
    /// break).
    @Test(arguments: [1, 2, 5])
    func indentedDocuments(indent: Int) {
        let out = GrowingBytes(capacity: 16)
        for document in Self.documents {
            out.removeAll()
            var text = JSONText(into: out, indent: indent)
            Self.describe(document, to: &text)
            var expected: [UInt8] = []
            document.write(into: &expected, pretty: true, indent: indent)
            #expect(out.withBytes(Array.init) == expected)
        }
    }

    /// Documents written one after another into one text, with raw separators between them, are the same bytes as
    /// each written on its own and joined; written again into the same buffer once emptied (as `report` does with
    /// its blocks), the same bytes again.
    @Test(arguments: [0, 2])
    func documentsOneAfterAnother(indent: Int) {
        let out = GrowingBytes(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<2 {
            out.removeAll()
            var text = JSONText(into: out, indent: indent)
            for document in Self.documents + Self.documents.reversed() {
                text.raw("    ")
                Self.describe(document, to: &text)
                text.raw(",\n")
                if round == 0 {
                    expected += Array("    ".utf8)
                    document.write(into: &expected, pretty: true, indent: indent)
                    expected += Array(",\n".utf8)
                }
            }
            #expect(out.withBytes(Array.init) == expected)
        }
    }
}
