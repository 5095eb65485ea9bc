import Foundation
import Testing

/// The checks that drive `mdmconf serve` with outside tools: the admin page in a real headless Chromium
/// (Tests/Browser) and schemathesis over the OpenAPI document (Tests/Contract). They need Debian's `chromium` and
/// `chromium-driver` and, from PyPI, Selenium and schemathesis, which `.ci/run` installs: under CI a missing tool
/// fails the test instead of skipping it.
struct ExternalToolTests {
    static func python(has module: String) -> Bool {
        let probe = try? CLIProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import \(module)"], in: CLIProcess.packageRoot)
        return probe?.status == 0
    }

    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false }

    /// Runs `script` (a path under the package) off the shared threads, echoing its output into the test log.
    static func run(_ script: String, environment: [String: String] = [:]) async throws -> CLIProcess.Result {
        let result = try await CLIProcess.runDetached(
            URL(fileURLWithPath: "/usr/bin/env"), ["bash", script], in: CLIProcess.packageRoot,
            environment: environment.merging(["MDMCONF": CLIProcess.binary.path]) { $1 })
        print(result.stdout, terminator: "")
        return result
    }

    /// Log in, every page, each what-if form, a broken upload, a rollback, logout, a device token refused;
    /// screenshots under .build/admin-screenshots/. The per-test lines (✔ browser: …) are what CI counts.
    @Test func adminPageInHeadlessChromium() async throws {
        let tools = ["/usr/bin/chromium", "/usr/bin/chromedriver"].allSatisfy {
            FileManager.default.fileExists(atPath: $0)
        }
        guard tools, Self.python(has: "selenium") else {
            #expect(
                !Self.inCI,
                "CI must run the browser tests: install chromium, chromium-driver and selenium (.ci/run does)")
            print("browser tests not run: chromium, chromium-driver or python3's selenium is missing (CI runs them)")
            return
        }
        let result = try await Self.run("Tests/Browser/run.sh")
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("browser tests: ") && result.stdout.contains(" 0 failed"))
    }

    /// schemathesis as an admin, a device and nobody over every operation: no 5xx, nothing outside the document.
    /// The lines `schemathesis (WHO): N cases, exit 0` are what CI counts.
    @Test func schemathesisOverTheWholeDocument() async throws {
        guard Self.python(has: "schemathesis") else {
            #expect(!Self.inCI, "CI must run schemathesis: pip install schemathesis (.ci/run does)")
            print("schemathesis not run: python3's schemathesis is missing (CI runs it)")
            return
        }
        let result = try await Self.run("Tests/Contract/schemathesis.sh")
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for who in ["admin", "device", "none"] {
            #expect(result.stdout.contains("schemathesis (\(who)): ") && result.stdout.contains(", exit 0"), "\(who)")
        }
    }
}
