import Foundation
import TestScratch
import Testing

/// The Android commands as a user runs them: lint of an app's tree, validate of configurations and policies in every
/// output format, `--strict`, and `schema convert --to managed-properties`.
struct AndroidCommandTests {
    static let schema = "Examples/android/app/src/main/res/xml/app_restrictions.xml"

    @Test func lintOfTheExampleAppsTree() throws {
        let result = try CLIProcess.run(["lint", "Examples/android/app"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stderr.contains("5 files checked: 0 errors, 0 warnings"), "\(result.stderr)")
    }

    /// The same four findings, with line, column and key path, in each output format.
    @Test(arguments: ["text", "json", "sarif", "github"])
    func policyFindingsInEveryFormat(_ format: String) throws {
        let result = try CLIProcess.run(
            ["validate", "--format", format, "Examples/android/policy.json"],
            environment: ["MDMCONF_SCHEMA_PATH": "Examples/android"])
        #expect(result.status == 1, "\(result.stderr)")
        let out = result.stdout
        for (code, line, column, path) in [
            ("MC2003", 9, 51, "accounts[0].port"), ("MC2005", 11, 22, "log_level"), ("MC2061", 12, 26, "config_schema"),
            ("MC2002", 13, 9, "enable_telemtry"),
        ] {
            #expect(out.contains(code), "\(format): \(code)")
            #expect(out.contains("applications[0].managedConfiguration.\(path)"), "\(format): \(path)")
            switch format {
            case "text": #expect(out.contains("Examples/android/policy.json:\(line):\(column):"))
            case "github": #expect(out.contains("file=Examples/android/policy.json,line=\(line),col=\(column)"))
            case "sarif": #expect(out.contains("\"startLine\" : \(line)") || out.contains("\"startLine\": \(line)"))
            default: #expect(out.contains("\"line\" : \(line)") || out.contains("\"line\": \(line)"))
            }
        }
    }

    /// An unknown key is a warning, an error with `--strict`.
    @Test func strictMakesUnknownKeysErrors() throws {
        let file = Scratch.url("unknown-\(UUID().uuidString).json")
        try Data("{\"log_level\": \"info\", \"loglevel\": \"debug\"}".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let lenient = try CLIProcess.run(["validate", "--schema", Self.schema, file.path])
        #expect(lenient.status == 0 && lenient.stdout.contains("MC2002"), "\(lenient.stdout)")
        let strict = try CLIProcess.run(["validate", "--strict", "--schema", Self.schema, file.path])
        #expect(strict.status == 1, "\(strict.stdout)")
    }

    /// `schema convert --to managed-properties` writes the JSON an EMM console reads, which reads back as the same
    /// schema; `schema show` lists the keys.
    @Test func convertAndShow() throws {
        let converted = try CLIProcess.run(["schema", "convert", "--to", "managed-properties", Self.schema])
        #expect(converted.status == 0, "\(converted.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(converted.stdout.utf8)) as? [[String: Any]])
        #expect(json.map { $0["key"] as? String } == ["accounts", "log_level", "sync_scopes", "enable_telemetry", "device_tag", "config_schema"])
        #expect(json.map { $0["type"] as? String } == ["BUNDLE_ARRAY", "CHOICE", "MULTISELECT", "BOOL", "STRING", "HIDDEN"])
        let file = Scratch.url("com.example.fieldsync.json")
        try Data(converted.stdout.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let back = try CLIProcess.run(["validate", "--schema", file.path, "Examples/android/configs/four-mistakes.json"])
        #expect(back.status == 1)
        #expect(back.stderr.contains("3 errors, 1 warning"), "\(back.stderr)")
        let shown = try CLIProcess.run(["schema", "show", Self.schema])
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("com.example.fieldsync (android,"))
        #expect(shown.stdout.contains("accounts[].port"))
        let unusable = try CLIProcess.run(["schema", "convert", "--to", "managed-properties", "Examples/broken/truncated.plist"])
        #expect(unusable.status == 78)
    }

    /// `--ca` names PEM certificates: a file that cannot be read is 66, one that is not PEM 64.
    @Test func caFileRefusals() throws {
        let missing = try CLIProcess.run(["validate", "--ca", "no/such.pem", "Examples/app/configs/com.example.field.plist"])
        #expect(missing.status == 66 && missing.stderr.contains("--ca"), "\(missing.stderr)")
        let notPEM = try CLIProcess.temporaryFile("roots.pem", "not a certificate")
        let bad = try CLIProcess.run(["validate", "--ca", notPEM, "Examples/app/configs/com.example.field.plist"])
        #expect(bad.status == 64 && bad.stderr.contains("not PEM"), "\(bad.stderr)")
    }
}
