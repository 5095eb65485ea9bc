import Foundation
import TestScratch
import Testing

/// The corpus copy of `apple/device-management`, beside the project.
private let appleRepositoryPath = CLIProcess.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/corpus/apple-device-management").path

/// `mdmconf validate PROFILE.mobileconfig` against Apple's own schemas: a checkout of `apple/device-management` on
/// `MDMCONF_SCHEMA_PATH` (the corpus copy beside the project), the profile checked payload by payload.
@Suite(
    .enabled(
        if: FileManager.default.fileExists(atPath: appleRepositoryPath),
        "corpus not found beside the project"))
struct ProfileValidationTests {
    static let appleRepository = appleRepositoryPath
    static let fixture = "Tests/MDMConfTests/ProfileFixtures/defects.mobileconfig"

    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        /// `CODE line` of every finding, in order.
        var findings: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    /// Found in every run: the profile's own rules, a wrong type, a key Apple removed, an unknown type.
    static let always = ["MC2052 24", "MC2051 39", "MC2051 37"]

    static let cases: [Case] = [
        Case(arguments: [], findings: always + ["MC2003 60", "MC2050 85"]),
        Case(
            arguments: ["--platform", "iOS", "--os-version", "17.4", "--enrollment", "supervised"],
            findings: always + ["MC2053 33", "MC2003 60", "MC2031 81", "MC2050 85"]),
        Case(
            arguments: ["--platform", "iOS", "--os-version", "17.4", "--enrollment", "device"],
            findings: [
                "MC2052 24", "MC2054 18", "MC2051 39", "MC2051 37", "MC2054 33", "MC2053 33", "MC2054 57", "MC2003 60",
                "MC2031 81", "MC2050 85",
            ]),
        Case(
            arguments: ["--platform", "iOS", "--os-version", "17.4", "--enrollment", "user"],
            findings: [
                "MC2052 24", "MC2054 18", "MC2055 18", "MC2051 39", "MC2051 37", "MC2054 33", "MC2055 33", "MC2053 33",
                "MC2054 57", "MC2055 57", "MC2055 59", "MC2003 60", "MC2031 81", "MC2050 85",
            ]),
        Case(
            arguments: ["--platform", "macOS", "--os-version", "14.0"],
            findings: [
                "MC2052 24", "MC2057 18", "MC2051 39", "MC2051 37", "MC2057 33", "MC2031 57", "MC2003 60", "MC2050 85",
            ]),
    ]

