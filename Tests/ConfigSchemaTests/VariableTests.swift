import ConfigSchema
import MDMDiagnostics
import PropertyList
import Testing

/// MDM variables of Jamf, Intune, Workspace ONE and Fleet.
struct VariableTests {
    @Test(arguments: [
        ("$EMAIL", MDM.jamf, "EMAIL", true),
        ("user-$SERIALNUMBER-x", .jamf, "SERIALNUMBER", true),
        ("{{userprincipalname}}", .intune, "userprincipalname", true),
        ("{{udidlast4digits}}", .intune, "udidlast4digits", true),
        ("{EmailAddress}", .workspaceone, "EmailAddress", true),
        ("$FLEET_VAR_HOST_UUID", .fleet, "FLEET_VAR_HOST_UUID", true),
        ("$FLEET_VAR_NOPE", .fleet, "FLEET_VAR_NOPE", false),
        ("{{nope}}", .intune, "nope", false),
    ])
    func tokensAreRecognised(_ text: String, _ mdm: MDM, _ name: String, _ known: Bool) throws {
        let token = try #require(MDMVariables.tokens(in: text).first)
        #expect(token.mdm == mdm)
        #expect(token.name == name)
        #expect(token.isKnown == known)
        #expect(MDMVariables.tokens(in: text, for: mdm).count == 1)
    }

    /// Tokens among other text, non-ASCII text included (tokens are read from the UTF-8 bytes): each found as
    /// `mdm:name:text:known`, in order.
    @Test(arguments: [
        ("é$EMAILé{{mail}}ü{EmailAddress}", ["jamf:EMAIL:$EMAIL:true", "intune:mail:{{mail}}:true",
            "workspaceone:EmailAddress:{EmailAddress}:true"]),
        ("$EMAIL$UDID", ["jamf:EMAIL:$EMAIL:true", "jamf:UDID:$UDID:true"]),
        ("${EMAIL}", ["workspaceone:EMAIL:{EMAIL}:false"]),
        ("{{mail}", []), ("$Ä$ÉMAIL", []), ("{Device_Uid}", []), ("{{ mail }}", []), ("$", []), ("{{", []),
        ("{{serial_number}}", ["intune:serial_number:{{serial_number}}:false"]),
        ("💡{{devicename}}$ROOM💡", ["intune:devicename:{{devicename}}:true", "jamf:ROOM:$ROOM:true"]),
        ("$FLEET_VAR_HOST_UUID_x", ["fleet:FLEET_VAR_HOST_UUID_x:$FLEET_VAR_HOST_UUID_x:false"]),
        ("{{{mail}}}", ["intune:mail:{{mail}}:true"]),
        ("{{DeviceModel}}{DeviceModel}", ["intune:DeviceModel:{{DeviceModel}}:false",
            "workspaceone:DeviceModel:{DeviceModel}:true"]),
        ("a$9x{9}{{9}}", ["intune:9:{{9}}:false"]),
        ("\u{301}$EMAIL\u{301}", ["jamf:EMAIL:$EMAIL:true"]),
    ])
    func tokensAmongOtherText(_ text: String, _ expected: [String]) {
        let found = MDMVariables.tokens(in: text).map { "\($0.mdm.rawValue):\($0.name):\($0.text):\($0.isKnown)" }
        #expect(found == expected)
    }

    @Test func plainTextHasNoTokens() {
        for text in ["https://example.com/{id", "price $5", "{}", "{{}}", "a{b}c", "no tokens here"] {
            #expect(MDMVariables.tokens(in: text).filter(\.isKnown).isEmpty, "\(text)")
        }
    }

    static let schema: ConfigSchema = {
        let text = """
            <managedAppConfiguration><version>1</version><bundleId>a.b</bundleId><dict>
            <string keyName="Email"><constraint pattern="[^@]+@example\\.com"/></string>
            </dict></managedAppConfiguration>
            """
        guard let schema = Support.specfile(text).usableSchema else { fatalError("schema") }
        return schema
    }()

    @Test func chosenMDMDecidesWhatIsAVariable() {
        let config = "<dict><key>Email</key><string>$EMAIL</string></dict>"
        #expect(
            Support.validate(config, against: Self.schema, options: ValidationOptions(mdm: .jamf)).map(\.code) == [
                SchemaCode.variableDeferred
            ])
        // Intune does not know $EMAIL: the text is checked as it is, and fails the pattern.
        #expect(
            Support.validate(config, against: Self.schema, options: ValidationOptions(mdm: .intune)).map(\.code) == [
                SchemaCode.patternMismatch
            ])
        let unknown = Support.validate(
            "<dict><key>Email</key><string>$MAIL</string></dict>", against: Self.schema,
            options: ValidationOptions(mdm: .jamf))
        #expect(unknown.map(\.code).contains(SchemaCode.unknownVariable))
    }

    @Test func resolveSubstitutesThenValidatesFully() {
        let config = "<dict><key>Email</key><string>{{mail}}</string></dict>"
        let good = ValidationOptions(resolvedVariables: ["mail": "ann@example.com"])
        #expect(Support.validate(config, against: Self.schema, options: good).isEmpty)
        let bad = ValidationOptions(resolvedVariables: ["mail": "ann@elsewhere.org"])
        #expect(
            Support.validate(config, against: Self.schema, options: bad).map(\.code) == [SchemaCode.patternMismatch])
        let missing = ValidationOptions(resolvedVariables: [:])
        #expect(
            Support.validate(config, against: Self.schema, options: missing).map(\.code).first
                == SchemaCode.unresolvedVariable)
    }
}
