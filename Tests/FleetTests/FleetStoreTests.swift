import CivilTime
import Fleet
import FleetStoreSQL
import FleetTestSupport
import FleetStorePostgres
import FleetStoreSQLite
import FleetStores
import Foundation
import Testing

/// One suite, both implementations, real databases.
@Suite struct FleetStoreTests {
    let field = "com.example.field"
    let sync = "com.example.fieldsync"

    @Test(arguments: StoreKind.available)
    func latestStateAndHistory(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        try await store.write([
            TestStores.record("iphone-0117", at: 1_000, apps: [.init(app: field, version: "2.3.1", configETag: "\"a\"")]),
            TestStores.record("ipad-0042", at: 1_001, apps: [.init(app: field, version: "3.2.1", build: "321")]),
            TestStores.record(
                "iphone-0117", at: 1_002, osVersion: "17.5",
                apps: [.init(app: sync, version: "1.0", channel: "beta", configError: "bad value", deferralsUsed: 2)]),
        ])
        let devices = try await store.devices(after: nil, limit: 10)
        #expect(devices.map(\.device) == ["ipad-0042", "iphone-0117"])
        let iphone = try #require(devices.last)
        #expect(iphone.osVersion == "17.5")
        #expect(iphone.lastCheckIn == Instant(seconds: 1_002))
        #expect(iphone.apps.map(\.app.app) == [field, sync])
        #expect(iphone.apps[0].app.configETag == "\"a\"")
        #expect(iphone.apps[1].app == .init(app: sync, version: "1.0", channel: "beta", configError: "bad value", deferralsUsed: 2))
        #expect(try await store.device("iphone-0117") == iphone)
        #expect(try await store.device("nobody") == nil)

        let history = try await store.checkIns(device: "iphone-0117", limit: 10)
        #expect(history.map(\.receivedAt.seconds) == [1_002, 1_000])
        #expect(history[0].body.contains("\"osVersion\":\"17.5\""))
        #expect(try await store.counts() == StoreCounts(devices: 2, deviceApps: 3, checkIns: 3))
        try await store.close()
    }

    /// An app's DDM states are stored with it and read back, on both ways a batch is written (a row at a time on
    /// SQLite, the procedure on PostgreSQL, with and without watched states); a later check-in of the same app
    /// over HTTP replaces them; a store of migration 8 keeps its rows through migration 9.
    @Test(arguments: StoreKind.available)
    func ddmStatesAreStoredWithTheApp(kind: StoreKind) async throws {
        let location = try TestStores.freshLocation(kind)
        let old = try await openStore(location, upTo: 8)
        try await old.write([TestStores.record("before", at: 900, apps: [.init(app: field, version: "1.0")])])
        try await old.close()
        let store = try await TestStores.open(location)
        #expect(try await store.device("before")?.apps.map(\.app) == [.init(app: field, version: "1.0")])
        let invalid = CheckIn.App(
            app: field, version: "3.2.1", configError: "Error.ConfigurationInvalid: ServerPort must be an integer",
            ddm: .init(state: "managed", configState: "invalid"))
        let unsaid = CheckIn.App(app: sync, version: "1.4.0", ddm: .init(state: nil, configState: nil))
        var watched = TestStores.record("iphone-0400", at: 1_001, apps: [unsaid])
        watched.watched = [WatchedState(kind: "test", value: "1", events: [])]
        try await store.write([TestStores.record("iphone-0400", at: 1_000, apps: [invalid]), watched])
        let device = try #require(try await store.device("iphone-0400"))
        #expect(device.apps.map(\.app) == [invalid, unsaid])
        #expect(device.apps.map(\.app.delivery) == [.ddm, .ddm])
        #expect(try await store.devices(after: nil, limit: 10).last?.apps.map(\.app) == [invalid, unsaid])
        let history = try await store.checkIns(device: "iphone-0400", limit: 10)
        #expect(history.last?.body.contains(#""ddm":{"state":"managed","configState":"invalid"}"#) == true)

        try await store.write([TestStores.record("iphone-0400", at: 1_002, apps: [.init(app: field, version: "3.2.1")])])
        let after = try #require(try await store.device("iphone-0400"))
        #expect(after.apps.map(\.app.delivery) == [.http, .ddm])
        #expect(after.apps.first?.app.ddm == nil)
        try await store.close()
    }

