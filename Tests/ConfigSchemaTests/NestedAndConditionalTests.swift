import ConfigSchema
import MDMDiagnostics
import PropertyList
import Testing

/// ProfileManifest features: nested dictionaries and arrays, conditions, sensitive keys, availability.
struct NestedAndConditionalTests {
    static let subkeys = """
        <dict><key>pfm_name</key><string>Accounts</string><key>pfm_type</key><string>array</string>
          <key>pfm_subkeys</key><array><dict><key>pfm_type</key><string>dictionary</string><key>pfm_subkeys</key><array>
            <dict><key>pfm_name</key><string>Server</string><key>pfm_type</key><string>string</string><key>pfm_require</key><string>always</string></dict>
            <dict><key>pfm_name</key><string>Token</string><key>pfm_type</key><string>string</string><key>pfm_sensitive</key><true/>
              <key>pfm_format</key><string>^[A-F0-9]{8}$</string></dict>
          </array></dict></array></dict>
        <dict><key>pfm_name</key><string>Proxy</string><key>pfm_type</key><string>dictionary</string><key>pfm_subkeys</key><array>
          <dict><key>pfm_name</key><string>Mode</string><key>pfm_type</key><string>string</string></dict>
          <dict><key>pfm_name</key><string>Host</string><key>pfm_type</key><string>string</string>
            <key>pfm_conditionals</key><array><dict><key>pfm_target_conditions</key><array>
              <dict><key>pfm_target</key><string>Mode</string><key>pfm_range_list</key><array><string>manual</string></array></dict>
            </array></dict></array></dict>
        </array></dict>
        <dict><key>pfm_name</key><string>MenuBar</string><key>pfm_type</key><string>boolean</string>
          <key>pfm_platforms</key><array><string>macOS</string></array><key>pfm_macos_min</key><string>14.0</string></dict>
        """

    static let schema: ConfigSchema = {
        guard let schema = Support.manifest(subkeys).usableSchema else { fatalError("test manifest does not load") }
        return schema
    }()

    @Test func nestedKeyPathsNameTheArrayItem() throws {
        let config = """
            <dict><key>Accounts</key><array>
            <dict><key>Server</key><string>a</string></dict>
            <dict><key>Server</key><string>b</string></dict>
            <dict><key>Server</key><integer>3</integer></dict>
            </array></dict>
            """
        let finding = try #require(Support.validate(config, against: Self.schema).first)
        #expect(finding.code == SchemaCode.typeMismatch)
        #expect(finding.keyPath == "Accounts[2].Server")
        #expect(finding.line == 4)
    }

    @Test func conditionalRequirementAppliesOnlyInsideAPresentDict() {
        let without = Support.validate("<dict/>", against: Self.schema)
        #expect(without.isEmpty)
        let manual = Support.validate(
            "<dict><key>Proxy</key><dict><key>Mode</key><string>manual</string></dict></dict>", against: Self.schema)
        #expect(manual.map(\.code) == [SchemaCode.missingRequiredKey])
        #expect(manual.first?.keyPath == "Proxy.Host")
        let auto = Support.validate(
            "<dict><key>Proxy</key><dict><key>Mode</key><string>auto</string></dict></dict>", against: Self.schema)
        #expect(auto.isEmpty)
    }

    @Test func sensitiveValuesAreRedactedInEveryFormat() throws {
        let secret = "not-a-token-s3cr3t"
        let config =
            "<dict><key>Accounts</key><array><dict><key>Server</key><string>a</string><key>Token</key><string>\(secret)</string></dict></array></dict>"
        let findings = Support.validate(config, against: Self.schema)
        let finding = try #require(findings.first)
        #expect(finding.code == SchemaCode.patternMismatch)
        #expect(finding.sensitive)
        #expect(finding.message.hasPrefix("<redacted>"))
        let report = DiagnosticReport(files: [FileReport(path: "config.plist", diagnostics: findings)])
        for format in ReportFormat.allCases {
            let rendered = report.rendered(
                as: format, options: RenderOptions(sources: ["config.plist": SourceText(Array(config.utf8))]))
            #expect(!rendered.contains(secret), "\(format) leaks the value")
        }
    }

