import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import Testing

/// The fleet loop as it runs in production: `mdmconf serve` processes on real stores, killed and restarted, and
/// several replicas on one PostgreSQL.
@Suite(.serialized) struct FleetProcessTests {
    static let admin = ["Authorization": "Bearer example-admin-token-c0ffee"]
    static let inventory = ["ipad-0042", "ipad-0300", "iphone-0117", "iphone-0201", "iphone-0202", "iphone-0400"]

    /// A check-in an admin sends for `device`; `at` and the version make each one recognisable in the history.
    static func checkIn(device: String, at: String, version: String) -> String {
        #"{"device": "\#(device)", "at": "\#(at)", "platform": "ios", "osVersion": "17.4.1", "#
            + #""apps": [{"app": "com.example.field", "version": "\#(version)"}, "#
            + #"{"app": "com.example.fieldsync", "version": "1.0"}]}"#
    }

    /// What the load got a 200 for.
    actor Ledger {
        var acknowledged: [(device: String, at: String, version: String)] = []
        var refused = 0
        var stopped = false

        func ack(_ device: String, _ at: String, _ version: String) { acknowledged.append((device, at, version)) }
        func refuse() { refused += 1 }
        func stop() { stopped = true }
    }

    /// 12 connections send check-ins until the server is killed with SIGKILL in the middle of the load; after a
    /// restart on the same store, every check-in that got a 200 is there with what it said.
    @Test(arguments: StoreKind.available)
    func killedUnderLoadLosesNoAcknowledgedCheckIn(kind: StoreKind) async throws {
        let location = try TestStores.freshLocation(kind)
        let server = try ServerProcess(["serve", "Examples/catalog", "--port", "0", "--store", location.description])
        let http = RawHTTP(port: server.port)
        let ledger = Ledger()
        let base = Instant.now.seconds - 86_400
        let counter = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<12 {
                group.addTask {
                    while await !ledger.stopped {
                        let n = counter.next()
                        let device = Self.inventory[(worker + n) % Self.inventory.count]
                        let at = Instant(seconds: base + Int64(n)).description
                        let version = "3.\(n % 7).\(n)"
                        guard
                            let response = try? await http.request(
                                "POST", "/v1/checkin", headers: Self.admin,
                                body: Self.checkIn(device: device, at: at, version: version))
                        else { return }  // the server is gone
                        if response.status == 200 {
                            await ledger.ack(device, at, version)
                        } else {
                            await ledger.refuse()
                        }
                    }
                }
            }
            group.addTask {
                // Kill once the load is well under way, while every worker has a request in flight.
                let deadline = Date().addingTimeInterval(60)
                while await ledger.acknowledged.count < 500 && Date() < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                server.kill9()
                await ledger.stop()
            }
            try await group.waitForAll()
        }
        let acknowledged = await ledger.acknowledged
        #expect(acknowledged.count >= 500, "the load got \(acknowledged.count) answers before the kill: \(server.log)")
        #expect(await ledger.refused == 0)

        // Restart on the same store: it opens, and takes check-ins again.
        let restarted = try ServerProcess(["serve", "Examples/catalog", "--port", "0", "--store", location.description])
        let again = try await RawHTTP(port: restarted.port).request(
            "POST", "/v1/checkin", headers: Self.admin,
            body: Self.checkIn(device: "iphone-0117", at: Instant.now.description, version: "3.2.1"))
        #expect(again.status == 200, "\(again.text)")
        #expect(restarted.stop() == 0)

        let store = try await TestStores.open(location)
        var stored: [String: [String]] = [:]
        for device in Self.inventory {
            stored[device] = try await store.checkIns(device: device, limit: 1_000_000).map(\.body)
        }
        let total = try await store.counts().checkIns
        try await store.close()
        #expect(total >= acknowledged.count + 1)
        var missing: [String] = []
        for entry in acknowledged {
            let bodies = stored[entry.device] ?? []
            let found = bodies.contains {
                $0.contains(#""at":"\#(entry.at)""#) && $0.contains(#""version":"\#(entry.version)""#)
            }
            if !found { missing.append("\(entry.device) at \(entry.at)") }
        }
        #expect(missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged check-ins lost: \(missing.prefix(5))")
    }

    /// Two `mdmconf serve` processes on one PostgreSQL database and one catalog folder: check-ins taken by either
    /// show in `/v1/fleet/summary` of both, on each device page with the replica that took it, and in one
    /// `mdmconf report`.
    @Test(.enabled(if: TestStores.postgresURL != nil || TestStores.inCI))
    func twoReplicasOnOnePostgreSQL() async throws {
        let location = try TestStores.freshLocation(.postgres)
        let url = location.description
        let a = try ServerProcess(["serve", "Examples/catalog", "--port", "0", "--store", url, "--replica", "replica-a"])
        let b = try ServerProcess(["serve", "Examples/catalog", "--port", "0", "--store", url, "--replica", "replica-b"])
        let replicas = [RawHTTP(port: a.port), RawHTTP(port: b.port)]
        let now = Instant.now.description
        let sent: [(device: String, version: String, replica: Int)] = [
            ("iphone-0117", "2.3.1", 0), ("iphone-0201", "3.2.1", 1), ("ipad-0042", "3.2.1", 0),
            ("iphone-0202", "3.1.0", 1),
        ]
        for entry in sent {
            let response = try await replicas[entry.replica].request(
                "POST", "/v1/checkin", headers: Self.admin,
                body: Self.checkIn(device: entry.device, at: now, version: entry.version))
            #expect(response.status == 200, "\(response.text)")
        }
        for (index, http) in replicas.enumerated() {
            let summary = try CLIProcess.json(try await http.request("GET", "/v1/fleet/summary", headers: Self.admin).text)
            #expect(summary["devices"] as? Int == 7, "replica \(index): \(summary)")
            let seen = try #require(summary["seen"] as? [String: Any])
            #expect(seen["active"] as? Int == 4, "replica \(index): \(seen)")
            #expect(seen["never"] as? Int == 3, "replica \(index): \(seen)")
            for entry in sent {
                let page = try CLIProcess.json(
                    try await http.request("GET", "/v1/fleet/devices/\(entry.device)", headers: Self.admin).text)
                #expect(page["replica"] as? String == (entry.replica == 0 ? "replica-a" : "replica-b"))
            }
        }
        let report = try CLIProcess.run(["report", "--catalog", "Examples/catalog", "--store", url, "--format", "json"])
        #expect(report.status == 1, "\(report.stderr)")
        let devices = try #require(try CLIProcess.json(report.stdout)["devices"] as? [[String: Any]])
        let reported = Dictionary(
            uniqueKeysWithValues: devices.map { ($0["device"] as? String ?? "", $0["replica"] as? String) })
        #expect(reported["iphone-0117"] == "replica-a")
        #expect(reported["iphone-0201"] == "replica-b")
        #expect(reported["iphone-0202"] == "replica-b")
        #expect(devices.filter { $0["lastCheckin"] is String }.count == 4)
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
    }
}

/// A thread-safe counter for the load's sequence numbers.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}
