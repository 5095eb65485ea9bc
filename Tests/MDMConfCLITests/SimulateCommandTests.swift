import Foundation
import Testing

/// `mdmconf simulate` as a process against a real `mdmconf serve` process.
@Suite(.serialized) struct SimulateCommandTests {
    /// 200 generated devices check in; the server's store, read by `mdmconf report`, holds the decisions the
    /// simulator saw, and every decision kind occurred.
    @Test func twoHundredDevicesMatchTheReport() async throws {
        let live = try ClientTests.LiveCatalog()
        let tokenFile = live.root.appendingPathComponent("admin.token").path
        try "example-admin-token-c0ffee\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let run = try CLIProcess.run([
            "simulate", "--server", live.url.absoluteString, "--catalog", live.catalog.path, "--devices", "200",
            "--generate-inventory", "--token-file", tokenFile, "--format", "json", "--timeout", "30",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "no progress line when not on a terminal: \(run.stderr)")
        let summary = try CLIProcess.json(run.stdout)
        #expect(summary["devices"] as? Int == 200)
        #expect(summary["launches"] as? Int == 800, "each of the 2 apps of 200 devices launched twice")
        #expect((summary["errors"] as? [String: Int])?.isEmpty == true)
        #expect(summary["unexpectedDecisions"] as? Int == 0)
        let decisions = try #require(summary["decisions"] as? [String: Int])
        for kind in ["ok", "recommended", "required", "unsupported"] {
            #expect(decisions[kind, default: 0] > 0, "no \(kind) in \(decisions)")
        }
        let configs = try #require(summary["configs"] as? [String: Int])
        // The first launch fetches, the second reports it applied; every 2nd launch is followed by a refresh (304).
        #expect(configs["fetched"] == 400 && configs["current"] == 400 && configs["notModified"] == 400, "\(configs)")
        #expect(summary["notModifiedRatio"] as? Double == 0.5)