    @Test func readerFindingsOnSensitiveKeysAreRedactedToo() throws {
        let config =
            "<dict><key>Accounts</key><array><dict><key>Server</key><string>a</string><key>Token</key><integer>12x45</integer></dict></array></dict>"
        let findings = Support.validate(config, against: Self.schema)
        let reader = try #require(findings.first { $0.code == PlistCode.invalidInteger })
        #expect(reader.sensitive)
        #expect(!reader.message.contains("12x45"))
    }

    @Test(arguments: [
        ("iOS", nil as String?, true),
        ("macOS", "13.6", true),
        ("macOS", "14.2", false),
        ("macOS", nil, false),
    ])
    func availabilityWarnsOnlyWhereTheKeyDoesNotExist(_ platform: String, _ version: String?, _ warns: Bool) {
        let options = ValidationOptions(platform: platform, osVersion: version)
        let findings = Support.validate(
            "<dict><key>MenuBar</key><true/></dict>", against: Self.schema, options: options)
        #expect(findings.contains { $0.code == SchemaCode.unavailableKey } == warns)
        #expect(findings.allSatisfy { $0.severity == .warning })
    }
}

/// The format's extended keys are known; real typos get the key they most likely meant.
struct ManifestKeyTests {
    @Test(
        arguments: [
            ("pfm_value_processor", nil), ("pfm_value_copy", nil), ("pfm_default_copy", nil),
            ("pfm_description_extended", nil), ("pfm_substitution_variables", nil), ("pfm_excluded", nil),
            ("pfm_n_platforms", nil), ("pfm_icon", nil), ("pfm_upk_input_keys", nil),
            ("pfm_imazing_indentation_level", nil),
            ("pfm_documentation_source", nil),
            ("pfm_tile", "'pfm_title'"), ("pfm_documentation", "'pfm_documentation_source' or 'pfm_documentation_url'"),
            ("pfm_documentation_reference", "'pfm_description_reference'"),
        ] as [(String, String?)])
    func extendedKeysAndTypos(key: String, suggestion: String?) throws {
        let load = Support.manifest(
            "<dict><key>pfm_name</key><string>A</string><key>pfm_type</key><string>string</string><key>\(key)</key><string>x</string></dict>"
        )
        let warnings = load.diagnostics.filter { $0.code.code == "MC3015" }
        if let suggestion {
            #expect(warnings.count == 1, "\(key): \(warnings.map(\.message))")
            #expect(
                warnings.first?.hint == "did you mean \(suggestion)?",
                "\(key): \(String(describing: warnings.first?.hint))")
        } else {
            #expect(warnings.isEmpty, "\(key) is a documented key: \(warnings.map(\.message))")
        }
    }
}

/// A condition with only `pfm_platforms` (Apple's caldav, carddav, identification and extensiblesso manifests:
/// "required on macOS") is valid: it decides with `--platform`, and says so when none is given.
struct PlatformConditionTests {
    static let schema = """
        <dict><key>pfm_name</key><string>HostName</string><key>pfm_type</key><string>string</string></dict>
        <dict><key>pfm_name</key><string>PrincipalURL</string><key>pfm_type</key><string>string</string>
        <key>pfm_conditionals</key><array><dict><key>pfm_target_conditions</key><array>
        <dict><key>pfm_platforms</key><array><string>macOS</string></array></dict>
        </array></dict></array></dict>
        """
    static let config =
        "<plist version=\"1.0\"><dict><key>HostName</key><string>mail.example.com</string></dict></plist>"

    @Test(
        arguments: [
            (nil, "MC2032"), ("macOS", "MC2004"), ("macos", "MC2004"), ("iOS", nil),
        ] as [(String?, String?)])
    func requiredOnMacOSOnly(platform: String?, code: String?) throws {
        let load = Support.manifest(Self.schema)
        #expect(!load.diagnostics.contains { $0.code.code == "MC3016" }, "\(load.diagnostics.map(\.message))")
        let schema = try #require(load.schema)
        let findings = Support.validate(Self.config, against: schema, options: ValidationOptions(platform: platform))
        #expect(findings.map(\.code.code) == (code.map { [$0] } ?? []), "\(findings.map(\.message))")
        if code == "MC2032" {
            #expect(findings.first?.severity == .info)
            #expect(
                findings.first?.message
                    == "'PrincipalURL' is required on platform macOS; no --platform was given to decide")
        }
        if code == "MC2004" { #expect(findings.first?.message.contains("platform macOS") == true) }
    }

