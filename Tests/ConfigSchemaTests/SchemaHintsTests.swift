import ConfigSchema
import MDMDiagnostics
import PropertyList
import Testing

/// Apple's schema of a payload type with a ProfileManifest's hints (`adding(hintsOf:)`): Apple's facts are kept, the
/// manifest adds conditions, titles, value titles, its `sensitive` marks and the keys Apple's copy lacks.
struct SchemaHintsTests {
    static let fixtures = Support.packageRoot.appendingPathComponent("Tests/ConfigSchemaTests/AppleFixtures")

    static func merged() throws -> (apple: ConfigSchema, merged: ConfigSchema) {
        let apple = try #require(try Support.loadSchema(fixtures.appendingPathComponent("hints.yaml").path).schema)
        let manifest = try #require(
            try Support.loadSchema(fixtures.appendingPathComponent("hints-manifest.plist").path).schema)
        #expect(apple.format == .apple && manifest.format == .manifest)
        return (apple, apple.adding(hintsOf: manifest))
    }

    @Test func appleFactsAreKeptAndTheManifestsHintsAdded() throws {
        let (apple, merged) = try Self.merged()
        #expect(merged.format == .apple && merged.path == apple.path)
        #expect(merged.hints?.path.hasSuffix("hints-manifest.plist") == true && apple.hints == nil)
        #expect(merged.title == "Proxy settings", "Apple's own title stays")

        let type = try #require(merged.root.child("ProxyType"))
        #expect(type.title == "Proxy type")
        #expect(type.allowedValues?.map(\.value) == [.string("None"), .string("Manual"), .string("Auto")])
        #expect(type.allowedValues?.map(\.title) == ["No proxy", "Manual proxy", nil])

        let server = try #require(merged.root.child("ProxyServer"))
        #expect(server.types == [.string], "Apple's type, not the manifest's")
        #expect(server.title == "Proxy server" && server.description == "The proxy's host name.")
        #expect(server.requiredWhen.count == 1 && !server.required)

        #expect(merged.root.child("Account")?.child("Password")?.sensitive == true)
        #expect(merged.root.child("Account")?.child("UserName") != nil)

        // The key only the manifest lists joins with its OS version; its Payload… keys do not.
        let extra = try #require(merged.root.child("ProxyCaptiveLoginAllowed"))
        #expect(extra.types == [.boolean] && extra.availability.introduced["ios"] == "17.0")
        #expect(merged.root.child("PayloadDisplayName") == nil)
        #expect(merged.keys.map(\.name) == apple.keys.map(\.name) + ["ProxyCaptiveLoginAllowed"])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var keys: String
        /// `CODE key path` of each finding against the merged schema, then against Apple's alone.
        var merged: [String]
        var apple: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a manual proxy without its server",
            keys: "<key>ProxyType</key><string>Manual</string>",
            merged: ["MC2004 ProxyServer"], apple: []),
        Case(
            name: "a manual proxy with its server",
            keys: "<key>ProxyType</key><string>Manual</string>"
                + "<key>ProxyServer</key><string>proxy.example.com</string>",
            merged: [], apple: []),
        Case(
            name: "the manifest's own key",
            keys: "<key>ProxyCaptiveLoginAllowed</key><true/>",
            merged: [], apple: ["MC2002 ProxyCaptiveLoginAllowed"]),
        Case(
            name: "a value Apple allows and the manifest does not list",
            keys: "<key>ProxyType</key><string>Auto</string>",
            merged: [], apple: []),
    ]

    @Test(arguments: cases) func findings(_ testCase: Case) throws {
        let (apple, merged) = try Self.merged()
        let config = "<plist version=\"1.0\"><dict>\(testCase.keys)</dict></plist>"
        func codes(_ schema: ConfigSchema) -> [String] {
            Support.validate(config, against: schema).map { "\($0.code.code) \($0.keyPath ?? "")" }
        }
        #expect(codes(merged) == testCase.merged)
        #expect(codes(apple) == testCase.apple)
    }

    /// A requirement that only the manifest's conditions make names the condition that holds and the manifest.
    @Test func aConditionalRequirementNamesItsManifest() throws {
        let (_, merged) = try Self.merged()
        let found = Support.validate(
            "<plist version=\"1.0\"><dict><key>ProxyType</key><string>Manual</string></dict></plist>",
            against: merged)
        let finding = try #require(found.first)
        #expect(finding.message == "'ProxyServer' is required here (ProxyType is 'Manual')")
        #expect(finding.hint?.contains("hints-manifest.plist (pfm_conditionals)") == true, "\(finding.hint ?? "")")
    }
}