        let report = try CLIProcess.run([
            "report", "--catalog", live.catalog.path, "--store",
            "sqlite:" + live.root.appendingPathComponent("fleet.sqlite").path,
            "--format", "json",
        ])
        let document = try CLIProcess.json(report.stdout)
        let apps = try #require((document["summary"] as? [String: Any])?["apps"] as? [[String: Any]])
        let final = try #require(summary["finalDecisions"] as? [String: [String: Int]])
        #expect(apps.count == 2)
        for app in apps {
            let name = try #require(app["app"] as? String)
            let reported = try #require(app["decisions"] as? [String: Int])
            let seen = try #require(final[name])
            for kind in ["ok", "recommended", "required", "unsupported"] {
                #expect(
                    reported[kind, default: 0] == seen[kind, default: 0],
                    "\(name) \(kind): report \(reported), simulator \(seen)")
            }
            // The 7 real inventory devices were not played.
            #expect(reported["unreported"] == 7, "\(name): \(reported)")
            // Every played device reported the configuration it fetched.
            let config = try #require(app["config"] as? [String: Int])
            #expect(config["current"] == 200 && config["stale"] == 0, "\(name): \(config)")
        }

        // A second run with the same seed plays the same fleet: every configuration is now current.
        let again = try CLIProcess.run([
            "simulate", "--server", live.url.absoluteString, "--catalog", live.catalog.path, "--devices", "200",
            "--generate-inventory", "--token-file", tokenFile, "--timeout", "30",
        ])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("800 launches and 400 refreshes by 200 devices"), "\(again.stdout)")
        #expect(again.stdout.contains("errors: none"), "\(again.stdout)")
    }

    /// A duration keeps devices launching; a rate paces them.
    @Test func durationAndRate() async throws {
        let live = try ClientTests.LiveCatalog()
        let tokenFile = live.root.appendingPathComponent("admin.token").path
        try "example-admin-token-c0ffee".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let run = try CLIProcess.run([
            "simulate", "--server", live.url.absoluteString, "--catalog", live.catalog.path, "--token-file", tokenFile,
            "--duration", "2", "--rate", "40", "--format", "json", "--timeout", "30",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try CLIProcess.json(run.stdout)
        let launches = try #require(summary["launches"] as? Int)
        let refreshes = try #require(summary["refreshes"] as? Int)
        let seconds = try #require(summary["seconds"] as? Double)
        // Whatever the machine's speed: the devices play until the duration is up, each at least one round (its
        // 2 apps launched, one refresh), and the pacer hands out one request per 1/40 s from the start, so the run
        // made at most 40 per second it lasted, plus the first (and 1 for the seconds' rounding to ms).
        #expect(summary["devices"] as? Int == 7)
        #expect(seconds >= 2, "\(summary)")
        #expect(launches >= 14 && refreshes >= 7, "\(summary)")
        #expect(Double(launches + refreshes) <= 40 * seconds + 2, "\(summary)")

        // The inventory's Android device played one: it checked in as android and fetched the JSON configuration,
        // so the report finds it current like the iPhones.
        let report = try CLIProcess.run([
            "report", "--catalog", live.catalog.path, "--store",
            "sqlite:" + live.root.appendingPathComponent("fleet.sqlite").path, "--format", "json",
        ])
        let devices = try #require(try CLIProcess.json(report.stdout)["devices"] as? [[String: Any]])
        let pixel = try #require(devices.first { $0["device"] as? String == "pixel-0500" })
        let sync = try #require((pixel["apps"] as? [[String: Any]])?.first { $0["app"] as? String == "com.example.fieldsync" })
        let config = try #require(sync["config"] as? [String: Any])
        #expect(config["status"] as? String == "current", "\(sync)")
        // For an Android device the current ETag is the JSON form's, so a plist fetch would have been stale.
        #expect(config["reportedETag"] as? String == config["currentETag"] as? String, "\(config)")
    }

    struct RefusalCase: Sendable, CustomTestStringConvertible {
        var name: String
        var arguments: [String]
        var status: Int32
        var message: String
        var testDescription: String { name }
    }

    static let refusalCases: [RefusalCase] = [
        RefusalCase(
            name: "no token for a catalog with tokens",
            arguments: ["--server", "http://127.0.0.1:9", "--catalog", "Examples/catalog"],
            status: 64, message: "give an admin token with --token-file"),
        RefusalCase(
            name: "a bad server URL", arguments: ["--server", "ftp://x", "--catalog", "Examples/catalog"], status: 64,
            message: "--server must be an http or https URL"),
        RefusalCase(
            name: "no catalog", arguments: ["--server", "http://127.0.0.1:9", "--catalog", "no/such/catalog"],
            status: 66,
            message: "no such catalog folder"),
        RefusalCase(
            name: "a broken catalog", arguments: ["--server", "http://127.0.0.1:9", "--catalog", "Examples/broken"],
            status: 78,
            message: "is not a usable catalog"),
        RefusalCase(
            name: "generated inventory without a count",
            arguments: ["--server", "http://127.0.0.1:9", "--catalog", "Examples/catalog", "--generate-inventory"],
            status: 64,
            message: "--generate-inventory needs --devices N"),
        RefusalCase(
            name: "a zero duration rate",
            arguments: ["--server", "http://127.0.0.1:9", "--catalog", "Examples/catalog", "--rate", "0"],
            status: 64, message: "--rate must be above 0"),
    ]

    @Test(arguments: refusalCases)
    func refusals(_ testCase: RefusalCase) throws {
        let run = try CLIProcess.run(["simulate"] + testCase.arguments)
        #expect(run.status == testCase.status, "\(testCase.name): \(run.stderr)")
        #expect(run.stderr.contains(testCase.message), "\(testCase.name): \(run.stderr)")
    }

    /// A server that is not there: every launch and refresh fails (28 + 14), the summary says so, exit 1.
    @Test func anUnreachableServer() throws {
        let tokenFile = try CLIProcess.temporaryFile("admin.token", "example-admin-token-c0ffee")
        let run = try CLIProcess.run([
            "simulate", "--server", "http://127.0.0.1:9", "--catalog", "Examples/catalog", "--token-file", tokenFile,
            "--timeout", "1",
        ])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("errors: unreachable 42"), "\(run.stdout)")
    }
}
