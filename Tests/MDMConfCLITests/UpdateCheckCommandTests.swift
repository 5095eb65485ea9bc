import Foundation
import Testing

struct UpdateCheckCommandTests {
    static let policy = "Examples/update-policy/update-policy.plist"

    static let requests: [String] = {
        let folder = CLIProcess.packageRoot.appendingPathComponent("Examples/update-policy/requests").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }
            .sorted()
    }()

    /// The exit code each decision has (*Commands and exit codes*).
    static let exitCodes = ["ok": 0, "recommended": 10, "required": 20, "unsupported": 30, "error": 65]

    @Test(arguments: requests)
    func exitCodeFollowsTheDecision(_ name: String) throws {
        let decision = String(name.split(separator: "-")[0])
        for format in ["text", "json"] {
            let result = try CLIProcess.run([
                "update-check", "--policy", Self.policy, "--request", "Examples/update-policy/requests/\(name)",
                "--format", format,
            ])
            #expect(result.status == Int32(Self.exitCodes[decision] ?? -1), "\(name) \(format): \(result.stdout)")
            if format == "json" { #expect(try CLIProcess.json(result.stdout)["decision"] as? String == decision) }
        }
    }

    @Test func flagsAndStandardInputGiveTheSameDecision() throws {
        let flags = try CLIProcess.run([
            "update-check", "--policy", Self.policy, "--format", "json", "--app", "com.example.field", "--version",
            "2.9.4",
            "--platform", "iOS", "--os-version", "17.5", "--now", "2026-06-01T08:00:00Z", "--time-zone",
            "America/New_York",
            "--deferrals-used", "2", "--locale", "de-AT", "--build", "2904",
        ])
        let request = try String(
            contentsOf: CLIProcess.packageRoot.appendingPathComponent(
                "Examples/update-policy/requests/recommended-before-deadline.json"),
            encoding: .utf8)
        let stdin = try CLIProcess.run(
            ["update-check", "--policy", Self.policy, "--request", "-", "--format", "json"], stdin: request)
        #expect(flags.status == 10)
        #expect(flags.stdout == stdin.stdout)
        let json = try CLIProcess.json(flags.stdout)
        #expect(json["deferralsRemaining"] as? Int == 3)
        #expect((json["message"] as? [String: Any])?["locale"] as? String == "de")
        #expect(json["deadline"] as? String == "2026-07-01T13:00:00Z")
        #expect(json["trace"] is NSNull)
    }

    @Test func textIsReadableAtAGlance() throws {
        let result = try CLIProcess.run([
            "update-check", "--policy", Self.policy, "--app", "com.example.field", "--version", "2.9", "--platform",
            "ios",
            "--now", "2026-06-30T12:00:00Z", "--time-zone", "Asia/Tokyo", "--explain",
        ])
        #expect(result.status == 10)
        #expect(
            result.stdout.hasPrefix(
                "recommended: update soon (exit 10)\n  policy:   field-3.0-floor\n  target:   3.2.1\n"))
        #expect(result.stdout.contains("deadline: 2026-07-01T00:00:00Z (2026-07-01 09:00:00 Asia/Tokyo, UTC+09:00)"))
        #expect(result.stdout.contains("urgency:  imminent"))
        #expect(result.stdout.contains("  field-3.0-floor: recommended\n    platforms pass"))
    }

    @Test func badRequestValuesAreExitSixtyFiveNotUsage() throws {
        let result = try CLIProcess.run([
            "update-check", "--policy", Self.policy, "--app", "com.example.field", "--version", "3", "--platform",
            "ios",
            "--deferrals-used=-1", "--now", "tomorrow", "--format", "json",
        ])
        #expect(result.status == 65)
        let reasons = (try CLIProcess.json(result.stdout)["reasons"] as? [[String: Any]])?.compactMap {
            $0["code"] as? String
        }
        #expect(Set(reasons ?? []) == ["invalid_deferrals", "invalid_now"])
        let malformed = try CLIProcess.run(
            ["update-check", "--policy", Self.policy, "--request", "-", "--format", "json"], stdin: "[1, 2]")
        #expect(malformed.status == 65)
        #expect(malformed.stdout.contains("malformed_request"))
    }

    @Test func usageMissingFilesAndInvalidPolicies() throws {
        #expect(try CLIProcess.run(["update-check", "--policy", Self.policy, "--app", "a"]).status == 64)
        #expect(
            try CLIProcess.run(["update-check", "--policy", Self.policy, "--request", "x.json", "--app", "a"]).status
                == 64)
        #expect(
            try CLIProcess.run([
                "update-check", "--policy", "nope.plist", "--app", "a", "--version", "1", "--platform", "ios",
            ]).status == 66)
        let bad = try CLIProcess.temporaryFile(
            "policy.plist",
            "<plist><dict><key>schemaVersion</key><integer>1</integer><key>policies</key><array><dict><key>id</key><string>p</string><key>app</key><string>a</string><key>minVersion</key><string>3</string><key>deadline</key><string>2025-06-01</string></dict></array></dict></plist>"
        )
        let text = try CLIProcess.run([
            "update-check", "--policy", bad, "--app", "a", "--version", "1", "--platform", "ios",
        ])
        #expect(text.status == 78)
        #expect(
            text.stderr.contains("error: '2025-06-01' is not a date-time [MC4015 invalid-datetime] (invalid_datetime)"))
        let json = try CLIProcess.run([
            "update-check", "--policy", bad, "--app", "a", "--version", "1", "--platform", "ios", "--format", "json",
        ])
        #expect(json.status == 78)
        let error = try #require(try CLIProcess.json(json.stdout)["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_policy")
        #expect((error["diagnostics"] as? [[String: Any]])?.first?["reason"] as? String == "invalid_datetime")
        let lint = try CLIProcess.run(["lint", bad])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("key path: policies[0].deadline"))
    }

    @Test func fleetScriptBranchesOnTheExitCode() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            CLIProcess.packageRoot.appendingPathComponent("Examples/update-policy/check-fleet.sh").path
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["MDMCONF": CLIProcess.binary.path]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "a device must update now")
        #expect(text.contains("ok-current: up to date"))
        #expect(text.contains("recommended-before-deadline: update to 3.2.1 soon"))
        #expect(text.contains("unsupported-old-ios: OS too old for 3.2.1"))
        #expect(text.contains("error-bad-version: the device sent malformed data"))
    }
}
