import Foundation
import MDMDiagnostics
import PropertyList
import TestScratch
import Testing

/// Hostile and broken input: each ends with a clear finding, never a crash, a hang or leaked file contents.
/// (Speed is measured by the benchmark harness, not asserted here.)
struct HostileInputTests {
    static func temporaryFile(_ name: String, contents: [UInt8]) throws -> String {
        let folder = Scratch.url("mdmconf-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try Data(contents).write(to: url)
        return url.path
    }

    @Test func billionLaughsIsRefusedAtTheFirstDeclaration() throws {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY lol0 \"lol\">\n"
        for level in 1...9 {
            text += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n"
        }
        text += "]>\n<plist><string>&lol9;</string></plist>"
        let document = PropertyListReader().read(Array(text.utf8), file: "bomb.plist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.entityDeclaration])
        #expect(document.diagnostics.first?.line == 3)
        #expect(document.root == nil)
    }

    @Test(arguments: [
        "<!DOCTYPE plist [ <!ENTITY xxe SYSTEM \"file://SECRET\"> ]>\n<plist><string>&xxe;</string></plist>",
        "<!DOCTYPE plist [ <!ENTITY % xxe SYSTEM \"file://SECRET\"> %xxe; ]>\n<plist><string>x</string></plist>",
        "<!DOCTYPE plist SYSTEM \"file://SECRET\">\n<plist><string>&secret;</string></plist>",
    ])
    func externalEntitiesNeverReadTheFile(_ template: String) throws {
        let secret = "TOP-SECRET-\(UUID().uuidString)"
        let secretPath = try Self.temporaryFile("secret.txt", contents: Array(secret.utf8))
        let text = "<?xml version=\"1.0\"?>\n" + template.replacingOccurrences(of: "SECRET", with: secretPath)
        let document = PropertyListReader().read(Array(text.utf8), file: "xxe.plist")
        #expect(document.hasErrors)
        let report = DiagnosticReport(files: [FileReport(path: "xxe.plist", diagnostics: document.diagnostics)])
        for format in ReportFormat.allCases {
            let rendered = report.rendered(
                as: format, options: RenderOptions(sources: ["xxe.plist": SourceText(Array(text.utf8))]))
            #expect(!rendered.contains(secret), "\(format) output leaked the file")
        }
        if let root = document.root { #expect(!PlistWriter.json(root.value).contains(secret)) }
    }

    @Test func hundredThousandDeepNestingStopsAtTheDepthLimit() throws {
        let depth = 100_000
        let text =
            "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            + "</plist>"
        let document = PropertyListReader().read(Array(text.utf8), file: "deep.plist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.nestingTooDeep])
        #expect(document.root == nil)
    }

    @Test func deeplyNestedJSONAndBinaryStopToo() {
        let json = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(
            PropertyListReader().read(Array(json.utf8), file: "deep.json").diagnostics.map(\.code) == [
                PlistCode.nestingTooDeep
            ])
    }

    @Test func fileOverTheSizeLimitIsNotRead() throws {
        // A sparse 200 MB file: the size is refused from the file system before anything is read.
        let path = try Self.temporaryFile("huge.plist", contents: Array("<plist><string>".utf8))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 200 * 1024 * 1024)
        try handle.close()
        let (document, source) = try PropertyListReader().readFile(path)
        #expect(document.diagnostics.map(\.code) == [PlistCode.fileTooLarge])
        #expect(document.diagnostics.first?.message.contains("209715200") == true)
        #expect(source.isEmpty)
    }

    @Test func inMemoryInputOverTheLimitIsRefused() {
        var options = PlistReaderOptions()
        options.maxInputSize = 100
        let text = "<plist><string>" + String(repeating: "x", count: 200) + "</string></plist>"
        let document = PropertyListReader(options: options).read(Array(text.utf8), file: "big.plist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.fileTooLarge])
    }

    @Test func textNodeOverTenMegabytesIsALimitError() throws {
        // An 8 MB <data> blob is about 10.7 MB of base64: libxml2's own text limit without XML_PARSE_HUGE.
        let blob = String(repeating: "QUJD", count: 2_700_000)
        let text = "<plist><dict><key>Blob</key><data>\(blob)</data></dict></plist>"
        let document = PropertyListReader().read(Array(text.utf8), file: "blob.plist")
        let diagnostic = try #require(document.diagnostics.first)
        #expect(document.diagnostics.count == 1)
        #expect(diagnostic.code == PlistCode.textTooLarge)
        #expect(diagnostic.keyPath == "Blob")
        #expect(diagnostic.line == 1 && diagnostic.column == 29)
    }

    @Test func nodeLimitStopsTheParse() {
        var options = PlistReaderOptions()
        options.maxNodes = 1_000
        let text = "<plist><array>" + String(repeating: "<true/>", count: 5_000) + "</array></plist>"
        let document = PropertyListReader(options: options).read(Array(text.utf8), file: "wide.plist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.tooManyNodes])
    }

    @Test(arguments: [
        ("<plist><dict><key>A</key><string>b", 1),
        ("<plist><dict><key>A</key><str", 1),
        ("<?xml version=\"1.0\"", 1),
        ("<plist><dict><key>A</key><string>b</string></dict></plist><extra/>", 1),
        ("<plist><dict></plist>", 1),
    ])
    func truncatedOrBrokenXMLIsNotWellFormed(_ text: String, _ expected: Int) {
        let document = PropertyListReader().read(Array(text.utf8), file: "broken.plist")
        let findings = document.diagnostics.filter { $0.code == PlistCode.notWellFormed }
        #expect(findings.count == expected, "\(document.diagnostics.map(\.message))")
        #expect(findings.allSatisfy { $0.line != nil && $0.column != nil })
    }

    @Test func invalidUTF8IsReportedOnce() {
        var bytes = Array("<plist><array><string>ok</string><string>".utf8)
        bytes += [0xC3, 0x28, 0xFF, 0xFE]
        bytes += Array("</string><string>\u{FF}</string></array></plist>".utf8)
        let document = PropertyListReader().read(bytes, file: "bad.plist")
        #expect(document.diagnostics.map(\.code) == [PlistCode.invalidEncoding])
        #expect(document.diagnostics.first?.column == 42)
    }

    @Test func nulBytesAreNotWellFormed() {
        let bytes = Array("<plist><string>a".utf8) + [0] + Array("b</string></plist>".utf8)
        let document = PropertyListReader().read(bytes, file: "nul.plist")
        #expect(document.hasErrors)
    }
}
