import CivilTime
import Foundation
import MDMDiagnostics
import Testing
import UpdatePolicy

/// Load checks and lint warnings of *Update policies*
@Suite(.enabled(if: ZoneInfo(named: "Europe/Berlin") != nil, "no tz database on this machine"))
struct PolicyLoaderTests {
    static func document(_ policy: String, defaults: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>schemaVersion</key><integer>1</integer>\(defaults)
        <key>policies</key><array>
        <dict><key>id</key><string>p1</string><key>app</key><string>com.acme.app</string>\(policy)</dict>
        </array></dict></plist>
        """
    }

    static func load(_ text: String, file: String = "policy.plist") -> PolicyLoader.Result {
        PolicyLoader().load(Array(text.utf8), file: file)
    }

    @Test func specExampleLoads() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>schemaVersion</key><integer>1</integer>
             <key>defaults</key><dict><key>timeZone</key><string>Europe/Berlin</string></dict>
             <key>policies</key><array>
              <dict><key>id</key><string>floor-3</string><key>minVersion</key><string>3.0</string>
               <key>deadline</key><string>2025-07-01T09:00:00</string><key>maxDeferrals</key><integer>5</integer>
               <key>rollout</key><dict><key>percent</key><real>25.5</real></dict></dict>
              <dict><key>id</key><string>pulled</string><key>blockedVersions</key><array><string>=3.1.0</string></array>
               <key>latestVersion</key><string>3.2.1</string></dict></array></dict></plist>
            """
        let result = Self.load(text, file: "catalog/apps/com.acme.app/update-policy.plist")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.message))")
        let document = try #require(result.document)
        #expect(document.policies.map(\.id) == ["floor-3", "pulled"])
        #expect(document.policies.map(\.app) == ["com.acme.app", "com.acme.app"])
        #expect(document.policies[0].rollout?.percent.hundredths == 2_550)
        #expect(document.policies[0].rollout?.seed == "floor-3")
        #expect(document.defaults.timeZone?.name == "Europe/Berlin")
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let policy: String
        let code: DiagnosticCode
        let keyPath: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "version as a number", policy: "<key>minVersion</key><real>3.1</real>",
            code: UpdatePolicyCode.invalidType, keyPath: "policies[0].minVersion"),
        Case(
            name: "unknown key",
            policy: "<key>minVersion</key><string>3</string><key>minVersoin</key><string>3</string>",
            code: UpdatePolicyCode.unknownKey, keyPath: "policies[0].minVersoin"),
        Case(
            name: "bad version", policy: "<key>minVersion</key><string>3.x</string>",
            code: UpdatePolicyCode.invalidVersion, keyPath: "policies[0].minVersion"),
        Case(
            name: "bad build", policy: "<key>minBuild</key><string>v12</string>", code: UpdatePolicyCode.invalidBuild,
            keyPath: "policies[0].minBuild"),
        Case(
            name: "bad OS version",
            policy: "<key>minVersion</key><string>3</string><key>requiresOS</key><string>17.x</string>",
            code: UpdatePolicyCode.invalidOSVersion, keyPath: "policies[0].requiresOS"),
        Case(
            name: "bad range", policy: "<key>blockedVersions</key><array><string>~3.1</string></array>",
            code: UpdatePolicyCode.invalidRange, keyPath: "policies[0].blockedVersions[0]"),
        Case(
            name: "date-only deadline",
            policy: "<key>minVersion</key><string>3</string><key>deadline</key><string>2025-06-01</string>",
            code: UpdatePolicyCode.invalidDateTime, keyPath: "policies[0].deadline"),
        Case(
            name: "bad zone",
            policy: "<key>minVersion</key><string>3</string><key>timeZone</key><string>Europe/Atlantis</string>",
            code: UpdatePolicyCode.invalidTimeZone, keyPath: "policies[0].timeZone"),
        Case(
            name: "bad duration",
            policy:
                "<key>minVersion</key><string>3</string><key>deadline</key><string>2025-06-01T00:00:00Z</string><key>newDeviceGrace</key><string>2w</string>",
            code: UpdatePolicyCode.invalidDuration, keyPath: "policies[0].newDeviceGrace"),
        Case(
            name: "windows inverted",
            policy:
                "<key>minVersion</key><string>3</string><key>deadline</key><string>2025-06-01T00:00:00Z</string><key>imminentWindow</key><string>96h</string>",
            code: UpdatePolicyCode.invalidWindows, keyPath: "policies[0]"),
        Case(
            name: "percent over 100",
            policy:
                "<key>minVersion</key><string>3</string><key>rollout</key><dict><key>percent</key><integer>101</integer></dict>",
            code: UpdatePolicyCode.invalidPercent, keyPath: "policies[0].rollout.percent"),
        Case(
            name: "percent too precise",
            policy:
                "<key>minVersion</key><string>3</string><key>rollout</key><dict><key>percent</key><real>52.340000000000003</real></dict>",
            code: UpdatePolicyCode.invalidPercent, keyPath: "policies[0].rollout.percent"),
        Case(
            name: "percent missing",
            policy:
                "<key>minVersion</key><string>3</string><key>rollout</key><dict><key>seed</key><string>s</string></dict>",
            code: UpdatePolicyCode.missingKey, keyPath: "policies[0].rollout"),
        Case(
            name: "bad locale",
            policy:
                "<key>minVersion</key><string>3</string><key>defaultLocale</key><string>en</string><key>messages</key><dict><key>e</key><dict><key>title</key><string>x</string></dict></dict>",
            code: UpdatePolicyCode.invalidLocale, keyPath: "policies[0].messages.e"),
        Case(
            name: "duplicate locale",
            policy:
                "<key>minVersion</key><string>3</string><key>defaultLocale</key><string>en</string><key>messages</key><dict><key>en_US</key><dict><key>title</key><string>x</string></dict><key>en-us</key><dict><key>title</key><string>y</string></dict></dict>",
            code: UpdatePolicyCode.duplicateLocale, keyPath: "policies[0].messages.en-us"),
        Case(
            name: "URL without scheme",
            policy: "<key>minVersion</key><string>3</string><key>updateUrl</key><string>apps.example.com/x</string>",
            code: UpdatePolicyCode.invalidURL, keyPath: "policies[0].updateUrl"),
        Case(
            name: "negative deferrals",
            policy:
                "<key>minVersion</key><string>3</string><key>deadline</key><string>2025-06-01T00:00:00Z</string><key>maxDeferrals</key><integer>-1</integer>",
            code: UpdatePolicyCode.invalidValue, keyPath: "policies[0].maxDeferrals"),
        Case(
            name: "bad onIndeterminate",
            policy: "<key>minBuild</key><string>3</string><key>onIndeterminate</key><string>maybe</string>",
            code: UpdatePolicyCode.invalidValue, keyPath: "policies[0].onIndeterminate"),
        Case(
            name: "empty platforms", policy: "<key>minVersion</key><string>3</string><key>platforms</key><array/>",
            code: UpdatePolicyCode.emptyList, keyPath: "policies[0].platforms"),
        Case(
            name: "nothing required", policy: "<key>latestVersion</key><string>3</string>",
            code: UpdatePolicyCode.noRequirement, keyPath: "policies[0]"),
    ]

    @Test(arguments: cases)
    func configurationErrorIsReported(_ testCase: Case) throws {
        let result = Self.load(Self.document(testCase.policy))
        #expect(result.document == nil)
        let finding = try #require(
            result.diagnostics.first { $0.code == testCase.code },
            "\(result.diagnostics.map { "\($0.code.code) \($0.message)" })")
        #expect(finding.keyPath == testCase.keyPath)
        #expect(finding.severity == .error)
        #expect(finding.line != nil)
    }

    @Test func everyErrorIsReportedAtOnce() {
        let result = Self.load(
            Self.document(
                "<key>minVersion</key><string>3.x</string><key>deadline</key><string>soon</string><key>bogus</key><true/>"
            ))
        #expect(Set(result.diagnostics.map(\.code.code)) == ["MC4011", "MC4015", "MC4004"])
    }

    @Test func documentLevelErrors() {
        let wrongVersion = Self.load(
            "<plist><dict><key>schemaVersion</key><integer>2</integer><key>policies</key><array/></dict></plist>")
        #expect(wrongVersion.diagnostics.map(\.code) == [UpdatePolicyCode.unsupportedSchemaVersion])
        let missing = Self.load("<plist><dict><key>policies</key><array/></dict></plist>")
        #expect(missing.diagnostics.map(\.code) == [UpdatePolicyCode.missingKey])
        let json = Self.load(#"{"schemaVersion": 1, "policies": [], "policies": []}"#, file: "p.json")
        #expect(json.diagnostics.map(\.code) == [UpdatePolicyCode.malformedDocument])
        let duplicateIDs = Self.load(
            """
            <plist><dict><key>schemaVersion</key><integer>1</integer><key>policies</key><array>
            <dict><key>id</key><string>a</string><key>app</key><string>x</string><key>minVersion</key><string>1</string></dict>
            <dict><key>id</key><string>a</string><key>app</key><string>x</string><key>minVersion</key><string>2</string></dict>
            </array></dict></plist>
            """)
        #expect(duplicateIDs.diagnostics.map(\.code) == [UpdatePolicyCode.duplicateID])
        let partialGlob = Self.load(
            Self.document("<key>minVersion</key><string>1</string>").replacingOccurrences(
                of: "com.acme.app", with: "com.acme.*"))
        #expect(partialGlob.diagnostics.map(\.code) == [UpdatePolicyCode.invalidApp])
        let mismatch = Self.load(
            Self.document("<key>minVersion</key><string>1</string>"), file: "c/apps/com.other/update-policy.plist")
        #expect(mismatch.diagnostics.map(\.code) == [UpdatePolicyCode.appMismatch])
    }

    @Test func warningsDoNotRefuseTheDocument() throws {
        let result = Self.load(
            Self.document(
                """
                <key>minVersion</key><string>3.0</string><key>recommendedVersion</key><string>2.9</string>
                <key>latestVersion</key><string>2.8</string><key>deadline</key><string>2025-07-01T09:00:00</string>
                <key>messages</key><dict><key>fr</key><dict><key>title</key><string>Mise à jour</string></dict></dict>
                """))
        #expect(result.document != nil)
        #expect(
            Set(result.diagnostics.map(\.code.code)) == ["MC4101", "MC4102", "MC4105", "MC4106"],
            "\(result.diagnostics.map { "\($0.code.code) \($0.message)" })")
        #expect(result.diagnostics.allSatisfy { $0.severity == .warning })
    }

    @Test func jsonAndPlistLoadAlike() throws {
        let json = """
            {"schemaVersion": 1, "defaults": {"timeZone": "Europe/Berlin"},
             "policies": [{"id": "p1", "app": "com.acme.app", "minVersion": "3.0", "deadline": "2025-07-01T09:00:00",
                           "rollout": {"percent": 68.35}, "platforms": ["iOS"]}]}
            """
        let plist = Self.document(
            "<key>minVersion</key><string>3.0</string><key>deadline</key><string>2025-07-01T09:00:00</string><key>rollout</key><dict><key>percent</key><real>68.35</real></dict><key>platforms</key><array><string>iOS</string></array>",
            defaults: "<key>defaults</key><dict><key>timeZone</key><string>Europe/Berlin</string></dict>")
        let fromJSON = try #require(Self.load(json, file: "p.json").document)
        let fromPlist = try #require(Self.load(plist).document)
        #expect(fromJSON.policies[0].rollout?.percent == fromPlist.policies[0].rollout?.percent)
        #expect(fromJSON.policies[0].rollout?.percent.hundredths == 6_835)
        #expect(fromJSON.policies[0].platforms == ["ios"])
        #expect(fromJSON.policies[0].deadline == fromPlist.policies[0].deadline)
        let tooPrecise = Self.load(
            #"{"schemaVersion": 1, "policies": [{"id": "p", "app": "a", "minVersion": "1", "rollout": {"percent": 52.340000000000003}}]}"#,
            file: "p.json")
        #expect(tooPrecise.diagnostics.map(\.code) == [UpdatePolicyCode.invalidPercent])
    }

    /// The benchmark's every-feature document (for `update-decisions-benchmark --dump`) stays loadable.
    @Test func everyFeatureBenchmarkDocumentLoads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("Benchmarks/every-feature-policy.plist")
        let result = PolicyLoader().load(Array(try Data(contentsOf: path)), file: path.path)
        let document = try #require(result.document, "\(result.diagnostics.map(\.message))")
        #expect(document.policies.count == 7)
        #expect(Set(result.diagnostics.map(\.code.code)) == ["MC4104"])
    }
}
