import Fleet
import FleetStoreSQLite
import FleetTestSupport
import Foundation
import MDMConf
import MDMConfServer
import Testing

/// `POST /v1/checkin` and the fleet endpoints over real HTTP, on a real store.
@Suite struct CheckInServerTests {
    static let field = "com.example.field"

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var method = "POST"
        var target = "/v1/checkin"
        var headers: [String: String] = Fixture.iphone
        var body: String?
        var status: Int
        var contains: [String] = []
        var testDescription: String { name }
    }

    static func checkIn(device: String? = nil, version: String = "3.2.1", extra: String = "", etag: String? = nil)
        -> String
    {
        let named = device.map { #""device": "\#($0)", "# } ?? ""
        let tag = etag.map { #", "configETag": "\#($0.replacingOccurrences(of: "\"", with: "\\\""))""# } ?? ""
        return #"{\#(named)"platform": "ios", "osVersion": "17.4.1"\#(extra), "apps": [{"app": "com.example.field", "version": "\#(version)"\#(tag)}]}"#
    }

    static let cases: [Case] = [
        Case(
            name: "device token, device omitted", body: checkIn(), status: 200,
            contains: [#""device": "iphone-0117""#, #""status": "stale""#, #""decision": "ok""#, #""catalogGeneration": 1"#]),
        Case(name: "device token names itself", body: checkIn(device: "iphone-0117"), status: 200),
        Case(
            name: "device token names another device", body: checkIn(device: "ipad-0042"), status: 403,
            contains: ["MC6103"]),
        Case(name: "admin names an inventory device", headers: Fixture.admin, body: checkIn(device: "iphone-0201"), status: 200),
        Case(
            name: "admin must name the device", headers: Fixture.admin, body: checkIn(), status: 422,
            contains: ["missing_device", "MC6107"]),
        Case(
            name: "admin names an unknown device", headers: Fixture.admin, body: checkIn(device: "iphone-9999"),
            status: 404, contains: ["iphone-9999"]),
        Case(name: "no token", headers: [:], body: checkIn(), status: 401),
        Case(name: "wrong token", headers: ["Authorization": "Bearer nope"], body: checkIn(), status: 401),
        Case(
            name: "bad version is 422 with its field", body: checkIn(version: "3.two"), status: 422,
            contains: [#""field": "apps[0].version""#, #""code": "invalid_version""#, "invalid_checkin"]),
        Case(
            name: "unknown key", body: checkIn(extra: #", "jailbroken": false"#), status: 422,
            contains: [#""field": "jailbroken""#, "unknown_field"]),
        Case(name: "malformed JSON", body: #"{"platform": "#, status: 400, contains: ["the body is not JSON"]),
        Case(name: "an array", body: "[]", status: 400, contains: ["a check-in is a JSON object"]),
        Case(name: "empty body", body: "", status: 400),
        Case(
            name: "required version", body: checkIn(version: "2.3.1"), status: 200,
            contains: [#""decision": "required""#, "below_min_version", "Field 3.0 is required"]),
        Case(
            name: "blocked version", body: checkIn(version: "3.1.0"), status: 200,
            contains: [#""decision": "required""#, "field-3.1.0-broken-sync"]),
        Case(
            name: "OS too old", body: #"{"platform": "ios", "osVersion": "15.7", "apps": [{"app": "com.example.field", "version": "2.0"}]}"#,
            status: 200, contains: [#""decision": "unsupported""#]),
        Case(
            name: "an app the catalog does not serve", body: #"{"platform": "ios", "apps": [{"app": "com.other.app", "version": "1"}]}"#,
            status: 200, contains: [#""status": "none""#, #""update": null"#]),
        Case(name: "fleet summary needs an admin", method: "GET", target: "/v1/fleet/summary", status: 403),
        Case(name: "fleet devices need an admin", method: "GET", target: "/v1/fleet/devices", status: 403),
        Case(
            name: "fleet device needs an admin", method: "GET", target: "/v1/fleet/devices/iphone-0117", status: 403),
        Case(
            name: "bad status filter", method: "GET", target: "/v1/fleet/devices?status=happy", headers: Fixture.admin,
            status: 400),
        Case(
            name: "bad limit", method: "GET", target: "/v1/fleet/devices?limit=0", headers: Fixture.admin, status: 400),
        Case(
            name: "unknown device page", method: "GET", target: "/v1/fleet/devices/nobody", headers: Fixture.admin,
            status: 404),
        Case(
            name: "never seen device page", method: "GET", target: "/v1/fleet/devices/iphone-0400",
            headers: Fixture.admin, status: 200, contains: [#""seen": "never""#, #""recentCheckins": []"#]),
        Case(
            name: "bad trend days", method: "GET", target: "/v1/fleet/trend?days=0", headers: Fixture.admin,
            status: 400),
    ]

    static func fleet(_ kind: StoreKind = .sqlite) async throws -> FleetService {
        FleetService(store: try await TestStores.open(kind), replica: "replica-a")
    }

    @Test func everyCheckInCase() async throws {
        let fleet = try await Self.fleet()
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            for testCase in Self.cases {
                let response = try await http.request(
                    testCase.method, testCase.target, headers: testCase.headers, body: testCase.body)
                #expect(response.status == testCase.status, "\(testCase.name): \(response.text)")
                for text in testCase.contains {
                    #expect(response.text.contains(text), "\(testCase.name): no '\(text)' in \(response.text)")
                }
                if response.status >= 400 { #expect(response.text.contains("\"error\""), "\(testCase.name)") }
            }
        }
        // Only the accepted check-ins are stored: nothing from a refused one.
        let accepted = Self.cases.filter { $0.status == 200 && $0.target == "/v1/checkin" }.count
        #expect(try await fleet.store?.counts().checkIns == accepted)
        try await fleet.store?.close()
    }

    /// The answer says `current` once the device reports the ETag it was served, in either form; the admin then
    /// sees it compliant, in JSON, CSV, the device page and the trend.
    @Test(arguments: StoreKind.available)
    func currentAfterFetchingAndCompliant(kind: StoreKind) async throws {
        let fleet = try await Self.fleet(kind)
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            let config = try await http.request("GET", "/v1/apps/com.example.field/config", headers: Fixture.iphone)
            let etag = try #require(config.header("ETag"))
            let sync = try await http.request("GET", "/v1/apps/com.example.fieldsync/config", headers: Fixture.iphone)
            let syncTag = try #require(sync.header("ETag")).replacingOccurrences(of: "\"", with: "\\\"")
            let body = #"{"platform": "ios", "osVersion": "17.4.1", "apps": [{"app": "com.example.field", "version": "3.2.1", "configETag": "\#(etag.replacingOccurrences(of: "\"", with: "\\\""))"}, {"app": "com.example.fieldsync", "version": "1.0", "configETag": "\#(syncTag)"}]}"#
            let answer = try await http.request("POST", "/v1/checkin", headers: Fixture.iphone, body: body)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.text.contains(#""status": "current""#))
            #expect(!answer.text.contains(#""status": "stale""#))

            let json = try await http.request(
                "GET", "/v1/apps/com.example.field/config", headers: Fixture.iphone.merging(["Accept": "application/json"]) { $1 })
            let jsonTag = try #require(json.header("ETag")).replacingOccurrences(of: "\"", with: "\\\"")
            let again = try await http.request(
                "POST", "/v1/checkin", headers: Fixture.iphone,
                body: Self.checkIn(etag: jsonTag.replacingOccurrences(of: "\\\"", with: "\"")))
            #expect(again.text.contains(#""status": "current""#), "the JSON form's ETag is current too: \(again.text)")

            let compliant = try await http.request(
                "GET", "/v1/fleet/devices?status=compliant", headers: Fixture.admin)
            #expect(compliant.status == 200)
            #expect(compliant.text.contains(#""device": "iphone-0117""#), "\(compliant.text)")
            #expect(!compliant.text.contains("ipad-0042"))
            let csv = try await http.request(
                "GET", "/v1/fleet/devices", headers: Fixture.admin.merging(["Accept": "text/csv"]) { $1 })
            #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
            #expect(csv.text.hasPrefix("device,compliant,seen,"))
            #expect(csv.text.contains("iphone-0117,true,active,"))
            #expect(csv.text.contains("ipad-0042,false,never,"))
            let page = try await http.request("GET", "/v1/fleet/devices/iphone-0117", headers: Fixture.admin)
            #expect(page.text.contains(#""compliant": true"#))
            #expect(page.text.contains(#""replica": "replica-a""#))
            #expect(page.text.components(separatedBy: #""receivedAt""#).count == 3, "two recent check-ins")
            let summary = try await http.request("GET", "/v1/fleet/summary?app=com.example.field", headers: Fixture.admin)
            #expect(summary.text.contains(#""compliant": 1"#))
            #expect(summary.text.contains(#""devices": 7"#))
            let trend = try await http.request("GET", "/v1/fleet/trend?days=7", headers: Fixture.admin)
            #expect(trend.status == 200)
            #expect(trend.text.contains(#""app": "com.example.field""#))
        }
        try await fleet.store?.close()
    }

    /// An Android device gets the app's config.json as JSON with its ETag (by the inventory's platform, or by
    /// `?platform=android`); its check-in is judged against that form, and the fleet endpoints show it current or
    /// stale as they show an iPhone.
    @Test(arguments: StoreKind.available)
    func androidDeviceFetchesJSONAndIsJudgedByIt(kind: StoreKind) async throws {
        let fleet = try await Self.fleet(kind)
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            let target = "/v1/apps/com.example.fieldsync/config?device=pixel-0500"
            let config = try await http.request("GET", target, headers: Fixture.admin)
            #expect(config.status == 200 && config.header("Content-Type") == "application/json")
            #expect(config.text.contains(#""device_tag": "serial-2B281FDH3000K5""#), "\(config.text)")
            let etag = try #require(config.header("ETag"))
            let asked = try await http.request(
                "GET", "/v1/apps/com.example.fieldsync/config?device=iphone-0400&platform=android", headers: Fixture.admin)
            #expect(asked.header("Content-Type") == "application/json" && asked.text.contains(#""log_level""#))
            let plist = try await http.request(
                "GET", target, headers: Fixture.admin.merging(["Accept": "application/x-plist"]) { $1 })
            #expect(plist.text.hasPrefix("<?xml") && plist.header("ETag") != etag, "a plist when asked for one")
            let notModified = try await http.request(
                "GET", target, headers: Fixture.admin.merging(["If-None-Match": etag]) { $1 })
            #expect(notModified.status == 304)

            func checkIn(_ tag: String) -> String {
                let escaped = tag.replacingOccurrences(of: "\"", with: "\\\"")
                return #"{"device": "pixel-0500", "platform": "android", "osVersion": "15", "apps": [{"app": "com.example.fieldsync", "version": "2.0", "configETag": "\#(escaped)"}]}"#
            }
            let stale = try await http.request("POST", "/v1/checkin", headers: Fixture.admin, body: checkIn("\"0\""))
            #expect(stale.text.contains(#""status": "stale""#) && stale.text.contains(etag.replacingOccurrences(of: "\"", with: "\\\"")), "\(stale.text)")
            var page = try await http.request("GET", "/v1/fleet/devices/pixel-0500", headers: Fixture.admin)
            #expect(page.text.contains(#""status": "stale""#), "\(page.text)")
            let current = try await http.request("POST", "/v1/checkin", headers: Fixture.admin, body: checkIn(etag))
            #expect(current.text.contains(#""status": "current""#), "\(current.text)")
            page = try await http.request("GET", "/v1/fleet/devices/pixel-0500", headers: Fixture.admin)
            #expect(page.text.contains(#""status": "current""#), "\(page.text)")
        }
        try await fleet.store?.close()
    }

    /// Pages of two follow the `next` cursor through every device exactly once.
    @Test func keysetPagination() async throws {
        let fleet = try await Self.fleet()
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            for device in ["iphone-0201", "iphone-0202", "ipad-0300"] {
                let response = try await http.request(
                    "POST", "/v1/checkin", headers: Fixture.admin, body: Self.checkIn(device: device))
                #expect(response.status == 200)
            }
            var seen: [String] = []
            var target = "/v1/fleet/devices?limit=2"
            for _ in 0..<10 {
                let response = try await http.request("GET", target, headers: Fixture.admin)
                let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
                let devices = try #require(document["devices"] as? [[String: Any]])
                seen += devices.compactMap { $0["device"] as? String }
                guard let next = document["next"] as? String else { break }
                target = "/v1/fleet/devices?limit=2&page=\(next)"
            }
            #expect(
                seen == [
                    "ipad-0042", "ipad-0300", "iphone-0117", "iphone-0201", "iphone-0202", "iphone-0400", "pixel-0500",
                ])
        }
        try await fleet.store?.close()
    }

    @Test func fleetDisabled() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let checkIn = try await http.request("POST", "/v1/checkin", headers: Fixture.iphone, body: Self.checkIn())
            #expect(checkIn.status == 404)
            #expect(checkIn.text.contains("fleet_disabled"))
            let summary = try await http.request("GET", "/v1/fleet/summary", headers: Fixture.admin)
            #expect(summary.status == 404)
            let ready = try await http.request("GET", "/readyz")
            #expect(ready.text.contains(#""status": "disabled""#))
        }
    }

    /// The SQLite store locked by another process (as a backup or a stuck writer would): check-ins answer 503 with
    /// Retry-After, configurations and update checks are still served, /readyz says why; when the lock goes, the
    /// next check-in after Retry-After is stored.
    @Test func storeUnavailableThenBack() async throws {
        let location = try TestStores.freshLocation(.sqlite)
        guard case .sqlite(let path) = location else { return }
        let store = try await SQLiteFleetStore.open(path: path, logger: Fixture.logger, busyTimeoutMilliseconds: 200)
        let clock = TestClock()
        let fleet = FleetService(store: store, replica: "r", clock: clock.read)
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            #expect(try await http.request("POST", "/v1/checkin", headers: Fixture.iphone, body: Self.checkIn()).status == 200)
            let locker = try SQLiteLocker(path: path)
            let ready = try await Self.expectDegraded(http)
            #expect(ready.contains("locked"))
            locker.release()
            // Within Retry-After the store is not tried again, even though it is back; after it, it is.
            let waiting = try await http.request("POST", "/v1/checkin", headers: Fixture.iphone, body: Self.checkIn())
            #expect(waiting.status == 503 && waiting.header("Retry-After") == "2", "\(waiting.text)")
            clock.advance(seconds: 2)
            let back = try await http.request("POST", "/v1/checkin", headers: Fixture.iphone, body: Self.checkIn())
            #expect(back.status == 200, "\(back.text)")
            let readyAgain = try await http.request("GET", "/readyz")
            #expect(readyAgain.text.contains(#""status": "ok""#))
        }
        #expect(try await store.counts().checkIns == 2)
        try await store.close()
    }
}

extension CheckInServerTests {
    /// A device token's check-in that leaves `device` out gets the same decisions, rollout included, as the update
    /// check of that device: its id is the rollout id.
    @Test func rolloutUsesTheTokensDevice() async throws {
        let fleet = try await Self.fleet()
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            for (headers, device) in [(Fixture.iphone, "iphone-0117"), (Fixture.ipad, "ipad-0042")] {
                let answer = try await http.request(
                    "POST", "/v1/checkin", headers: headers, body: Self.checkIn(version: "3.2.0"))
                #expect(answer.status == 200, "\(answer.text)")
                let apps = try #require(Self.object(answer.text)["apps"] as? [[String: Any]])
                var fromCheckIn = try #require(apps.first?["update"] as? [String: Any])
                let check = try await http.request(
                    "GET", "/v1/update-check?app=com.example.field&version=3.2.0&platform=ios&osVersion=17.4.1&deviceId=\(device)",
                    headers: headers)
                var fromUpdateCheck = try Self.object(check.text)
                fromCheckIn["evaluatedAt"] = nil
                fromUpdateCheck["evaluatedAt"] = nil
                #expect(NSDictionary(dictionary: fromCheckIn) == NSDictionary(dictionary: fromUpdateCheck), "\(device)")
            }
        }
        try await fleet.store?.close()
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// With the store down: a check-in is 503 with Retry-After, configurations and update checks are still served,
    /// and /readyz (still 200) says the store is unavailable. Returns /readyz's text.
    @discardableResult
    static func expectDegraded(_ http: RawHTTP) async throws -> String {
        let refused = try await http.request("POST", "/v1/checkin", headers: Fixture.iphone, body: checkIn())
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.header("Retry-After") == "2")
        #expect(refused.text.contains("store_unavailable"))
        let config = try await http.request("GET", "/v1/apps/com.example.field/config", headers: Fixture.iphone)
        #expect(config.status == 200)
        let update = try await http.request(
            "GET", "/v1/update-check?app=com.example.field&version=3.0&platform=ios", headers: Fixture.iphone)
        #expect(update.status == 200)
        let ready = try await http.request("GET", "/readyz")
        #expect(ready.status == 200)
        #expect(ready.text.contains(#""status": "unavailable""#), "\(ready.text)")
        return ready.text
    }

    /// PostgreSQL stopped under a running server (an immediate shutdown, as a crash or a failover would): check-ins
    /// answer 503 with Retry-After while configurations and update checks are still served and /readyz says why;
    /// once the database is back, the pool reconnects and check-ins are stored again.
    @Test(.enabled(if: TestStores.postgresURL != nil || TestStores.inCI))
    func postgreSQLGoesAwayAndComesBack() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let store = try await TestStores.open(cluster.location)
        let fleet = FleetService(store: store, replica: "r")
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            #expect(try await http.request("POST", "/v1/checkin", headers: Fixture.iphone, body: Self.checkIn()).status == 200)
            try cluster.stop()
            try await Self.expectDegraded(http)
            let summary = try await http.request("GET", "/v1/fleet/summary", headers: Fixture.admin)
            #expect(summary.status == 503)
            try cluster.start()
            // The pool reconnects with a back-off; give it up to 45 s.
            var back = 0
            let deadline = ContinuousClock.now + .seconds(45)
            while back != 200 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
                back = try await http.request("POST", "/v1/checkin", headers: Fixture.iphone, body: Self.checkIn()).status
            }
            #expect(back == 200)
            #expect(try await http.request("GET", "/readyz").text.contains(#""status": "ok""#))
        }
        #expect(try await store.counts().checkIns == 2)
        try await store.close()
    }
}

/// Another process holding an exclusive lock on an SQLite file until released.
final class SQLiteLocker: Sendable {
    let process: Process
    let input: Pipe

    init(path: String) throws {
        process = Process()
        input = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN EXCLUSIVE")
            print("locked", flush=True)
            sys.stdin.read()
            c.execute("ROLLBACK")
            """
        process.arguments = ["python3", "-c", script, path]
        process.standardInput = input
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        _ = out.fileHandleForReading.availableData  // "locked"
    }

    func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
