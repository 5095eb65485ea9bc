import Foundation
import TestScratch
import Testing

/// `Examples/ci`: the pre-commit hook run as git runs it, in a temporary repository holding a copy of the example
/// catalog; the workflow uses the same check script.
@Suite struct CIExampleTests {
    static let hook = CLIProcess.packageRoot.appendingPathComponent("Examples/ci/pre-commit").path
    static let check = CLIProcess.packageRoot.appendingPathComponent("Examples/ci/check-catalog.sh").path

    static func run(_ arguments: [String], in folder: URL) throws -> CLIProcess.Result {
        try CLIProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), arguments, in: folder,
            environment: [
                "MDMCONF": CLIProcess.binary.path, "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
                "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
            ])
    }

    @Test func preCommitHookOnAGitRepository() throws {
        let repo = Scratch.url("mdmconf-hook-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: repo, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: repo) }
        let catalog = repo.appendingPathComponent("catalog")
        try FileManager.default.copyItem(
            at: CLIProcess.packageRoot.appendingPathComponent("Examples/catalog"), to: catalog)
        #expect(try Self.run(["git", "init", "-q"], in: repo).status == 0)
        let hooks = repo.appendingPathComponent(".git/hooks/pre-commit")
        try FileManager.default.copyItem(atPath: Self.hook, toPath: hooks.path)
        try FileManager.default.copyItem(
            atPath: Self.check, toPath: repo.appendingPathComponent(".git/hooks/check-catalog.sh").path)

        // The first commit: the catalog passes, there is nothing to diff against.
        #expect(try Self.run(["git", "add", "catalog"], in: repo).status == 0)
        let first = try Self.run(["git", "commit", "-q", "-m", "catalog"], in: repo)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        // git hands a hook's standard output to its own standard error.
        #expect((first.stdout + first.stderr).contains("checking the staged catalog"), "\(first.stdout)\(first.stderr)")

        // A staged mistake stops the commit, with its finding.
        let config = catalog.appendingPathComponent("apps/com.example.field/config.plist")
        let good = try String(contentsOf: config, encoding: .utf8)
        try good.replacingOccurrences(of: "<integer>443</integer>", with: "<string>443</string>")
            .write(to: config, atomically: true, encoding: .utf8)
        #expect(try Self.run(["git", "add", "catalog"], in: repo).status == 0)
        let refused = try Self.run(["git", "commit", "-q", "-m", "port as a string"], in: repo)
        #expect(refused.status != 0)
        #expect((refused.stdout + refused.stderr).contains("MC2003"), "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("the staged catalog does not pass"))

        // A good change commits and the hook prints what it changes; the work tree's own state does not matter.
        try good.replacingOccurrences(
            of: "<key>SyncIntervalMinutes</key>\n\t<integer>30</integer>",
            with: "<key>SyncIntervalMinutes</key>\n\t<integer>60</integer>"
        ).write(to: config, atomically: true, encoding: .utf8)
        #expect(try Self.run(["git", "add", "catalog"], in: repo).status == 0)
        try "not a plist".write(to: config, atomically: true, encoding: .utf8)
        let accepted = try Self.run(["git", "commit", "-q", "-m", "sync hourly"], in: repo)
        #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
        let said = accepted.stdout + accepted.stderr
        #expect(said.contains("~ SyncIntervalMinutes: 30 → 60"), "\(said)")
        #expect(said.contains("5 of 7 inventory devices get different configuration bytes"), "\(said)")

        // A commit that does not touch the catalog is not checked.
        try "notes".write(to: repo.appendingPathComponent("README"), atomically: true, encoding: .utf8)
        #expect(try Self.run(["git", "add", "README"], in: repo).status == 0)
        let other = try Self.run(["git", "commit", "-q", "-m", "readme"], in: repo)
        #expect(other.status == 0 && !(other.stdout + other.stderr).contains("checking"), "\(other.stderr)")
    }

    /// The workflow runs the same check script, with GitHub annotations, and posts `mdmconf diff`.
    @Test func workflowUsesTheCheckAndTheDiff() throws {
        let workflow = try String(
            contentsOf: CLIProcess.packageRoot.appendingPathComponent("Examples/ci/github-workflow.yml"),
            encoding: .utf8)
        #expect(workflow.contains("check-catalog.sh catalog github"))
        #expect(workflow.contains("diff /tmp/base/catalog catalog"))
        // `diff` runs in mdmconf-server, which must be built beside mdmconf.
        #expect(workflow.contains("--product mdmconf-server"))
        let annotations = try Self.run(["bash", Self.check, "Examples/catalog", "github"], in: CLIProcess.packageRoot)
        #expect(annotations.status == 0, "\(annotations.stderr)")
        #expect(
            annotations.stdout.contains("::notice file=Examples/catalog/apps/com.example.field/config.plist,line=11"))
    }
}