    /// `pfm_n_platforms` (Apple's CardDAV manifest: PrincipalURL "not supported on macOS") excludes a key on the
    /// other platforms, and only when a platform is given.
    @Test(arguments: [(nil, [String]()), ("macOS", []), ("iOS", ["MC2011"])] as [(String?, [String])])
    func excludedOffMacOS(platform: String?, codes: [String]) throws {
        let load = Support.manifest(
            """
            <dict><key>pfm_name</key><string>PrincipalURL</string><key>pfm_type</key><string>string</string>
            <key>pfm_exclude</key><array><dict><key>pfm_target_conditions</key><array>
            <dict><key>pfm_n_platforms</key><array><string>macOS</string></array></dict></array></dict></array></dict>
            """)
        #expect(!load.diagnostics.contains { $0.severity == .error })
        let schema = try #require(load.schema)
        let findings = Support.validate(
            "<plist version=\"1.0\"><dict><key>PrincipalURL</key><string>https://dav.example.com/</string></dict></plist>",
            against: schema, options: ValidationOptions(platform: platform))
        #expect(findings.map(\.code.code) == codes, "\(findings.map(\.message))")
    }

    /// A target condition with neither a target nor platforms is still a defect.
    @Test func emptyConditionIsADefect() {
        let load = Support.manifest(
            """
            <dict><key>pfm_name</key><string>A</string><key>pfm_type</key><string>string</string>
            <key>pfm_conditionals</key><array><dict><key>pfm_target_conditions</key><array><dict/></array></dict></array></dict>
            """)
        #expect(load.diagnostics.contains { $0.code.code == "MC3016" })
    }
}

/// Condition targets written as key paths from the payload root, and the `pfm_n_contains_any` and `pfm_value_empty`
/// operators, shaped like Apple's Extensible SSO manifest and the developer manifest `com.profilecreator.developer.require`.
struct ConditionOperatorTests {
    static let sso = """
        <dict><key>pfm_name</key><string>PlatformSSO</string><key>pfm_type</key><string>dictionary</string>
        <key>pfm_subkeys</key><array>
        <dict><key>pfm_name</key><string>AuthenticationMethod</string><key>pfm_type</key><string>string</string></dict>
        </array></dict>
        <dict><key>pfm_name</key><string>RegistrationToken</string><key>pfm_type</key><string>string</string>
        <key>pfm_exclude</key><array><dict><key>pfm_target_conditions</key><array>
        <dict><key>pfm_target</key><string>PlatformSSO.AuthenticationMethod</string><key>pfm_present</key><false/></dict>
        </array></dict></array></dict>
        """

    @Test(
        arguments: [
            (
                "with the method, the token is allowed",
                "<key>PlatformSSO</key><dict><key>AuthenticationMethod</key><string>Password</string></dict>", []
            ),
            ("without the method, the token is excluded", "<key>PlatformSSO</key><dict/>", ["MC2011"]),
            ("without PlatformSSO, the token is excluded", "", ["MC2011"]),
        ] as [(String, String, [String])])
    func keyPathTargets(name: String, platformSSO: String, codes: [String]) throws {
        let schema = try #require(Support.manifest(Self.sso).schema)
        let config =
            "<plist version=\"1.0\"><dict>\(platformSSO)<key>RegistrationToken</key><string>t0k3n</string></dict></plist>"
        #expect(Support.validate(config, against: schema).map(\.code.code) == codes, "\(name)")
    }

    static let require = """
        <dict><key>pfm_name</key><string>Modes</string><key>pfm_type</key><string>array</string>
        <key>pfm_subkeys</key><array><dict><key>pfm_type</key><string>string</string></dict></array></dict>
        <dict><key>pfm_name</key><string>Label</string><key>pfm_type</key><string>string</string></dict>
        <dict><key>pfm_name</key><string>Fallback</string><key>pfm_type</key><string>string</string>
        <key>pfm_conditionals</key><array><dict><key>pfm_target_conditions</key><array>
        <dict><key>pfm_target</key><string>Modes</string><key>pfm_n_contains_any</key><array><string>auto</string></array></dict>
        </array></dict></array></dict>
        <dict><key>pfm_name</key><string>Default</string><key>pfm_type</key><string>string</string>
        <key>pfm_conditionals</key><array><dict><key>pfm_target_conditions</key><array>
        <dict><key>pfm_target</key><string>Label</string><key>pfm_value_empty</key><true/></dict>
        </array></dict></array></dict>
        """

