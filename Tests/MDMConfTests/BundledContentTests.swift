import Foundation
import MDMConf
import MDMDiagnostics
import Testing

/// Every file under `Examples/` and `Schemas/` is checked, so they never rot. A file that should have
/// findings says which in a comment: `<!-- expect: MC1013 MC1014 -->`; every other file must be clean.
struct BundledContentTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let files: [String] = {
        var found: [String] = []
        for folder in ["Examples", "Schemas"] {
            let root = packageRoot.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let relative as String in walker {
                let name = (relative as NSString).lastPathComponent
                var isFolder: ObjCBool = false
                let path = root.appendingPathComponent(relative).path
                guard !name.hasPrefix("."), FileManager.default.fileExists(atPath: path, isDirectory: &isFolder),
                    !isFolder.boolValue
                else { continue }
                found.append("\(folder)/\(relative)")
            }
        }
        return found.sorted()
    }()

    @Test func bundledFoldersHaveContent() {
        #expect(Self.files.filter { $0.hasPrefix("Examples/") }.count >= 8)
    }

    @Test(arguments: files)
    func bundledFileHasExactlyTheExpectedFindings(_ relative: String) throws {
        let path = Self.packageRoot.appendingPathComponent(relative).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let expected = Self.expectedCodes(in: text)
        let result = Linter().lint(path)
        #expect(!result.unreadable)
        let found = result.report.diagnostics.filter { $0.severity != .info }.map(\.code.code)
        #expect(found == expected, "\(relative): \(result.report.diagnostics.map { "\($0.code.code) \($0.message)" })")
        for diagnostic in result.report.diagnostics {
            #expect(
                diagnostic.line != nil && diagnostic.column != nil, "\(relative): \(diagnostic.message) has no position"
            )
        }
    }

    static func expectedCodes(in text: String) -> [String] {
        guard let start = text.range(of: "<!-- expect:"),
            let end = text.range(of: "-->", range: start.upperBound..<text.endIndex)
        else { return [] }
        return text[start.upperBound..<end.lowerBound].split(separator: " ").map(String.init)
    }
}
