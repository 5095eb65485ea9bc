import ConfigSchema
import Foundation
import MDMDiagnostics
import PropertyList
import Testing

/// Apple's device-management YAML into the schema model: every file of the corpus copy of `apple/device-management`,
/// what the importer makes of real keys, how `supportedOS` is inherited, and the lint findings of a broken file.
@Suite(
    .enabled(
        if: FileManager.default.fileExists(atPath: Support.corpus.appendingPathComponent("apple-device-management").path),
        "corpus not found beside the project"))
struct AppleSchemaTests {
    static let repository = Support.corpus.appendingPathComponent("apple-device-management")
    static let fixtures = Support.packageRoot.appendingPathComponent("Tests/ConfigSchemaTests/AppleFixtures")

    static func load(_ relative: String, in folder: URL = repository) throws -> SchemaLoad {
        let path = folder.appendingPathComponent(relative).path
        let bytes = try Support.bytes(path)
        #expect(AppleSchemaImporter.recognizes(bytes), "\(relative)")
        return SchemaLoader().load(bytes, path: path)
    }

    static func key(_ schema: ConfigSchema, _ path: String) -> KeySpec? {
        var spec: KeySpec? = schema.root
        for name in path.split(separator: ".") {
            spec = spec?.child(String(name)) ?? spec?.items.first?.child(String(name))
        }
        return spec
    }

