import Foundation
import TestScratch
import Testing

/// `Examples/client` (field-app-launch) run as the README runs it, against `mdmconf serve Examples/catalog`.
@Suite(.serialized) struct ExampleClientTests {
    struct Launch: Sendable, CustomTestStringConvertible {
        var version: String
        var osVersion = "17.4.1"
        var status: Int32
        var lines: [String]
        var testDescription: String { "\(version) on iOS \(osVersion)" }
    }

    static let launches: [Launch] = [
        Launch(
            version: "3.2.1", status: 0,
            lines: ["(fetched now)", "ServerURL = https://field.example.com/api", "→ CONTINUE: the app opens"]),
        Launch(version: "3.0.5", status: 10, lines: ["(cached, still current)", "→ NAG, then continue"]),
        Launch(
            version: "2.3.1", status: 20,
            lines: [
                #"→ BLOCK: "Field 3.0 is required""#, "Older versions stopped syncing on 1 July.",
                "[Update] itms-apps://apps.apple.com/app/id000000001",
            ]),
        Launch(version: "2.3.1", osVersion: "15.7", status: 30, lines: ["this device's OS is too old"]),
    ]

    @Test func launchesOnlineThenOffline() throws {
        let root = Scratch.url("mdmconf-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try ServerProcess([
            "serve", "Examples/catalog", "--port", "0", "--store",
            "sqlite:" + root.appendingPathComponent("fleet.sqlite").path,
        ])
        let cache = root.appendingPathComponent("cache").path
        func launch(_ version: String, os: String = "17.4.1") throws -> CLIProcess.Result {
            try Self.run([
                "--server", "http://127.0.0.1:\(server.port)", "--token", "example-device-token-iphone-0117",
                "--version", version, "--os-version", os, "--cache", cache, "--timeout", "30",
            ])
        }
        for expected in Self.launches {
            let result = try launch(expected.version, os: expected.osVersion)
            #expect(result.status == expected.status, "\(expected): \(result.stdout)\(result.stderr)")
            for line in expected.lines {
                #expect(result.stdout.contains(line), "\(expected): no '\(line)' in \(result.stdout)")
            }
        }
        let refused = try Self.run([
            "--server", "http://127.0.0.1:\(server.port)", "--token", "wrong", "--version", "3.2.1", "--cache", cache,
        ])
        #expect(refused.status == 69 && refused.stdout.contains("SIGN-IN ERROR"), "\(refused.stdout)")

        // The last answer the cache keeps is `required`; offline it stays required.
        #expect(try launch("2.3.1").status == 20)
        server.stop()
        let offline = try launch("2.3.1")
        #expect(offline.status == 20, "\(offline.stdout)")
        #expect(offline.stdout.contains("the server could not be reached"))
        #expect(offline.stdout.contains("server not asked"))
        #expect(offline.stdout.contains("→ BLOCK (decided"))
        let usage = try Self.run(["--server", "http://127.0.0.1:9"])
        #expect(usage.status == 64 && usage.stderr.contains("usage: field-app-launch"))
    }

    static func run(_ arguments: [String]) throws -> CLIProcess.Result {
        try CLIProcess.run(ExampleApp.binary, arguments, in: CLIProcess.packageRoot)
    }
}
