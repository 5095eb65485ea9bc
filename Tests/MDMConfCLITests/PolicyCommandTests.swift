import FleetTestSupport
import Foundation
import Testing

/// `mdmconf policy …` as a process: exit codes, JSON and text answers, lint and test over the kiosk example.
struct PolicyCommandTests {
    static let profiles = "Examples/device-policy/profiles"
    static let at = "2025-03-10T09:00:00Z"

    struct Case: Sendable, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let stdout: String
        var description: String { arguments.joined(separator: " ") }
    }

    @Test(arguments: [
        Case(arguments: ["app", "com.acme.storefront"], status: 0, stdout: "ALLOW app com.acme.storefront"),
        Case(arguments: ["app", "com.example.games"], status: 1, stdout: "deny APP_DENYLISTED"),
        Case(arguments: ["url", "https://admin.acme.com/x"], status: 1, stdout: "deny URL_DENYLISTED"),
        Case(
            arguments: ["url", "HTTPS://Portal.ACME.com:443/kiosk/"], status: 0,
            stdout: "ALLOW url https://portal.acme.com/kiosk/"),
        Case(arguments: ["wifi", "ACME-Store"], status: 0, stdout: "allow PROFILE_NETWORK"),
        Case(arguments: ["wifi", "--ssid-hex", "41434d452d53746f7265"], status: 0, stdout: "allow SSID_ALLOWLISTED"),
        Case(arguments: ["wifi", "Free Public WiFi"], status: 1, stdout: "deny SSID_DENYLISTED"),
        Case(arguments: ["kiosk"], status: 0, stdout: "app: \"com.acme.storefront\""),
        Case(arguments: ["vpn"], status: 0, stdout: "require ALWAYS_ON_ENFORCED"),
        Case(arguments: ["asam", "com.acme.scanner"], status: 1, stdout: "deny KIOSK_LOCKED"),
        Case(arguments: ["restriction", "allowAppInstallation"], status: 0, stdout: "value: false"),
        Case(arguments: ["app", "com.acme storefront"], status: 65, stdout: ""),
        Case(arguments: ["url", "ftp://acme.com/"], status: 65, stdout: ""),
        Case(arguments: ["wifi", "--ssid-hex", "4"], status: 65, stdout: ""),
        Case(arguments: ["restriction", "allowCamera"], status: 65, stdout: ""),
        Case(arguments: ["wifi"], status: 64, stdout: ""),
        Case(arguments: ["wifi", "A", "--ssid-hex", "41"], status: 64, stdout: ""),
        Case(arguments: ["app"], status: 64, stdout: ""),
        Case(arguments: ["app", "a.b", "--bogus"], status: 64, stdout: ""),
    ])
    func answers(_ testCase: Case) throws {
        let result = try CLIProcess.run(
            ["policy"] + testCase.arguments + ["--profile", Self.profiles, "--at", Self.at])
        #expect(result.status == testCase.status, "\(result.stderr)")
        if testCase.status >= 64 {
            #expect(!result.stderr.isEmpty)
        } else {
            #expect(result.stdout.contains(testCase.stdout), "\(result.stdout)")
        }
    }

    @Test func exitCodesForConflictsAndRuntimeComponents() throws {
        let lockA = try CLIProcess.temporaryFile("lock-a.mobileconfig", Self.lock("com.t.a", app: "com.a.one"))
        let lockB = try CLIProcess.temporaryFile("lock-b.mobileconfig", Self.lock("com.t.b", app: "com.a.two"))
        let conflict = try CLIProcess.run(["policy", "app", "com.a.two", "--profile", lockA, "--profile", lockB])
        #expect(conflict.status == 3)
        #expect(conflict.stderr.contains("L_KIOSK_CONFLICT"))
        let kiosk = try CLIProcess.run(["policy", "kiosk", "--profile", lockA, "--profile", lockB, "--format", "json"])
        #expect(kiosk.status == 3)
        let json = try CLIProcess.json(kiosk.stdout)
        #expect(json["decision"] as? String == "indeterminate")
        #expect((json["candidates"] as? [String]) == ["com.a.one", "com.a.two"])
        let plugin = try CLIProcess.temporaryFile(
            "plugin.mobileconfig",
            Self.profile(
                "com.t.p", type: "com.apple.webcontent-filter",
                body: "<key>FilterType</key><string>Plugin</string><key>PluginBundleID</key><string>com.v.f</string>"))
        #expect(try CLIProcess.run(["policy", "url", "https://a.example/", "--profile", plugin]).status == 4)
    }

    @Test func jsonAnswerHasEveryField() throws {
        let result = try CLIProcess.run([
            "policy", "url", "https://admin.acme.com/x?y", "--profile", Self.profiles, "--at",
            "2025-03-10T10:00:00+01:00",
            "--format", "json", "--trace",
        ])
        #expect(result.status == 1)
        let json = try CLIProcess.json(result.stdout)
        for key in [
            "query", "decision", "reasons", "advisories", "inactive", "lints", "diagnostics", "trace", "profiles",
        ] {
            #expect(json.keys.contains(key), "\(key)")
        }
        let query = try #require(json["query"] as? [String: Any])
        #expect(query["at"] as? String == "2025-03-10T09:00:00Z")
        #expect(query["normalized"] as? String == "https://admin.acme.com/x")
        let reason = try #require((json["reasons"] as? [[String: Any]])?.first)
        #expect(reason["code"] as? String == "URL_DENYLISTED")
        #expect(reason["profile"] as? String == "com.acme.kiosk.webfilter")
        #expect(reason["key"] as? String == "DenyListURLs")
        #expect(reason["index"] as? Int == 0)
        #expect(reason["line"] as? Int != nil)
        let trace = try #require(json["trace"] as? [[String: Any]])
        #expect(trace.contains { $0["step"] as? String == "match" && $0["result"] as? String == "no match" })
        #expect(trace.contains { $0["step"] as? String == "schedule" })
    }

    @Test func profileErrorsExit78AndSkipInvalidGoesOn() throws {
        let strict = try CLIProcess.run([
            "policy", "app", "com.acme.storefront", "--profile", Self.profiles, "--profile",
            "Examples/device-policy/broken/typos.mobileconfig", "--format", "json",
        ])
        #expect(strict.status == 78)
        let json = try CLIProcess.json(strict.stdout)
        #expect(json["decision"] is NSNull)
        let codes = (json["diagnostics"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
        #expect(Set(codes).isSuperset(of: ["MC5003", "MC5005", "MC5007", "MC5009"]))
        let skipping = try CLIProcess.run([
            "policy", "app", "com.acme.storefront", "--profile", Self.profiles, "--profile",
            "Examples/device-policy/broken/typos.mobileconfig", "--skip-invalid",
        ])
        #expect(skipping.status == 0)
        #expect(skipping.stderr.contains("MC5011"))
        let missing = try CLIProcess.run(["policy", "kiosk", "--profile", "Examples/device-policy/nope.mobileconfig"])
        #expect(missing.status == 66)
        let badTime = try CLIProcess.run(["policy", "kiosk", "--at", "2025-03-10 09:00"])
        #expect(badTime.status == 65)
    }

    @Test func standardInputProfile() throws {
        let text = try String(
            contentsOfFile: CLIProcess.packageRoot.appendingPathComponent("\(Self.profiles)/50-vpn.mobileconfig").path,
            encoding: .utf8)
        let result = try CLIProcess.run(["policy", "vpn", "--profile", "-"], stdin: text)
        #expect(result.status == 0)
        #expect(result.stdout.contains("required: true"))
    }

    @Test func lintAndTestCommands() throws {
        let lint = try CLIProcess.run(["policy", "lint", "--profile", Self.profiles, "--format", "json"])
        #expect(lint.status == 0, "\(lint.stdout)")
        let json = try CLIProcess.json(lint.stdout)
        #expect((json["summary"] as? [String: Any])?["errors"] as? Int == 0)
        let restrictionsOnly = try CLIProcess.run([
            "policy", "lint", "--profile", "\(Self.profiles)/20-restrictions.mobileconfig",
        ])
        #expect(restrictionsOnly.status == 1)
        #expect(restrictionsOnly.stdout.contains("L_WIFI_NO_ALLOWED_NETWORKS"))
        let test = try CLIProcess.run(["policy", "test", "Examples/device-policy/cases.json"])
        #expect(test.status == 0, "\(test.stdout)")
        #expect(test.stdout.hasSuffix("30 passed, 0 failed\n"))
        let failing = try CLIProcess.temporaryFile(
            "cases.json",
            #"[{"id": "wrong", "profiles": [], "query": {"type": "kiosk", "at": "2025-01-01T00:00:00Z"}, "expect": {"exitCode": 0, "decision": "indeterminate"}}]"#
        )
        let failed = try CLIProcess.run(["policy", "test", failing])
        #expect(failed.status == 1)
        #expect(failed.stdout == "FAIL wrong: decision ok, expected indeterminate\n0 passed, 1 failed\n")
        let invalid = try CLIProcess.temporaryFile(
            "invalid.json", #"[{"id": "x", "query": {"type": "kiosk"}, "expect": {"exitCode": 0, "decisoin": "ok"}}]"#)
        #expect(try CLIProcess.run(["policy", "test", invalid]).status == 78)
        #expect(try CLIProcess.run(["policy", "test", "nope.json"]).status == 66)
    }

    @Test func lintFormatsAndSingleFileLint() throws {
        let broken = "Examples/device-policy/broken/typos.mobileconfig"
        let sarif = try CLIProcess.run([
            "policy", "lint", "--profile", "\(Self.profiles)/20-restrictions.mobileconfig", "--format", "sarif",
        ])
        #expect(sarif.status == 1)
        let json = try CLIProcess.json(sarif.stdout)
        #expect(json["version"] as? String == "2.1.0")
        let github = try CLIProcess.run(["policy", "lint", "--profile", broken, "--format", "github"])
        #expect(github.status == 78)
        #expect(github.stdout.contains("::error file=\(broken),line=21,col=13"))
        let single = try CLIProcess.run(["lint", broken])
        #expect(single.status == 1)
        #expect(single.stdout.contains("[MC5009 unknown-time-zone]"))
    }

    static func profile(_ id: String, type: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>PayloadType</key><string>Configuration</string><key>PayloadIdentifier</key><string>\(id)</string>
        <key>PayloadUUID</key><string>\(id)</string>
        <key>PayloadContent</key><array><dict>
        <key>PayloadType</key><string>\(type)</string><key>PayloadIdentifier</key><string>\(id).p</string>
        <key>PayloadUUID</key><string>\(id).p</string>
        \(body)
        </dict></array></dict></plist>
        """
    }

    static func lock(_ id: String, app: String) -> String {
        profile(
            id, type: "com.apple.app.lock",
            body: "<key>App</key><dict><key>Identifier</key><string>\(app)</string></dict>")
    }
}

/// `mdmconf policy restriction` over any key Apple's schemas describe, with the corpus copy of
/// `apple/device-management` on `MDMCONF_SCHEMA_PATH`: two restrictions profiles combined by Apple's most-restrictive
/// rule, two passcode declarations by their `combinetype`, each answer naming its rule and the deciding payload.
@Suite(
    .enabled(
        if: FileManager.default.fileExists(atPath: ProfileValidationTests.appleRepository),
        "corpus not found beside the project"))
struct RestrictionByAppleSchemaTests {
    static let fixtures = "Tests/MDMConfTests/RestrictionFixtures"

    struct Case: Sendable, CustomTestStringConvertible {
        var key: String
        var status: Int32
        /// The answer's value, compact JSON.
        var value: String
        var rule: String?
        /// The profile of each RESTRICTION_SET reason, or of each conflicting one.
        var deciding: [String]
        var testDescription: String { key }
    }

    static let passcode = "com.apple.configuration.passcode.settings"

    static let cases: [Case] = [
        Case(key: "allowCamera", status: 0, value: "false", rule: "boolean-and", deciding: ["com.example.classroom"]),
        Case(
            key: "forceAutomaticDateAndTime", status: 0, value: "true", rule: "boolean-or",
            deciding: ["com.example.classroom"]),
        Case(key: "ratingApps", status: 0, value: "200", rule: "number-min", deciding: ["com.example.classroom"]),
        Case(
            key: "enforcedSoftwareUpdateDelay", status: 0, value: "30", rule: "number-max",
            deciding: ["com.example.classroom"]),
        Case(
            key: "ratingRegion", status: 3, value: "null", rule: nil,
            deciding: ["com.example.baseline", "com.example.classroom"]),
        Case(key: "allowAirDrop", status: 0, value: "true", rule: "boolean-and", deciding: []),
        Case(
            key: "allowSafari", status: 0, value: "true", rule: "boolean-and", deciding: []),
        Case(
            key: passcode + ".MinimumLength", status: 0, value: "8", rule: "number-max",
            deciding: ["com.example.passcode.finance"]),
        Case(
            key: passcode + ".MaximumFailedAttempts", status: 0, value: "6", rule: "number-min",
            deciding: ["com.example.passcode.finance"]),
        Case(
            key: passcode + ".RequirePasscode", status: 0, value: "true", rule: "boolean-or",
            deciding: ["com.example.passcode.baseline"]),
        Case(key: "allowCamra", status: 65, value: "", rule: nil, deciding: []),
        Case(key: passcode + ".MinLength", status: 65, value: "", rule: nil, deciding: []),
    ]

    @Test(arguments: cases) func answer(_ testCase: Case) throws {
        let result = try CLIProcess.run(
            ["policy", "restriction", testCase.key, "--profile", Self.fixtures, "--format", "json"],
            environment: ["MDMCONF_SCHEMA_PATH": ProfileValidationTests.appleRepository])
        #expect(result.status == testCase.status, "\(result.stdout)\(result.stderr)")
        let json = try CLIProcess.json(result.stdout)
        guard testCase.status != 65 else {
            let diagnostics = try #require(json["diagnostics"] as? [[String: Any]])
            #expect(diagnostics.first?["code"] as? String == "MC5106")
            return
        }
        let value = try #require(json["value"])
        let text = String(
            decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
        #expect(text == testCase.value)
        #expect(json["rule"] as? String == testCase.rule)
        #expect(!((json["ruleSource"] as? String) ?? "").isEmpty)
        let reasons = try #require(json["reasons"] as? [[String: Any]])
        let deciding = reasons.filter { ($0["code"] as? String) != "RESTRICTION_DEFAULT" }
            .compactMap { $0["profile"] as? String }
        #expect(deciding == testCase.deciding, "\(reasons)")
    }

    /// The server's `/v1/policy/evaluate` and the command line answer a restriction alike: with Apple's schemas on
    /// the server's path, `allowCamera` over the example catalog's kiosk profiles, by its rule; a key no schema knows
    /// is refused (422, MC5106).
    @Test func theServerAnswersLikeTheCommandLine() async throws {
        let server = try ServerProcess(
            ["serve", "Examples/catalog", "--port", "0", "--store", "none"],
            environment: ["MDMCONF_SCHEMA_PATH": ProfileValidationTests.appleRepository])
        defer { server.stop() }
        let http = RawHTTP(port: server.port)
        let admin = ["Authorization": "Bearer example-admin-token-c0ffee"]
        let answer = try await http.request(
            "POST", "/v1/policy/evaluate", headers: admin,
            body: #"{"query": {"type": "restriction", "arg": "allowCamera", "at": "2025-03-10T09:00:00Z"}}"#)
        #expect(answer.status == 200, "\(answer.text)")
        let json = try CLIProcess.json(answer.text)
        #expect(json["rule"] as? String == "boolean-and", "\(answer.text)")
        let local = try CLIProcess.run(
            [
                "policy", "restriction", "allowCamera", "--profile", "Examples/catalog/profiles", "--at",
                "2025-03-10T09:00:00Z", "--format", "json",
            ], environment: ["MDMCONF_SCHEMA_PATH": ProfileValidationTests.appleRepository])
        let expected = try CLIProcess.json(local.stdout)
        #expect(json["value"] as? Bool == expected["value"] as? Bool && json["value"] != nil)
        let unknown = try await http.request(
            "POST", "/v1/policy/evaluate", headers: admin,
            body: #"{"query": {"type": "restriction", "arg": "allowCamra"}}"#)
        #expect(unknown.status == 422 && unknown.text.contains("MC5106"), "\(unknown.text)")
    }

    /// Without Apple's schemas on the path, only the keys the engine evaluates itself are answered, and the refusal
    /// says how to get the rest.
    @Test func withoutApplesSchemaTheRefusalSaysWhatIsMissing() throws {
        let result = try CLIProcess.run(["policy", "restriction", "allowCamera", "--profile", Self.fixtures])
        #expect(result.status == 65)
        #expect(result.stderr.contains("MDMCONF_SCHEMA_PATH"), "\(result.stderr)")
    }
}
