import ConfigSchema
import Foundation
import MDMConf
import MDMDiagnostics
import PropertyList
import TestScratch
import Testing

private let root = BundledContentTests.packageRoot
private let android = root.appendingPathComponent("Examples/android")
private let schema = android.appendingPathComponent("app/src/main/res/xml/app_restrictions.xml").path
private let fixtures = root.appendingPathComponent("Tests/MDMConfTests/AndroidFixtures")

/// `code keyPath line`, for every finding but infos.
private func findings(_ file: CheckedFile) -> [String] {
    file.report.diagnostics.filter { $0.severity != .info }.map {
        "\($0.code.code) \($0.keyPath ?? "-") \($0.line.map(String.init) ?? "?")"
    }
}

/// Android managed configurations as JSON, checked with the same validator as plists: a bare `managedConfiguration`,
/// and a whole AMAPI policy whose applications find their schemas by package name.
struct AndroidValidationTests {
    /// A wrong type, a choice outside the entryValues, a changed hidden value and an unknown key: four findings, each
    /// with its key path.
    @Test func fourMistakesInAManagedConfiguration() throws {
        let outcome = ConfigValidation(schemaPath: schema, discovery: SchemaDiscovery(folders: []))
            .run([android.appendingPathComponent("configs/four-mistakes.json").path])
        let file = try #require(outcome.files.first)
        #expect(file.report.schema?.format == "android")
        #expect(
            findings(file) == [
                "MC2003 accounts[0].port 3", "MC2005 log_level 5", "MC2061 config_schema 6",
                "MC2002 enable_telemtry 7",
            ])
        #expect(file.report.diagnostics.first?.hint == "write 443 without quotes")
    }

    /// The same keys inside an AMAPI policy are found through `packageName`, with the schema found on the search path
    /// by the package its AndroidManifest.xml names.
    @Test func theSameMistakesInAPolicy() throws {
        let outcome = ConfigValidation(discovery: SchemaDiscovery(folders: [android.path]))
            .run([android.appendingPathComponent("policy.json").path])
        let file = try #require(outcome.files.first)
        let prefix = "applications[0].managedConfiguration."
        #expect(
            findings(file) == [
                "MC2003 \(prefix)accounts[0].port 9", "MC2005 \(prefix)log_level 11",
                "MC2061 \(prefix)config_schema 12", "MC2002 \(prefix)enable_telemtry 13",
            ])
        let template = try #require(file.report.diagnostics.last)
        #expect(template.code == SchemaCode.templateNotCheckable && template.severity == .info)
        #expect(template.keyPath == "applications[1].managedConfigurationTemplate")
    }

    /// JSON's types against each restriction type: an integer beyond 32 bits, a string where a bool goes, a choice
    /// outside a multi-select, a bundle_array item that is not an object, a number for a bool, an array for a string.
    @Test func typesOfEachRestriction() throws {
        let outcome = ConfigValidation(schemaPath: schema, discovery: SchemaDiscovery(folders: []))
            .run([fixtures.appendingPathComponent("types.json").path])
        let file = try #require(outcome.files.first)
        #expect(
            findings(file) == [
                "MC2006 accounts[0].port 3", "MC2003 accounts[0].use_ssl 3", "MC2003 accounts[1] 4",
                "MC2005 sync_scopes[1] 6", "MC2003 enable_telemetry 7", "MC2003 device_tag 8",
            ])
        let hints = file.report.diagnostics.compactMap(\.hint)
        #expect(hints.contains("write true without quotes"))
        #expect(hints.contains("write the value as true or false"))
    }

    /// Policies with applications that cannot be checked say why, each at its application.
    @Test func policyApplicationsThatCannotBeChecked() throws {
        let outcome = ConfigValidation(discovery: SchemaDiscovery(folders: [android.path]))
            .run([fixtures.appendingPathComponent("policy-defects.json").path])
        let file = try #require(outcome.files.first)
        #expect(
            findings(file) == [
                "MC2063 applications[0] 3", "MC2040 applications[1].managedConfiguration 4",
                "MC2063 applications[2].managedConfiguration 5",
            ])
    }

    /// The search path finds an app_restrictions.xml by the package its manifest names, and managed properties JSON
    /// by the package its Application name ends in.
    @Test func discoveryByPackageName() throws {
        let folder = Scratch.url("android-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            """
            {"name": "enterprises/E1/applications/com.example.notes",
             "managedProperties": [{"key": "theme", "type": "CHOICE", "entries": [{"value": "dark", "name": "Dark"}]}]}
            """.utf8
        ).write(to: folder.appendingPathComponent("notes.json"))
        try Data("{\"not\": \"a schema\"}".utf8).write(to: folder.appendingPathComponent("other.json"))
        let discovery = SchemaDiscovery(folders: [android.path, folder.path])
        let candidates = discovery.candidates()
        #expect(discovery.find("com.example.fieldsync", in: candidates)?.schema.path.hasSuffix("app_restrictions.xml") == true)
        #expect(discovery.find("com.example.notes", in: candidates)?.schema.path.hasSuffix("notes.json") == true)
        #expect(candidates.count == 2, "\(candidates)")
        try Data("{\"theme\": \"light\"}".utf8).write(to: folder.appendingPathComponent("com.example.notes.json"))
        let outcome = ConfigValidation(discovery: discovery).run([folder.appendingPathComponent("com.example.notes.json").path])
        #expect(outcome.files.first.map(findings) == ["MC2005 theme 1"])
    }
}
