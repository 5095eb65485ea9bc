import ArgumentParser
import Foundation
import MDMConfCommandSupport
import TestScratch
import Testing

@testable import MDMConfCLI
@testable import MDMConfServerCLI

/// `mdmconf lint` and `validate` read plain invocations without ArgumentParser (``QuickArguments``); every
/// invocation they accept must mean exactly what ArgumentParser makes of it, and everything else must be left
/// to ArgumentParser.
struct QuickArgumentsTests {
    static let lintCases: [[String]] = [
        ["a.plist"],
        ["a.plist", "b.plist", "folder"],
        ["-"],
        ["--format", "json", "a.plist"],
        ["a.plist", "--format=sarif"],
        ["--strict", "a.plist", "--max-size", "64K"],
        ["--max-size=1M", "--format", "github", "--strict", "x", "y"],
        ["a.plist", "--format", "text"],
        ["a.plist", "--max-size", "65536"],
        ["", "a.plist"],
        ["--res", "app/src/main/res", "app_restrictions.xml"],
    ]

    static let lintDeclined: [[String]] = [
        [],
        ["--help"],
        ["-h"],
        ["--strict"],
        ["--format", "yaml", "a.plist"],
        ["--format", "json", "--format", "text", "a.plist"],
        ["--strict", "--strict", "a.plist"],
        ["--strict=yes", "a.plist"],
        ["--max-size", "0", "a.plist"],
        ["--max-size", "12Q", "a.plist"],
        ["--max-size", "a.plist"],
        ["--format"],
        ["--", "-a.plist"],
        ["-x", "a.plist"],
        ["--schema", "s.xml", "a.plist"],
        ["--unknown", "a.plist"],
        ["a.plist", "--format", "-"],
        ["a.plist", "--max-size", "-1"],
    ]

    @Test(arguments: lintCases)
    func lintMeansWhatArgumentParserMeans(_ arguments: [String]) throws {
        let quick = try #require(QuickArguments.lint(arguments[...]))
        let parsed = try LintCommand.parse(arguments)
        #expect(quick == parsed.settings)
    }

    @Test(arguments: lintDeclined)
    func lintLeavesTheRestToArgumentParser(_ arguments: [String]) {
        #expect(QuickArguments.lint(arguments[...]) == nil)
    }

    static let validateCases: [[String]] = [
        ["a.plist"],
        ["--schema", "app_restrictions.xml", "--res=res", "config.json"],
        ["signed.mobileconfig", "--ca", "roots.pem"],
        ["p.mobileconfig", "--schema-source", "apple", "--platform", "iOS"],
        ["--schema", "Examples/app/schema.xml", "a.plist", "b.plist"],
        ["--app", "com.example.field", "--mdm", "jamf", "-", "--strict"],
        ["--resolve", "-", "c.plist"],
        ["--schema=s.plist", "--platform", "macOS", "--os-version", "14.4", "c.plist"],
        ["--resolve", "values.plist", "--mdm=intune", "--format", "json", "--max-size", "2M", "c.plist"],
        ["c.plist", "--platform", "iOS"],
    ]

    static let validateDeclined: [[String]] = [
        [],
        ["--schema", "s.xml"],
        ["--os-version", "17.0", "a.plist"],
        ["--schema-source", "yaml", "a.plist"],
        ["--mdm", "airwatch", "a.plist"],
        ["--schema", "s.xml", "--schema", "t.xml", "a.plist"],
        ["--help"],
        ["-h", "a.plist"],
        ["--schema"],
        ["--tokens", "t.plist", "a.plist"],
    ]

    @Test(arguments: validateCases)
    func validateMeansWhatArgumentParserMeans(_ arguments: [String]) throws {
        let quick = try #require(QuickArguments.validate(arguments[...]))
        let parsed = try ValidateCommand.parse(arguments)
        #expect(quick == parsed.settings)
    }

    @Test(arguments: validateDeclined)
    func validateLeavesTheRestToArgumentParser(_ arguments: [String]) {
        #expect(QuickArguments.validate(arguments[...]) == nil)
    }

