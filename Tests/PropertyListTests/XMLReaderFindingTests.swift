import MDMDiagnostics
import PropertyList
import Testing

/// Every finding of the XML reader, with the exact position (marker 1️⃣) and key path it is reported at.
struct XMLReaderFindingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let source: String
        let code: DiagnosticCode
        let keyPath: String?
        var severity: Severity = .error
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "duplicate key",
            source: "<dict>\n\t<key>A</key><string>x</string>\n\t1️⃣<key>A</key><string>y</string>\n</dict>",
            code: PlistCode.duplicateKey, keyPath: "A"),
        Case(
            name: "trailing newline inside key",
            source: "<dict>\n\t1️⃣<key>DefaultPluginsSetting\n</key>\n\t<integer>2</integer>\n</dict>",
            code: PlistCode.keyWhitespace, keyPath: "[\"DefaultPluginsSetting\\n\"]"),
        Case(
            name: "leading space inside key",
            source: "<dict>1️⃣<key> Port</key><integer>2</integer></dict>",
            code: PlistCode.keyWhitespace, keyPath: "[\" Port\"]"),
        Case(
            name: "key without value at the end of a dict",
            source: "<dict>\n  <key>A</key><true/>\n  1️⃣<key>B</key>\n</dict>",
            code: PlistCode.keyWithoutValue, keyPath: "B"),
        Case(
            name: "key followed by a key",
            source: "<dict>1️⃣<key>A</key><key>B</key><false/></dict>",
            code: PlistCode.keyWithoutValue, keyPath: "A"),
        Case(
            name: "dict without key inside a dict",
            source:
                "<plist version=\"1.0\">\n<dict>\n<key>A</key><string>x</string>\n1️⃣<dict>\n</dict>\n</dict>\n</plist>",
            code: PlistCode.valueWithoutKey, keyPath: nil),
        Case(
            name: "unknown element",
            source: "<dict><key>Enabled</key>1️⃣<bool>true</bool></dict>",
            code: PlistCode.unknownElement, keyPath: "Enabled"),
        Case(
            name: "malformed integer",
            source:
                "<dict><key>Accounts</key><array><dict/><dict><key>Port</key>1️⃣<integer>80a</integer></dict></array></dict>",
            code: PlistCode.invalidInteger, keyPath: "Accounts[1].Port"),
        Case(
            name: "integer with a fraction",
            source: "<array>1️⃣<integer>1.5</integer></array>",
            code: PlistCode.invalidInteger, keyPath: "[0]"),
        Case(
            name: "integer over Int64.max",
            source: "<dict><key>N</key>1️⃣<integer>9223372036854775808</integer></dict>",
            code: PlistCode.integerOverflow, keyPath: "N"),
        Case(
            name: "integer under Int64.min",
            source: "<dict><key>N</key>1️⃣<integer>-9223372036854775809</integer></dict>",
            code: PlistCode.integerOverflow, keyPath: "N"),
        Case(
            name: "hex integer over Int64.max",
            source: "<array>1️⃣<integer>0xFFFFFFFFFFFFFFFF</integer></array>",
            code: PlistCode.integerOverflow, keyPath: "[0]"),
        Case(
            name: "malformed real",
            source: "<dict><key>Ratio</key>1️⃣<real>1,5</real></dict>",
            code: PlistCode.invalidReal, keyPath: "Ratio"),
        Case(
            name: "date that does not exist",
            source: "<dict><key>Deadline</key>1️⃣<date>2025-02-30T10:00:00Z</date></dict>",
            code: PlistCode.invalidDate, keyPath: "Deadline"),
        Case(
            name: "date without zone",
            source: "<dict><key>Deadline</key>1️⃣<date>2025-02-10 10:00:00</date></dict>",
            code: PlistCode.invalidDate, keyPath: "Deadline"),
        Case(
            name: "data that is not base64",
            source: "<dict><key>Cert</key>1️⃣<data>SGVsbG8*</data></dict>",
            code: PlistCode.invalidData, keyPath: "Cert"),
        Case(
            name: "data without padding",
            source: "<dict><key>Cert</key>1️⃣<data>SGVsbG8</data></dict>",
            code: PlistCode.invalidData, keyPath: "Cert"),
        Case(
            name: "text between dict members",
            source: "<dict>\n  <key>A</key><string>x</string>1️⃣oops\n</dict>",
            code: PlistCode.textOutsideElements, keyPath: nil),
        Case(
            name: "text inside true",
            source: "<dict><key>A</key><true>1️⃣yes</true></dict>",
            code: PlistCode.unexpectedContent, keyPath: "A"),
        Case(
            name: "element inside string",
            source: "<dict><key>A</key><string>x1️⃣<b>bold</b></string></dict>",
            code: PlistCode.unexpectedContent, keyPath: "A"),
        Case(
            name: "key outside a dict",
            source: "<array>1️⃣<key>A</key></array>",
            code: PlistCode.unexpectedContent, keyPath: "[0]"),
        Case(
            name: "smart quotes in the XML declaration",
            source: "<?xml version=1️⃣”1.0” encoding=”UTF-8”?>\n<plist version=\"1.0\"><dict/></plist>",
            code: PlistCode.smartQuotes, keyPath: nil),
        Case(
            name: "mismatched end tag",
            source: "<plist>\n<dict>\n<key>A</key><string>x1️⃣</strinX>\n</dict>\n</plist>",
            code: PlistCode.notWellFormed, keyPath: "A"),
        Case(
            name: "undeclared entity",
            source: "<dict><key>A</key><string>&nbsp;1️⃣</string></dict>",
            code: PlistCode.undeclaredEntity, keyPath: "A"),
        Case(
            name: "internal entity declaration",
            source:
                "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n  1️⃣<!ENTITY a \"b\">\n]>\n<plist><string>&a;</string></plist>",
            code: PlistCode.entityDeclaration, keyPath: nil),
        Case(
            name: "plist without a value",
            source: "1️⃣<plist version=\"1.0\">\n</plist>",
            code: PlistCode.emptyDocument, keyPath: nil),
        Case(
            name: "plist with two values",
            source: "<plist version=\"1.0\">\n<dict/>\n1️⃣<array/>\n</plist>",
            code: PlistCode.extraValue, keyPath: nil),
        Case(
            name: "invalid UTF-8",
            source: "<dict><key>A</key><string>caf1️⃣\u{FFFD}</string></dict>",
            code: PlistCode.invalidEncoding, keyPath: "A"),
        Case(
            name: "plist version other than 1.0",
            source: "1️⃣<plist version=\"2.0\"><dict/></plist>",
            code: PlistCode.unsupportedVersion, keyPath: nil, severity: .info),
    ]

    @Test(arguments: cases)
    func reportsFindingAtMarker(_ testCase: Case) throws {
        let source = MarkedSource(testCase.source)
        var bytes = source.bytes
        if testCase.code == PlistCode.invalidEncoding {
            // Swap the replacement character for a lone Latin-1 byte: invalid UTF-8 in the same place.
            let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
            let index = try #require(
                (0..<bytes.count).first { Array(bytes[$0..<min($0 + 3, bytes.count)]) == replacement })
            bytes.replaceSubrange(index..<index + 3, with: [0xE9])
        }
        let document = PropertyListReader().read(bytes, file: "case.plist")
        let found = document.diagnostics.filter { $0.code == testCase.code }
        #expect(found.count == 1, "expected one \(testCase.code), got \(document.diagnostics.map(\.message))")
        let diagnostic = try #require(found.first)
        let marker = try #require(source["1️⃣"])
        #expect(diagnostic.line == marker.line)
        #expect(diagnostic.column == marker.column)
        #expect(diagnostic.keyPath == testCase.keyPath)
        #expect(diagnostic.severity == testCase.severity)
        #expect(diagnostic.file == "case.plist")
    }

    @Test func duplicateKeyPointsAtTheFirstDefinition() throws {
        let source = MarkedSource("<dict>\n1️⃣<key>A</key><string>x</string>\n2️⃣<key>A</key><string>y</string>\n</dict>")
        let document = source.read()
        let diagnostic = try #require(document.diagnostics.first { $0.code == PlistCode.duplicateKey })
        #expect(diagnostic.line == source["2️⃣"]?.line)
        let note = try #require(diagnostic.notes.first)
        #expect(note.message == "first defined here")
        #expect(note.location?.position.line == source["1️⃣"]?.line)
        #expect(note.location?.position.column == source["1️⃣"]?.column)
        // As plistlib and CoreFoundation: the later value wins, in the first one's place.
        guard case .dictionary(let dict)? = document.root?.value else {
            Issue.record("root is not a dict")
            return
        }
        #expect(dict.keys == ["A"])
        #expect(dict["A"]?.value == .string("y"))
    }

    @Test func reportsEveryFindingInOnePass() {
        let source = MarkedSource(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t1️⃣<key>Port </key>
            \t<integer>80</integer>
            \t<key>Retries</key>
            \t2️⃣<integer>three</integer>
            \t<key>Port </key>
            \t<integer>81</integer>
            \t<key>Deadline</key>
            \t3️⃣<date>tomorrow</date>
            \t<key>Enabled</key>
            \t4️⃣<boolean>true</boolean>
            \t5️⃣<key>Orphan</key>
            </dict>
            </plist>
            """)
        let document = source.read()
        let codes = document.diagnostics.map(\.code.code)
        #expect(
            codes == ["MC1014", "MC1015", "MC1014", "MC1013", "MC1018", "MC1010", "MC1011"],
            "\(document.diagnostics.map { "\($0.code.code) \($0.message)" })")
        let lines = document.diagnostics.compactMap(\.line)
        #expect(lines.first == source["1️⃣"]?.line)
        #expect(lines.contains(source["2️⃣"]!.line))
        #expect(lines.contains(source["3️⃣"]!.line))
        #expect(lines.contains(source["4️⃣"]!.line))
        #expect(lines.last == source["5️⃣"]?.line)
    }

    @Test func utf16InputIsRefused() {
        let document = PropertyListReader().read([0xFF, 0xFE, 0x3C, 0x00], file: "utf16.plist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.invalidEncoding])
    }

    @Test func declaredLatin1IsRefused() {
        let text = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>x</string></plist>"
        let document = PropertyListReader().read(Array(text.utf8), file: "latin1.plist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.invalidEncoding])
        #expect(document.diagnostics.first?.message.contains("ISO-8859-1") == true)
    }

    @Test func emptyInputIsAnEmptyDocument() {
        for text in ["", "   \n", "<?xml version=\"1.0\"?>\n"] {
            let document = PropertyListReader().read(Array(text.utf8), file: "empty.plist")
            #expect(document.diagnostics.map(\.code) == [PlistCode.emptyDocument], "\(text.debugDescription)")
            #expect(document.root == nil)
        }
    }

    @Test func readerMessagesDoNotEchoLongValues() throws {
        let long = String(repeating: "x", count: 500)
        let document = MarkedSource("<dict><key>A</key><integer>\(long)</integer></dict>").read()
        let diagnostic = try #require(document.diagnostics.first)
        #expect(diagnostic.message.count < 80)
    }
}
