import Foundation
import Testing

@testable import MDMDiagnostics

struct RendererTests {
    static let typeMismatch = DiagnosticCode("MC2003", "type-mismatch", summary: "A value has the wrong type.")
    static let duplicate = DiagnosticCode("MC1013", "duplicate-key", summary: "A key appears twice.")

    static let source = SourceText(Array("<dict>\n\t<key>Port</key>\n\t<string>8080</string>\n</dict>\n".utf8))

    static let report = DiagnosticReport(files: [
        FileReport(
            path: "app/bad-port.plist",
            schema: SchemaReference(path: "app/schema.xml", format: "appconfig", id: "com.example.field"),
            shape: "fragment",
            diagnostics: [
                Diagnostic(
                    typeMismatch, severity: .error, message: "'Port' must be an integer, found string",
                    location: SourceLocation(file: "app/bad-port.plist", line: 3, column: 2), keyPath: "Port",
                    hint: "write <integer>8080</integer>"),
                Diagnostic(
                    duplicate, severity: .warning, message: "duplicate key 'Port'",
                    location: SourceLocation(file: "app/bad-port.plist", line: 2, column: 2), keyPath: "Port",
                    notes: [
                        .init("first defined here", at: SourceLocation(file: "app/bad-port.plist", line: 1, column: 1))
                    ]),
            ]),
        FileReport(path: "app/good.plist", shape: "document"),
    ])

