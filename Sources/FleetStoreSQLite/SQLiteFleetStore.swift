import CivilTime
import Fleet
import FleetStoreSQL
import Logging
import NIOPosix

/// The embedded store: one SQLite file in WAL mode with `synchronous=FULL`, so a committed batch survives a crash
/// of the process or the machine. One connection writes, a transaction at a time, and two read, each on a thread
/// of its own (``SQLiteThreadConnection``), so reports do not wait for check-ins; a fourth copies the write-ahead log
/// into the database file (``SQLiteCheckpointer``), so the writer does not.
public final class SQLiteFleetStore: SQLFleetStore {
    public let path: String
    private let writer: SQLiteThreadConnection
    /// Two reading connections, each on its thread, taken in turn: a scan reads its two halves side by side.
    private let readers: [SQLiteThreadConnection]
    private let turn = Locked(0)
    private let checkpointer: SQLiteCheckpointer
    /// The migration the store was brought to (the latest but in tests of older stores).
    private let schema: Int

    public var description: String { "sqlite:\(path)" }

    /// Opens (creating when missing) and migrates the store at `path`. `upTo` stops the migrations early
    /// (tests build older stores with it).
    public static func open(
        path: String, logger: Logger, busyTimeoutMilliseconds: Int = 5_000, upTo: Int = FleetSQL.latestVersion
    ) async throws -> SQLiteFleetStore {
        let writer: SQLiteThreadConnection
        var readers: [SQLiteThreadConnection] = []
        let checkpointing: SQLiteThreadConnection
        do {
            writer = try await SQLiteThreadConnection.open(path: path)
        } catch {
            throw FleetStoreError(.unusable, "cannot open the SQLite store \(path): \(Self.reason(error))")
        }
        do {
            try await writer.run { connection in
                for pragma in [
                    "PRAGMA busy_timeout = \(busyTimeoutMilliseconds)", "PRAGMA journal_mode = WAL",
                    "PRAGMA synchronous = FULL",
                    // The checkpointer copies the WAL every 100 ms while batches are written. The writer copies it
                    // itself only past 16,000 pages (64 MB), when the checkpointer falls behind. (Before the
                    // checkpointer, the writer did it every 4,000 pages instead of 1,000: check-ins rewrite the same
                    // pages batch after batch, and a longer WAL copies each of them once for more batches.) Every
                    // commit still syncs the WAL.
                    "PRAGMA wal_autocheckpoint = 16000",
                    // A batch's upserts keep a statement journal; in memory it costs no file writes (it was a fifth
                    // of SQLite's time per check-in).
                    "PRAGMA temp_store = MEMORY",
                ] {
                    try connection.execute(pragma)
                }
            }
            for _ in 0..<2 {
                let reader = try await SQLiteThreadConnection.open(path: path)
                readers.append(reader)
                _ = try await reader.run { connection in
                    try connection.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
                }
            }
            checkpointing = try await SQLiteThreadConnection.open(path: path)
        } catch {
            for reader in readers { try? await reader.close() }
            try? await writer.close()
            throw FleetStoreError(.unusable, "cannot use the SQLite store \(path): \(Self.reason(error))")
        }
        let store = SQLiteFleetStore(
            path: path, writer: writer, readers: readers,
            checkpointer: SQLiteCheckpointer(connection: checkpointing), schema: upTo)
        do {
            try await store.migrate(upTo: upTo)
        } catch {
            try? await store.close()
            throw error
        }
        return store
    }

    private init(
        path: String, writer: SQLiteThreadConnection, readers: [SQLiteThreadConnection],
        checkpointer: SQLiteCheckpointer, schema: Int
    ) {
        self.path = path
        self.schema = min(schema, FleetSQL.latestVersion)
        self.writer = writer
        self.readers = readers
        self.checkpointer = checkpointer
    }

    /// Checkpoints the checkpointer has run (tests).
    var checkpoints: Int { checkpointer.runs }

    /// The rows of `sql` on the next reading connection; with `keep` (the store's own few statement texts) the
    /// statement stays prepared.
    private func read(_ sql: String, _ values: [FleetSQL.Value] = [], keep: Bool = true) async throws
        -> [[FleetSQL.Value]]
    {
        try await read(sql, values, keep: keep) { $0.values() }
    }

    /// `read`, each row made into a value by `decode` on the reading connection's thread.
    private func read<Row: Sendable>(
        _ sql: String, _ values: [FleetSQL.Value] = [], keep: Bool = true,
        _ decode: @escaping @Sendable (inout SQLiteCells) throws -> Row
    ) async throws -> [Row] {
        try await nextReader().run { connection in try connection.query(sql, values, keep: keep, decode) }
    }

    /// The reading connections in turn.
    private func nextReader() -> SQLiteThreadConnection {
        readers[
            turn.withLock { turn in
                turn = (turn + 1) % readers.count
                return turn
            }]
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? SQLiteCallError { return error.message }
        return "\(error)"
    }

    // MARK: Migrations

    private func migrate(upTo target: Int) async throws {
        try await transaction { connection in
            try connection.execute(FleetSQL.migrationsTable(.sqlite))
            let rows = try connection.execute("SELECT COALESCE(MAX(version), 0) FROM mdmconf_migrations")
            let current = rows.first?.first?.integer ?? 0
            for migration in try FleetSQL.pending(
                from: current, to: target, .sqlite, own: SQLiteSQL.migrations, store: connection.path)
            {
                for statement in migration.statements { try connection.execute(statement) }
                try connection.execute(
                    "INSERT INTO mdmconf_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
                    [.integer(Int64(migration.version)), .text(migration.name), .integer(Instant.now.seconds)])
            }
        }
    }

