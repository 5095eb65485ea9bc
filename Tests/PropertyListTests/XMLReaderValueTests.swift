import MDMDiagnostics
import PropertyList
import Testing

/// Values of every type, both shapes, and the positions of nested nodes.
struct XMLReaderValueTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let element: String
        let value: PlistValue
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "string with entities", element: "<string>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;</string>",
            value: "a & b <c> \"d\" 'e'"),
        Case(
            name: "string with character references", element: "<string>&#x1F600;&#13;&#10;x</string>", value: "😀\r\nx"),
        Case(name: "string with CDATA", element: "<string><![CDATA[<b>&raw</b>]]></string>", value: "<b>&raw</b>"),
        Case(name: "string keeps whitespace", element: "<string>  two  spaces\n</string>", value: "  two  spaces\n"),
        Case(name: "astral and combining characters", element: "<string>𝄞 é 👩‍💻</string>", value: "𝄞 é 👩‍💻"),
        Case(name: "empty string", element: "<string></string>", value: ""),
        Case(name: "self-closed string", element: "<string/>", value: ""),
        Case(name: "integer", element: "<integer>42</integer>", value: 42),
        Case(name: "negative integer", element: "<integer>-7</integer>", value: -7),
        Case(name: "integer with plus and spaces", element: "<integer> +8 </integer>", value: 8),
        Case(name: "Int64.max", element: "<integer>9223372036854775807</integer>", value: .integer(.max)),
        Case(name: "Int64.min", element: "<integer>-9223372036854775808</integer>", value: .integer(.min)),
        Case(name: "hex integer", element: "<integer>0x7fffFFFFffffFFFF</integer>", value: .integer(.max)),
        Case(name: "leading zeros", element: "<integer>007</integer>", value: 7),
        Case(name: "real", element: "<real>2.5</real>", value: 2.5),
        Case(name: "real with exponent", element: "<real>-1.25e-3</real>", value: -0.00125),
        Case(name: "real without fraction", element: "<real>3</real>", value: 3.0),
        Case(name: "real nan", element: "<real>nan</real>", value: .real(.nan)),
        Case(name: "real inf", element: "<real>inf</real>", value: .real(.infinity)),
        Case(name: "real -inf", element: "<real>-inf</real>", value: .real(-.infinity)),
        Case(
            name: "real largest", element: "<real>1.7976931348623157e308</real>", value: .real(.greatestFiniteMagnitude)
        ),
        Case(name: "true", element: "<true/>", value: true),
        Case(name: "false", element: "<false></false>", value: false),
        Case(
            name: "date", element: "<date>2024-02-29T23:59:59Z</date>",
            value: .date(PlistDate(secondsSince1970: 1_709_251_199))),
        Case(
            name: "date before 1970", element: "<date>1969-12-31T00:00:00Z</date>",
            value: .date(PlistDate(secondsSince1970: -86_400))),
        Case(
            name: "data with whitespace", element: "<data>\n\tSGVs\n\tbG8=\n</data>", value: .data(Array("Hello".utf8))),
        Case(name: "empty data", element: "<data></data>", value: .data([])),
        Case(name: "empty array", element: "<array/>", value: []),
        Case(name: "empty dict", element: "<dict/>", value: [:]),
        Case(
            name: "nested",
            element: "<dict><key>a</key><array><integer>1</integer><dict><key>b</key><true/></dict></array></dict>",
            value: ["a": [1, ["b": true]]]),
    ]

    @Test(arguments: cases)
    func readsValueAsDocument(_ testCase: Case) throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">\(testCase.element)</plist>
            """
        let document = PropertyListReader().read(Array(text.utf8), file: "v.plist")
        #expect(document.diagnostics.isEmpty, "\(document.diagnostics.map(\.message))")
        #expect(document.shape == .document)
        #expect(try #require(document.root).value == testCase.value)
    }

    @Test(arguments: cases)
    func readsValueAsFragment(_ testCase: Case) throws {
        let document = PropertyListReader().read(Array(testCase.element.utf8), file: "v.plist")
        #expect(document.diagnostics.isEmpty, "\(document.diagnostics.map(\.message))")
        #expect(document.shape == .fragment)
        #expect(try #require(document.root).value == testCase.value)
    }

    @Test func keepsKeyOrderAndPositions() throws {
        let source = MarkedSource(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            1️⃣<dict>
            \t2️⃣<key>Zeta</key>
            \t3️⃣<string>z</string>
            \t<key>Alpha</key>
            \t<array>
            \t\t<integer>1</integer>
            \t\t4️⃣<dict><key>Server</key>5️⃣<string>mail.example.com</string></dict>
            \t</array>
            </dict>
            </plist>
            """)
        let document = source.read()
        #expect(document.diagnostics.isEmpty)
        let root = try #require(document.root)
        #expect(root.position.line == source["1️⃣"]?.line && root.position.column == source["1️⃣"]?.column)
        guard case .dictionary(let dict) = root.value else {
            Issue.record("root is not a dict")
            return
        }
        #expect(dict.keys == ["Zeta", "Alpha"])
        let zeta = try #require(dict.entry("Zeta"))
        #expect(zeta.keyPosition.line == source["2️⃣"]?.line && zeta.keyPosition.column == source["2️⃣"]?.column)
        #expect(zeta.value.position.line == source["3️⃣"]?.line && zeta.value.position.column == source["3️⃣"]?.column)
        guard case .array(let items)? = dict["Alpha"]?.value, case .dictionary(let inner) = items[1].value else {
            Issue.record("Alpha is not an array with a dict")
            return
        }
        #expect(items[1].position.line == source["4️⃣"]?.line && items[1].position.column == source["4️⃣"]?.column)
        let server = try #require(inner["Server"])
        #expect(server.position.line == source["5️⃣"]?.line && server.position.column == source["5️⃣"]?.column)
        let bytes = source.bytes
        let needle = Array("<string>mail".utf8)
        let offset = (0..<bytes.count).first { bytes[$0..<min($0 + needle.count, bytes.count)].elementsEqual(needle) }
        #expect(server.position.offset == offset)
    }

    @Test func positionsStayTrueDeepIntoALargeDocument() throws {
        // 20,000 lines; libxml2 shrinks its buffer along the way, which must not shift positions.
        var text = "<plist version=\"1.0\">\n<array>\n"
        for index in 0..<20_000 {
            text += "\t<string>item \(index) \(String(repeating: "x", count: index % 50))</string>\n"
        }
        text += "\t<integer>oops</integer>\n</array>\n</plist>\n"
        let document = PropertyListReader().read(Array(text.utf8), file: "large.plist")
        let diagnostic = try #require(document.diagnostics.first)
        #expect(diagnostic.code == PlistCode.invalidInteger)
        #expect(diagnostic.line == 20_003)
        #expect(diagnostic.column == 2)
        #expect(diagnostic.keyPath == "[20000]")
    }

    @Test func doctypeSplitOverTwoLinesIsFine() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN"
              "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>A</key><string>b</string></dict></plist>
            """
        let document = PropertyListReader().read(Array(text.utf8), file: "okta.plist")
        #expect(document.diagnostics.isEmpty)
        #expect(document.root?.value == ["A": "b"])
    }

    @Test func byteOrderMarkIsAccepted() {
        let document = PropertyListReader().read(
            [0xEF, 0xBB, 0xBF] + Array("<plist><true/></plist>".utf8), file: "bom.plist")
        #expect(document.diagnostics.isEmpty)
        #expect(document.root?.value == true)
    }
}