    static let updateCheckCases: [[String]] = [
        ["--policy", "p.plist", "--request", "r.json"],
        ["--policy=p.plist", "--request", "-", "--format", "json", "--explain"],
        ["--policy", "p.plist", "--app", "com.example.field", "--version", "3.1.0", "--platform", "ios"],
        [
            "--policy", "p.plist", "--app", "a", "--version", "1", "--platform", "macos", "--os-version", "14.4",
            "--device-model", "Mac14,2", "--device-id", "X", "--channel", "beta", "--locale", "de", "--time-zone",
            "Europe/Berlin", "--now", "2026-12-01T00:00:00Z", "--deferrals-used", "2", "--enrolled-at",
            "2026-01-01T00:00:00Z", "--max-size", "1M",
        ],
        ["--policy", "p.plist", "--app", "a", "--version", "not a version", "--platform", "ios"],
    ]

    static let updateCheckDeclined: [[String]] = [
        [],
        ["--request", "r.json"],
        ["--policy", "p.plist"],
        ["--policy", "p.plist", "--request", "r.json", "--app", "a"],
        ["--policy", "-", "--request", "-"],
        ["--policy", "p.plist", "--app", "a", "--version", "1"],
        ["--policy", "p.plist", "--request", "r.json", "--format", "sarif"],
        ["--policy", "p.plist", "--request", "r.json", "extra"],
        ["--policy", "p.plist", "--request", "r.json", "--help"],
        ["--policy", "p.plist", "--request", "r.json", "--explain", "--explain"],
    ]

    @Test(arguments: updateCheckCases)
    func updateCheckMeansWhatArgumentParserMeans(_ arguments: [String]) throws {
        let quick = try #require(QuickArguments.updateCheck(arguments[...]))
        let parsed = try UpdateCheckCommand.parse(arguments)
        #expect(quick == parsed.settings)
    }

    @Test(arguments: updateCheckDeclined)
    func updateCheckLeavesTheRestToArgumentParser(_ arguments: [String]) {
        #expect(QuickArguments.updateCheck(arguments[...]) == nil)
    }

    /// `mdmconf` lists and hands over exactly the commands `mdmconf-server` has.
    @Test func theServerCommandsAgree() throws {
        let server = MDMConfServerCommand.configuration.subcommands.map { $0.configuration.commandName ?? "" }
        let listed = ServerCommands.all.map { $0.commandName ?? "" }
        #expect(server == listed)
        for name in listed { #expect(ServerCommands.contains(name)) }
        #expect(!ServerCommands.contains("lint"))
        let entries = MDMConfCommand.configuration.subcommands.map { $0.configuration.commandName ?? "" }
        #expect(entries.filter(ServerCommands.contains) == listed)
    }
}

/// `mdmconf serve …` runs `mdmconf-server serve …` from its own folder.
struct ServerHandOffTests {
    @Test func serverCommandsRunInMDMConfServer() throws {
        let help = try CLIProcess.run(["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: mdmconf serve [<options>] [<catalog>]"))
        let named = try CLIProcess.run(["help", "report"])
        #expect(named.stdout.contains("--catalog"))
        let usage = try CLIProcess.run(["history"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("mdmconf history"))
    }

    /// A `mdmconf` copied without `mdmconf-server` says what is missing and where it looked (exit 66); the file
    /// commands still work.
    @Test func aMissingServerExecutableIsNamed() throws {
        let folder = Scratch.url("handoff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alone = folder.appendingPathComponent("mdmconf")
        try FileManager.default.copyItem(at: CLIProcess.binary, to: alone)
        let serve = try CLIProcess.run(alone, ["serve", "Examples/catalog"], in: CLIProcess.packageRoot)
        #expect(serve.status == 66)
        #expect(serve.stderr.contains("mdmconf serve runs in mdmconf-server"))
        #expect(serve.stderr.contains(folder.resolvingSymlinksInPath().path + "/mdmconf-server"))
        let lint = try CLIProcess.run(
            alone, ["lint", "Examples/app/configs/com.example.field.plist"], in: CLIProcess.packageRoot)
        #expect(lint.status == 0)
    }
}