    /// A batch of 1,000 devices (12,000 values: PostgreSQL binds them as 23 arrays, SQLite as a statement a row) is
    /// stored whole; check-ins handed to the writer back to back are stored in the order they came: each device's
    /// state is its last check-in's.
    @Test(arguments: StoreKind.available)
    func bigBatchesAndBackToBackCheckIns(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let apps = [field, sync, "com.example.notes"].map { CheckIn.App(app: $0, version: "2.0") }
        try await store.write((0..<1_000).map { TestStores.record("big-\($0)", at: 10_000, apps: apps) })
        #expect(try await store.counts() == StoreCounts(devices: 1_000, deviceApps: 3_000, checkIns: 1_000))

        let writer = CheckInWriter(store: store)
        let devices = (0..<24).map { "queued-\($0)" }
        let failures = Locked(0)
        await withCheckedContinuation { (allStored: CheckedContinuation<Void, Never>) in
            let remaining = Locked(devices.count * 10)
            for step in 0..<10 {
                for device in devices {
                    // Same second: only the order of the commits decides which state stays.
                    let record = TestStores.record(device, at: 20_000, apps: [.init(app: field, version: "1.\(step)")])
                    writer.submit(record) { result in
                        if case .failure = result { failures.withLock { $0 += 1 } }
                        if remaining.withLock({ count in
                            count -= 1
                            return count
                        }) == 0 { allStored.resume() }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(writer.written == 240)
        for device in devices {
            #expect(try await store.device(device)?.apps.first?.app.version == "1.9", "\(device)")
        }
        try await store.close()
    }

    @Test(arguments: StoreKind.available)
    func olderStateNeverWins(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        try await store.write([TestStores.record("d1", at: 2_000, apps: [.init(app: field, version: "3.0")])])
        try await store.write([TestStores.record("d1", at: 1_500, osVersion: "15.0", apps: [.init(app: field, version: "2.0")])])
        let state = try #require(try await store.device("d1"))
        #expect(state.osVersion == "17.4.1")
        #expect(state.apps.first?.app.version == "3.0")
        #expect(try await store.counts().checkIns == 2)
        try await store.close()
    }

    @Test(arguments: StoreKind.available)
    func keysetPages(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let ids = (0..<25).map { String(format: "dev-%03d", $0) }
        try await store.write(ids.shuffled().enumerated().map { index, id in
            TestStores.record(id, at: 3_000 + Int64(index), apps: [.init(app: field, version: "3.0"), .init(app: sync, version: "1.\(index)")])
        })
        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try await store.devices(after: cursor, limit: 10)
            #expect(page.allSatisfy { $0.apps.count == 2 })
            seen += page.map(\.device)
            cursor = page.count == 10 ? page.last?.device : nil
        } while cursor != nil
        #expect(seen == ids)
        try await store.close()
    }

    /// Ids and texts that look like SQL are stored and read back as the strings they are.
    @Test(arguments: StoreKind.available)
    func sqlLookingValuesAreStrings(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let device = "x'); DROP TABLE devices; --"
        let app = "com.example.field\"; DELETE FROM checkins; --"
        let error = "'; UPDATE device_apps SET version = '0"
        try await store.write([TestStores.record(device, at: 4_000, apps: [.init(app: app, version: "1.0", configError: error)])])
        let state = try #require(try await store.device(device))
        #expect(state.apps.first?.app.app == app)
        #expect(state.apps.first?.app.configError == error)
        #expect(try await store.counts() == StoreCounts(devices: 1, deviceApps: 1, checkIns: 1))
        // Text beyond ASCII, empty text next to absent values (PostgreSQL binds each column as one array whose
        // elements may be NULL).
        let unusual = "gerät-ü-🚀"
        let apps: [CheckIn.App] = [
            .init(
                app: "com.exämple.field", version: "1.0", build: "", channel: nil, configETag: "\"ä\"", configError: ""),
            .init(app: field, version: "2.0", build: nil, channel: "béta", configETag: nil, deferralsUsed: 0),
        ]
        try await store.write([TestStores.record(unusual, at: 4_001, osVersion: nil, apps: apps)])
        let stored = try #require(try await store.device(unusual))
        #expect(stored.osVersion == nil)
        #expect(stored.apps.map(\.app).sorted { $0.app < $1.app } == apps.sorted { $0.app < $1.app })
        #expect(try await store.checkIns(device: unusual, limit: 5).first?.body.contains(unusual) == true)
        try await store.close()
    }

    @Test(arguments: StoreKind.available)
    func rollupsAndRetention(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        try await store.saveRollup(day: "2026-11-01", rows: [
            RollupRow(day: "2026-11-01", app: field, dimension: "decision", value: "required", devices: 14),
            RollupRow(day: "2026-11-01", app: sync, dimension: "decision", value: "ok", devices: 3),
        ])
        try await store.saveRollup(day: "2026-11-02", rows: [
            RollupRow(day: "2026-11-02", app: field, dimension: "decision", value: "required", devices: 9)
        ])
        // A day written again is replaced, not added to.
        try await store.saveRollup(day: "2026-11-02", rows: [
            RollupRow(day: "2026-11-02", app: field, dimension: "decision", value: "required", devices: 7)
        ])
        #expect(try await store.rollups(app: field, sinceDay: "2026-11-01").map(\.devices) == [14, 7])
        #expect(try await store.rollups(app: nil, sinceDay: "2026-11-02").map(\.devices) == [7])

        try await store.write([
            TestStores.record("old", at: 10_000, apps: [.init(app: field, version: "1.0")]),
            TestStores.record("new", at: 20_000, apps: [.init(app: field, version: "1.0")]),
        ])
        let deleted = try await store.prune(checkInsBefore: Instant(seconds: 15_000), rollupsBefore: "2026-11-02")
        #expect(deleted == 1)
        // History goes, latest state stays.
        #expect(try await store.counts() == StoreCounts(devices: 2, deviceApps: 2, checkIns: 1))
        #expect(try await store.rollups(app: nil, sinceDay: "2000-01-01").map(\.day) == ["2026-11-02"])
        try await store.close()
    }

    /// Each device's history, newest first, through batches that hold one device several times and interleave
    /// devices, whether stored before migration 4 (on SQLite it then links the history already there) or after,
    /// with a limit, and after retention has removed the older part.
    @Test(arguments: StoreKind.available)
    func historyOfEachDevice(kind: StoreKind) async throws {
        let location = try TestStores.freshLocation(kind)
        func batch(_ checkIns: [(String, Int64)]) -> [CheckInRecord] {
            checkIns.map { TestStores.record($0.0, at: $0.1, apps: [.init(app: field, version: "1.\($0.1)")]) }
        }
        let old = try await openStore(location, upTo: 3)
        try await old.write(batch([("a", 100), ("b", 101), ("a", 102)]))
        try await old.write(batch([("b", 103), ("a", 103)]))
        try await old.close()
        let store = try await TestStores.open(location)
        try await store.write(batch([("a", 104), ("c", 105), ("a", 106), ("a", 107)]))
        try await store.write(batch([("b", 108)]))
        // A check-in that arrives late (an earlier time) is still its device's latest stored one.
        try await store.write(batch([("c", 99)]))

        let cases: [(device: String, limit: Int, seconds: [Int64])] = [
            ("a", 10, [107, 106, 104, 103, 102, 100]), ("b", 10, [108, 103, 101]), ("c", 10, [99, 105]),
            ("a", 2, [107, 106]), ("b", 1, [108]), ("a", 0, []), ("nobody", 10, []),
        ]
        for (device, limit, seconds) in cases {
            let history = try await store.checkIns(device: device, limit: limit)
            #expect(history.map(\.receivedAt.seconds) == seconds, "\(device), limit \(limit)")
            #expect(history.allSatisfy { $0.device == device && $0.body.contains("\"device\":\"\(device)\"") })
            #expect(history.map(\.id) == history.map(\.id).sorted(by: >))
        }
        // Retention: PostgreSQL removes what was received before 104; SQLite removes history from its oldest end up
        // to the first check-in stored that was received at or after 104, so c's late one (99, stored after them)
        // stays until a later prune.
        let pruned = try await store.prune(checkInsBefore: Instant(seconds: 104), rollupsBefore: "2000-01-01")
        #expect(pruned == (kind == .sqlite ? 5 : 6))
        try await store.write(batch([("a", 109), ("b", 110)]))
        #expect(try await store.checkIns(device: "a", limit: 10).map(\.receivedAt.seconds) == [109, 107, 106, 104])
        #expect(try await store.checkIns(device: "b", limit: 10).map(\.receivedAt.seconds) == [110, 108])
        #expect(
            try await store.checkIns(device: "c", limit: 10).map(\.receivedAt.seconds)
                == (kind == .sqlite ? [99, 105] : [105]))
        // Once history stored after it is older than the cutoff too, it goes.
        let later = try await store.prune(checkInsBefore: Instant(seconds: 109), rollupsBefore: "2000-01-01")
        #expect(later == (kind == .sqlite ? 6 : 5))
        #expect(try await store.checkIns(device: "a", limit: 10).map(\.receivedAt.seconds) == [109])
        #expect(try await store.checkIns(device: "c", limit: 10).isEmpty)
        try await store.close()
    }

    /// A store of `location` migrated only up to `version`.
    private func openStore(_ location: StoreLocation, upTo version: Int) async throws -> any FleetStore {
        switch location {
        case .sqlite(let path): try await SQLiteFleetStore.open(path: path, logger: TestStores.logger, upTo: version)
        case .postgres(let postgres):
            try await PostgresFleetStore.open(
                postgres, logger: TestStores.logger, connectTimeout: .seconds(60), upTo: version)
        case .none: throw FleetStoreError(.unusable, "no store")
        }
    }

    /// An empty store gets every migration; a store at version 1 is brought to the latest with its data; a store
    /// from a newer mdmconf is refused.
    @Test(arguments: StoreKind.available)
    func migrations(kind: StoreKind) async throws {
        let location = try TestStores.freshLocation(kind)
        let logger = TestStores.logger
        switch location {
        case .sqlite(let path):
            let old = try await SQLiteFleetStore.open(path: path, logger: logger, upTo: 1)
            #expect(try await old.schemaVersion() == 1)
            try await old.write([TestStores.record("d1", at: 5_000, apps: [.init(app: field, version: "1.0")])])
            try await old.close()
            let current = try await SQLiteFleetStore.open(path: path, logger: logger)
            #expect(try await current.schemaVersion() == FleetSQL.latestVersion)
            #expect(try await current.counts().devices == 1)
            try await current.saveRollup(day: "2026-11-01", rows: [])
            try await current.close()
        case .postgres(let postgres):
            let old = try await PostgresFleetStore.open(postgres, logger: logger, connectTimeout: .seconds(60), upTo: 1)
            #expect(try await old.schemaVersion() == 1)
            try await old.write([TestStores.record("d1", at: 5_000, apps: [.init(app: field, version: "1.0")])])
            try await old.close()
            let current = try await PostgresFleetStore.open(postgres, logger: logger, connectTimeout: .seconds(60))
            #expect(try await current.schemaVersion() == FleetSQL.latestVersion)
            #expect(try await current.counts().devices == 1)
            try await current.close()
        case .none: Issue.record("no store")
        }
        // Written by a newer mdmconf: refused with a reason that says so.
        let store = try #require(try await FleetStores.open(location, logger: logger, connectTimeout: .seconds(60)))
        try await store.saveRollup(day: "1999-01-01", rows: [])
        try await store.close()
        try await markNewer(location)
        await #expect {
            _ = try await FleetStores.open(location, logger: logger, connectTimeout: .seconds(60))
        } throws: { error in
            (error as? FleetStoreError)?.kind == .tooNew
                && (error as? FleetStoreError)?.message.contains("newer than this mdmconf") == true
        }
    }

    /// PostgreSQL: an outbox row keeps its body in the row as written (migration 10): a body past 2 KB, which
    /// PostgreSQL would compress on insert in the check-in batch's transaction, is stored uncompressed.
    @Test(
        .enabled(
            if: StoreKind.available.contains(.postgres),
            "needs PostgreSQL: run the tests through Tests/with-postgres.sh (CI always does)"))
    func postgreSQLKeepsEventBodiesUncompressed() async throws {
        guard case .postgres(let postgres) = try TestStores.freshLocation(.postgres) else {
            Issue.record("a PostgreSQL location is not a PostgreSQL location")
            return
        }
        let store = try await TestStores.open(.postgres(postgres))
        let body = #"{"data":""# + String(repeating: "compliant ", count: 400) + #""}"#
        try await EventOutbox(store: store).enqueue([
            OutboxEvent(
                eventID: "evt_1", endpoint: "ops", type: "io.mdmconf.device.compliance.changed", subject: "d",
                body: body, createdAt: Instant(seconds: 1))
        ])
        let bin = ProcessInfo.processInfo.environment["MDMCONF_TEST_POSTGRES_BIN"] ?? "/usr/bin"
        let stored = try Spawn.run([
            bin + "/psql", "-h", postgres.host, "-p", String(postgres.port), "-U", postgres.user, "-d",
            postgres.database, "-qtA", "-c",
            "SELECT length(body), pg_column_compression(body) IS NULL, pg_column_size(body) >= length(body) FROM event_outbox",
        ])
        #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == "\(body.utf8.count)|t|t")
        try await store.close()
    }

    /// PostgreSQL: the connection batches are written on, ended by the database (an administrator's
    /// `pg_terminate_backend`, a proxy that restarts), is replaced: at most the write it was in the middle of fails
    /// (nothing of it stored), and the next ones are stored, without waiting for the pool. Through `write(_:)`, and
    /// through the check-in writer, which writes on the connection's event loop (`write(_:completion:)`).
    @Test(
        .enabled(
            if: StoreKind.available.contains(.postgres),
            "needs PostgreSQL: run the tests through Tests/with-postgres.sh (CI always does)"),
        arguments: [false, true])
    func postgreSQLWritingConnectionEndedByTheDatabase(throughWriter: Bool) async throws {
        guard case .postgres(let postgres) = try TestStores.freshLocation(.postgres) else {
            Issue.record("a PostgreSQL location is not a PostgreSQL location")
            return
        }
        let store = try await TestStores.open(.postgres(postgres))
        let writer = CheckInWriter(store: store, retryAfter: 0)
        let apps: [CheckIn.App] = [.init(app: field, version: "1.0")]
        func write(_ record: CheckInRecord) async throws {
            if throughWriter { try await writer.submit(record) } else { try await store.write([record]) }
        }
        var stored = 0
        for round in 0..<3 {
            try await write(TestStores.record("before-\(round)", at: 1_000, apps: apps))
            stored += 1
            let bin = ProcessInfo.processInfo.environment["MDMCONF_TEST_POSTGRES_BIN"] ?? "/usr/bin"
            let ended = try Spawn.run([
                bin + "/psql", "-h", postgres.host, "-p", String(postgres.port), "-U", postgres.user, "-d",
                postgres.database, "-qtA", "-c",
                "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
            ])
            #expect(Int(ended.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 1, "round \(round)")
            var failures = 0
            for attempt in 0..<3 {
                do {
                    try await write(TestStores.record("after-\(round)-\(attempt)", at: 1_001, apps: apps))
                    stored += 1
                } catch {
                    failures += 1
                }
            }
            #expect(failures <= 1, "round \(round): \(failures) writes failed")
        }
        #expect(try await store.counts().checkIns == stored)
        try await store.close()
    }

    /// Each way a batch is written, by store and schema: SQLite; PostgreSQL before migration 5 (the statement between
    /// `BEGIN` and `COMMIT`) and after it (the procedure that commits before it answers).
    static let writePaths: [(kind: StoreKind, schema: Int)] = StoreKind.available.flatMap { kind in
        kind == .postgres ? [(kind, 4), (kind, FleetSQL.latestVersion)] : [(kind, FleetSQL.latestVersion)]
    }

    /// A batch that fails part-way (a trigger refuses its second check-in's history row, after the batch has
    /// upserted both devices' state) stores nothing of it, and the store writes the next batch.
    @Test(arguments: writePaths)
    func batchThatFailsPartWayStoresNothing(kind: StoreKind, schema: Int) async throws {
        let location = try TestStores.freshLocation(kind)
        let store = try await openStore(location, upTo: schema)
        let apps: [CheckIn.App] = [.init(app: field, version: "1.0")]
        try await store.write([TestStores.record("first", at: 1_000, apps: apps)])
        switch location {
        case .sqlite:
            try execute(
                """
                CREATE TRIGGER refuse BEFORE INSERT ON checkins WHEN NEW.device = 'refused' \
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """, on: location)
        default:
            try execute(
                """
                CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                IF NEW.device = 'refused' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$; \
                CREATE TRIGGER refuse BEFORE INSERT ON checkins FOR EACH ROW EXECUTE FUNCTION refuse()
                """, on: location)
        }
        let before = try await store.counts()
        await #expect(throws: FleetStoreError.self) {
            try await store.write([
                TestStores.record("accepted", at: 1_001, apps: apps), TestStores.record("refused", at: 1_001, apps: apps),
            ])
        }
        #expect(try await store.counts() == before)
        #expect(try await store.device("accepted") == nil)
        try await store.write([TestStores.record("after", at: 1_002, apps: apps)])
        #expect(try await store.counts() == StoreCounts(devices: 2, deviceApps: 2, checkIns: 2))
        #expect(try await store.device("after")?.lastCheckIn == Instant(seconds: 1_002))
        try await store.close()
    }

