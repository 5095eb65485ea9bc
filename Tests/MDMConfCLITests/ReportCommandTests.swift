import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import MDMConf
import PropertyList
import Testing

/// `mdmconf report` as a process, reading a real store that holds check-ins of the example fleet.
@Suite struct ReportCommandTests {
    static let field = "com.example.field"
    static let sync = "com.example.fieldsync"

    /// A store where iphone-0201 is compliant, iphone-0117 runs a version below the floor and iphone-0202 has a
    /// stale configuration; the other three inventory devices never checked in.
    static func populatedStore() async throws -> String {
        let location = try TestStores.freshLocation(.sqlite)
        let store = try await TestStores.open(location)
        let catalog = try TestStores.catalog()
        let now = Instant.now
        func apps(_ device: String, field version: String, stale: Bool = false) -> [CheckIn.App] {
            [
                CheckIn.App(
                    app: field, version: version,
                    configETag: stale ? "\"0000\"" : catalog.apps[field]?.config(forDevice: device).xml.etag),
                CheckIn.App(
                    app: sync, version: "1.0", configETag: catalog.apps[sync]?.config(forDevice: device).xml.etag),
            ]
        }
        try await store.write([
            TestStores.record("iphone-0201", at: now.seconds - 60, apps: apps("iphone-0201", field: "3.2.1")),
            TestStores.record("iphone-0117", at: now.seconds - 50, apps: apps("iphone-0117", field: "2.3.1")),
            TestStores.record(
                "iphone-0202", at: now.seconds - 40, apps: apps("iphone-0202", field: "3.2.1", stale: true)),
        ])
        try await store.close()
        return location.description
    }

    @Test func tableAndExitCode() async throws {
        let store = try await Self.populatedStore()
        let result = try CLIProcess.run(["report", "--catalog", "Examples/catalog", "--store", store])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("DEVICE"))
        #expect(result.stdout.contains("iphone-0117  active"))
        #expect(result.stdout.contains("required"))
        #expect(result.stdout.contains("iphone-0117: com.example.field: required (below_min_version"))
        #expect(result.stdout.contains("iphone-0202: com.example.field: config stale"))
        #expect(result.stdout.contains("ipad-0042: never checked in"))
        #expect(result.stderr.contains("7 devices: 1 compliant, 6 not compliant"))

        let compliant = try CLIProcess.run([
            "report", "--catalog", "Examples/catalog", "--store", store, "--status", "compliant",
        ])
        #expect(compliant.status == 0, "\(compliant.stdout)")
        #expect(compliant.stdout.contains("iphone-0201"))
        #expect(!compliant.stdout.contains("iphone-0117"))