    /// The schema version the store is at.
    public func schemaVersion() async throws -> Int {
        let rows = try await read("SELECT COALESCE(MAX(version), 0) FROM mdmconf_migrations")
        return Int(rows.first?.first?.integer ?? 0)
    }

    // MARK: Writing

    public func write(_ batch: [CheckInRecord]) async throws {
        guard !batch.isEmpty else { return }
        let schema = schema
        try await transaction { connection in try Self.write(batch, schema: schema, on: connection) }
    }

    /// On the writing thread: the check-in writer's next batch is taken and sent from there.
    public func write(_ batch: [CheckInRecord], completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let (schema, path, checkpointer) = (schema, path, checkpointer)
        writer.submit { connection in
            guard let connection else {
                completion(.failure(FleetStoreError(.unavailable, "the SQLite store \(path) is closed")))
                return
            }
            let result = Result {
                try Self.transaction(on: connection, path: path) { try Self.write(batch, schema: schema, on: $0) }
            }
            if case .success = result { checkpointer.wrote() }
            completion(result)
        }
    }

    private static func write(_ batch: [CheckInRecord], schema: Int, on connection: SQLiteThreadConnection) throws {
        var changed = false
        for step in SQLiteSQL.writeRowByRow(batch, schema: schema) {
            if step.role == .ifChanged && !changed { continue }
            try connection.execute(step.statement.sql, step.statement.values, keep: true)
            if step.role == .watchedState { changed = connection.changes > 0 }
        }
    }

    public func prune(checkInsBefore cutoff: Instant, rollupsBefore rollupCutoffDay: String) async throws -> Int {
        let prune = SQLiteSQL.pruneCheckIns(schema: schema)
        return try await transaction { connection in
            try connection.execute(prune, [.integer(cutoff.seconds)])
            let changes = connection.changes
            try connection.execute(FleetSQL.pruneRollups(dialect: .sqlite), [.text(rollupCutoffDay)])
            return changes
        }
    }

    private func run(_ statements: [FleetSQL.Statement]) async throws {
        try await transaction { connection in
            for statement in statements { try connection.execute(statement.sql, statement.values) }
        }
    }

    /// `body` in one `BEGIN IMMEDIATE` transaction on the writing connection's thread, rolled back when it throws.
    private func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteThreadConnection) throws -> T) async throws
        -> T
    {
        let (path, checkpointer) = (path, checkpointer)
        do {
            return try await writer.run { connection in
                let result = try Self.transaction(on: connection, path: path, body)
                checkpointer.wrote()
                return result
            }
        } catch let error as FleetStoreError {
            throw error
        } catch {
            throw FleetStoreError(.unavailable, "the SQLite store \(path) refused a write: \(Self.reason(error))")
        }
    }

    /// `body` in one `BEGIN IMMEDIATE` transaction; call on the writing connection's thread.
    private static func transaction<T>(
        on connection: SQLiteThreadConnection, path: String, _ body: (SQLiteThreadConnection) throws -> T
    ) throws -> T {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw FleetStoreError(.unavailable, "the SQLite store \(path) cannot start a write: \(Self.reason(error))")
        }
        do {
            return try connection.commit { try body(connection) }
        } catch let error as FleetStoreError {
            throw error
        } catch {
            throw FleetStoreError(.unavailable, "the SQLite store \(path) refused a write: \(Self.reason(error))")
        }
    }

    // MARK: Reading

    public func devices(after: String?, limit: Int) async throws -> [DeviceState] {
        var devices = try await read(FleetSQL.devices(dialect: .sqlite), [.text(after ?? ""), .integer(Int64(limit))]) {
            try FleetSQL.deviceState(&$0)
        }
        guard let last = devices.last?.device else { return devices }
        let sql = FleetSQL.apps(dialect: .sqlite, schema: schema)
        let apps = try await nextReader().run { connection in
            try connection.query(sql, [.text(after ?? ""), .text(last)], keep: true, into: DeviceApps()) {
                try $0.add(&$1)
            }
        }
        apps.attach(to: &devices)
        return devices
    }

    public func device(_ id: String) async throws -> DeviceState? {
        guard
            var device = try await read(
                FleetSQL.device(dialect: .sqlite), [.text(id)], { try FleetSQL.deviceState(&$0) }
            ).first
        else { return nil }
        device.apps = try await read(FleetSQL.appsOfDevice(dialect: .sqlite, schema: schema), [.text(id)]) {
            try FleetSQL.appState(&$0).app
        }
        return device
    }

    public func checkIns(device: String, limit: Int) async throws -> [StoredCheckIn] {
        let rows = try await read(SQLiteSQL.checkIns, [.text(device), .integer(Int64(limit))])
        return rows.compactMap(FleetSQL.storedCheckIn)
    }

    public func close() async throws {
        for reader in readers { try await reader.close() }
        try await checkpointer.close()
        try await writer.close()
    }

    public var dialect: FleetSQL.Dialect { .sqlite }

    public func execute(_ statements: [FleetSQL.Statement]) async throws { try await run(statements) }

    public func rows(_ statement: FleetSQL.Statement) async throws -> [[FleetSQL.Value]] {
        do {
            return try await read(statement.sql, statement.values, keep: false)
        } catch {
            throw FleetStoreError(.unavailable, "the SQLite store \(path) cannot be read: \(Self.reason(error))")
        }
    }
}
