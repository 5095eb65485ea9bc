import ConfigSchema
import Foundation
import MDMDiagnostics
import PropertyList
import Testing

/// Each real defect named in the corpus notes is reported with the right code, key path and line.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: Support.corpus.path), "corpus not found beside the project"))
struct CorpusDefectTests {
    struct Defect: CustomTestStringConvertible, Sendable {
        let file: String
        let code: String
        let line: Int
        let keyPath: String?
        var testDescription: String { "\(code) in \(file)" }
    }

    static let schemaDefects: [Defect] = [
        Defect(file: "specfiles/jamf_AppConfig-Generator_wandera.xml", code: "MC3002", line: 31, keyPath: "externalId"),
        Defect(file: "specfiles/jamf_AppConfig-Generator_wandera.xml", code: "MC3013", line: 26, keyPath: "externalId"),
        Defect(
            file: "specfiles/owncloud_ios-app_specfile.xml", code: "MC3001", line: 62, keyPath: "[\"log.log-level\"]"),
        Defect(
            file: "specfiles/owncloud_ios-app_log-passcode-specfile.xml", code: "MC3001", line: 9,
            keyPath: "[\"log.log-level\"]"),
        Defect(file: "specfiles/nextcloud_ios_specfile.xml", code: "MC3003", line: 2, keyPath: nil),
        Defect(file: "specfiles/bodaay_WGManagerAirwatch_appconfig.xml", code: "MC3003", line: 2, keyPath: nil),
        Defect(
            file: "specfiles/PlaceOS_docs_native-booking-panel_specfile-INVALID.xml", code: "MC3001", line: 6,
            keyPath: nil),
        Defect(
            file: "manifests/ProfileManifests_ManagedPreferencesApplications_com.github.macadmins.Nudge.plist",
            code: "MC3015", line: 405, keyPath: "optionalFeatures.blockedApplicationBundleIDs[0]"),
        Defect(
            file: "manifests/ProfileManifests_ManagedPreferencesApple_com.apple.controlcenter.plist", code: "MC3016",
            line: 14, keyPath: nil),
        Defect(
            file: "manifests/ProfileManifests_ManagedPreferencesDeveloper_com.profilecreator.developer.textfield.plist",
            code: "MC3005", line: 227, keyPath: "TextField10"),
        Defect(
            file: "manifests/ProfileManifests_ManagedPreferencesApplications_com.google.Chrome.plist", code: "MC3016",
            line: 6494, keyPath: "PolicyRefreshRate"),
        Defect(
            file: "manifests/ProfileManifests_ManagedPreferencesApplications_com.microsoft.Edge.plist", code: "MC3016",
            line: 5111, keyPath: "PolicyRefreshRate"),
    ]

    @Test(arguments: schemaDefects)
    func schemaDefectIsReported(_ defect: Defect) throws {
        let load = try Support.loadSchema(Support.corpusFile(defect.file))
        let matching = load.diagnostics.filter { $0.code.code == defect.code && $0.line == defect.line }
        #expect(matching.count >= 1, "\(load.diagnostics.map { "\($0.code.code) \($0.line ?? 0) \($0.message)" })")
        #expect(matching.first?.keyPath == defect.keyPath)
    }

    @Test func duplicateKeyNameNotesTheFirstDeclaration() throws {
        let load = try Support.loadSchema(Support.corpusFile("specfiles/jamf_AppConfig-Generator_wandera.xml"))
        let duplicate = try #require(load.diagnostics.first { $0.code == SchemaCode.duplicateKeyName })
        #expect(duplicate.notes.first?.location?.position.line == 24)
        let variable = try #require(load.diagnostics.first { $0.code == SchemaCode.invalidVariable })
        #expect(variable.hint?.contains("device variable") == true)
    }

