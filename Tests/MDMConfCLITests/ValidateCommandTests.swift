import Foundation
import Testing

struct ValidateCommandTests {
    static let schema = "Examples/app/schema.xml"

    @Test func validConfigExitsZero() throws {
        let result = try CLIProcess.run([
            "validate", "--schema", Self.schema, "Examples/app/configs/com.example.field.plist",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                "info: checks of the value wait until $EMAIL is substituted [MC2020 variable-deferred]"))
        #expect(result.stderr == "1 file checked: 0 errors, 0 warnings\n")
    }

    @Test func findingsExitOneWithCompilerStyleText() throws {
        let result = try CLIProcess.run(["validate", "--schema", Self.schema, "Examples/app/configs/bad-port.plist"])
        #expect(result.status == 1)
        #expect(
            result.stdout.hasPrefix(
                "Examples/app/configs/bad-port.plist:9:2: error: 'ServerPort' must be an integer, found string [MC2003 type-mismatch]\n"
                    + " 9 | \t<string>8443</string>\n   | \t^\n  key path: ServerPort\n  hint: write <integer>8443</integer>, not a string\n"
            ))
    }

    @Test func jsonOutputIsTheDocumentedShape() throws {
        let result = try CLIProcess.run([
            "validate", "--format", "json", "--schema", Self.schema, "Examples/app/configs/bad-port.plist",
            "Examples/app/configs/com.example.field.plist",
        ])
        #expect(result.status == 1)
        let json = try CLIProcess.json(result.stdout)
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(
            files.map { $0["path"] as? String } == [
                "Examples/app/configs/bad-port.plist", "Examples/app/configs/com.example.field.plist",
            ])
        let schema = try #require(files[0]["schema"] as? [String: String])
        #expect(schema == ["path": "Examples/app/schema.xml", "format": "appconfig", "id": "com.example.field"])
        #expect(files[0]["shape"] as? String == "document")
        #expect(files[0]["valid"] as? Bool == false)
        #expect(files[1]["valid"] as? Bool == true)
        let diagnostic = try #require((files[0]["diagnostics"] as? [[String: Any]])?.first)
        #expect(diagnostic["code"] as? String == "MC2003")
        #expect(diagnostic["name"] as? String == "type-mismatch")
        #expect(diagnostic["line"] as? Int == 9)
        #expect(diagnostic["column"] as? Int == 2)
        #expect(diagnostic["keyPath"] as? String == "ServerPort")
        #expect(json["summary"] as? [String: Int] == ["files": 2, "valid": 1, "errors": 1, "warnings": 0, "infos": 1])
    }

    @Test func strictTurnsWarningsIntoFailures() throws {
        let relaxed = try CLIProcess.run([
            "validate", "--schema", Self.schema, "Examples/app/configs/unknown-keys.plist",
        ])
        #expect(relaxed.status == 0)
        #expect(relaxed.stdout.contains("hint: did you mean 'AllowOfflineMode'?"))
        let strict = try CLIProcess.run([
            "validate", "--strict", "--schema", Self.schema, "Examples/app/configs/unknown-keys.plist",
        ])
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("error: the schema does not declare the key 'Allowofflinemode'"))
    }

    @Test func schemaIsDiscoveredByTheDeclaredID() throws {
        // The configuration's file name is its domain; the schema declares it, whatever its own name.
        let result = try CLIProcess.run(
            ["validate", "--format", "json", "Examples/app/configs/com.example.field.plist"],
            environment: ["MDMCONF_SCHEMA_PATH": CLIProcess.packageRoot.appendingPathComponent("Examples/app").path])
        #expect(result.status == 0)
        let files = try #require(try CLIProcess.json(result.stdout)["files"] as? [[String: Any]])
        #expect((files[0]["schema"] as? [String: String])?["id"] == "com.example.field")
        let byApp = try CLIProcess.run(
            ["validate", "--app", "com.example.field", "Examples/app/configs/bad-port.plist"],
            environment: ["MDMCONF_SCHEMA_PATH": "Examples/app"])
        #expect(byApp.status == 1)
        #expect(byApp.stdout.contains("MC2003"))
    }

    @Test func withoutASchemaSyntaxIsCheckedAndOneWarningSaysSo() throws {
        let result = try CLIProcess.run(["validate", "--format", "json", "Examples/broken/duplicate-key.plist"])
        #expect(result.status == 1)
        let file = try #require((try CLIProcess.json(result.stdout)["files"] as? [[String: Any]])?.first)
        #expect(file["schema"] is NSNull)
        let codes = (file["diagnostics"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes == ["MC2040", "MC1013"])
    }

    @Test func unusableSchemaExitsSeventyEight() throws {
        let result = try CLIProcess.run([
            "validate", "--schema", "Examples/lint/broken-specfile.xml", "Examples/app/configs/com.example.field.plist",
        ])
        #expect(result.status == 78)
        #expect(result.stdout.contains("MC3006 invalid-pattern"))
        let missing = try CLIProcess.run([
            "validate", "--schema", "nope.xml", "Examples/app/configs/com.example.field.plist",
        ])
        #expect(missing.status == 66)
        let unreadable = try CLIProcess.run(["validate", "--schema", Self.schema, "nope.plist"])
        #expect(unreadable.status == 66)
        let usage = try CLIProcess.run([
            "validate", "--mdm", "mobileiron", "Examples/app/configs/com.example.field.plist",
        ])
        #expect(usage.status == 64)
    }

    @Test func resolveSubstitutesVariables() throws {
        let values = try CLIProcess.temporaryFile(
            "values.plist",
            "<dict><key>EMAIL</key><string>not-an-email</string><key>SERIALNUMBER</key><string>C02XYZ</string></dict>")
        let result = try CLIProcess.run([
            "validate", "--schema", Self.schema, "--resolve", values, "Examples/app/configs/com.example.field.plist",
        ])
        #expect(result.status == 1)
        #expect(result.stdout.contains("'not-an-email' does not match the pattern"))
    }

    @Test func sensitiveValuesNeverAppear() throws {
        for format in ["text", "json", "sarif", "github"] {
            let result = try CLIProcess.run([
                "validate", "--format", format, "--schema", "Examples/manifest/schema.plist",
                "Examples/manifest/configs/sensitive-password.plist",
            ])
            #expect(result.status == 1)
            #expect(!result.stdout.contains("hunter2") && !result.stdout.contains("123456789012"), "\(format)")
        }
    }

    @Test func lintOfSchemasAndSchemaShow() throws {
        let lint = try CLIProcess.run([
            "lint", "Examples/app/schema.xml", "Examples/manifest/schema.plist", "Examples/lint/broken-specfile.xml",
        ])
        #expect(lint.status == 1)
        #expect(lint.stderr.hasPrefix("3 files checked: 8 errors, 3 warnings"), "\(lint.stderr)")
        let show = try CLIProcess.run(["schema", "show", "Examples/manifest/schema.plist"])
        #expect(show.status == 0)
        #expect(show.stdout.hasPrefix("Field Sync agent (manifest, Examples/manifest/schema.plist): 7 keys"))
        #expect(show.stdout.contains("Accounts[].Server"))
        #expect(show.stdout.contains("<redacted>") || show.stdout.contains("Password"))
        let byID = try CLIProcess.run(
            ["schema", "show", "com.example.field"], environment: ["MDMCONF_SCHEMA_PATH": "Examples/app"])
        #expect(byID.status == 0)
        #expect(byID.stdout.contains("ServerPort"))
        #expect(byID.stdout.contains("1...65535"))
        #expect(try CLIProcess.run(["schema", "show", "com.example.unknown"]).status == 66)
    }

    @Test func lintWarnsWhenTwoSchemasDeclareTheSameID() throws {
        let copy = try CLIProcess.temporaryFile(
            "copy.xml",
            try String(contentsOfFile: CLIProcess.packageRoot.appendingPathComponent(Self.schema).path, encoding: .utf8)
        )
        let folder = (copy as NSString).deletingLastPathComponent
        let result = try CLIProcess.run(
            ["lint", Self.schema], environment: ["MDMCONF_SCHEMA_PATH": "\(folder):Examples/app"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("warning: 'com.example.field' is also declared by"))
        #expect(result.stdout.contains("[MC3017 duplicate-schema-id]"))
    }
}
