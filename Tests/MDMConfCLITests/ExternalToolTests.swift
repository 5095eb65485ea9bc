import Foundation
import Testing

/// The checks that drive `mdmconf serve` with outside tools: the admin page in a real headless Chromium
/// (Tests/Browser) and schemathesis over the OpenAPI document (Tests/Contract). They need Debian's `chromium` and
/// `chromium-driver` and, from PyPI, Selenium and schemathesis, which `.ci/run` installs. Without them a developer's
/// run reports these tests as skipped; under CI they always run, and a missing tool fails them.
struct ExternalToolTests {
    static func python(has module: String) -> Bool {
        let probe = try? CLIProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import \(module)"], in: CLIProcess.packageRoot)
        return probe?.status == 0
    }

    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false }

    static var browserTools: Bool {
        ["/usr/bin/chromium", "/usr/bin/chromedriver"].allSatisfy { FileManager.default.fileExists(atPath: $0) }
            && python(has: "selenium")
    }

    /// Runs `script` (a path under the package) off the shared threads, echoing its output into the test log.
    static func run(_ script: String, environment: [String: String] = [:]) async throws -> CLIProcess.Result {
        let result = try await CLIProcess.runDetached(
            URL(fileURLWithPath: "/usr/bin/env"), ["bash", script], in: CLIProcess.packageRoot,
            environment: environment.merging(["MDMCONF": CLIProcess.binary.path]) { $1 })
        print(result.stdout, terminator: "")
        return result
    }

    /// The number in `prefix N` of the last line of `text` that starts with `prefix`.
    static func count(after prefix: String, in text: String) -> Int? {
        text.split(separator: "\n").last { $0.hasPrefix(prefix) }.flatMap {
            Int($0.dropFirst(prefix.count).prefix { $0.isNumber })
        }
    }

    /// Log in, every page, each what-if form, a broken upload, a rollback, logout, a device token refused;
    /// screenshots under .build/admin-screenshots/. The per-test lines (✔ browser: …) are what CI counts: every
    /// test of admin_test.py must have run and passed.
    @Test(
        .enabled(
            if: inCI || browserTools,
            "needs chromium, chromium-driver and python3's selenium (.ci/run installs them; CI always runs this)"))
    func adminPageInHeadlessChromium() async throws {
        let script = try String(
            contentsOf: CLIProcess.packageRoot.appendingPathComponent("Tests/Browser/admin_test.py"), encoding: .utf8)
        let written = script.split(separator: "\n").filter { $0.hasPrefix("@test(") }.count
        let result = try await Self.run("Tests/Browser/run.sh")
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(written >= 10)
        #expect(Self.count(after: "browser tests: ", in: result.stdout) == written, "\(result.stdout.suffix(300))")
        #expect(result.stdout.contains(" 0 failed"))
    }

    /// schemathesis as an admin, a device and nobody over every operation: no 5xx, nothing outside the document.
    /// The lines `schemathesis (WHO): N cases, exit 0` are what CI counts; each must have generated cases.
    @Test(
        .enabled(
            if: inCI || python(has: "schemathesis"),
            "needs python3's schemathesis (.ci/run installs it; CI always runs this)"))
    func schemathesisOverTheWholeDocument() async throws {
        let result = try await Self.run("Tests/Contract/schemathesis.sh")
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for who in ["admin", "device", "none"] {
            let cases = Self.count(after: "schemathesis (\(who)): ", in: result.stdout) ?? 0
            #expect(cases >= 100, "\(who): \(cases) cases")
            #expect(result.stdout.contains("schemathesis (\(who)): \(cases) cases, exit 0"), "\(who)")
        }
    }
}