    @Test func cleanSchemasImportWithoutErrors() throws {
        for file in [
            "specfiles/jamf_AppConfig-Generator_mac.xml", "specfiles/owncloud_ios-app_minimal-specfile.xml",
            "manifests/ProfileManifests_ManagedPreferencesApplications_org.mozilla.firefox.plist",
            "manifests/ProfileManifests_ManifestExamples_com.github.profilecreator.exampleApplication.plist",
        ] {
            let load = try Support.loadSchema(Support.corpusFile(file))
            #expect(!load.diagnostics.hasErrors, "\(file): \(load.diagnostics.map(\.message))")
            #expect(load.usableSchema != nil)
        }
        let mac = try #require(
            try Support.loadSchema(Support.corpusFile("specfiles/jamf_AppConfig-Generator_mac.xml")).schema)
        #expect(mac.keys.count == 14)
        #expect(Set(mac.keys.flatMap(\.types)) == [.boolean, .integer, .real, .string, .array, .date])
    }

    struct Pair: CustomTestStringConvertible, Sendable {
        let manifest: String
        let config: String
        let expected: [String]
        var testDescription: String { config }
    }

    static let manifests = "manifests/ProfileManifests_ManagedPreferencesApplications_"
    static let pairs: [Pair] = [
        Pair(
            manifest: manifests + "com.google.Chrome.plist",
            config: "configs/nwfem_managedChrome_com.google.Chrome.plist", expected: []),
        Pair(
            manifest: manifests + "com.google.Chrome.plist",
            config: "configs/ftirelo_site-search-policy_com.google.Chrome.plist",
            expected: ["MC2002"]),
        Pair(
            manifest: manifests + "com.microsoft.Edge.plist",
            config: "configs/pelarsen_EdgeSecurityBaselineMacOS_com.microsoft.Edge.plist",
            expected: ["MC1014", "MC2002"]),
        Pair(
            manifest: manifests + "us.zoom.config.plist",
            config: "configs/macintechllc_configuration-profiles_us.zoom.config.plist",
            expected: ["MC2002", "MC2002"]),
        Pair(
            manifest: manifests + "com.tinyspeck.slackmacgap.plist",
            config: "configs/andrew-kemp-dahlberg_mac-plists-and-config-profiles_com.tinyspeck.slackmacgap.plist",
            expected: ["MC2008"]),
        Pair(
            manifest: manifests + "com.jamf.setupmanager.plist",
            config: "configs/andrew-kemp-dahlberg_mac-plists-and-config-profiles_com.jamf.setupmanager.plist",
            expected: ["MC2003", "MC2003"]),
        Pair(
            manifest: manifests + "com.github.macadmins.Nudge.plist",
            config: "configs/GoodwayGroup_nudge_com.github.macadmins.Nudge-launchagent.plist", expected: ["MC2041"]),
        Pair(
            manifest: "manifests/ProfileManifests_ManifestsApple_com.apple.applicationaccess-macOS.plist",
            config: "configs/andrew-kemp-dahlberg_mac-plists-and-config-profiles_com.apple.applicationaccess.plist",
            expected: ["MC1021", "MC1021", "MC1021"]),
    ]

    /// The app configs of the corpus against their manifests, with the findings a maintainer would agree with.
    @Test(arguments: pairs)
    func configValidatesAgainstItsManifest(_ pair: Pair) throws {
        let schema = try #require(try Support.loadSchema(Support.corpusFile(pair.manifest)).usableSchema)
        let (document, _) = try PropertyListReader().readFile(Support.corpusFile(pair.config))
        let codes = Validator.validate(document, against: schema).filter { $0.severity != .info }.map(\.code.code)
        #expect(codes == pair.expected)
    }

    @Test func firefoxFindingsIncludeTheKnownDefects() throws {
        let schema = try #require(
            try Support.loadSchema(Support.corpusFile(Self.manifests + "org.mozilla.firefox.plist")).usableSchema)
        let (document, _) = try PropertyListReader().readFile(
            Support.corpusFile("configs/mozilla_policy-templates_org.mozilla.firefox.plist"))
        let findings = Validator.validate(document, against: schema)
        let allowSession = try #require(findings.first { $0.keyPath == "Cookies.Allowsession" })
        #expect(allowSession.code == SchemaCode.unknownKey)
        #expect(allowSession.hint == "did you mean 'AllowSession'?")
        #expect(allowSession.line == 183)
        #expect(findings.contains { $0.keyPath == "Default" && $0.code == SchemaCode.unknownKey })
        // The manifest predates Firefox's {Value, Status} form of Preferences: reported as type mismatches.
        // Mozilla's sample sets every Proxy key; with Mode 'manual' the manifest excludes AutoConfigURL (its
        // condition targets the key path Proxy.Mode), and Firefox ignores it there: a true finding.
        let errors = findings.filter { $0.severity == .error }
        #expect(
            errors.allSatisfy { $0.keyPath?.hasPrefix("Preferences[") == true || $0.keyPath == "Proxy.AutoConfigURL" })
        #expect(errors.contains { $0.keyPath == "Proxy.AutoConfigURL" && $0.code == SchemaCode.excludedKey })
    }

    /// Every file of the corpus reads to what it is: each AppConfig specfile and ProfileManifest to a schema with
    /// keys (the one specfile marked invalid to schema-structure errors instead), each configuration to a plist
    /// dictionary or to reader errors that name their line. Whatever a file is, an unusable one says why.
    @Test func everyCorpusFileIsProcessed() throws {
        var counted: [String: Int] = [:]
        for folder in ["specfiles", "configs", "manifests"] {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: Support.corpus.appendingPathComponent(folder).path)
            counted[folder] = names.count
            for name in names {
                let path = Support.corpusFile("\(folder)/\(name)")
                let load = try Support.loadSchema(path)
                let (document, _) = try PropertyListReader().readFile(path)
                let errors = load.diagnostics.filter { $0.severity == .error }
                if load.usableSchema == nil {
                    #expect(!errors.isEmpty, "\(name): no schema and no reason")
                }
                switch folder {
                case "specfiles" where name.contains("-INVALID"):
                    #expect(load.usableSchema?.keys.isEmpty ?? true, "\(name)")
                    #expect(errors.contains { $0.code == SchemaCode.structure }, "\(name): \(errors)")
                case "specfiles", "manifests" where name.hasPrefix("ProfileManifests_"):
                    let keys = load.usableSchema?.keys.count ?? 0
                    #expect(keys > 0, "\(name): a schema without keys")
                case "configs":
                    #expect(errors.contains { $0.code == SchemaCode.notASchema }, "\(name): taken for a schema")
                    if document.hasErrors {
                        let read = Validator.validate(document, against: nil).filter { $0.severity == .error }
                        #expect(!read.isEmpty && read.allSatisfy { ($0.line ?? 0) > 0 }, "\(name): \(read)")
                    } else {
                        guard case .dictionary(let entries)? = document.root?.value else {
                            Issue.record("\(name): not a dictionary")
                            continue
                        }
                        #expect(!entries.isEmpty, "\(name)")
                    }
                case "manifests" where name.hasPrefix("android_"):
                    // Android's app_restrictions.xml, outside its app: a schema with keys, references left as written.
                    #expect(load.usableSchema?.format == .android && errors.isEmpty, "\(name): \(errors)")
                    #expect((load.usableSchema?.keys.count ?? 0) > 0, "\(name): a schema without keys")
                default:
                    #expect(load.usableSchema == nil && errors.allSatisfy { ($0.line ?? 0) > 0 }, "\(name): \(errors)")
                }
            }
        }
        #expect(counted == ["specfiles": 9, "configs": 19, "manifests": 22], "the corpus changed: \(counted)")
    }
}

