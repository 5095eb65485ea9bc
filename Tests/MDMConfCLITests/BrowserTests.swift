import Foundation
import Testing

/// The admin page in a real headless Chromium (Tests/Browser): log in, every page, each what-if form, a broken
/// upload, a rollback, logout, a device token refused; screenshots under .build/admin-screenshots/. Needs Debian's
/// `chromium` and `chromium-driver` and Selenium for Python, which `.ci/run` installs: under CI a missing browser
/// fails the test instead of skipping it.
struct BrowserTests {
    static var available: Bool {
        let tools = ["/usr/bin/chromium", "/usr/bin/chromedriver"].allSatisfy {
            FileManager.default.fileExists(atPath: $0)
        }
        guard tools else { return false }
        let probe = try? CLIProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import selenium"], in: CLIProcess.packageRoot)
        return probe?.status == 0
    }

    @Test func adminPageInHeadlessChromium() async throws {
        guard Self.available else {
            let ci = ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false
            #expect(!ci, "CI must run the browser tests: install chromium, chromium-driver and selenium (.ci/run does)")
            print("browser tests not run: chromium, chromium-driver or python3's selenium is missing (CI runs them)")
            return
        }
        let result = try await CLIProcess.runDetached(
            URL(fileURLWithPath: "/usr/bin/env"), ["bash", "Tests/Browser/run.sh"], in: CLIProcess.packageRoot,
            environment: ["MDMCONF": CLIProcess.binary.path])
        // The per-test lines (✔ browser: …) go to the test log, where CI counts them.
        print(result.stdout, terminator: "")
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("browser tests: ") && result.stdout.contains(" 0 failed"))
    }
}