    @Test func textIsCompilerStyleWithCaret() {
        let text = Self.report.rendered(as: .text, options: RenderOptions(sources: ["app/bad-port.plist": Self.source]))
        #expect(
            text == """
                app/bad-port.plist:3:2: error: 'Port' must be an integer, found string [MC2003 type-mismatch]
                 3 | \t<string>8080</string>
                   | \t^
                  key path: Port
                  hint: write <integer>8080</integer>
                app/bad-port.plist:2:2: warning: duplicate key 'Port' [MC1013 duplicate-key]
                 2 | \t<key>Port</key>
                   | \t^
                  key path: Port
                app/bad-port.plist:1:1: note: first defined here
                 1 | <dict>
                   | ^

                """)
    }

    @Test func textUsesColourOnlyWhenAsked() {
        let plain = Self.report.rendered(as: .text)
        let coloured = Self.report.rendered(as: .text, options: RenderOptions(color: true))
        #expect(!plain.contains("\u{1B}["))
        #expect(coloured.contains("\u{1B}[1;31merror:\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[1;33mwarning:\u{1B}[0m"))
    }

    @Test func longLinesAreQuotedAroundTheColumn() {
        let line = String(repeating: "<true/>", count: 1_000) + "<oops/>" + String(repeating: "<true/>", count: 1_000)
        let column = 7_001
        let diagnostic = Diagnostic(
            Self.duplicate, severity: .error, message: "m", location: SourceLocation(file: "f", line: 1, column: column)
        )
        let text = TextRenderer(options: RenderOptions(sources: ["f": SourceText(Array(line.utf8))])).render(diagnostic)
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count < 200 })
        // The caret sits under the '<' of <oops/>.
        let quoted = Array(lines[1])
        let caret = Array(lines[2])
        let caretIndex = caret.firstIndex(of: "^")!
        #expect(String(quoted[caretIndex..<caretIndex + 7]) == "<oops/>")
    }

    @Test func jsonHasTheDocumentedShape() throws {
        let json = Self.report.rendered(as: .json)
        #expect(json.contains(#""schema": {"#))
        #expect(json.contains(#""format": "appconfig""#))
        #expect(json.contains(#""schema": null"#))
        #expect(json.contains(#""keyPath": "Port""#))
        #expect(json.contains(#""hint": null"#))
        #expect(json.contains(#""valid": false"#))
        #expect(json.contains(#""valid": true"#))
        #expect(
            json.contains(
                """
                  "summary": {
                    "files": 2,
                    "valid": 1,
                    "errors": 1,
                    "warnings": 1,
                    "infos": 0
                  }
                """))
        let first = try #require(json.range(of: #""severity": "error""#))
        let second = try #require(json.range(of: #""severity": "warning""#))
        #expect(first.lowerBound < second.lowerBound)
    }

    @Test func strictTurnsWarningsIntoErrors() {
        let strict = Self.report.strict()
        #expect(strict.summary.errors == 2)
        #expect(strict.summary.warnings == 0)
        #expect(Self.report.summary.valid == 1)
    }

    @Test func sarifIsVersion210WithRulesAndLocations() {
        let sarif = Self.report.rendered(as: .sarif, options: RenderOptions(toolVersion: "9.9.9"))
        #expect(sarif.contains(#""version": "2.1.0""#))
        #expect(sarif.contains(#""$schema": "https://json.schemastore.org/sarif-2.1.0.json""#))
        #expect(sarif.contains(#""id": "MC1013""#))
        #expect(sarif.contains(#""id": "MC2003""#))
        #expect(sarif.contains(#""ruleId": "MC2003""#))
        #expect(sarif.contains(#""level": "warning""#))
        #expect(sarif.contains(#""startLine": 3"#))
        #expect(sarif.contains(#""startColumn": 2"#))
        #expect(sarif.contains(#""uri": "app/bad-port.plist""#))
        #expect(sarif.contains(#""relatedLocations""#))
        #expect(sarif.contains(#""fullyQualifiedName": "Port""#))
        #expect(sarif.contains(#""version": "9.9.9""#))
    }

    @Test func githubEscapesDataAndProperties() {
        let diagnostic = Diagnostic(
            Self.typeMismatch, severity: .warning, message: "100% wrong\nsecond line",
            location: SourceLocation(file: "a,b:c.plist", line: 4, column: 9), hint: "fix it")
        #expect(
            GitHubRenderer().render(diagnostic)
                == "::warning file=a%2Cb%3Ac.plist,line=4,col=9,title=MC2003 type-mismatch::100%25 wrong%0Asecond line%0Ahint: fix it"
        )
        let info = Diagnostic(Self.typeMismatch, severity: .info, message: "m")
        #expect(GitHubRenderer().render(info) == "::notice title=MC2003 type-mismatch::m")
    }

    @Test(arguments: [
        ([KeyPath.Component.key("Accounts"), .index(2), .key("Server")], "Accounts[2].Server"),
        ([.index(0), .index(1)], "[0][1]"),
        ([.key("PayloadContent"), .key("com.apple.app.lock")], "PayloadContent[\"com.apple.app.lock\"]"),
        ([.key("Key\n")], "[\"Key\\n\"]"),
        ([.key("")], "[\"\"]"),
        ([.key("a\"b")], "[\"a\\\"b\"]"),
    ])
    func keyPathsAreWrittenUnambiguously(_ components: [KeyPath.Component], _ expected: String) {
        #expect(KeyPath(components).description == expected)
    }

    @Test func jsonEscapesControlCharacters() {
        #expect(JSONValue.string("a\"\\\n\u{1}é").serialized(pretty: false) == #""a\"\\\n\u0001é""#)
    }

    /// Every character that needs an escape, and some that do not but sit near them in value (space, `!`, `#`, `[`,
    /// `]`, DEL, non-ASCII), at every position of strings of 0 to 20 bytes of plain letters, is written as a
    /// byte-by-byte reference escaper writes it (the escaper copies the runs between escapes at once).
    @Test(arguments: ["\u{0}", "\u{1}", "\t", "\n", "\u{1F}", " ", "!", "\"", "#", "[", "\\", "]", "\u{7F}", "é", "😀"])
    func jsonEscapesAtEveryPosition(_ special: String) {
        func reference(_ text: String) -> String {
            var out = "\""
            for byte in text.utf8 {
                switch byte {
                case 0x22: out += "\\\""
                case 0x5C: out += "\\\\"
                case 0x0A: out += "\\n"
                case 0x0D: out += "\\r"
                case 0x09: out += "\\t"
                case 0x08: out += "\\b"
                case 0x0C: out += "\\f"
                case ..<0x20: out += "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
                default: out.unicodeScalars.append(Unicode.Scalar(byte))
                }
            }
            return out + "\""
        }
        for length in 0...20 {
            let letters = String(repeating: "a", count: length)
            #expect(JSONValue.string(letters).serialized(pretty: false) == reference(letters))
            for position in 0...length {
                let text = String(letters.prefix(position)) + special + String(letters.dropFirst(position))
                // Multi-byte characters compare as text: the reference is for the ASCII ones.
                let expected = special.utf8.count == 1 ? reference(text) : "\"" + text + "\""
                #expect(JSONValue.string(text).serialized(pretty: false) == expected, "\(length) \(position)")
            }
        }
    }
}

struct LongLineExcerptTests {
    /// A one-line input of megabytes is quoted around the column: the caret under the right character and
    /// ellipses on both sides, whatever the line's length.
    @Test(arguments: [10, 5_000_000])
    func excerptOfAVeryLongLine(_ column: Int) {
        let line = String(repeating: "a", count: column - 1) + "é" + String(repeating: "b", count: 5_000_000)
        let (shown, caret) = TextRenderer.window(of: line, column: column)
        #expect(shown.count <= TextRenderer.excerptWidth + 2)
        #expect(Array(shown)[caret - 1] == "é")
        #expect(shown.hasSuffix("…"))
        #expect(shown.hasPrefix("…") == (column > TextRenderer.excerptWidth))
    }
}