    /// Every YAML file of the repository (docs aside) imports as a schema of its kind with no finding at all.
    @Test func everyFileImportsWithoutAFinding() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.repository.path)
            .filter { $0.hasSuffix(".yaml") && !$0.hasPrefix("docs/") }.sorted()
        var kinds: [AppleSchemaKind: Int] = [:]
        var ids: Set<String> = []
        for file in files {
            let load = try Self.load(file)
            #expect(load.diagnostics.isEmpty, "\(file): \(load.diagnostics.map(\.message).prefix(3))")
            guard let schema = load.usableSchema, let apple = schema.apple else {
                Issue.record("\(file): no schema")
                continue
            }
            #expect(schema.format == .apple)
            kinds[apple.kind, default: 0] += 1
            if apple.kind == .profile || apple.kind == .declaration { ids.insert(schema.id) }
        }
        #expect(files.count == 302)
        #expect(
            kinds == [
                .profile: 133, .declaration: 40, .statusItem: 44, .command: 77, .credential: 4, .errorResponse: 4,
            ], "\(kinds)")
        #expect(ids.contains("com.apple.wifi.managed") && ids.contains("com.apple.configuration.app.managed"))
    }

    /// `schema show` of Apple's schemas has a column per platform: the version that introduced a key, `S` for
    /// supervised only, `-` where it does not exist.
    @Test func platformColumns() throws {
        let schema = try #require(try Self.load("mdm/profiles/com.apple.applicationaccess.yaml").usableSchema)
        let table = SchemaTable(schema)
        let rows = table.rows
        let platforms = table.platformRows
        #expect(platforms.count == rows.count)
        let airDrop = try #require(rows.firstIndex { $0[0] == "allowAirDrop" })
        #expect(platforms[airDrop] == ["7.0 S", "10.13", "-", "2.0 S", "-"], "\(platforms[airDrop])")
        let text = table.render()
        #expect(text.contains("IOS") && text.contains("WATCHOS"))
        #expect(SchemaTable(try #require(Support.specfile(
            "<managedAppConfiguration><version>1</version><bundleId>a.b</bundleId><dict><string keyName=\"K\"/></dict></managedAppConfiguration>"
        ).usableSchema)).platformRows.isEmpty)
    }

    /// Real keys, as Apple wrote them.
    @Test func realKeys() throws {
        let wifi = try #require(try Self.load("mdm/profiles/com.apple.wifi.managed.yaml").usableSchema)
        let proxy = try #require(Self.key(wifi, "ProxyType"))
        #expect(proxy.types == [.string] && proxy.defaultValue == .string("None"))
        #expect(proxy.allowedValues?.map(\.value) == [.string("None"), .string("Manual"), .string("Auto")])
        #expect(wifi.apple?.availability.platforms == ["iOS", "macOS", "tvOS", "visionOS", "watchOS"])

        // allowSafari names iOS without `introduced`: the version comes from the payload, supervision and user
        // enrollment from the key; every other platform is n/a.
        let restrictions = try #require(try Self.load("mdm/profiles/com.apple.applicationaccess.yaml").usableSchema)
        let safari = try #require(Self.key(restrictions, "allowSafari"))
        let payloadIOS = restrictions.apple?.availability.introduced["ios"]
        #expect(payloadIOS != nil && safari.availability.introduced["ios"] == payloadIOS)
        #expect(safari.availability.rules["ios"]?.supervised == true)
        #expect(safari.availability.rules["ios"]?.userEnrollment == .forbidden)
        #expect(safari.availability.platforms == ["iOS"])
        #expect(safari.availability.unsupported == ["macos", "tvos", "visionos", "watchos"])
        #expect(safari.defaultValue == .boolean(true))

        // An application's helper applications repeat the application: the alias inside its own anchor.
        let parental = try #require(try Self.load("mdm/profiles/com.apple.applicationaccess.new.yaml").usableSchema)
        let recursive = Self.allKeys(parental.root).filter { $0.apple?.recursive == true }.map(\.name)
        #expect(recursive.contains("subApps"), "\(recursive)")

        // The Settings command's list holds items of 19 shapes; an MDM error response is named by its code.
        let settings = try #require(try Self.load("mdm/commands/settings.yaml").usableSchema)
        #expect(settings.apple?.kind == .command)
        #expect(Self.key(settings, "Settings")?.apple?.itemAlternatives.count == 19)
        let failed = try #require(try Self.load("mdm/errors/well-known.failed.yaml").usableSchema)
        #expect(failed.apple?.kind == .errorResponse && failed.id == "com.apple.well-known.failed")

        let passcode = try #require(
            try Self.load("declarative/declarations/configurations/passcode.settings.yaml").usableSchema)
        #expect(passcode.apple?.kind == .declaration && passcode.id == "com.apple.configuration.passcode.settings")
        #expect(passcode.apple?.relatedStatusItems == ["passcode.is-compliant", "passcode.is-present"])
        #expect(Self.key(passcode, "MinimumLength")?.apple?.combineType == "number-max")
    }

    static func allKeys(_ spec: KeySpec) -> [KeySpec] {
        let nested = (spec.children ?? []) + spec.items + spec.additionalValue
        return nested + nested.flatMap(allKeys)
    }

    /// A key inherits the payload's support and overrides only what it names; ANY, arrays, repetition, range.
    @Test func inheritanceAndStructure() throws {
        let load = try Self.load("inheritance.yaml", in: Self.fixtures)
        #expect(load.diagnostics.isEmpty, "\(load.diagnostics)")
        let schema = try #require(load.usableSchema)
        let payload = try #require(schema.apple?.availability)
        #expect(payload.platforms == ["iOS", "macOS"] && payload.unsupported == ["tvos"])

        let plain = try #require(Self.key(schema, "Plain"))
        #expect(plain.required && plain.availability.introduced == ["ios": "16.0", "macos": "13.0"])
        #expect(plain.availability.rules["ios"]?.userEnrollment == .allowed)

        let supervised = try #require(Self.key(schema, "SupervisedOnly"))
        #expect(supervised.availability.introduced == ["ios": "17.0", "macos": "13.0"])
        #expect(supervised.availability.rules["ios"]?.supervised == true)
        #expect(supervised.availability.rules["ios"]?.userEnrollment == .forbidden)

        let gone = try #require(Self.key(schema, "MacGone"))
        #expect(gone.availability.deprecated == ["macos": "14.0"] && gone.availability.removedIn == ["macos": "15.0"])
        #expect(gone.minimum == .number(1) && gone.maximum == .number(60))

        let folder = try #require(Self.key(schema, "Folder"))
        #expect(folder.children?.isEmpty == true && folder.additionalValue.first?.types == [.string])

        let servers = try #require(Self.key(schema, "Servers"))
        #expect(servers.minCount == 1 && servers.maxCount == 3)
        #expect(servers.items.first?.types == [.string] && servers.items.first?.apple?.valueType == "hostname")
    }

    struct Defect: Sendable, CustomTestStringConvertible {
        var code: DiagnosticCode
        var severity: Severity
        var line: Int
        var testDescription: String { "\(code.code) at line \(line)" }
    }

    /// Each rule of the format, broken once, found at its line.
    @Test func defectsAreFoundAtTheirLines() throws {
        let load = try Self.load("defects.yaml", in: Self.fixtures)
        let found = load.diagnostics.map { "\($0.code.code) \($0.severity) \($0.line ?? 0)" }
        let expected: [Defect] = [
            Defect(code: SchemaCode.unknownAppleField, severity: .warning, line: 5),
            Defect(code: SchemaCode.invalidAppleValue, severity: .error, line: 10),
            Defect(code: SchemaCode.unknownAppleField, severity: .warning, line: 14),
            Defect(code: SchemaCode.invalidAppleValue, severity: .error, line: 16),
            Defect(code: SchemaCode.invalidAppleValue, severity: .error, line: 19),
            Defect(code: SchemaCode.minGreaterThanMax, severity: .error, line: 23),
            Defect(code: SchemaCode.defaultViolatesConstraint, severity: .error, line: 30),
            Defect(code: SchemaCode.invalidPattern, severity: .error, line: 33),
            Defect(code: SchemaCode.duplicateKeyName, severity: .error, line: 36),
            Defect(code: SchemaCode.invalidAppleValue, severity: .error, line: 40),
        ]
        #expect(found == expected.map { "\($0.code.code) \($0.severity) \($0.line)" })
        // A format that does not compile makes the schema unusable, as for the other formats.
        #expect(load.usableSchema == nil && load.schema != nil)

        let broken = try Self.load("syntax.yaml", in: Self.fixtures)
        #expect(broken.diagnostics.map(\.code.code) == [SchemaCode.yamlSyntax.code])
        #expect(broken.diagnostics.first?.line == 7 && broken.usableSchema == nil)
    }

    /// A bare Wi-Fi payload checked against Apple's schema for one platform: a value outside the rangelist, and a
    /// key that Apple marks n/a on visionOS and removed from iOS in 8.0, each at its line.
    @Test func aPayloadCheckedForAPlatform() throws {
        let schema = try #require(try Self.load("mdm/profiles/com.apple.wifi.managed.yaml").usableSchema)
        let plist = """
            <plist version="1.0"><dict>
            <key>SSID_STR</key><string>Corp</string>
            <key>ProxyType</key><string>Sometimes</string>
            <key>EAPClientConfiguration</key><dict>
            <key>AcceptEAPTypes</key><array><integer>13</integer></array>
            <key>TLSAllowTrustExceptions</key><true/>
            </dict>
            </dict></plist>
            """
        let document = PropertyListReader().read(Array(plist.utf8), file: "wifi.plist")
        func codes(_ platform: String, _ version: String) -> [String] {
            Validator.validate(
                document, against: schema, options: ValidationOptions(platform: platform, osVersion: version)
            ).map { "\($0.code.code) \($0.line ?? 0)" }
        }
        #expect(codes("visionOS", "1.0") == ["MC2005 3", "MC2031 6"])
        // Apple removed the key from iOS in 8.0: fine on iOS 7, unavailable on iOS 17.
        #expect(codes("iOS", "7.0") == ["MC2005 3"])
        #expect(codes("iOS", "17.0") == ["MC2005 3", "MC2031 6"])
    }

    /// Other files are not taken for Apple's YAML.
    @Test func recognition() {
        #expect(!AppleSchemaImporter.recognizes(Array("<?xml version=\"1.0\"?><plist/>".utf8)))
        #expect(!AppleSchemaImporter.recognizes(Array("{\"payload\": 1}".utf8)))
        #expect(!AppleSchemaImporter.recognizes(Array("title: x\nkeys: []\n".utf8)))
        #expect(AppleSchemaImporter.recognizes(Array("# c\ntitle: x\npayload:\n  payloadtype: a\n".utf8)))
    }
}
