import MDMDiagnostics
import PropertyList
import Testing

/// What the value model holds is what an XML plist can carry: the JSON and binary readers refuse the rest with
/// the XML reader's codes (found by the fuzz targets' write-and-read-back property, issue 14).
struct ReadersAgreeTests {
    typealias B = BinaryPlistBytes

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var json: String
        var code: DiagnosticCode
        var keyPath: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "key with a leading space", json: #"{"app": "a", " now": "x"}"#, code: PlistCode.keyWhitespace,
            keyPath: #"[" now"]"#),
        Case(
            name: "key with a trailing newline", json: #"{"Theme\n": "dark"}"#, code: PlistCode.keyWhitespace,
            keyPath: #"["Theme\n"]"#),
        Case(
            name: "control character in a string", json: #"{"a": ["x\u0001y"]}"#, code: PlistCode.unrepresentableString,
            keyPath: "a[0]"),
        Case(
            name: "U+FFFF in a key", json: #"{"k\uffff": 1}"#, code: PlistCode.unrepresentableString,
            keyPath: "k\u{FFFF}"),
        Case(
            name: "NUL in a nested string", json: #"{"a": {"b": "\u0000"}}"#, code: PlistCode.unrepresentableString,
            keyPath: "a.b"),
    ]

    @Test(arguments: cases)
    func jsonRefusesWhatXMLCannotCarry(_ testCase: Case) {
        let document = JSONPlistReader().read(Array(testCase.json.utf8), file: "t.json")
        #expect(document.diagnostics.map(\.code) == [testCase.code], "\(document.diagnostics.map(\.message))")
        #expect(document.diagnostics.first?.severity == .error)
        #expect(document.diagnostics.first?.line == 1)
        #expect(document.diagnostics.first?.keyPath == testCase.keyPath)
    }

    @Test func binaryRefusesWhatXMLCannotCarry() {
        // {" now": "x"} and ["a\u{1}"] as binary plists.
        let whitespace = B(objects: [B.dict([1], [2]), B.ascii(" now"), B.ascii("x")])
        var document = PropertyListReader().read(whitespace.bytes, file: "t.bplist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.keyWhitespace])
        #expect(document.diagnostics.first?.keyPath == #"[" now"]"#)
        let control = B(objects: [B.array([1]), B.ascii("a\u{1}")])
        document = PropertyListReader().read(control.bytes, file: "t.bplist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.unrepresentableString])
        #expect(document.diagnostics.first?.keyPath == "[0]")
    }

    /// And what they accept, XML carries back equal.
    @Test func acceptedValuesRoundTrip() throws {
        let json = #"{"Tab\tInside": "a\tb\r\nc", "emoji": "🙂", "nested": {"k": [1, 2.5, true, "<&>"]}}"#
        let document = JSONPlistReader().read(Array(json.utf8), file: "ok.json")
        #expect(document.diagnostics.isEmpty)
        let root = try #require(document.root)
        let xml = try PlistWriter.xml(root.value)
        let back = XMLPlistReader().read(Array(xml.utf8), file: "back.plist")
        #expect(back.diagnostics.isEmpty, "\(back.diagnostics.map(\.message))")
        #expect(back.root?.value == root.value)
    }
}

/// JSON strings as bytes: ASCII is taken as it stands, other bytes only when they are valid UTF-8, with and
/// without escapes before them.
struct JSONStringBytesTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The bytes between the quotes of `{"k": "…"}`.
        var bytes: [UInt8]
        /// The string read; nil when the reader must refuse the bytes.
        var value: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "ASCII", bytes: Array("3.2.1".utf8), value: "3.2.1"),
        Case(name: "ASCII with escaped quotes (an ETag)", bytes: Array(#"\"9bfc17\""#.utf8), value: "\"9bfc17\""),
        Case(name: "two-byte UTF-8", bytes: Array("Zürich".utf8), value: "Zürich"),
        Case(name: "four-byte UTF-8 after an escape", bytes: Array(#"a\n🙂"#.utf8), value: "a\n🙂"),
        Case(name: "an escaped non-ASCII scalar", bytes: Array(#"caf\u00e9"#.utf8), value: "café"),
        Case(name: "a lone continuation byte", bytes: [0x61, 0x80, 0x62], value: nil),
        Case(name: "a truncated two-byte sequence", bytes: [0x61, 0xC3], value: nil),
        Case(name: "an overlong encoding of '/'", bytes: [0xC0, 0xAF], value: nil),
        Case(name: "an invalid byte after an escape", bytes: Array(#"\t"#.utf8) + [0xFF], value: nil),
        Case(name: "a UTF-16 surrogate as UTF-8", bytes: [0xED, 0xA0, 0x80], value: nil),
    ]

    @Test(arguments: cases)
    func stringBytes(_ testCase: Case) {
        let document = JSONPlistReader().read(
            Array(#"{"k": ""#.utf8) + testCase.bytes + Array(#""}"#.utf8), file: "t.json")
        if let value = testCase.value {
            #expect(document.diagnostics.isEmpty, "\(document.diagnostics.map(\.message))")
            guard case .dictionary(let dict)? = document.root?.value, case .string(let text)? = dict["k"]?.value else {
                Issue.record("no string read")
                return
            }
            #expect(text == value)
            #expect(Array(text.utf8) == Array(value.utf8))
        } else {
            #expect(document.root == nil)
            #expect(document.diagnostics.contains { $0.message.contains("not valid UTF-8") })
        }
    }
}