    /// Records migration 99 as applied, as a future mdmconf would.
    private func markNewer(_ location: StoreLocation) async throws {
        try execute("INSERT INTO mdmconf_migrations VALUES (99, 'future', 0)", on: location)
    }

    /// Runs `sql` on the store's database from outside it (Python's sqlite3, psql).
    private func execute(_ sql: String, on location: StoreLocation) throws {
        let process = Process()
        switch location {
        case .sqlite(let path):
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2])",
                path, sql,
            ]
        case .postgres(let postgres):
            let bin = ProcessInfo.processInfo.environment["MDMCONF_TEST_POSTGRES_BIN"] ?? "/usr/bin"
            process.executableURL = URL(fileURLWithPath: bin + "/psql")
            process.arguments = [
                "-h", postgres.host, "-p", String(postgres.port), "-U", postgres.user, "-d", postgres.database,
                "-v", "ON_ERROR_STOP=1", "-c", sql,
            ]
            process.standardOutput = Pipe()
        case .none: return
        }
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(sql)")
    }

    @Test func storeLocations() throws {
        #expect(try StoreLocation.parse("none").get() == StoreLocation.none)
        #expect(try StoreLocation.parse("sqlite:/var/lib/fleet.sqlite").get() == .sqlite(path: "/var/lib/fleet.sqlite"))
        #expect(try StoreLocation.parse("sqlite:fleet.sqlite").get() == .sqlite(path: "fleet.sqlite"))
        let postgres = try StoreLocation.parse("postgresql://ana:s%40cret@db.example.com:6543/fleet").get()
        #expect(
            postgres
                == .postgres(
                    PostgresLocation(
                        user: "ana", password: "s@cret", host: "db.example.com", port: 6543, database: "fleet",
                        socketDirectory: nil)))
        #expect(postgres.description == "postgres://ana@db.example.com:6543/fleet")
        let socket = try StoreLocation.parse("postgres://mdmconf@/fleet?host=/var/run/postgresql").get()
        guard case .postgres(let location) = socket else { throw FleetStoreError(.unusable, "not postgres") }
        #expect(location.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
        for bad in ["mysql://x/y", "sqlite:", "postgres://host/", "postgres://u@h:99999/db", "postgres://u@h/db?x=1"] {
            guard case .failure(let error) = StoreLocation.parse(bad) else {
                Issue.record("\(bad) was accepted")
                continue
            }
            #expect(error.kind == .unusable)
        }
        // A password never shows in a refusal.
        guard case .failure(let error) = StoreLocation.parse("postgres://u:hunter2@h:0/db") else { return }
        #expect(!error.message.contains("hunter2"))
    }

    @Test func unusableStores() async throws {
        await #expect {
            _ = try await FleetStores.open(.sqlite(path: "/proc/no-such-place/fleet.sqlite"), logger: TestStores.logger)
        } throws: { ($0 as? FleetStoreError)?.kind == .unusable }
        await #expect {
            _ = try await FleetStores.open(
                .postgres(PostgresLocation(user: "u", password: nil, host: "127.0.0.1", port: 1, database: "d", socketDirectory: nil)),
                logger: TestStores.logger)
        } throws: { ($0 as? FleetStoreError)?.kind == .unusable }
    }
}
