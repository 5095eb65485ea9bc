@testable import ConfigSchema
import Foundation
import MDMDiagnostics
import PropertyList
import TestScratch
import Testing

private let fixtures = Support.packageRoot.appendingPathComponent("Tests/ConfigSchemaTests/AndroidFixtures/res/xml")
private let example = Support.packageRoot.appendingPathComponent(
    "Examples/android/app/src/main/res/xml/app_restrictions.xml")

private func load(_ path: String, resources: String? = nil) throws -> SchemaLoad {
    let bytes = try Support.bytes(path)
    #expect(AndroidRestrictionsImporter.recognizes(bytes), "\(path)")
    return SchemaLoader(androidResources: resources).load(bytes, path: path)
}

private func key(_ schema: ConfigSchema, _ path: String) -> KeySpec? {
    var spec: KeySpec? = schema.root
    for name in path.split(separator: ".") {
        spec = spec?.child(String(name)) ?? spec?.items.first?.child(String(name))
    }
    return spec
}

/// Android's `app_restrictions.xml` into the schema model: one fixture per lint rule, failing and then passing, the
/// mapping of each restriction type, resources and their translations, and Google Play's managed properties JSON.
struct AndroidRestrictionsTests {
    /// Each rule's fixture `bad-NAME.xml` gives exactly its finding, at the restriction's line and column; `good-NAME.xml`, the
    /// same file mended, gives none.
    @Test(arguments: [
        ("missing-key", SchemaCode.missingRestrictionAttribute, 3, 5),
        ("missing-title", SchemaCode.missingRestrictionAttribute, 3, 5),
        ("missing-type", SchemaCode.missingRestrictionAttribute, 3, 5),
        ("unknown-type", SchemaCode.unknownRestrictionType, 3, 5),
        ("duplicate-key", SchemaCode.duplicateRestrictionKey, 5, 9),
        ("key-is-reference", SchemaCode.keyIsReference, 3, 5),
        ("missing-entries", SchemaCode.missingEntries, 3, 5),
        ("hidden-without-default", SchemaCode.hiddenWithoutDefault, 3, 5),
        ("integer-default", SchemaCode.invalidIntegerDefault, 3, 5),
        ("unexpected-nesting", SchemaCode.unexpectedNesting, 3, 5),
        ("container-default", SchemaCode.containerDefault, 3, 5),
        ("bundle-array-shape", SchemaCode.bundleArrayShape, 3, 5),
        ("empty-bundle", SchemaCode.emptyBundle, 3, 5),
        ("too-deep", SchemaCode.restrictionsTooDeep, 23, 85),
        ("too-many", SchemaCode.tooManyRestrictions, 1003, 5),
        ("unexpected-element", SchemaCode.unexpectedElement, 4, 5),
        ("entries-length", SchemaCode.entriesLengthMismatch, 3, 5),
        ("choice-default", SchemaCode.defaultNotAChoice, 3, 5),
        ("multi-select-default", SchemaCode.defaultNotASubset, 3, 5),
        ("duplicate-entry-value", SchemaCode.duplicateEntryValue, 3, 5),
        ("bool-default", SchemaCode.invalidBoolDefault, 3, 5),
        ("missing-description", SchemaCode.missingRestrictionDescription, 3, 5),
        ("unresolved-resource", SchemaCode.unresolvedResource, 3, 5),
    ])
    func eachLintRuleFailsThenPasses(name: String, code: DiagnosticCode, line: Int, column: Int) throws {
        let bad = try load(fixtures.appendingPathComponent("bad-\(name).xml").path)
        #expect(bad.diagnostics.map(\.code) == [code], "\(name): \(bad.diagnostics.map(\.message))")
        #expect(bad.diagnostics.first?.line == line && bad.diagnostics.first?.column == column, "\(name)")
        #expect(bad.diagnostics.first?.hint != nil, "\(name): no hint")
        let good = try load(fixtures.appendingPathComponent("good-\(name).xml").path)
        #expect(good.diagnostics.isEmpty, "\(name): \(good.diagnostics.map(\.message))")
        #expect(good.usableSchema?.format == .android)
    }

