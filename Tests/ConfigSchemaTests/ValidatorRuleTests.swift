import ConfigSchema
import MDMDiagnostics
import PropertyList
import Testing

/// Every validation rule, with the position and key path it reports at.
struct ValidatorRuleTests {
    static let specfile = """
        <managedAppConfiguration><version>1</version><bundleId>com.example.rules</bundleId><dict>
        <string keyName="URL"><constraint nullable="false" pattern="https://.+"/></string>
        <integer keyName="Port"><constraint min="1" max="65535"/></integer>
        <float keyName="Ratio"><constraint min="0" max="1"/></float>
        <boolean keyName="Enabled"/>
        <string keyName="Mode"><constraint><values><value>fast</value><value>safe</value></values></constraint></string>
        <string keyName="Code"><constraint min="2" max="4"/></string>
        <string keyName="Exact"><constraint pattern="abc"/></string>
        <stringArray keyName="Regions"><constraint min="1" max="2"/></stringArray>
        <date keyName="Until"><constraint min="2024-01-01T00:00:00Z"/></date>
        <string keyName="Email"><constraint pattern="[^@]+@[^@]+"/></string>
        </dict></managedAppConfiguration>
        """

    static let schema: ConfigSchema = {
        let load = Support.specfile(specfile)
        guard let schema = load.usableSchema else { fatalError("test schema does not load: \(load.diagnostics)") }
        return schema
    }()

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let body: String
        /// Text at which the finding must point (its first occurrence).
        let at: String
        let code: DiagnosticCode
        let keyPath: String?
        var severity: Severity = .error
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "integer as string", body: "<key>Port</key><string>8443</string>", at: "<string>8443",
            code: SchemaCode.typeMismatch, keyPath: "Port"),
        Case(
            name: "boolean as string", body: "<key>Enabled</key><string>true</string>", at: "<string>true",
            code: SchemaCode.typeMismatch, keyPath: "Enabled"),
        Case(
            name: "not allowed", body: "<key>Mode</key><string>turbo</string>", at: "<string>turbo",
            code: SchemaCode.valueNotAllowed, keyPath: "Mode"),
        Case(
            name: "above maximum", body: "<key>Port</key><integer>70000</integer>", at: "<integer>70000",
            code: SchemaCode.outOfRange, keyPath: "Port"),
        Case(
            name: "real below minimum", body: "<key>Ratio</key><real>-0.5</real>", at: "<real>",
            code: SchemaCode.outOfRange, keyPath: "Ratio"),
        Case(
            name: "date before minimum", body: "<key>Until</key><date>2020-01-01T00:00:00Z</date>", at: "<date>",
            code: SchemaCode.outOfRange, keyPath: "Until"),
        Case(
            name: "string too short", body: "<key>Code</key><string>x</string>", at: "<string>x",
            code: SchemaCode.lengthOutOfRange, keyPath: "Code"),
        Case(
            name: "pattern is anchored", body: "<key>Exact</key><string>xabcx</string>", at: "<string>xabcx",
            code: SchemaCode.patternMismatch, keyPath: "Exact"),
        Case(
            name: "too many items",
            body: "<key>Regions</key><array><string>a</string><string>b</string><string>c</string></array>",
            at: "<array>", code: SchemaCode.countOutOfRange, keyPath: "Regions"),
        Case(
            name: "unknown key", body: "<key>Prot</key><integer>1</integer>", at: "<key>Prot",
            code: SchemaCode.unknownKey, keyPath: "Prot", severity: .warning),
        Case(
            name: "empty required", body: "<key>URL</key><string></string>", at: "<string></string>",
            code: SchemaCode.emptyRequiredValue, keyPath: "URL"),
        Case(
            name: "variable in an integer", body: "<key>Port</key><string>$UDID</string>", at: "<string>$UDID",
            code: SchemaCode.variableInNonString, keyPath: "Port"),
        Case(
            name: "variable defers the pattern", body: "<key>Email</key><string>{{mail}}</string>",
            at: "<string>{{mail}}", code: SchemaCode.variableDeferred, keyPath: "Email", severity: .info),
        Case(
            name: "unknown Intune token", body: "<key>Email</key><string>{{email}}</string>", at: "<string>{{email}}",
            code: SchemaCode.unknownVariable, keyPath: "Email", severity: .warning),
    ]

    @Test(arguments: cases)
    func ruleIsReportedAtTheValue(_ testCase: Case) throws {
        let config = "<dict>\n<key>URL</key><string>https://a.example</string>\n\(testCase.body)\n</dict>"
        let findings = Support.validate(config, against: Self.schema).filter { $0.code == testCase.code }
        #expect(findings.count == 1, "\(findings.map(\.message))")
        let finding = try #require(findings.first)
        let expected = try #require(Support.position(of: testCase.at, in: config))
        #expect(finding.line == expected.line && finding.column == expected.column)
        #expect(finding.keyPath == testCase.keyPath)
        #expect(finding.severity == testCase.severity)
    }

    @Test func integerIsAcceptedWhereARealIsDeclared() {
        #expect(
            Support.validate(
                "<dict><key>URL</key><string>https://x</string><key>Ratio</key><integer>1</integer></dict>",
                against: Self.schema
            ).isEmpty)
    }

    @Test func missingRequiredKeyPointsAtTheDict() throws {
        let config = "<plist>\n  <dict><key>Port</key><integer>1</integer></dict>\n</plist>"
        let finding = try #require(Support.validate(config, against: Self.schema).first)
        #expect(finding.code == SchemaCode.missingRequiredKey)
        #expect(finding.keyPath == "URL")
        #expect(finding.line == 2 && finding.column == 3)
    }

    @Test func booleanStringHintSaysHowToWriteIt() throws {
        let finding = try #require(
            Support.validate(
                "<dict><key>URL</key><string>https://x</string><key>Enabled</key><string>yes</string></dict>",
                against: Self.schema
            ).first)
        #expect(finding.hint == "write <true/>, not a string")
    }

    @Test func rootMustBeADictionary() throws {
        let finding = try #require(Support.validate("<array><string>x</string></array>", against: Self.schema).first)
        #expect(finding.code == SchemaCode.rootNotDictionary)
        #expect(finding.line == 1 && finding.column == 1)
    }

    @Test func didYouMeanFindsCaseAndTypos() {
        #expect(Suggestion.closest(to: "Allowsession", in: ["AllowSession", "Locked"]) == "AllowSession")
        #expect(Suggestion.closest(to: "pfm_tile", in: ["pfm_title", "pfm_type"]) == "pfm_title")
        #expect(
            Suggestion.closest(to: "DefaultPluginsSetting\n", in: ["DefaultPluginsSetting"]) == "DefaultPluginsSetting")
        #expect(Suggestion.closest(to: "Zebra", in: ["AllowSession", "Locked"]) == nil)
    }
}
