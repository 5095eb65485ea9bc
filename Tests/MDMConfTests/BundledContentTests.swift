import ConfigSchema
import Foundation
import MDMConf
import MDMDiagnostics
import PropertyList
import Testing

/// Every file under `Examples/` and `Schemas/` is checked, so none can rot. A file that should have findings
/// says which in a comment (`expect: MC2003 MC2004`); every other file must have none (infos aside).
/// Configurations in a `configs/` folder are validated against the `schema.*` beside that folder; schemas and
/// other plists are linted.
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
        #expect(Self.files.filter { $0.contains("/configs/") }.count >= 15)
        #expect(Self.files.contains("Schemas/appconfig-specfile.xsd"))
    }

    @Test(arguments: files.filter { !$0.hasSuffix(".xsd") && !$0.hasSuffix(".md") })
    func bundledFileHasExactlyTheExpectedFindings(_ relative: String) throws {
        let path = Self.packageRoot.appendingPathComponent(relative).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let result: CheckedFile
        if relative.contains("/configs/") {
            let folder = (relative as NSString).deletingLastPathComponent.replacingOccurrences(of: "/configs", with: "")
            let schema = try #require(
                ["schema.xml", "schema.plist"].map { Self.packageRoot.appendingPathComponent("\(folder)/\($0)").path }
                    .first { FileManager.default.fileExists(atPath: $0) })
            let outcome = ConfigValidation(schemaPath: schema, discovery: SchemaDiscovery(folders: [])).run([path])
            #expect(outcome.schemaFailure == nil)
            result = try #require(outcome.files.first)
        } else {
            result = Linter().lint(path)
        }
        #expect(!result.unreadable)
        let found = result.report.diagnostics.filter { $0.severity != .info }.map(\.code.code).sorted()
        #expect(
            found == Self.expectedCodes(in: text).sorted(),
            "\(relative): \(result.report.diagnostics.map { "\($0.code.code) \($0.message)" })")
        for diagnostic in result.report.diagnostics where diagnostic.code != SchemaCode.noSchema {
            #expect(
                diagnostic.line != nil && diagnostic.column != nil, "\(relative): \(diagnostic.message) has no position"
            )
        }
    }

    @Test func bundledXSDIsTheOneBuiltIn() throws {
        let text = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Schemas/appconfig-specfile.xsd"), encoding: .utf8)
        #expect(text == SpecfileImporter.xsd)
        // It compiles and accepts a minimal specfile.
        let minimal =
            "<managedAppConfiguration><version>1</version><bundleId>a.b</bundleId><dict><string keyName=\"k\"/></dict></managedAppConfiguration>"
        #expect(try XMLSchemaValidator(xsd: text).validate(Array(minimal.utf8)).isEmpty)
    }

    /// The codes after `expect:` in the file's first comment that has one.
    static func expectedCodes(in text: String) -> [String] {
        guard let start = text.range(of: "expect:"),
            let end = text.range(of: "-->", range: start.upperBound..<text.endIndex)
        else { return [] }
        return text[start.upperBound..<end.lowerBound].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
            .map(String.init).filter { $0.hasPrefix("MC") }
    }
}