    @Test(
        arguments: [
            // Modes holds "auto": Fallback is not required; Label is set: Default is not required.
            ("<key>Modes</key><array><string>auto</string></array><key>Label</key><string>x</string>", []),
            // Modes lacks "auto": Fallback is required.
            ("<key>Modes</key><array><string>manual</string></array><key>Label</key><string>x</string>", ["MC2004"]),
            // No Modes at all: it contains none of them, so Fallback is required; an empty Label requires Default.
            ("<key>Label</key><string></string>", ["MC2004", "MC2004"]),
            // Everything set.
            (
                "<key>Modes</key><array/><key>Label</key><string/><key>Fallback</key><string>f</string><key>Default</key><string>d</string>",
                []
            ),
        ] as [(String, [String])])
    func notContainsAnyAndValueEmpty(body: String, codes: [String]) throws {
        let schema = try #require(Support.manifest(Self.require).schema)
        let findings = Support.validate("<plist version=\"1.0\"><dict>\(body)</dict></plist>", against: schema)
        #expect(findings.map(\.code.code) == codes, "\(findings.map(\.message))")
    }
}

/// `pfm_require: push` (alone or on a conditional) and `pfm_distribution: [push]` mean one thing: required when an
/// MDM pushes the configuration in a profile (its root has the payload envelope), not in a local preferences file.
struct PushRequirementTests {
    static let manifest = """
        <dict><key>pfm_name</key><string>Server</string><key>pfm_type</key><string>string</string>
        <key>pfm_require</key><string>push</string></dict>
        <dict><key>pfm_name</key><string>Mode</string><key>pfm_type</key><string>string</string></dict>
        <dict><key>pfm_name</key><string>Secret</string><key>pfm_type</key><string>string</string>
        <key>pfm_conditionals</key><array><dict><key>pfm_require</key><string>push</string>
        <key>pfm_target_conditions</key><array><dict><key>pfm_target</key><string>Mode</string>
        <key>pfm_range_list</key><array><string>token</string></array></dict></array></dict></array></dict>
        <dict><key>pfm_name</key><string>Identity</string><key>pfm_type</key><string>string</string>
        <key>pfm_conditionals</key><array><dict><key>pfm_target_conditions</key><array>
        <dict><key>pfm_distribution</key><array><string>push</string></array></dict></array></dict></array></dict>
        """
    static let envelope =
        "<key>PayloadType</key><string>com.example.test</string><key>PayloadIdentifier</key><string>p</string>"

    @Test(
        arguments: [
            ("a local preferences file needs none of them", "<key>Mode</key><string>token</string>", [String]()),
            (
                "a pushed payload needs Server, Identity and, for token mode, Secret",
                envelope + "<key>Mode</key><string>token</string>",
                ["MC2004", "MC2004", "MC2004"]
            ),
            (
                "a pushed payload in another mode needs Server and Identity",
                envelope + "<key>Mode</key><string>plain</string>",
                ["MC2004", "MC2004"]
            ),
        ] as [(String, String, [String])])
    func pushedOnly(name: String, body: String, codes: [String]) throws {
        let load = Support.manifest(Self.manifest)
        #expect(!load.diagnostics.contains { $0.severity == .error }, "\(load.diagnostics.map(\.message))")
        let schema = try #require(load.schema)
        let findings = Support.validate("<plist version=\"1.0\"><dict>\(body)</dict></plist>", against: schema)
            .filter { $0.code.code != "MC2002" }
        #expect(findings.map(\.code.code) == codes, "\(name): \(findings.map(\.message))")
        #expect(findings.allSatisfy { $0.message.contains("pushed by an MDM") || $0.message.contains("required key") })
    }
}

