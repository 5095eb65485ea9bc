import Foundation
import Testing

struct LintCommandTests {
    @Test func validFileExitsZero() throws {
        let result = try CLIProcess.run(["lint", "Examples/app/configs/com.example.field.plist"])
        #expect(result.status == 0)
        #expect(result.stdout == "")
        #expect(result.stderr == "1 file checked: 0 errors, 0 warnings\n")
    }

    @Test func findingsExitOneInCompilerStyle() throws {
        let result = try CLIProcess.run(["lint", "Examples/broken/duplicate-key.plist"])
        #expect(result.status == 1)
        #expect(
            result.stdout.hasPrefix(
                "Examples/broken/duplicate-key.plist:9:2: error: duplicate key 'ServerPort' [MC1013 duplicate-key]\n"
                    + " 9 | \t<key>ServerPort</key>\n   | \t^\n"))
        #expect(result.stdout.contains("Examples/broken/duplicate-key.plist:7:2: note: first defined here"))
        #expect(!result.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
    }

    @Test func foldersAreSearchedAndReportedInOrder() throws {
        let result = try CLIProcess.run(["lint", "Examples/broken"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("7 files checked: 12 errors"))
        let files = result.stdout.split(separator: "\n").filter { $0.contains(": error:") }.map {
            $0.split(separator: ":")[0]
        }
        #expect(files == files.sorted())
    }

    @Test func missingFileExitsSixtySix() throws {
        let result = try CLIProcess.run(["lint", "Examples/app/configs/com.example.field.plist", "no/such/file.plist"])
        #expect(result.status == 66)
        #expect(
            result.stdout.contains(
                "no/such/file.plist: error: cannot read no/such/file.plist: no such file [MC1000 unreadable-file]"))
    }

    @Test(arguments: [
        [String](["lint"]), ["lint", "--format", "yaml", "x.plist"], ["lint", "--bogus", "x.plist"], ["frobnicate"],
    ])
    func usageErrorsExitSixtyFour(_ arguments: [String]) throws {
        let result = try CLIProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains("Error:") || result.stderr.contains("Usage:"))
    }

    @Test func jsonReportHasTheDocumentedShape() throws {
        let result = try CLIProcess.run([
            "lint", "--format", "json", "Examples/broken/bad-values.plist",
            "Examples/app/configs/com.example.field.plist",
        ])
        #expect(result.status == 1)
        let json = try CLIProcess.json(result.stdout)
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.count == 2)
        #expect(files[0]["path"] as? String == "Examples/broken/bad-values.plist")
        #expect(files[0]["shape"] as? String == "document")
        #expect(files[0]["valid"] as? Bool == false)
        #expect(files[0]["schema"] is NSNull)
        #expect(files[1]["valid"] as? Bool == true)
        let first = try #require((files[0]["diagnostics"] as? [[String: Any]])?.first)
        #expect(first["code"] as? String == "MC1015")
        #expect(first["name"] as? String == "invalid-integer")
        #expect(first["severity"] as? String == "error")
        #expect(first["line"] as? Int == 6)
        #expect(first["column"] as? Int == 2)
        #expect(first["keyPath"] as? String == "ServerPort")
        #expect(first["file"] as? String == "Examples/broken/bad-values.plist")
        let summary = try #require(json["summary"] as? [String: Int])
        #expect(summary == ["files": 2, "valid": 1, "errors": 6, "warnings": 0, "infos": 0])
        #expect(result.stderr == "", "machine formats print nothing else")
    }

    @Test func sarifAndGitHubFormats() throws {
        let sarif = try CLIProcess.run(["lint", "--format", "sarif", "Examples/broken/smart-quotes.plist"])
        let json = try CLIProcess.json(sarif.stdout)
        #expect(json["version"] as? String == "2.1.0")
        let run = try #require((json["runs"] as? [[String: Any]])?.first)
        #expect((run["results"] as? [Any])?.count == 1)
        let github = try CLIProcess.run(["lint", "--format", "github", "Examples/broken/smart-quotes.plist"])
        #expect(
            github.stdout.hasPrefix(
                "::error file=Examples/broken/smart-quotes.plist,line=1,col=15,title=MC1021 smart-quotes::typographic quote"
            ))
    }

    @Test func standardInput() throws {
        let result = try CLIProcess.run(["lint", "-"], stdin: "<dict><key>A</key><key>B</key><true/></dict>")
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("<stdin>:1:7: error: key 'A' has no value [MC1011 key-without-value]"))
    }

    @Test func sizeLimitIsConfigurable() throws {
        let path = try CLIProcess.temporaryFile(
            "big.plist", "<plist><string>" + String(repeating: "x", count: 5000) + "</string></plist>")
        let limited = try CLIProcess.run(["lint", "--max-size", "1K", path])
        #expect(limited.status == 1)
        #expect(limited.stdout.contains("MC1006 file-too-large"))
        #expect(try CLIProcess.run(["lint", path]).status == 0)
    }

    @Test func hostileInputsEndWithAFindingNotACrash() throws {
        let deep = try CLIProcess.temporaryFile(
            "deep.plist", "<plist>" + String(repeating: "<array>", count: 100_000) + "</plist>")
        let result = try CLIProcess.run(["lint", deep, "Examples/broken/entity-expansion.plist"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("MC1005 nesting-too-deep"))
        #expect(result.stdout.contains("MC1003 entity-declaration"))
        #expect(result.stdout.split(separator: "\n").allSatisfy { $0.count < 300 })
    }

    @Test func helpAndVersion() throws {
        let help = try CLIProcess.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("lint"))
        #expect(help.stdout.contains("convert"))
        let lintHelp = try CLIProcess.run(["lint", "--help"])
        #expect(lintHelp.stdout.contains("--format"))
        let version = try CLIProcess.run(["--version"])
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }
}