    /// Every restriction type maps as Android's types do: the example app, read inside its own `res/` tree.
    @Test func theExampleAppMapsEveryType() throws {
        let loaded = try load(example.path)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.message))")
        let schema = try #require(loaded.usableSchema)
        #expect(schema.id == "com.example.fieldsync", "the package comes from AndroidManifest.xml")
        let accounts = try #require(key(schema, "accounts"))
        #expect(accounts.types == [.array] && accounts.items.first?.types == [.dictionary])
        #expect(accounts.android?.bundleKey == "account")
        #expect(key(schema, "accounts.port")?.maximum == .number(2_147_483_647))
        #expect(key(schema, "accounts.port")?.defaultValue == .integer(443))
        #expect(key(schema, "accounts.use_ssl")?.defaultValue == .boolean(true))
        let level = try #require(key(schema, "log_level"))
        #expect(level.types == [.string] && level.allowedValues?.map(\.value) == ["error", "warning", "info", "debug"])
        #expect(level.allowedValues?.first?.title == "Errors only")
        let scopes = try #require(key(schema, "sync_scopes"))
        #expect(scopes.types == [.array] && scopes.items.first?.allowedValues?.count == 3)
        #expect(scopes.items.first?.allowedValues?.map(\.title) == ["Contacts", "Calendar", "Files"])
        #expect(scopes.defaultValue == ["contacts", "calendar"])
        #expect(key(schema, "config_schema")?.android?.restrictionType == .hidden)
        #expect(key(schema, "config_schema")?.defaultValue == "2")
        // Titles and descriptions from res/values, their French from res/values-fr.
        #expect(accounts.title == "Accounts")
        #expect(accounts.android?.localizedTitles == ["fr": "Comptes"])
        #expect(accounts.android?.localizedDescriptions["fr"]?.hasPrefix("Les serveurs de synchronisation auxquels l'app") == true)
        #expect(key(schema, "device_tag")?.android?.localizedTitles["fr"] == "Étiquette de l'appareil")
    }

    /// Outside an app tree the references stay as written (one note says so), or `--res` resolves them.
    @Test func referencesOutsideAResTree() throws {
        let copy = Scratch.url("android-\(getpid()).xml")
        try FileManager.default.copyItem(at: example, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let bare = try load(copy.path)
        #expect(bare.diagnostics.map(\.code) == [SchemaCode.unresolvedResource])
        #expect(bare.diagnostics.first?.severity == .info)
        #expect(key(try #require(bare.usableSchema), "log_level")?.allowedValues == nil)
        #expect(key(try #require(bare.usableSchema), "log_level")?.title == "@string/log_level_title")
        let res = example.deletingLastPathComponent().deletingLastPathComponent().path
        let resolved = try load(copy.path, resources: res)
        #expect(resolved.diagnostics.isEmpty)
        #expect(key(try #require(resolved.usableSchema), "log_level")?.allowedValues?.count == 4)
    }

    /// The two app_restrictions.xml files of the corpus import; Bayton's covers every restriction type.
    @Test func corpusFiles() throws {
        let bayton = try load(
            Support.corpusFile("manifests/android_baytonorg_org.bayton.tools.managedconfig_app_restrictions.xml"))
        let schema = try #require(bayton.usableSchema)
        #expect(!bayton.diagnostics.contains { $0.severity == .error })
        #expect(schema.keys.map(\.name).count == 8)
        #expect(Set(schema.keys.compactMap(\.android?.restrictionType)).count == 8)
        #expect(key(schema, "my_bundle_array_key.my_choice_key_in_bundle_array")?.types == [.string])
        let bitwarden = try load(Support.corpusFile("manifests/android_bitwarden_android_app_restrictions.xml"))
        #expect(bitwarden.usableSchema?.keys.first?.defaultValue == nil, "@null is no default")
    }

    /// Resource text as Android reads it.
    @Test(arguments: [
        ("plain", "plain"), ("  two   words \n", "two words"), ("\"  kept   spaces \"", "  kept   spaces "),
        ("It\\'s", "It's"), ("a\\nb", "a\nb"), ("\\u00e9t\\u00e9", "été"), ("\\@home", "@home"),
    ])
    func resourceText(raw: String, read: String) {
        #expect(AndroidResources.unescape(raw) == read)
    }

    @Test(arguments: [
        ("values", ""), ("values-fr", "fr"), ("values-fr-rCA", "fr-CA"), ("values-b+sr+Latn", "sr-Latn"),
        ("values-mcc310-es", "es"),
    ])
    func localeFolders(folder: String, locale: String) {
        #expect(AndroidResources.locale(ofFolder: folder) == locale)
    }

    @Test(arguments: ["values-night", "values-v21", "values-land", "values-sw600dp"])
    func foldersWithoutALanguage(folder: String) {
        #expect(AndroidResources.locale(ofFolder: folder) == nil)
    }

    /// `schema convert --to managed-properties` and back: the same keys, types, choices and defaults.
    @Test func managedPropertiesRoundTrip() throws {
        let schema = try #require(try load(example.path).usableSchema)
        let (json, skipped) = ManagedPropertiesWriter.json(schema)
        #expect(skipped.isEmpty)
        let document = JSONPlistReader().read(Array(json.utf8), file: "com.example.fieldsync.json")
        #expect(ManagedPropertiesImporter.recognizes(document))
        let back = ManagedPropertiesImporter().load(document)
        #expect(back.diagnostics.isEmpty, "\(back.diagnostics.map(\.message))")
        let read = try #require(back.usableSchema)
        #expect(read.id == "com.example.fieldsync")
        func shape(_ spec: KeySpec) -> String {
            let allowed = (spec.allowedValues ?? spec.items.first?.allowedValues ?? []).map { "\($0.value)=\($0.title ?? "")" }
            let inner = (spec.children ?? spec.items.first?.children ?? []).map(shape)
            let value = spec.defaultValue.map { PlistWriter.json($0, pretty: false) } ?? "-"
            return "\(spec.name):\(spec.android?.restrictionType.rawValue ?? "?"):\(spec.types):\(value):\(allowed):\(spec.title ?? ""):\(inner)"
        }
        #expect(read.keys.map(shape) == schema.keys.map(shape))
        // An AMAPI Application object names the package.
        let application = "{\"name\": \"enterprises/E1/applications/com.example.notes\", \"managedProperties\": \(json)}"
        let app = ManagedPropertiesImporter().load(JSONPlistReader().read(Array(application.utf8), file: "app.json"))
        #expect(app.usableSchema?.id == "com.example.notes")
    }

    /// Managed properties with mistakes: each named at its line.
    @Test func managedPropertiesFindings() throws {
        let text = """
            [
              {"key": "a", "type": "TEXT"},
              {"key": "b", "type": "INTEGER", "defaultValue": "three"},
              {"key": "c", "type": "BOOL", "hint": "x"}
            ]
            """
        let load = ManagedPropertiesImporter().load(JSONPlistReader().read(Array(text.utf8), file: "p.json"))
        #expect(load.diagnostics.map(\.code.code) == ["MC3051", "MC3005", "MC3051"])
        #expect(load.diagnostics.map(\.line) == [2, 3, 4])
        #expect(load.usableSchema?.keys.map(\.name) == ["b", "c"])
    }

    /// A specfile's keys convert too, where Android has a type for them.
    @Test func aSpecfileConverts() throws {
        let schema = try #require(
            Support.specfile(
                """
                <managedAppConfiguration><version>1</version><bundleId>com.example.app</bundleId><dict>
                <string keyName="Mode"><constraint><values><value>a</value><value>b</value></values></constraint></string>
                <float keyName="Ratio"/><integer keyName="Port"/></dict></managedAppConfiguration>
                """
            ).usableSchema)
        let (json, skipped) = ManagedPropertiesWriter.json(schema)
        #expect(skipped.map(\.keyPath) == ["Ratio"])
        #expect(json.contains("\"type\": \"CHOICE\"") && json.contains("\"type\": \"INTEGER\""))
    }
}