/// The same key declared as a pick list and again as a free-text "custom" entry that is excluded while the key is
/// set (iMazing's idiom, BBEdit's manifest) is a warning; any other second declaration stays an error.
struct DuplicateDeclarationTests {
    static let list = """
        <dict><key>pfm_name</key><string>Language</string><key>pfm_type</key><string>string</string>
        <key>pfm_range_list</key><array><string>text-file</string><string>swift</string></array></dict>
        """

    @Test func customAlternativeIsAWarning() throws {
        let load = Support.manifest(
            Self.list + """
                <dict><key>pfm_name</key><string>Language</string><key>pfm_type</key><string>string</string>
                <key>pfm_exclude</key><array><dict><key>pfm_target_conditions</key><array>
                <dict><key>pfm_target</key><string>Language</string><key>pfm_present</key><true/></dict>
                </array></dict></array></dict>
                """)
        let duplicate = try #require(load.diagnostics.first { $0.code.code == "MC3002" })
        #expect(duplicate.severity == .warning)
        #expect(duplicate.message.contains("an alternative excluded while the key is set"))
        // Values are checked against the first declaration (the list).
        let schema = try #require(load.schema)
        let findings = Support.validate(
            "<plist version=\"1.0\"><dict><key>Language</key><string>cobol</string></dict></plist>", against: schema)
        #expect(findings.map(\.code.code) == ["MC2005"])
    }

    @Test func plainDuplicateIsAnError() {
        let load = Support.manifest(
            Self.list
                + "<dict><key>pfm_name</key><string>Language</string><key>pfm_type</key><string>string</string></dict>")
        #expect(load.diagnostics.first { $0.code.code == "MC3002" }?.severity == .error)
    }
}

/// A dictionary of free-form keys (`{{key}}` / `{{value}}`, as Chrome's and Edge's ExtensionSettings): every key is
/// allowed and every value is checked against the `{{value}}` spec, in validation, `schema show` and the JSON export.
struct FreeFormDictionaryTests {
    static let manifest = """
        <dict><key>pfm_name</key><string>ExtensionSettings</string><key>pfm_type</key><string>dictionary</string>
        <key>pfm_subkeys</key><array>
        <dict><key>pfm_name</key><string>{{key}}</string><key>pfm_type</key><string>string</string></dict>
        <dict><key>pfm_name</key><string>{{value}}</string><key>pfm_type</key><string>dictionary</string>
        <key>pfm_subkeys</key><array>
        <dict><key>pfm_name</key><string>installation_mode</string><key>pfm_type</key><string>string</string>
        <key>pfm_range_list</key><array><string>allowed</string><string>blocked</string><string>force_installed</string></array></dict>
        <dict><key>pfm_name</key><string>update_url</string><key>pfm_type</key><string>string</string></dict>
        </array></dict>
        </array></dict>
        """

    @Test func valuesAreCheckedKeysAreFree() throws {
        let load = Support.manifest(Self.manifest)
        #expect(!load.diagnostics.contains { $0.severity != .info }, "\(load.diagnostics.map(\.message))")
        let schema = try #require(load.schema)
        let config = """
            <plist version="1.0"><dict><key>ExtensionSettings</key><dict>
            <key>aapbdbdomjkkjkaonfhkkikfgjllcleb</key><dict><key>installation_mode</key><string>force_installed</string>
            <key>update_url</key><string>https://clients2.google.com/service/update2/crx</string></dict>
            <key>*</key><dict><key>installation_mode</key><string>forbidden</string><key>updateURL</key><string>x</string></dict>
            <key>ghbmnnjooekpmoecnnnilnnbdlolhkhi</key><string>not a dictionary</string>
            </dict></dict></plist>
            """
        let findings = Support.validate(config, against: schema)
        #expect(
            findings.map { "\($0.code.code) \($0.keyPath ?? "")" } == [
                "MC2005 ExtensionSettings.*.installation_mode", "MC2002 ExtensionSettings.*.updateURL",
                "MC2003 ExtensionSettings.ghbmnnjooekpmoecnnnilnnbdlolhkhi",
            ], "\(findings.map(\.message))")
        let json = schema.json.serialized()
        #expect(json.contains("\"additionalKeys\""))
    }
}