    @Test(arguments: cases)
    func findingsForEachPlatformAndEnrollment(_ testCase: Case) throws {
        let result = try CLIProcess.run(
            ["validate", Self.fixture, "--format", "json"] + testCase.arguments,
            environment: ["MDMCONF_SCHEMA_PATH": Self.appleRepository])
        #expect(result.status == 1, "\(result.stderr)")
        let report = try CLIProcess.json(result.stdout)
        let files = try #require(report["files"] as? [[String: Any]])
        let diagnostics = try #require(files.first?["diagnostics"] as? [[String: Any]])
        let found = diagnostics.map { "\($0["code"] as? String ?? "?") \($0["line"] as? Int ?? 0)" }
        #expect(found == testCase.findings, "\(diagnostics.map { $0["message"] ?? "" })")
        // Each finding names the payload it is in.
        let paths = diagnostics.compactMap { $0["keyPath"] as? String }
        #expect(
            paths.contains("PayloadContent[3].EAPClientConfiguration.TLSAllowTrustExceptions")
                == found.contains("MC2031 81"))
    }

    /// The example catalog's kiosk profiles, as a supervised iOS 17 device receives them. Two keys are not in
    /// Apple's YAML: mdmconf's own schedule extension, and the always-on VPN tunnel's `RemoteAddress`, an IKEv2 key
    /// that Apple's documentation allows there in prose only.
    /// The corpus's ProfileManifests, which describe the same Apple payload types without OS or enrollment facts.
    static let manifests = CLIProcess.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/corpus/manifests").path

    /// Apple's YAML and a ProfileManifest both describe `com.apple.app.lock`: Apple's is used in either order on the
    /// search path, unless `--schema-source manifest` picks the manifest. Only Apple's knows the payload needs a
    /// supervised device (MC2054).
    @Test(
        arguments: [
            ("manifests first", nil, true), ("manifests first", "apple", true), ("manifests first", "manifest", false),
            ("apple first", nil, true), ("apple first", "manifest", false),
        ] as [(String, String?, Bool)])
    func schemaSourceChoosesBetweenAppleAndAManifest(order: String, source: String?, apple: Bool) throws {
        let folders =
            order == "manifests first"
            ? [Self.manifests, Self.appleRepository] : [Self.appleRepository, Self.manifests]
        let result = try CLIProcess.run(
            ["validate", Self.fixture, "--platform", "iOS", "--os-version", "17.4", "--enrollment", "user"]
                + (source.map { ["--schema-source", $0] } ?? []),
            environment: ["MDMCONF_SCHEMA_PATH": folders.joined(separator: ":")])
        #expect(result.status == 1)
        #expect(result.stdout.contains("[MC2054 needs-supervision]") == apple, "\(result.stdout)")
    }

    /// With both on the path, the manifest's hints join Apple's schema: its condition (a manual proxy needs its
    /// server, MC2004) and a key newer than Apple's copy, checked against the OS versions the manifest gives it
    /// (MC2031) instead of being unknown (MC2002). Apple's alone knows neither.
    @Test(
        arguments: [
            (nil, ["MC2004 7", "MC2004 7", "MC2031 34"]), ("apple", ["MC2002 34"]),
            ("manifest", ["MC2004 7", "MC2004 7", "MC2031 34"]),
        ] as [(String?, [String])])
    func aManifestsHintsJoinApplesSchema(source: String?, findings: [String]) throws {
        let result = try CLIProcess.run(
            [
                "validate", "Tests/MDMConfTests/ProfileFixtures/manifest-hints.mobileconfig", "--platform", "iOS",
                "--os-version", "18.1", "--format", "json",
            ] + (source.map { ["--schema-source", $0] } ?? []),
            environment: ["MDMCONF_SCHEMA_PATH": [Self.manifests, Self.appleRepository].joined(separator: ":")])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        let diagnostics = try #require(files.first?["diagnostics"] as? [[String: Any]])
        let found = diagnostics.map { "\($0["code"] as? String ?? "?") \($0["line"] as? Int ?? 0)" }
        #expect(found == findings, "\(diagnostics.map { $0["message"] ?? "" })")
        if source == nil {
            let messages = diagnostics.compactMap { $0["message"] as? String }
            #expect(messages.first == "'ProxyServer' is required here (ProxyType is 'Manual')")
        }
    }

    /// `mdmconf schema show` of Apple's types: a column per platform, and `--platform` narrowing the table to the
    /// keys that device accepts.
    static let (trust, minimum) = (
        "EAPClientConfiguration.TLSAllowTrustExc", "EAPClientConfiguration.TLSMinimumVersion"
    )

    @Test(
        arguments: [
            ([], "28 keys", [Self.trust, Self.minimum, "QoSMarkingPolicy"], [String]()),
            (["--platform", "iOS", "--os-version", "10"], "for iOS 10: 26 of 28 keys", ["AutoJoin"], [Self.minimum]),
            (["--platform", "iOS", "--os-version", "7.0"], "for iOS 7.0:", [Self.trust], ["CaptiveBypass"]),
            (
                ["--platform", "iOS", "--os-version", "17"], "for iOS 17: 27 of 28 keys", ["QoSMarkingPolicy"],
                [Self.trust]
            ),
            (["--platform", "macOS"], "for macOS:", ["AutoJoin"], ["MCCAndMNCs", "CaptiveBypass"]),
        ] as [([String], String, [String], [String])])
    func schemaShowNarrowsToAPlatform(options: [String], title: String, shown: [String], hidden: [String]) throws {
        let result = try CLIProcess.run(
            ["schema", "show", "com.apple.wifi.managed"] + options,
            environment: ["MDMCONF_SCHEMA_PATH": Self.appleRepository])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(title) == true, "\(lines.first ?? "")")
        let header = lines.first { $0.hasPrefix("KEY") }?.split(separator: " ").map(String.init) ?? []
        #expect(header.contains("IOS") && header.contains("MACOS") && header.contains("WATCHOS"), "\(header)")
        // Nested keys are cut at 40 characters.
        func row(_ key: String) -> Bool { lines.contains { $0.hasPrefix(key + " ") || $0.hasPrefix(key + "…") } }
        for key in shown { #expect(row(key), "\(key) missing") }
        for key in hidden { #expect(!row(key), "\(key) shown") }
    }

    @Test func schemaShowOfAPayloadTypeAnEnrollmentRefuses() throws {
        let result = try CLIProcess.run(
            [
                "schema", "show", "com.apple.app.lock", "--platform", "iOS", "--os-version", "17", "--enrollment",
                "device",
            ],
            environment: ["MDMCONF_SCHEMA_PATH": Self.appleRepository])
        #expect(result.status == 0)
        #expect(result.stdout.contains("0 of 1 keys; the payload itself is not accepted there"), "\(result.stdout)")
        // Both kinds on the path: Apple's table with the manifest named.
        let merged = try CLIProcess.run(
            ["schema", "show", "com.apple.app.lock"],
            environment: ["MDMCONF_SCHEMA_PATH": [Self.manifests, Self.appleRepository].joined(separator: ":")])
        #expect(merged.stdout.hasPrefix("App Lock (apple, "), "\(merged.stdout)")
        #expect(merged.stdout.contains("; hints from \(Self.manifests)/"), "\(merged.stdout)")
        #expect(try CLIProcess.run(["schema", "show", "com.apple.app.lock", "--os-version", "17"]).status == 64)
    }

    /// `schema list` and `schema find` name the manifest whose hints join Apple's schema, whichever comes first on
    /// the path.
    @Test func schemaListAndFindNameTheHints() throws {
        let path = [Self.manifests, Self.appleRepository].joined(separator: ":")
        let list = try CLIProcess.run(["schema", "list"], environment: ["MDMCONF_SCHEMA_PATH": path])
        let rows = list.stdout.split(separator: "\n").filter { $0.hasPrefix("com.apple.wifi.managed ") }
            .map { $0.split(separator: " ").map(String.init) }
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.first?.last?.hasSuffix("com.apple.wifi.managed.yaml") == true)
        #expect(rows.last?.dropFirst().first == "hints" && rows.last?.last?.hasSuffix(".plist") == true)
        let find = try CLIProcess.run(
            ["schema", "find", "com.apple.wifi.managed"], environment: ["MDMCONF_SCHEMA_PATH": path])
        #expect(find.stdout.hasSuffix("com.apple.wifi.managed.yaml\n"))
        #expect(find.stderr.hasPrefix("hints from: \(Self.manifests)/"), "\(find.stderr)")
    }

    @Test func theExampleProfilesOnASupervisedIPhone() throws {
        let result = try CLIProcess.run(
            [
                "validate", "Examples/catalog/profiles", "--platform", "iOS", "--os-version", "17.4", "--enrollment",
                "supervised",
            ],
            environment: ["MDMCONF_SCHEMA_PATH": Self.appleRepository])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let said = result.stdout + result.stderr
        #expect(said.contains("6 files checked: 0 errors, 2 warnings"), "\(said)")
        #expect(said.contains("'MDMConfSchedule'") && said.contains("'RemoteAddress'"), "\(said)")
    }

    /// Declarations (JSON) against Apple's declaration schemas: the base keys, the payload's keys with their JSON
    /// line, the OS a declaration needs and the enrollments it may be sent to.
    @Test(
        arguments: [
            (
                "passcode.json", ["--platform", "iOS", "--os-version", "17.0", "--enrollment", "user"],
                ["MC2003 7", "MC2006 8", "MC2031 9", "MC2002 10"]
            ),
            (
                "passcode.json", ["--platform", "tvOS", "--os-version", "17.0"],
                ["MC2003 7", "MC2006 8", "MC2031 9", "MC2002 10", "MC2057 1"]
            ),
            (
                "safari-extensions.json", ["--platform", "iOS", "--os-version", "18.1", "--enrollment", "supervised"],
                []
            ),
            (
                "safari-extensions.json", ["--platform", "iOS", "--os-version", "18.1", "--enrollment", "device"],
                ["MC2055 1"]
            ),
            (
                "safari-extensions.json", ["--platform", "iOS", "--os-version", "17.4", "--enrollment", "supervised"],
                ["MC2057 1"]
            ),
            ("unknown.json", [], ["MC2004 1", "MC2050 1"]),
            ("app-two-names.json", [], ["MC2060 5", "MC2060 5"]),
            ("data-http.json", [], ["MC2060 7"]),
        ] as [(String, [String], [String])])
    func declarations(file: String, arguments: [String], expected: [String]) throws {
        let result = try CLIProcess.run(
            ["validate", "Tests/MDMConfTests/DeclarationFixtures/\(file)", "--format", "json"] + arguments,
            environment: ["MDMCONF_SCHEMA_PATH": Self.appleRepository])
        let report = try CLIProcess.json(result.stdout)
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.first?["shape"] as? String == "declaration")
        let diagnostics = try #require(files.first?["diagnostics"] as? [[String: Any]])
        let found = diagnostics.map { "\($0["code"] as? String ?? "?") \($0["line"] as? Int ?? 0)" }
        #expect(found == expected, "\(diagnostics.map { $0["message"] ?? "" })")
        let errors = expected.contains { !$0.hasPrefix("MC2002") && !$0.hasPrefix("MC2050") }
        #expect(result.status == (errors ? 1 : 0), "\(result.stderr)")
    }

    /// A folder of declarations is a set: references resolve to declarations of the right type, identifiers are
    /// unique.
    @Test func aFolderOfDeclarationsIsASet() throws {
        let result = try CLIProcess.run(
            ["validate", "Tests/MDMConfTests/DeclarationFixtures/set", "--format", "json"],
            environment: ["MDMCONF_SCHEMA_PATH": Self.appleRepository])
        #expect(result.status == 1, "\(result.stderr)")
        let files = try #require(try CLIProcess.json(result.stdout)["files"] as? [[String: Any]])
        var found: [String] = []
        for file in files {
            let name = (file["path"] as? String ?? "").split(separator: "/").last.map(String.init) ?? ""
            for diagnostic in file["diagnostics"] as? [[String: Any]] ?? [] {
                found.append("\(name) \(diagnostic["code"] as? String ?? "?") \(diagnostic["line"] as? Int ?? 0)")
            }
        }
        #expect(
            found == [
                "activation.json MC2058 8", "activation.json MC2058 9", "calendar-wrong.json MC2058 7",
                "duplicate.json MC2051 3",
            ], "\(found)")
    }

    /// One bare payload, named by `--payload-type`: the type's keys (the envelope keys allowed, not required) and,
    /// with a platform, the payload type's and each key's availability.
    @Test(
        arguments: [
            ("com.apple.wifi.managed", [String](), ["MC2005 9"]),
            ("com.apple.wifi.managed", ["--platform", "visionOS", "--os-version", "1.0"], ["MC2005 9", "MC2031 16"]),
            ("com.apple.wifi.managed", ["--platform", "iOS", "--os-version", "7.0"], ["MC2005 9"]),
            (
                "com.apple.app.lock", ["--platform", "macOS"],
                ["MC2002 6", "MC2002 8", "MC2002 10", "MC2004 5", "MC2057 5"]
            ),
            ("com.example.nope", [String](), ["MC2050 5"]),
        ] as [(String, [String], [String])])
    func aBarePayload(type: String, arguments: [String], expected: [String]) throws {
        let result = try CLIProcess.run(
            [
                "validate", "Tests/MDMConfTests/ProfileFixtures/wifi-payload.plist", "--payload-type", type, "--format",
                "json",
            ] + arguments,
            environment: ["MDMCONF_SCHEMA_PATH": Self.appleRepository])
        let files = try #require(try CLIProcess.json(result.stdout)["files"] as? [[String: Any]])
        #expect(files.first?["shape"] as? String == "payload")
        let diagnostics = try #require(files.first?["diagnostics"] as? [[String: Any]])
        let found = diagnostics.map { "\($0["code"] as? String ?? "?") \($0["line"] as? Int ?? 0)" }
        #expect(found == expected, "\(diagnostics.map { $0["message"] ?? "" })")
    }

    /// Schemas are read back from their compiled form on later runs; an edited schema is imported again, and a
    /// damaged compiled file is only a cache miss. Every run gives what importing the YAML gives.
    @Test func compiledSchemasFollowTheirFiles() throws {
        let library = Scratch.url(
            "mdmconf-apple-\(UUID().uuidString)")
        let profiles = library.appendingPathComponent("mdm/profiles")
        try FileManager.default.createDirectory(at: profiles, withIntermediateDirectories: true)
        for name in ["TopLevel.yaml", "CommonPayloadKeys.yaml", "com.apple.wifi.managed.yaml"] {
            try FileManager.default.copyItem(
                atPath: Self.appleRepository + "/mdm/profiles/" + name,
                toPath: profiles.appendingPathComponent(name).path)
        }
        let cache = library.appendingPathComponent("cache")
        let environment = ["MDMCONF_SCHEMA_PATH": library.path, "XDG_CACHE_HOME": cache.path]
        let arguments = [
            "validate", "Tests/MDMConfTests/ProfileFixtures/wifi-payload.plist", "--payload-type",
            "com.apple.wifi.managed", "--platform", "iOS", "--os-version", "17.4", "--format", "json",
        ]
        func findings() throws -> [String] {
            let result = try CLIProcess.run(arguments, environment: environment)
            let files = try #require(try CLIProcess.json(result.stdout)["files"] as? [[String: Any]])
            let diagnostics = try #require(files.first?["diagnostics"] as? [[String: Any]])
            return diagnostics.map {
                "\($0["code"] as? String ?? "?") \($0["line"] as? Int ?? 0) \($0["message"] ?? "")"
            }
        }
        let imported = try findings()
        // `compiled-<version of the binary form>`: the one folder of that name the first run made.
        let made = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("mdmconf").path)
        let compiledFolder = cache.appendingPathComponent(
            "mdmconf/" + (try #require(made.first { $0.hasPrefix("compiled-") }, "\(made)")))
        let compiled = try FileManager.default.contentsOfDirectory(atPath: compiledFolder.path)
        #expect(compiled.count == 2 && compiled.allSatisfy { $0.hasSuffix(".schema") }, "\(compiled)")
        #expect(try findings() == imported)

        // SSID_STR becomes an integer in the schema: the next run says so.
        let wifi = profiles.appendingPathComponent("com.apple.wifi.managed.yaml")
        let yaml = try String(contentsOf: wifi, encoding: .utf8)
        try yaml.replacingOccurrences(
            of: "- key: SSID_STR\n  title: SSID\n  supportedOS:\n    iOS:\n      introduced: '7.0'\n  type: <string>",
            with: "- key: SSID_STR\n  title: SSID\n  supportedOS:\n    iOS:\n      introduced: '7.0'\n  type: <integer>"
        ).write(to: wifi, atomically: true, encoding: .utf8)
        let edited = try findings()
        #expect(edited != imported)
        #expect(edited.contains { $0.contains("SSID_STR") && $0.contains("integer") }, "\(edited)")

        // Damaged compiled files are imported again and rewritten.
        for name in try FileManager.default.contentsOfDirectory(atPath: compiledFolder.path) {
            let file = compiledFolder.appendingPathComponent(name)
            var bytes = try Data(contentsOf: file)
            bytes = bytes.prefix(bytes.count / 2) + Data(repeating: 0xFF, count: 7)
            try bytes.write(to: file)
        }
        #expect(try findings() == edited)
        #expect(try findings() == edited)
    }

    @Test func usage() throws {
        let both = try CLIProcess.run(
            ["validate", Self.fixture, "--payload-type", "com.apple.wifi.managed", "--schema", "x.yaml"])
        #expect(both.status == 64 && both.stderr.contains("--payload-type cannot go with"), "\(both.stderr)")
        let alone = try CLIProcess.run(["validate", Self.fixture, "--enrollment", "user"])
        #expect(alone.status == 64 && alone.stderr.contains("--enrollment needs --platform"), "\(alone.stderr)")
        let unknown = try CLIProcess.run(["validate", Self.fixture, "--platform", "iOS", "--enrollment", "byod"])
        #expect(unknown.status == 64, "\(unknown.stderr)")
    }
}
