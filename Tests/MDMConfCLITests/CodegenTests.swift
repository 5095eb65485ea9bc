import Foundation
import TestScratch
import Testing

private let appleRepository = CLIProcess.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/corpus/apple-device-management").path

/// `mdmconf schema codegen --swift`: the output pinned by golden files for each schema kind, compiled with `swiftc`
/// beside a driver, and every configuration of the examples decoded with it.
@Suite(
    .serialized,
    .enabled(if: FileManager.default.fileExists(atPath: appleRepository), "corpus not found beside the project"))
struct CodegenTests {
    struct Kind: Sendable, CustomTestStringConvertible {
        var name: String
        var schema: String
        var typeName: String
        var testDescription: String { name }
    }

    static let kinds: [Kind] = [
        Kind(name: "field", schema: "Examples/app/schema.xml", typeName: "FieldConfiguration"),
        Kind(name: "fieldsync", schema: "Examples/manifest/schema.plist", typeName: "FieldSyncConfiguration"),
        Kind(
            name: "android", schema: "Examples/android/app/src/main/res/xml/app_restrictions.xml",
            typeName: "FieldSyncAndroidConfiguration"),
        Kind(
            name: "passcode",
            schema: "../shared/corpus/apple-device-management/declarative/declarations/configurations/passcode.settings.yaml",
            typeName: "PasscodeSettings"),
    ]

    static let golden = CLIProcess.packageRoot.appendingPathComponent("Tests/MDMConfCLITests/CodegenFixtures")

    /// The generated source is exactly the golden file (regenerate with the command in the failure message).
    @Test(arguments: kinds)
    func outputMatchesItsGoldenFile(_ kind: Kind) throws {
        let result = try CLIProcess.run(["schema", "codegen", "--swift", kind.schema, "--type-name", kind.typeName])
        #expect(result.status == 0, "\(result.stderr)")
        let file = Self.golden.appendingPathComponent("\(kind.name).swift.golden")
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(
            result.stdout == expected,
            "regenerate: mdmconf schema codegen --swift \(kind.schema) --type-name \(kind.typeName) > \(file.path)")
    }

    /// The example app's generated type in `Examples/app` is what the command writes today.
    @Test func theExampleAppsTypeIsCurrent() throws {
        let result = try CLIProcess.run([
            "schema", "codegen", "--swift", "Examples/app/schema.xml", "--type-name", "FieldConfiguration",
        ])
        let bundled = try String(
            contentsOf: CLIProcess.packageRoot.appendingPathComponent("Examples/app/FieldConfiguration.swift"), encoding: .utf8)
        #expect(result.stdout == bundled, "regenerate Examples/app/FieldConfiguration.swift")
    }

    /// The four generated types compile together; each example configuration decodes, and one that breaks its
    /// schema's types fails with the key path of the value.
    @Test func generatedTypesCompileAndDecodeTheExamples() throws {
        let folder = Scratch.url("codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var sources: [String] = []
        for kind in Self.kinds {
            let result = try CLIProcess.run(["schema", "codegen", "--swift", kind.schema, "--type-name", kind.typeName])
            let path = folder.appendingPathComponent("\(kind.name).swift").path
            try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            sources.append(path)
        }
        let main = folder.appendingPathComponent("main.swift").path
        try FileManager.default.copyItem(atPath: Self.golden.appendingPathComponent("main.swift.txt").path, toPath: main)
        let binary = folder.appendingPathComponent("decode").path
        let compiled = try CLIProcess.runTool("swiftc", ["-o", binary, main] + sources)
        #expect(compiled.status == 0, "swiftc: \(compiled.stderr)")
        #expect(!compiled.stderr.contains("warning:"), "the generated code compiles without warnings: \(compiled.stderr)")

        func decode(_ type: String, _ files: [String]) throws -> [String: String] {
            let run = try CLIProcess.runTool(binary, [type] + files)
            #expect(run.status == 0, "\(run.stderr)")
            var results: [String: String] = [:]
            for line in run.stdout.split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
                results[(parts[1] as NSString).lastPathComponent] = parts[0] == "ok" ? "ok" : parts[2]
            }
            return results
        }
        func files(_ folder: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { folder + "/" + $0 }
        }
        let field = try decode(
            "field",
            try files("Examples/app/configs") + ["Examples/catalog/apps/com.example.field/config.plist"]
                + (try files("Examples/catalog/apps/com.example.field/configs")))
        #expect(
            field.filter { $0.value != "ok" } == [
                "bad-port.plist": "ServerPort: type mismatch", "missing-server.plist": "ServerURL: key missing",
                "not-allowed.plist": "SyncIntervalMinutes: not an allowed value",
                "wrong-types.plist": "ServerPort: type mismatch",
            ], "\(field)")
        #expect(field["com.example.field.plist"] == "ok" && field["warehouse.plist"] == "ok")
        let sync = try decode(
            "fieldsync",
            try files("Examples/manifest/configs") + ["Examples/catalog/apps/com.example.fieldsync/config.plist"])
        // The manifest examples with a wrong type, a value outside the list or a missing required key (MC2003, MC2005,
        // MC2004) fail where the validator finds them; the others (conditions, patterns, ranges) decode.
        #expect(
            sync.filter { $0.value != "ok" } == [
                "tags-and-levels.plist": "LogLevel: not an allowed value",
                "nested-accounts.plist": "Accounts[2].Server: key missing",
                "sensitive-password.plist": "Accounts[1].Password: type mismatch",
            ], "\(sync)")
        #expect(sync["com.example.fieldsync.plist"] == "ok" && sync["config.plist"] == "ok")
        let android = try decode(
            "android",
            try files("Examples/android/configs") + ["Examples/catalog/apps/com.example.fieldsync/config.json"])
        #expect(android == [
            "com.example.fieldsync.json": "ok", "config.json": "ok", "four-mistakes.json": "accounts[0].port: type mismatch",
        ])
        let passcode = try decode("passcode", ["Tests/MDMConfTests/DeclarationFixtures/passcode.json"])
        #expect(passcode == ["passcode.json": "MinimumLength: type mismatch"], "the fixture's MinimumLength is \"six\"")
    }

    @Test func refusals() throws {
        let noLanguage = try CLIProcess.run(["schema", "codegen", "Examples/app/schema.xml"])
        #expect(noLanguage.status == 64 && noLanguage.stderr.contains("--swift"))
        let badName = try CLIProcess.run(["schema", "codegen", "--swift", "Examples/app/schema.xml", "--type-name", "a-b"])
        #expect(badName.status == 64)
        let unusable = try CLIProcess.run(["schema", "codegen", "--swift", "Examples/broken/truncated.plist"])
        #expect(unusable.status == 78, "\(unusable.stderr)")
        #expect(unusable.stdout.isEmpty)
    }
}
