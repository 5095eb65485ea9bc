import CivilTime
import Fleet
import Logging
import NIOPosix
import SQLiteNIO

/// The embedded store: one SQLite file in WAL mode with `synchronous=FULL`, so a committed batch survives a crash
/// of the process or the machine. One connection writes (``SQLiteWriter``, on a thread of its own, a transaction
/// at a time), another reads through sqlite-nio, so reports do not wait for check-ins.
public final class SQLiteFleetStore: FleetStore {
    public let path: String
    private let writer: SQLiteWriter
    private let reader: SQLiteConnection

    public var description: String { "sqlite:\(path)" }

    /// Opens (creating when missing) and migrates the store at `path`. `upTo` stops the migrations early
    /// (tests build older stores with it).
    public static func open(
        path: String, logger: Logger, busyTimeoutMilliseconds: Int = 5_000, upTo: Int = FleetSQL.latestVersion
    ) async throws -> SQLiteFleetStore {
        let writer: SQLiteWriter
        let reader: SQLiteConnection
        do {
            writer = try await SQLiteWriter.open(path: path)
        } catch {
            throw FleetStoreError(.unusable, "cannot open the SQLite store \(path): \(Self.reason(error))")
        }
        do {
            try await writer.run { connection in
                for pragma in [
                    "PRAGMA busy_timeout = \(busyTimeoutMilliseconds)", "PRAGMA journal_mode = WAL",
                    "PRAGMA synchronous = FULL",
                    // A batch's upserts keep a statement journal; in memory it costs no file writes (it was a fifth
                    // of SQLite's time per check-in).
                    "PRAGMA temp_store = MEMORY",
                ] {
                    try connection.execute(pragma)
                }
            }
            reader = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            _ = try await reader.query("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
        } catch {
            try? await writer.close()
            throw FleetStoreError(.unusable, "cannot use the SQLite store \(path): \(Self.reason(error))")
        }
        let store = SQLiteFleetStore(path: path, writer: writer, reader: reader)
        do {
            try await store.migrate(upTo: upTo)
        } catch {
            try? await store.close()
            throw error
        }
        return store
    }

    private init(path: String, writer: SQLiteWriter, reader: SQLiteConnection) {
        self.path = path
        self.writer = writer
        self.reader = reader
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? SQLiteError { return error.message }
        if let error = error as? SQLiteWriterError { return error.message }
        return "\(error)"
    }

    // MARK: Migrations

    private func migrate(upTo target: Int) async throws {
        try await transaction { connection in
            try connection.execute(FleetSQL.migrationsTable(.sqlite))
            let rows = try connection.execute("SELECT COALESCE(MAX(version), 0) FROM mdmconf_migrations")
            let current = rows.first?.first?.integer ?? 0
            if current > FleetSQL.latestVersion {
                throw FleetStoreError(
                    .tooNew,
                    "the store \(connection.path) is at schema version \(current), newer than this mdmconf (\(FleetSQL.latestVersion)); use a newer mdmconf"
                )
            }
            for migration in FleetSQL.migrations(.sqlite)
            where migration.version > current && migration.version <= target {
                for statement in migration.statements { try connection.execute(statement) }
                try connection.execute(
                    "INSERT INTO mdmconf_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
                    [.integer(Int64(migration.version)), .text(migration.name), .integer(Instant.now.seconds)])
            }
        }
    }

    /// The schema version the store is at.
    public func schemaVersion() async throws -> Int {
        let rows = try await reader.query("SELECT COALESCE(MAX(version), 0) FROM mdmconf_migrations")
        return Int(rows.first.flatMap { Self.values($0).first?.integer } ?? 0)
    }

    // MARK: Writing

    public func write(_ batch: [CheckInRecord]) async throws {
        guard !batch.isEmpty else { return }
        // One row a statement: the few statement texts stay prepared, where multi-row ones were compiled anew for
        // every batch size.
        try await transaction { connection in
            for statement in FleetSQL.write(batch, dialect: .sqlite, rowsPerStatement: 1) {
                try connection.execute(statement.sql, statement.values, keep: true)
            }
        }
    }

    public func saveRollup(day: String, rows: [RollupRow]) async throws {
        try await run(FleetSQL.saveRollup(day: day, rows: rows, dialect: .sqlite))
    }

    public func prune(checkInsBefore cutoff: Instant, rollupsBefore rollupCutoffDay: String) async throws -> Int {
        try await transaction { connection in
            try connection.execute(FleetSQL.pruneCheckIns(dialect: .sqlite), [.integer(cutoff.seconds)])
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
    private func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteWriter) throws -> T) async throws -> T {
        let path = self.path
        do {
            return try await writer.run { connection in
                do {
                    try connection.execute("BEGIN IMMEDIATE")
                } catch {
                    throw FleetStoreError(
                        .unavailable, "the SQLite store \(path) cannot start a write: \(Self.reason(error))")
                }
                return try connection.commit { try body(connection) }
            }
        } catch let error as FleetStoreError {
            throw error
        } catch {
            throw FleetStoreError(.unavailable, "the SQLite store \(path) refused a write: \(Self.reason(error))")
        }
    }

    // MARK: Reading

    public func devices(after: String?, limit: Int) async throws -> [DeviceState] {
        let rows = try await reader.query(FleetSQL.devices(dialect: .sqlite), [.text(after ?? ""), .integer(limit)])
        var devices = rows.compactMap { FleetSQL.deviceState(Self.values($0)) }
        guard let last = devices.last?.device else { return devices }
        let apps = try await reader.query(FleetSQL.apps(dialect: .sqlite), [.text(after ?? ""), .text(last)])
        FleetSQL.attach(apps.compactMap { FleetSQL.appState(Self.values($0)) }, to: &devices)
        return devices
    }

    public func device(_ id: String) async throws -> DeviceState? {
        let rows = try await reader.query(FleetSQL.device(dialect: .sqlite), [.text(id)])
        guard var devices = rows.first.flatMap({ FleetSQL.deviceState(Self.values($0)) }).map({ [$0] }) else {
            return nil
        }
        let apps = try await reader.query(FleetSQL.appsOfDevice(dialect: .sqlite), [.text(id)])
        FleetSQL.attach(apps.compactMap { FleetSQL.appState(Self.values($0)) }, to: &devices)
        return devices.first
    }

    public func checkIns(device: String, limit: Int) async throws -> [StoredCheckIn] {
        let rows = try await reader.query(FleetSQL.checkIns(dialect: .sqlite), [.text(device), .integer(limit)])
        return rows.compactMap { row in
            let columns = Self.values(row)
            guard columns.count == 5, let id = columns[0].integer, let device = columns[1].text,
                let received = columns[2].integer, let replica = columns[3].text, let body = columns[4].text
            else { return nil }
            return StoredCheckIn(
                id: id, device: device, receivedAt: Instant(seconds: received), replica: replica, body: body)
        }
    }

    public func rollups(app: String?, sinceDay: String) async throws -> [RollupRow] {
        var binds: [SQLiteData] = [.text(sinceDay)]
        if let app { binds.append(.text(app)) }
        let rows = try await reader.query(FleetSQL.rollups(app: app != nil, dialect: .sqlite), binds)
        return rows.compactMap { row in
            let columns = Self.values(row)
            guard columns.count == 5, let day = columns[0].text, let app = columns[1].text,
                let dimension = columns[2].text, let value = columns[3].text, let devices = columns[4].integer
            else { return nil }
            return RollupRow(day: day, app: app, dimension: dimension, value: value, devices: Int(devices))
        }
    }

    public func counts() async throws -> StoreCounts {
        let rows = try await reader.query(FleetSQL.counts)
        let values = rows.first.map(Self.values) ?? []
        guard values.count == 3 else { return StoreCounts(devices: 0, deviceApps: 0, checkIns: 0) }
        return StoreCounts(
            devices: Int(values[0].integer ?? 0), deviceApps: Int(values[1].integer ?? 0),
            checkIns: Int(values[2].integer ?? 0))
    }

    public func close() async throws {
        try await reader.close()
        try await writer.close()
    }

    public var dialect: FleetSQL.Dialect { .sqlite }

    public func execute(_ statements: [FleetSQL.Statement]) async throws { try await run(statements) }

    public func rows(_ statement: FleetSQL.Statement) async throws -> [[FleetSQL.Value]] {
        do {
            return try await reader.query(statement.sql, statement.values.map(Self.data)).map(Self.values)
        } catch {
            throw FleetStoreError(.unavailable, "the SQLite store \(path) cannot be read: \(Self.reason(error))")
        }
    }

    // MARK: Values

    static func data(_ value: FleetSQL.Value) -> SQLiteData {
        switch value {
        case .text(let text): .text(text)
        case .integer(let number): .integer(Int(number))
        case .null: .null
        }
    }

    static func values(_ row: SQLiteRow) -> [FleetSQL.Value] {
        row.columns.map { column in
            switch column.data {
            case .integer(let number): .integer(Int64(number))
            case .text(let text): .text(text)
            case .float(let number): .integer(Int64(number))
            case .blob, .null: .null
            }
        }
    }
}