        let required = try CLIProcess.run([
            "report", "--catalog", "Examples/catalog", "--store", store, "--app", Self.field, "--decision", "required",
        ])
        #expect(required.status == 1)
        #expect(required.stdout.contains("iphone-0117"))
        #expect(!required.stdout.contains("iphone-0201"))
        #expect(!required.stdout.contains(Self.sync))
    }

    @Test func jsonAndCSV() async throws {
        let store = try await Self.populatedStore()
        let json = try CLIProcess.run(["report", "--catalog", "Examples/catalog", "--store", store, "--format", "json"])
        #expect(json.status == 1)
        let document = try CLIProcess.json(json.stdout)
        let summary = try #require(document["summary"] as? [String: Any])
        #expect(summary["devices"] as? Int == 7)
        #expect(summary["compliant"] as? Int == 1)
        let devices = try #require(document["devices"] as? [[String: Any]])
        #expect(
            devices.map { $0["device"] as? String } == [
                "ipad-0042", "ipad-0300", "iphone-0117", "iphone-0201", "iphone-0202", "iphone-0400", "pixel-0500",
            ])
        let iphone = try #require(devices.first { $0["device"] as? String == "iphone-0117" })
        let apps = try #require(iphone["apps"] as? [[String: Any]])
        let update = try #require(apps.first?["update"] as? [String: Any])
        #expect(update["decision"] as? String == "required")
        #expect(document["now"] is String)

        let csv = try CLIProcess.run(["report", "--catalog", "Examples/catalog", "--store", store, "--format", "csv"])
        #expect(csv.stdout.hasPrefix("device,compliant,seen,last_checkin,"))
        #expect(csv.stdout.split(separator: "\r\n").count == 15)
    }

    /// A device configured by DDM whose status report says the configuration is invalid: not compliant in the
    /// report, with its channel and the device's reason, in the table, the JSON and the CSV. The record is made as
    /// `POST /v1/ddm/{device}/status` makes it.
    @Test func aDDMStatusReportShowsItsChannelAndReason() async throws {
        let location = try TestStores.freshLocation(.sqlite)
        let store = try await TestStores.open(location)
        let catalog = try TestStores.catalog()
        let body = #"""
            {"StatusItems": {"app": {"managed": {"list": [{"identifier": "com.example.field", "short-version": "3.2.1",
             "state": "managed", "config-state": "invalid",
             "reasons": [{"code": "Error.ConfigurationInvalid", "description": "ServerPort must be an integer"}]}]}}},
             "Errors": []}
            """#
        let root = try #require(JSONPlistReader(nullMembersAreAbsent: true).read(Array(body.utf8), file: "body").root)
        let set = DDMExporter(baseURL: "https://mdm.example.test", timestamp: "").set(
            for: "iphone-0400", catalog: catalog)
        let checkIn = try DDMStatusReport.checkIn(root, device: "iphone-0400", set: set, catalog: catalog).get()
        try await store.write([
            CheckInRecord(checkIn: checkIn, receivedAt: .now, replica: "test"),
            TestStores.record("iphone-0201", at: Instant.now.seconds, apps: [.init(app: Self.field, version: "3.2.1")]),
        ])
        try await store.close()

        let table = try CLIProcess.run(["report", "--catalog", "Examples/catalog", "--store", location.description])
        #expect(table.status == 1)
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.first?.split(separator: " ").suffix(3) == ["CONFIG", "CHANNEL", "COMPLIANT"], "\(table.stdout)")
        let ddm = try #require(lines.first { $0.hasPrefix("iphone-0400") })
        #expect(ddm.contains("error") && ddm.contains(" ddm "), "\(ddm)")
        let http = try #require(lines.first { $0.hasPrefix("iphone-0201") })
        #expect(http.contains(" http "), "\(http)")
        #expect(
            table.stdout.contains(
                "iphone-0400: com.example.field: config error (Error.ConfigurationInvalid: ServerPort must be an integer)"
            ),
            "\(table.stdout)")

        let json = try CLIProcess.run([
            "report", "--catalog", "Examples/catalog", "--store", location.description, "--format", "json",
        ])
        let devices = try #require(try CLIProcess.json(json.stdout)["devices"] as? [[String: Any]])
        let device = try #require(devices.first { $0["device"] as? String == "iphone-0400" })
        #expect(device["compliant"] as? Bool == false)
        let config = try #require((device["apps"] as? [[String: Any]])?.first?["config"] as? [String: Any])
        #expect(config["status"] as? String == "error" && config["channel"] as? String == "ddm")
        #expect((config["ddm"] as? [String: Any])?["configState"] as? String == "invalid")

        let csv = try CLIProcess.run([
            "report", "--catalog", "Examples/catalog", "--store", location.description, "--format", "csv",
        ])
        #expect(csv.stdout.hasPrefix("device,") && csv.stdout.contains("current_etag,channel\r\n"))
        #expect(
            csv.stdout.split(separator: "\r\n").contains { $0.hasPrefix("iphone-0400,false") && $0.hasSuffix(",ddm") })
    }

    /// "Who will be out of compliance later?": judged a year on, every device that checked in is silent.
    @Test func judgedAtAnotherTime() async throws {
        let store = try await Self.populatedStore()
        let later = Instant.now.adding(seconds: 365 * 86_400).description
        let result = try CLIProcess.run([
            "report", "--catalog", "Examples/catalog", "--store", store, "--now", later, "--status", "compliant",
        ])
        #expect(result.status == 0)
        #expect(result.stderr.contains("0 devices"))
    }

    @Test func refusals() throws {
        #expect(try CLIProcess.run(["report", "--catalog", "Examples/catalog", "--store", "mysql://x/y"]).status == 64)
        #expect(try CLIProcess.run(["report", "--catalog", "Examples/catalog", "--store", "none"]).status == 64)
        #expect(
            try CLIProcess.run([
                "report", "--catalog", "Examples/catalog", "--store", "sqlite:/tmp/x.sqlite", "--now", "friday",
            ])
            .status == 64)
        let unreachable = try CLIProcess.run([
            "report", "--catalog", "Examples/catalog", "--store", "sqlite:/proc/nowhere/fleet.sqlite",
        ])
        #expect(unreachable.status == 78)
        #expect(unreachable.stderr.contains("the fleet store cannot be used"))
        // A catalog that does not load leaves no store behind.
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID()).sqlite").path
        let noCatalog = try CLIProcess.run(["report", "--catalog", "/nonexistent", "--store", "sqlite:\(missing)"])
        #expect(noCatalog.status == 78)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func serveRefusesUnusableStores() throws {
        let inside = try CLIProcess.run([
            "serve", "Examples/catalog", "--port", "0", "--store", "sqlite:Examples/catalog/fleet.sqlite",
        ])
        #expect(inside.status == 78)
        #expect(inside.stderr.contains("inside the catalog folder"))
        #expect(
            !FileManager.default.fileExists(
                atPath: CLIProcess.packageRoot.appendingPathComponent("Examples/catalog/fleet.sqlite").path))
        let postgres = try CLIProcess.run([
            "serve", "Examples/catalog", "--port", "0", "--store", "postgres://u@127.0.0.1:1/db",
        ])
        #expect(postgres.status == 78)
        #expect(postgres.stderr.contains("the fleet store cannot be used"))
        #expect(try CLIProcess.run(["serve", "Examples/catalog", "--store", "redis://x"]).status == 64)
        #expect(try CLIProcess.run(["serve", "Examples/catalog", "--history-days", "0"]).status == 64)
    }
}
