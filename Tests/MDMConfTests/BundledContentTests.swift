import CivilTime
import ConfigSchema
import Foundation
import MDMConf
import MDMDiagnostics
import PropertyList
import TestScratch
import Testing
import UpdatePolicy

/// Every file under `Examples/` and `Schemas/` is checked, so none can rot. A file that should have findings
/// says which in a comment (`expect: MC2003 MC2004`), or in ``jsonExpectations`` when it is JSON; every other file
/// must have none (infos aside).
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

    /// The example catalog is self-contained (a `cp -r` of it works), so its schemas and profiles are copies of the
    /// examples they come from; they must stay the same bytes.
    @Test(arguments: [
        ("Examples/catalog/apps/com.example.field/schema.xml", "Examples/app/schema.xml"),
        ("Examples/catalog/apps/com.example.fieldsync/schema.plist", "Examples/manifest/schema.plist"),
        ("Examples/catalog/profiles", "Examples/device-policy/profiles"),
    ])
    func exampleCatalogCopiesMatchTheirOriginals(_ copy: String, _ original: String) throws {
        let manager = FileManager.default
        let copyURL = Self.packageRoot.appendingPathComponent(copy)
        let originalURL = Self.packageRoot.appendingPathComponent(original)
        #expect((try? manager.destinationOfSymbolicLink(atPath: copyURL.path)) == nil, "\(copy) is a link")
        var isFolder: ObjCBool = false
        _ = manager.fileExists(atPath: originalURL.path, isDirectory: &isFolder)
        let names = isFolder.boolValue ? try manager.contentsOfDirectory(atPath: originalURL.path).sorted() : [""]
        if isFolder.boolValue { #expect(try manager.contentsOfDirectory(atPath: copyURL.path).sorted() == names) }
        for name in names {
            let a = try Data(contentsOf: name.isEmpty ? copyURL : copyURL.appendingPathComponent(name))
            let b = try Data(contentsOf: name.isEmpty ? originalURL : originalURL.appendingPathComponent(name))
            #expect(a == b, "\(copy)/\(name) differs from \(original)/\(name): copy the original again")
        }
    }

    @Test func bundledFoldersHaveContent() {
        #expect(Self.files.filter { $0.contains("/configs/") }.count >= 15)
        #expect(Self.files.contains("Schemas/appconfig-specfile.xsd"))
    }

    /// Requests are decided (below), scripts run as processes (MDMConfCLITests), the XSD has its own test, the DDM
    /// export and the generated Swift type are regenerated and compared (DDMExportTests, CodegenTests), the
    /// device-policy test table runs below, the catalog is loaded as a whole (CatalogTests), the example app is
    /// built and run against the example catalog (ExampleClientTests), the CI examples run on a git repository
    /// (CIExampleTests), the webhook receiver takes the server's deliveries (EventDeliveryTests).
    static func checkedElsewhere(_ path: String) -> Bool {
        path.hasSuffix(".xsd") || path.hasSuffix(".sh") || path.contains("/requests/") || path.hasSuffix("cases.json")
            || path.hasPrefix("Examples/catalog/") || path.hasPrefix("Examples/client/")
            || path.hasPrefix("Examples/webhook-receiver/")
            || path.hasPrefix("Examples/ci/") || path.hasPrefix("Examples/ddm/") || path.hasSuffix(".swift")
    }

    /// A `--profile` folder adds its `.mobileconfig` and `.plist` files (any case), not recursively, no dot-files,
    /// sorted by name bytes.
    @Test func profileFolderExpansion() throws {
        let folder = Scratch.url("profiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("nested"), withIntermediateDirectories: true)
        for name in [
            "b.plist", "A.MOBILECONFIG", "a.mobileconfig", ".hidden.plist", "c.xml", "nested/d.plist", "Z.Plist",
        ] {
            try Data("x".utf8).write(to: folder.appendingPathComponent(name))
        }
        let names = ProfileInputs.listing([folder.path]).map { ($0.path as NSString).lastPathComponent }
        #expect(names == ["A.MOBILECONFIG", "Z.Plist", "a.mobileconfig", "b.plist"])
        #expect(ProfileInputs.listing(["-", "x.plist"]).map(\.path) == ["-", "x.plist"])
    }

    /// The kiosk example's policy test table passes, every case.
    @Test func devicePolicyExampleTablePasses() throws {
        let path = Self.packageRoot.appendingPathComponent("Examples/device-policy/cases.json").path
        let outcomes = try PolicyTestSuite.load(path).run()
        #expect(outcomes.count >= 25)
        for outcome in outcomes { #expect(outcome.passed, "\(outcome.id): \(outcome.failures)") }
    }

    @Test(arguments: files.filter { !checkedElsewhere($0) })
    func bundledFileHasExactlyTheExpectedFindings(_ relative: String) throws {
        let path = Self.packageRoot.appendingPathComponent(relative).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let result: CheckedFile
        if relative.hasPrefix("Examples/android/") && relative.hasSuffix("policy.json") {
            // A whole AMAPI policy: each application checked against the schema its package name finds.
            let discovery = SchemaDiscovery(folders: [Self.packageRoot.appendingPathComponent("Examples/android").path])
            result = try #require(ConfigValidation(discovery: discovery).run([path]).files.first)
        } else if relative.contains("/configs/") {
            let folder = (relative as NSString).deletingLastPathComponent.replacingOccurrences(of: "/configs", with: "")
            let schema = try #require(
                ["schema.xml", "schema.plist", "app/src/main/res/xml/app_restrictions.xml"].map {
                    Self.packageRoot.appendingPathComponent("\(folder)/\($0)").path
                }
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
            found == (Self.jsonExpectations[relative] ?? Self.expectedCodes(in: text)).sorted(),
            "\(relative): \(result.report.diagnostics.map { "\($0.code.code) \($0.message)" })")
        for diagnostic in result.report.diagnostics where diagnostic.code != SchemaCode.noSchema {
            #expect(
                diagnostic.line != nil && diagnostic.column != nil, "\(relative): \(diagnostic.message) has no position"
            )
        }
    }

    /// Each example request is named by the decision it must get, from the plist and the JSON policy alike.
    @Test(arguments: files.filter { $0.contains("update-policy/requests/") })
    func exampleRequestGetsTheDecisionItsNameSays(_ relative: String) throws {
        let expected = try #require(((relative as NSString).lastPathComponent).split(separator: "-").first).description
        var decisions: [String] = []
        for policy in ["update-policy.plist", "update-policy.json"] {
            let path = Self.packageRoot.appendingPathComponent("Examples/update-policy/\(policy)").path
            let loaded = PolicyLoader().load(Array(try Data(contentsOf: URL(fileURLWithPath: path))), file: path)
            let document = try #require(loaded.document)
            let request = Array(try Data(contentsOf: Self.packageRoot.appendingPathComponent(relative)))
            let json = JSONPlistReader(nullMembersAreAbsent: true).read(request, file: relative)
            let decision: Decision
            switch UpdateRequest.parse(json.root) {
            case .success(let parsed): decision = Evaluator(document).evaluate(parsed, now: Instant(seconds: 0))
            case .failure(let errors): decision = .invalidRequest(errors, evaluatedAt: Instant(seconds: 0))
            }
            #expect(decision.decision.rawValue == expected, "\(relative) with \(policy): \(decision.reasons)")
            decisions.append(decision.json.serialized())
        }
        #expect(decisions[0] == decisions[1], "plist and JSON policies decide alike")
    }

    @Test func exampleUpdatePolicyFitsItsBundledSchema() throws {
        let schema = Self.packageRoot.appendingPathComponent("Schemas/io.mdmconf.update-policy.plist").path
        let paths = ["update-policy.plist", "update-policy.json"].map {
            Self.packageRoot.appendingPathComponent("Examples/update-policy/\($0)").path
        }
        let outcome = ConfigValidation(schemaPath: schema, discovery: SchemaDiscovery(folders: [])).run(paths)
        #expect(outcome.schemaFailure == nil)
        for file in outcome.files {
            #expect(file.report.diagnostics.isEmpty, "\(file.report.diagnostics.map(\.message))")
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
    /// What the JSON examples, which cannot hold a comment, must give.
    static let jsonExpectations: [String: [String]] = [
        "Examples/android/configs/four-mistakes.json": ["MC2003", "MC2005", "MC2061", "MC2002"],
        "Examples/android/policy.json": ["MC2003", "MC2005", "MC2061", "MC2002"],
    ]

    static func expectedCodes(in text: String) -> [String] {
        guard let start = text.range(of: "expect:"),
            let end = text.range(of: "-->", range: start.upperBound..<text.endIndex)
        else { return [] }
        return text[start.upperBound..<end.lowerBound].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
            .map(String.init).filter { $0.hasPrefix("MC") }
    }
}
