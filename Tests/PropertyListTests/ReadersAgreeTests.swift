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
