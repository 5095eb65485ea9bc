import CivilTime
import Fleet
import FleetStoreSQL
import FleetTestSupport
import Foundation
import MDMConf
import Testing
import UpdatePolicy

/// Compliance of every state, computed from stored check-ins and the example catalog through the catalog's own
/// config lookup and update evaluator.
struct ComplianceTests {
    static let field = "com.example.field"
    static let sync = "com.example.fieldsync"
    /// 2026-11-24T10:00:00Z
    static let now = Instant(seconds: 1_795_514_400)

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var device: String
        var checkedInSecondsAgo: Int64 = 60
        var osVersion: String? = "17.4.1"
        /// (app, version, which ETag: "current", "json", "old", nil; config error)
        var apps: [(String, String, String?, String?)]
        var compliant: Bool
        var seen: SeenStatus = .active
        /// app → "decision/config"
        var expected: [String: String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "compliant: current versions and configurations", device: "iphone-0201",
            apps: [(field, "3.2.1", "current", nil), (sync, "1.0", "current", nil)], compliant: true,
            expected: [field: "ok/current", sync: "ok/current"]),
        Case(
            name: "the JSON form's ETag is current too", device: "iphone-0201",
            apps: [(field, "3.2.1", "json", nil), (sync, "1.0", "json", nil)], compliant: true,
            expected: [field: "ok/current", sync: "ok/current"]),
        Case(
            name: "stale configuration", device: "iphone-0201",
            apps: [(field, "3.2.1", "old", nil), (sync, "1.0", "current", nil)], compliant: false,
            expected: [field: "ok/stale", sync: "ok/current"]),
        Case(
            name: "no ETag reported is stale", device: "iphone-0201",
            apps: [(field, "3.2.1", nil, nil), (sync, "1.0", "current", nil)], compliant: false,
            expected: [field: "ok/stale", sync: "ok/current"]),
        Case(
            name: "configuration error reported", device: "iphone-0201",
            apps: [(field, "3.2.1", "current", "ServerPort: not an integer"), (sync, "1.0", "current", nil)],
            compliant: false, expected: [field: "ok/error", sync: "ok/current"]),
        Case(
            name: "an assigned app never reported is unknown", device: "iphone-0201",
            apps: [(field, "3.2.1", "current", nil)], compliant: false,
            expected: [field: "ok/current", sync: "unreported/unknown"]),
        Case(
            name: "below the floor after its deadline: required", device: "iphone-0117",
            apps: [(field, "2.3.1", "current", nil), (sync, "1.0", "current", nil)], compliant: false,
            expected: [field: "required/current", sync: "ok/current"]),
        Case(
            name: "blocked version: required", device: "iphone-0400",
            apps: [(field, "3.1.0", "current", nil), (sync, "1.0", "current", nil)], compliant: false,
            expected: [field: "required/current", sync: "ok/current"]),
        Case(
            name: "OS too old for the target: unsupported", device: "iphone-0202", osVersion: "15.7",
            apps: [(field, "2.9", "current", nil), (sync, "1.0", "current", nil)], compliant: false,
            expected: [field: "unsupported/current", sync: "ok/current"]),
        Case(
            name: "silent after seven days", device: "ipad-0300", checkedInSecondsAgo: 8 * 86_400,
            apps: [(field, "3.2.1", "current", nil), (sync, "1.0", "current", nil)], compliant: false, seen: .silent,
            expected: [field: "ok/current", sync: "ok/current"]),
        Case(
            name: "an app the catalog does not serve never counts", device: "iphone-0201",
            apps: [(field, "3.2.1", "current", nil), (sync, "1.0", "current", nil), ("com.other.app", "9", nil, nil)],
            compliant: true, expected: [field: "ok/current", sync: "ok/current", "com.other.app": "unreported/none"]),
    ]

    @Test(arguments: cases)
    func state(_ testCase: Case) throws {
        let catalog = try TestStores.catalog()
        let evaluator = ComplianceEvaluator(catalog: catalog, now: Self.now)
        let row = evaluator.evaluate(Self.state(testCase, catalog: catalog), cache: ParseCache())
        #expect(row.compliant == testCase.compliant, "\(row.why)")
        #expect(row.seen == testCase.seen)
        var got: [String: String] = [:]
        for app in row.apps {
            got[app.app] = "\(app.decision?.decision.rawValue ?? "unreported")/\(app.config.rawValue)"
        }
        #expect(got == testCase.expected)
        #expect(row.why.isEmpty == testCase.compliant)
    }

    static func state(_ testCase: Case, catalog: Catalog) -> DeviceState {
        let at = now.adding(seconds: -testCase.checkedInSecondsAgo)
        let apps = testCase.apps.map { app, version, etag, error -> DeviceState.App in
            let served = catalog.apps[app]?.config(forDevice: testCase.device)
            let tag: String? =
                switch etag {
                case "current": served?.xml.etag
                case "json": served?.json.etag
                case "old": "\"0000\""
                default: nil
                }
            return DeviceState.App(
                app: CheckIn.App(app: app, version: version, configETag: tag, configError: error), lastCheckIn: at)
        }
        return DeviceState(
            device: testCase.device, platform: "ios", osVersion: testCase.osVersion, deviceModel: "iPhone15,2",
            locale: "en", timeZone: "Europe/Berlin", enrolledAt: nil, reportedAt: at, lastCheckIn: at, replica: "test",
            apps: apps.sorted { $0.app.app < $1.app.app })
    }

    /// App rows (in device order) go to their devices (in device order), each device's in the order they came;
    /// rows of a device the page does not hold are dropped. Device ids, app rows as `device:app`, what each gets.
    static let attachCases: [([String], [String], [String: [String]])] = [
        (["a", "c"], ["a:x", "a:y", "b:z", "c:w"], ["a": ["x", "y"], "c": ["w"]]),
        (["a", "b", "c"], ["b:x"], ["b": ["x"]]),
        (["b"], ["a:x", "a:y", "c:z"], [:]),
        (["a", "b"], [], [:]),
        ([], ["a:x"], [:]),
        (["a", "b", "d"], ["a:1", "a:2", "a:3", "c:4", "d:5", "e:6"], ["a": ["1", "2", "3"], "d": ["5"]]),
    ]

    @Test(arguments: attachCases)
    func appRowsAttachToTheirDevices(_ ids: [String], _ rows: [String], _ expected: [String: [String]]) {
        let at = Instant(seconds: 1_700_000_000)
        var devices = ids.map {
            DeviceState(
                device: $0, platform: "ios", osVersion: nil, deviceModel: nil, locale: nil, timeZone: nil,
                enrolledAt: nil, reportedAt: nil, lastCheckIn: at, replica: "test", apps: [])
        }
        var apps = DeviceApps()
        for row in rows {
            let parts = row.split(separator: ":").map(String.init)
            apps.append(DeviceState.App(app: CheckIn.App(app: parts[1], version: "1"), lastCheckIn: at), of: parts[0])
        }
        apps.attach(to: &devices)
        for device in devices {
            #expect(device.apps.map(\.app.app) == expected[device.device, default: []], "\(device.device)")
        }
    }

    /// Decisions reused across devices (`DecisionMemo`) are exactly the decisions evaluated one by one: 2,000
    /// devices whose texts repeat, on both sides of the field app's 50 % rollout, in several zones and locales,
    /// with deferrals and enrolment dates. The memo leaves the enrolment date out of its keys unless a policy reads
    /// it: with a 30-day grace for new devices on the field app's floor, devices that differ only by enrolment get
    /// different decisions, and still the memo's are the evaluated ones.
    @Test(arguments: [false, true])
    func reusedDecisionsEqualEvaluatedOnes(newDeviceGrace: Bool) throws {
        var catalog = try TestStores.catalog()
        if newDeviceGrace {
            let copy = try TestStores.copyCatalog()
            let policy = copy.appendingPathComponent("apps/com.example.field/update-policy.plist")
            let text = try String(contentsOf: policy, encoding: .utf8)
            let floor = "<string>field-3.0-floor</string>"
            #expect(text.contains(floor))
            try text.replacingOccurrences(
                of: floor, with: floor + "<key>newDeviceGrace</key><string>30d</string>"
            ).write(to: policy, atomically: true, encoding: .utf8)
            catalog = try TestStores.catalog(copy.path)
        }
        #expect(catalog.apps[Self.field]?.updatePolicy.readsEnrollment == newDeviceGrace)
        let evaluator = ComplianceEvaluator(catalog: catalog, now: Self.now)
        var graceOutcomes = Set<String>()
        let memo = DecisionMemo()
        var generator = SystemRandomNumberGenerator()
        var rolloutOutcomes = Set<String>()
        var rows: [DeviceCompliance] = []
        for index in 0..<2_000 {
            func pick<T>(_ choices: [T]) -> T { choices[Int(generator.next() % UInt64(choices.count))] }
            let apps = [
                DeviceState.App(
                    app: CheckIn.App(
                        app: Self.field, version: pick(["3.2.1", "3.2.0", "3.1.0", "3.0.2", "2.3.1", "3.2.0-beta.1"]),
                        build: pick([nil, "320", "99"]), channel: pick([nil, "stable", "beta"]),
                        deferralsUsed: pick([nil, 0, 2, 5])),
                    lastCheckIn: Self.now),
                DeviceState.App(
                    app: CheckIn.App(app: Self.sync, version: pick(["1.0", "0.9"])), lastCheckIn: Self.now),
            ]
            let state = DeviceState(
                device: "device-\(index)", platform: pick(["ios", "ipados"]),
                osVersion: pick(["17.4.1", "16.7.8", "15.8", nil]), deviceModel: pick(["iPhone15,2", "iPad13,1"]),
                locale: pick(["en", "de", "pt-BR"]), timeZone: pick(["Europe/Berlin", "America/Sao_Paulo", nil]),
                enrolledAt: pick([nil] + [1, 5, 29, 31, 90, 400].map { Self.now.adding(seconds: -86_400 * $0) }),
                reportedAt: Self.now, lastCheckIn: Self.now, replica: "test", apps: apps)
            let reused = evaluator.evaluate(state, cache: ParseCache(), memo: memo)
            let evaluated = evaluator.evaluate(state, cache: ParseCache())
            rows.append(reused)
            #expect(reused.compliant == evaluated.compliant)
            for (one, other) in zip(reused.apps, evaluated.apps) {
                #expect(one.decision?.json == other.decision?.json, "\(state.device) \(one.app)")
            }
            if apps[0].app.version == "3.2.0", state.osVersion == "17.4.1" {
                rolloutOutcomes.insert(evaluated.apps[0].decision?.decision.rawValue ?? "-")
            }
            if apps[0].app.version == "2.3.1", state.osVersion == "17.4.1", apps[0].app.deferralsUsed ?? 0 == 0 {
                graceOutcomes.insert(evaluated.apps[0].decision?.decision.rawValue ?? "-")
            }
        }
        // Below the floor after its deadline: required, but recommended for a device enrolled within the grace.
        #expect(graceOutcomes.contains("required"), "\(graceOutcomes)")
        #expect(graceOutcomes.contains("recommended") == newDeviceGrace, "\(graceOutcomes)")
        // The data crosses the rollout: devices with the same texts get different decisions by their ids.
        #expect(rolloutOutcomes.isSuperset(of: ["ok", "recommended"]), "\(rolloutOutcomes)")
        // Counts taken in parts and merged (as a scan's halves are) equal counts taken one row at a time.
        rows += rows + rows
        var oneByOne = FleetSummary()
        for row in rows { oneByOne.add(row) }
        var merged = FleetSummary()
        for part in stride(from: 0, to: rows.count, by: 1_700) {
            var counts = FleetSummary()
            for row in rows[part..<min(rows.count, part + 1_700)] { counts.add(row) }
            merged.merge(counts)
        }
        #expect(merged == oneByOne)
        #expect(oneByOne.devices == 6_000)
        // The counts by name (six versions of the field app, some found by comparing and some by hashing) are the
        // counts a dictionary takes.
        var versions: [String: [String: Int]] = [:]
        var seen: [String: Int] = [:]
        for row in rows {
            seen[row.seen.rawValue, default: 0] += 1
            for app in row.apps {
                versions[app.app, default: [:]][app.reported?.version ?? "unreported", default: 0] += 1
            }
        }
        #expect(oneByOne.apps.mapValues(\.versions) == versions)
        #expect(versions[Self.field]?.count == 6)
        #expect(oneByOne.seen == seen)
    }

    /// Tightening a minimum in the catalog makes a stored device non-compliant without any check-in; the same
    /// store, judged against the old and the new catalog.
    @Test(arguments: StoreKind.available)
    func tighterCatalogChangesComplianceAtOnce(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let before = try TestStores.catalog()
        let testCase = Self.cases[0]
        let state = Self.state(testCase, catalog: before)
        try await store.write([
            CheckInRecord(checkIn: state.checkIn, receivedAt: Self.now.adding(seconds: -60), replica: "test")
        ])
        let judged = try await FleetQuery(store: store, evaluator: ComplianceEvaluator(catalog: before, now: Self.now))
            .all(FleetFilter(app: nil, status: .compliant))
        #expect(judged.map(\.device) == ["iphone-0201"])

        let copy = try TestStores.copyCatalog()
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>schemaVersion</key><integer>1</integer><key>policies</key><array>
        <dict><key>id</key><string>sync-2.0-floor</string><key>minVersion</key><string>2.0</string></dict>
        </array></dict></plist>
        """.write(
            to: copy.appendingPathComponent("apps/com.example.fieldsync/update-policy.plist"), atomically: true,
            encoding: .utf8)
        let after = try TestStores.catalog(copy.path)
        let query = FleetQuery(store: store, evaluator: ComplianceEvaluator(catalog: after, now: Self.now))
        let row = try #require(try await query.all(FleetFilter()).first { $0.device == "iphone-0201" })
        #expect(!row.compliant)
        #expect(row.apps.first { $0.app == Self.sync }?.decision?.decision == .required)
        #expect(row.why.contains { $0.contains("com.example.fieldsync: required (below_min_version)") })
        let summary = try await query.summary(FleetFilter(app: Self.sync))
        #expect(summary.apps[Self.sync]?.decisions["required"] == 1)
        try await store.close()
    }

    /// Listings merge inventory devices that never checked in, page by id, and filter.
    @Test(arguments: StoreKind.available)
    func listingsAndFilters(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let catalog = try TestStores.catalog()
        for testCase in [Self.cases[0], Self.cases[6], Self.cases[8], Self.cases[9]] {
            let state = Self.state(testCase, catalog: catalog)
            try await store.write([CheckInRecord(checkIn: state.checkIn, receivedAt: state.lastCheckIn, replica: "r1")])
        }
        var query = FleetQuery(store: store, evaluator: ComplianceEvaluator(catalog: catalog, now: Self.now))
        query.chunkSize = 2
        let all = try await query.all(FleetFilter())
        #expect(
            all.map(\.device) == [
                "ipad-0042", "ipad-0300", "iphone-0117", "iphone-0201", "iphone-0202", "iphone-0400", "pixel-0500",
            ])
        #expect(all.filter { $0.seen == .never }.map(\.device) == ["ipad-0042", "iphone-0400", "pixel-0500"])

        var pages: [[String]] = []
        var cursor: String?
        repeat {
            let page = try await query.page(FleetFilter(), after: cursor, limit: 4)
            pages.append(page.rows.map(\.device))
            cursor = page.next
        } while cursor != nil
        #expect(pages.flatMap { $0 } == all.map(\.device))
        #expect(pages.count == 2)

        #expect(try await query.all(FleetFilter(status: .compliant)).map(\.device) == ["iphone-0201"])
        #expect(
            try await query.all(FleetFilter(status: .silent)).map(\.device) == [
                "ipad-0042", "ipad-0300", "iphone-0400", "pixel-0500",
            ])
        #expect(try await query.all(FleetFilter(decision: .unsupported)).map(\.device) == ["iphone-0202"])
        let required = try await query.all(FleetFilter(app: Self.field, decision: .required))
        #expect(required.map(\.device) == ["iphone-0117"])
        #expect(required.first?.apps.map(\.app) == [Self.field])

        let summary = try await query.summary(FleetFilter())
        // The rows with their counts, as `mdmconf report` takes them: the same rows, the counts of those rows.
        for filter in [FleetFilter(), FleetFilter(status: .silent), FleetFilter(app: Self.field, decision: .required)] {
            let counted = try await query.allWithSummary(filter, as: { $0 })
            #expect(counted.rows.map(\.device) == (try await query.all(filter)).map(\.device))
            #expect(counted.summary == counted.rows.reduce(into: FleetSummary(app: filter.app)) { $0.add($1) })
            #expect(counted.summary == (try await query.summary(filter)))
        }
        // With chunks of one device the store holds more than two chunks, so the fleet is read in two halves at
        // once (up to the middle stored device, and after it): the same rows in the same order, the same counts.
        var halved = query
        halved.chunkSize = 1
        #expect(try await halved.all(FleetFilter()).map(\.device) == all.map(\.device))
        #expect(
            try await halved.all(FleetFilter(status: .silent)).map(\.device) == [
                "ipad-0042", "ipad-0300", "iphone-0400", "pixel-0500",
            ])
        #expect(try await halved.summary(FleetFilter()) == summary)
        #expect(summary.devices == 7)
        #expect(summary.compliant == 1)
        #expect(summary.seen == ["active": 3, "silent": 1, "never": 3])
        #expect(summary.apps[Self.field]?.decisions == ["ok": 2, "required": 1, "unsupported": 1, "unreported": 3])
        #expect(summary.apps[Self.field]?.versions["3.2.1"] == 2)

        // CSV: one line per device and app, the header first; quotes doubled.
        let csv = all.map(FleetCSV.lines).joined()
        #expect(csv.split(separator: "\r\n").count == 14)
        #expect(csv.contains("iphone-0117,false,active,"))
        #expect(csv.contains("below_min_version deadline_passed"))
        try await store.close()
    }

    /// A scan that begins with reads started before it (`FleetReadAhead`, as `mdmconf report` starts them while the
    /// catalog loads) gives the same rows in the same order, and the same counts, as a scan that reads as it goes:
    /// chunks of one device to more than the fleet, 1 to 10 reads ahead, the fleet in halves or whole. A second scan
    /// reads for itself, and a read-ahead cancelled before any scan leaves the store usable.
    @Test(arguments: StoreKind.available)
    func scansReadAheadAreTheSameScans(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let catalog = try TestStores.catalog()
        // 23 stored devices from the cases in turn: one of the inventory's (iphone-0201), 22 it does not have.
        var records: [CheckInRecord] = []
        for index in 0..<23 {
            var testCase = Self.cases[index % Self.cases.count]
            if index > 0 { testCase.device = "bench-\(100 + index)" }
            let state = Self.state(testCase, catalog: catalog)
            records.append(CheckInRecord(checkIn: state.checkIn, receivedAt: state.lastCheckIn, replica: "r1"))
        }
        try await store.write(records)
        let evaluator = ComplianceEvaluator(catalog: catalog, now: Self.now)
        var plain = FleetQuery(store: store, evaluator: evaluator)
        plain.chunkSize = 1
        let expected = try await plain.allWithSummary(FleetFilter(), as: { $0 })
        #expect(expected.rows.count == 22 + catalog.deviceIDs.count)
        let filter = FleetFilter(status: .noncompliant)
        let expectedFiltered = try await plain.allWithSummary(filter, as: \.device)
        for (chunkSize, ahead) in [(1, 1), (1, 10), (2, 3), (3, 2), (5, 10), (12, 1), (100, 4)] {
            let readAhead = FleetReadAhead(store: store, chunkSize: chunkSize, ahead: ahead)
            let query = FleetQuery(store: store, evaluator: evaluator, readAhead: readAhead)
            let read = try await query.allWithSummary(FleetFilter(), as: { $0 })
            #expect(read.rows.map(\.device) == expected.rows.map(\.device), "\(chunkSize), \(ahead)")
            #expect(read.rows.map(\.compliant) == expected.rows.map(\.compliant), "\(chunkSize), \(ahead)")
            #expect(read.summary == expected.summary, "\(chunkSize), \(ahead)")
            // The read-ahead is taken: the next scan reads for itself.
            let again = try await query.allWithSummary(filter, as: \.device)
            #expect(again.rows == expectedFiltered.rows, "\(chunkSize), \(ahead)")
            #expect(again.summary == expectedFiltered.summary, "\(chunkSize), \(ahead)")
        }
        let cancelled = FleetReadAhead(store: store, chunkSize: 2, ahead: 5)
        cancelled.cancel()
        #expect(try await plain.summary(FleetFilter()) == expected.summary)
        try await store.close()
    }

    @Test func csvQuoting() {
        #expect(FleetCSV.quote("plain") == "plain")
        #expect(FleetCSV.quote("a,b") == "\"a,b\"")
        #expect(FleetCSV.quote("\"8f\"") == "\"\"\"8f\"\"\"")
        #expect(FleetCSV.quote("=HYPERLINK(1)") == "'=HYPERLINK(1)")
    }
}