/// ProfileCreator's own test manifest for requirements (`com.profilecreator.developer.require`, in the corpus): each
/// RequireNN says in its description when it is required; the validator must agree for every pick of Require00,
/// pushed in a payload and as a local preferences file.
struct DeveloperRequireManifestTests {
    static let manifest =
        "manifests/ProfileManifests_ManagedPreferencesDeveloper_com.profilecreator.developer.require.plist"
    static let envelope = """
        <key>PayloadIdentifier</key><string>com.example.require</string>
        <key>PayloadType</key><string>com.profilecreator.developer.require</string>
        <key>PayloadUUID</key><string>01234567-89AB-CDEF-0123-456789ABCDEF</string>
        <key>PayloadVersion</key><integer>1</integer>
        """

    @Test(
        arguments: [
            // 01 always; 02 if Item01; 03 if Item02/03; 04 if not Item04; 05 if not Item05/06; 06–10 the same, when pushed.
            ("Item01", true, ["01", "02", "04", "05", "06", "07", "09", "10"]),
            ("Item03", true, ["01", "03", "04", "05", "06", "08", "09", "10"]),
            ("Item04", true, ["01", "05", "06", "10"]),
            ("Item06", true, ["01", "04", "06", "09"]),
            ("Item01", false, ["01", "02", "04", "05"]),
            ("Item06", false, ["01", "04"]),
        ] as [(String, Bool, [String])])
    func requirementsFollowTheDescriptions(pick: String, pushed: Bool, required: [String]) throws {
        let schema = try #require(try Support.loadSchema(Support.corpusFile(Self.manifest)).usableSchema)
        let config = """
            <plist version="1.0"><dict>\(pushed ? Self.envelope : "")<key>Require00</key><string>\(pick)</string></dict></plist>
            """
        let missing = Support.validate(config, against: schema)
            .filter { $0.code == SchemaCode.missingRequiredKey }
            .compactMap { $0.keyPath }.filter { $0.hasPrefix("Require") }.map { String($0.dropFirst("Require".count)) }
        #expect(missing.sorted() == required, "\(pick), pushed \(pushed)")
    }
}

/// Issue 15, 8: a subkey only the manifest requires says whose rule it is; a top-level key or a specfile's does not.
struct ManifestRequirementSourceTests {
    @Test func nestedRequirementNamesTheManifest() throws {
        let load = Support.manifest(
            """
            <dict><key>pfm_name</key><string>Servers</string><key>pfm_type</key><string>dictionary</string>
            <key>pfm_subkeys</key><array><dict><key>pfm_name</key><string>Host</string><key>pfm_type</key><string>string</string>
            <key>pfm_require</key><string>always</string></dict></array></dict>
            <dict><key>pfm_name</key><string>Name</string><key>pfm_type</key><string>string</string>
            <key>pfm_require</key><string>always</string></dict>
            """)
        let schema = try #require(load.usableSchema)
        let findings = Support.validate(
            #"<plist version="1.0"><dict><key>Servers</key><dict><key>Hots</key><string>a</string></dict></dict></plist>"#,
            against: schema
        ).filter { $0.code == SchemaCode.missingRequiredKey }
        let nested = try #require(findings.first { $0.keyPath == "Servers.Host" })
        #expect(nested.hint?.contains("required by the manifest manifest.plist (pfm_require)") == true)
        #expect(nested.hint?.contains("apple/device-management") == true)
        let top = try #require(findings.first { $0.keyPath == "Name" })
        #expect(top.hint == nil)
    }
}
