import MDMDiagnostics
import PropertyList
import Testing

struct PlistWriterTests {
    static let sample: PlistValue = [
        "Name": "Field <Service> & Co",
        "Port": 8443,
        "Ratio": 0.25,
        "Enabled": true,
        "Since": .date(PlistDate(secondsSince1970: 1_700_000_000)),
        "Blob": .data(Array("hi".utf8)),
        "Empty": [:],
        "List": ["a", 1, []],
    ]

    @Test func writesCanonicalAppleXML() throws {
        let xml = try PlistWriter.xml(Self.sample)
        #expect(
            xml == """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>Name</key>
                \t<string>Field &lt;Service&gt; &amp; Co</string>
                \t<key>Port</key>
                \t<integer>8443</integer>
                \t<key>Ratio</key>
                \t<real>0.25</real>
                \t<key>Enabled</key>
                \t<true/>
                \t<key>Since</key>
                \t<date>2023-11-14T22:13:20Z</date>
                \t<key>Blob</key>
                \t<data>aGk=</data>
                \t<key>Empty</key>
                \t<dict/>
                \t<key>List</key>
                \t<array>
                \t\t<string>a</string>
                \t\t<integer>1</integer>
                \t\t<array/>
                \t</array>
                </dict>
                </plist>

                """)
    }

    /// Data past 60 base64 characters is written in lines of 68 at the element's indent, and a string with
    /// something to escape keeps its other characters, non-ASCII ones, tabs and line breaks as they are.
    @Test func writesLongDataAndEscapedText() throws {
        let blob = (0..<60).map { UInt8($0 * 4) }
        let encoded = Base64.encode(blob)
        let text = "é & \t<ü>\n✓"
        let xml = try PlistWriter.xml(["Blob": .data(blob), "Text": .string(text)])
        let body = xml.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(4).joined(separator: "\n")
        #expect(
            body == """
                \t<key>Blob</key>
                \t<data>
                \t\(encoded.prefix(68))
                \t\(encoded.dropFirst(68))
                \t</data>
                \t<key>Text</key>
                \t<string>é &amp; \t&lt;ü&gt;
                ✓</string>
                </dict>
                </plist>

                """)
        #expect(encoded.count == 80)
    }

    @Test func writesJSONMapping() {
        let value: PlistValue = [
            "s": "x\"y", "i": 1, "r": 1.5, "nan": .real(.nan), "inf": .real(.infinity), "ninf": .real(-.infinity),
            "b": false, "d": .date(PlistDate(secondsSince1970: 0)), "data": .data([0, 255]), "a": [],
        ]
        #expect(
            PlistWriter.json(value, pretty: false)
                == #"{"s":"x\"y","i":1,"r":1.5,"nan":"nan","inf":"inf","ninf":"-inf","b":false,"d":"1970-01-01T00:00:00Z","data":"AP8=","a":[]}"#
                + "\n".dropLast())
    }

    @Test func carriageReturnSurvivesAsCharacterReference() throws {
        let xml = try PlistWriter.xml(.string("a\r\nb\rc"))
        #expect(xml.contains("<string>a&#13;\nb&#13;c</string>"))
        #expect(PropertyListReader().read(Array(xml.utf8), file: "cr.plist").root?.value == .string("a\r\nb\rc"))
    }

    @Test(arguments: ["\u{0}", "\u{1}", "a\u{1B}b", "\u{FFFE}", "\u{FFFF}"])
    func controlCharactersCannotBeWritten(_ text: String) {
        #expect(throws: PlistWriter.UnrepresentableString.self) { try PlistWriter.xml(["k": ["x", .string(text)]]) }
        do {
            _ = try PlistWriter.xml(["k": ["x", .string(text)]])
        } catch {
            #expect(error.keyPath.description == "k[1]")
            #expect(error.diagnostic.code == PlistCode.unrepresentableString)
        }
    }

    @Test func longDataIsWrappedAndReadsBack() throws {
        let bytes = (0..<300).map { UInt8($0 % 256) }
        let xml = try PlistWriter.xml(["Blob": .data(bytes)])
        let lines = Array(xml.utf8).split(separator: UInt8(ascii: "\n"))
        #expect(lines.dropFirst(2).allSatisfy { $0.count <= 80 })
        #expect(PropertyListReader().read(Array(xml.utf8), file: "blob.plist").root?.value == ["Blob": .data(bytes)])
    }

    /// For any value v (that XML can carry): read(write(v)) == v.
    @Test(arguments: 0..<20)
    func roundTripsRandomValues(_ seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 7919)
        for _ in 0..<50 {
            let value = RandomPlist.value(&rng)
            let xml = try PlistWriter.xml(value)
            let document = PropertyListReader().read(Array(xml.utf8), file: "round.plist")
            // Random keys may start or end with whitespace: reported, yet read exactly.
            let findings = document.diagnostics.filter { $0.code != PlistCode.keyWhitespace }
            #expect(findings.isEmpty, "\(findings.map(\.message))")
            #expect(document.root?.value == value, "\(xml)")
        }
    }

    @Test(arguments: 0..<5)
    func jsonReadsBackWhereTypesSurvive(_ seed: Int) throws {
        // JSON has no dates or data and writes nan as a string; everything else reads back equal.
        var rng = SeededGenerator(seed: UInt64(seed) &+ 100)
        for _ in 0..<50 {
            // Wrapped in an array: a bare `true` is not taken for JSON (prose could start that way).
            let value: PlistValue = [RandomPlist.value(&rng)]
            let json = PlistWriter.json(value)
            let document = PropertyListReader().read(Array(json.utf8), file: "round.json")
            // Random keys may start or end with whitespace: reported as the XML reader does, yet read exactly.
            let findings = document.diagnostics.filter { $0.code != PlistCode.keyWhitespace }
            #expect(findings.isEmpty, "\(findings.map(\.message)) in \(json)")
            if let root = document.root, !Self.holdsJSONLossyTypes(value) { #expect(root.value == value, "\(json)") }
        }
    }

    static func holdsJSONLossyTypes(_ value: PlistValue) -> Bool {
        switch value {
        case .date, .data: true
        case .real(let number): !number.isFinite || number == number.rounded() && abs(number) < 1e16
        case .array(let items): items.contains { holdsJSONLossyTypes($0.value) }
        case .dictionary(let dict): dict.entries.contains { holdsJSONLossyTypes($0.value.value) }
        default: false
        }
    }
}
