import CivilTime

/// The store's SQL, written once for both databases: the numbered migrations and the statements of a batch write.
/// Drivers only execute it. Every value is a bound parameter; nothing from a request is spliced into SQL text.
public enum FleetSQL {
    /// The database a statement is written for.
    public enum Dialect: Sendable {
        /// SQLite: `?1` placeholders.
        case sqlite
        /// PostgreSQL: `$1` placeholders.
        case postgres

        /// The n-th parameter (1-based).
        func parameter(_ number: Int) -> String {
            switch self {
            case .sqlite: "?\(number)"
            case .postgres: "$\(number)"
            }
        }

        /// A text column that sorts and compares byte by byte (device and app ids are ordered that way).
        var keyText: String {
            switch self {
            case .sqlite: "TEXT"
            case .postgres: "TEXT COLLATE \"C\""
            }
        }

        /// At most this many parameters in one statement (SQLite's default limit is 32,766, PostgreSQL's 65,535).
        var maxParameters: Int { 30_000 }
    }

    /// A bound value.
    public enum Value: Sendable, Equatable {
        /// Text.
        case text(String)
        /// A 64-bit integer.
        case integer(Int64)
        /// SQL `NULL`.
        case null

        static func optional(_ text: String?) -> Value { text.map(Value.text) ?? .null }
        static func optional(_ number: Int64?) -> Value { number.map(Value.integer) ?? .null }
    }

    /// One statement with its bound values.
    public struct Statement: Sendable, Equatable {
        /// The SQL text, with placeholders.
        public var sql: String
        /// The values bound to the placeholders, in order.
        public var values: [Value]

        /// A statement.
        public init(sql: String, values: [Value]) {
            self.sql = sql
            self.values = values
        }
    }

    /// One numbered change of the store's schema.
    public struct Migration: Sendable {
        /// Its number; a store records the highest applied.
        public let version: Int
        /// What it does, recorded with it.
        public let name: String
        /// Its statements, run in one transaction.
        public let statements: [String]
    }

    /// The table that records applied migrations.
    public static func migrationsTable(_ dialect: Dialect) -> String {
        "CREATE TABLE IF NOT EXISTS mdmconf_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            + "applied_at BIGINT NOT NULL)"
    }

    /// Every migration, in order. A store whose highest recorded version is above the last one here was written
    /// by a newer mdmconf and is refused.
    public static func migrations(_ dialect: Dialect) -> [Migration] {
        let key = dialect.keyText
        let serial =
            dialect == .sqlite ? "id INTEGER PRIMARY KEY AUTOINCREMENT" : "id BIGSERIAL PRIMARY KEY"
        return [
            Migration(
                version: 1, name: "devices, apps and check-in history",
                statements: [
                    """
                    CREATE TABLE devices (device \(key) PRIMARY KEY, platform TEXT NOT NULL, os_version TEXT, \
                    device_model TEXT, locale TEXT, time_zone TEXT, enrolled_at BIGINT, reported_at BIGINT, \
                    last_checkin BIGINT NOT NULL, replica TEXT NOT NULL)
                    """,
                    """
                    CREATE TABLE device_apps (device \(key) NOT NULL, app \(key) NOT NULL, version TEXT NOT NULL, \
                    build TEXT, channel TEXT, config_etag TEXT, config_error TEXT, deferrals_used BIGINT, \
                    last_checkin BIGINT NOT NULL, PRIMARY KEY (device, app))
                    """,
                    """
                    CREATE TABLE checkins (\(serial), device \(key) NOT NULL, received_at BIGINT NOT NULL, \
                    replica TEXT NOT NULL, body TEXT NOT NULL)
                    """,
                    "CREATE INDEX checkins_by_device ON checkins (device, id)",
                    "CREATE INDEX checkins_by_time ON checkins (received_at)",
                ]),
            Migration(
                version: 2, name: "daily compliance roll-ups",
                statements: [
                    """
                    CREATE TABLE compliance_daily (day TEXT NOT NULL, app \(key) NOT NULL, dimension TEXT NOT NULL, \
                    value TEXT NOT NULL, devices BIGINT NOT NULL, PRIMARY KEY (day, app, dimension, value))
                    """
                ]),
            Migration(
                version: 3, name: "catalog generations",
                statements: [
                    // A file's bytes once per content hash (base64), however many generations hold it.
                    "CREATE TABLE catalog_blobs (hash TEXT PRIMARY KEY, size BIGINT NOT NULL, content TEXT NOT NULL)",
                    """
                    CREATE TABLE catalog_generations (generation BIGINT PRIMARY KEY, content_hash TEXT NOT NULL, \
                    author TEXT NOT NULL, message TEXT NOT NULL, created_at BIGINT NOT NULL, kind TEXT NOT NULL, \
                    source BIGINT, files BIGINT NOT NULL)
                    """,
                    """
                    CREATE TABLE catalog_files (generation BIGINT NOT NULL, path \(key) NOT NULL, hash TEXT NOT NULL, \
                    PRIMARY KEY (generation, path))
                    """,
                ]),
            Migration(
                version: 4, name: "SQLite: each device's check-ins linked newest first",
                statements: dialect == .sqlite ? linkedHistory : []),
            Migration(
                version: 5, name: "PostgreSQL: a batch written and committed by one call",
                statements: dialect == .postgres ? [BatchSQL.beforeDDM.writeProcedure] : []),
            Migration(
                version: 6, name: "the event outbox and the device states events watch",
                statements: [
                    """
                    CREATE TABLE event_outbox (\(serial), event_id TEXT NOT NULL, endpoint \(key) NOT NULL, \
                    type TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL, created_at BIGINT NOT NULL, \
                    state TEXT NOT NULL DEFAULT 'pending', attempts BIGINT NOT NULL DEFAULT 0, \
                    next_attempt BIGINT NOT NULL, last_status BIGINT, last_error TEXT, delivered_at BIGINT)
                    """,
                    "CREATE INDEX event_outbox_due ON event_outbox (state, next_attempt)",
                    """
                    CREATE TABLE event_state (device \(key) NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL, \
                    changed_at BIGINT NOT NULL, PRIMARY KEY (device, kind))
                    """,
                    "CREATE TABLE event_endpoints (endpoint \(key) PRIMARY KEY, disabled_at BIGINT NOT NULL, reason TEXT NOT NULL)",
                ]),
            Migration(
                version: 7, name: "PostgreSQL: a batch with watched states written and committed by one call",
                statements: dialect == .postgres ? [BatchSQL.beforeDDM.writeWatchedProcedure] : []),
            Migration(
                version: 8, name: "staged rollouts of a generation and their steps",
                statements: [
                    """
                    CREATE TABLE catalog_rollouts (generation BIGINT PRIMARY KEY, base BIGINT NOT NULL, \
                    ring_group TEXT, percents TEXT NOT NULL, every TEXT, halt_when TEXT NOT NULL, \
                    min_devices BIGINT NOT NULL)
                    """,
                    """
                    CREATE TABLE catalog_rollout_steps (generation BIGINT NOT NULL, step BIGINT NOT NULL, \
                    action TEXT NOT NULL, phase TEXT NOT NULL, ring BIGINT NOT NULL, at BIGINT NOT NULL, \
                    author TEXT NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (generation, step))
                    """,
                ]),
            Migration(
                version: 9, name: "each app's delivery channel and the states a DDM status report gives",
                statements: Table.ddmColumns.map { "ALTER TABLE device_apps ADD COLUMN \($0) TEXT" }
                    + (dialect == .postgres
                        // The procedures name the columns they write: made again with the new ones.
                        ? [
                            "DROP PROCEDURE mdmconf_write_checkins", "DROP PROCEDURE mdmconf_write_checkins_watched",
                            BatchSQL.latest.writeProcedure, BatchSQL.latest.writeWatchedProcedure,
                        ] : [])),
        ]
    }

    /// SQLite's history without `checkins_by_device`: that index took a page of the WAL for nearly every check-in
    /// (its entries are in device order, so a batch's check-ins land on as many pages), two thirds of what a commit
    /// wrote. Instead each check-in records its device's previous one (`previous`) and the device row its latest
    /// (`last_history`, kept by a trigger), pages a batch already writes; a device's history is read by following
    /// the links (`checkIns(dialect:)`). SQLite has one writer, so the links are made in the order rows are stored.
    /// PostgreSQL, whose replicas write side by side, keeps the index.
    private static let linkedHistory = [
        "ALTER TABLE checkins ADD COLUMN previous INTEGER",
        "ALTER TABLE devices ADD COLUMN last_history INTEGER",
        // Links for the history already stored, through the index before it goes.
        """
        UPDATE checkins SET previous = (SELECT MAX(earlier.id) FROM checkins AS earlier \
        WHERE earlier.device = checkins.device AND earlier.id < checkins.id)
        """,
        "UPDATE devices SET last_history = (SELECT MAX(id) FROM checkins WHERE checkins.device = devices.device)",
        "DROP INDEX checkins_by_device",
        // Retention reads the history from its oldest end instead (`pruneCheckIns`).
        "DROP INDEX checkins_by_time",
        """
        CREATE TRIGGER checkins_link AFTER INSERT ON checkins BEGIN \
        UPDATE devices SET last_history = NEW.id WHERE device = NEW.device; END
        """,
    ]

    /// The schema version this mdmconf writes.
    public static var latestVersion: Int { migrations(.sqlite).last?.version ?? 0 }

    // MARK: Writing a batch

    /// A table a batch writes: its columns, and the key whose row an upsert keeps (none: rows are only added).
    struct Table {
        let name: String
        let columns: [String]
        let conflict: [String]?
        /// On SQLite, each row also records its device's previous check-in (`previous`, migration 4).
        var linked = false
        /// The columns that hold integers (the others hold text).
        var integers: Set<String> = ["enrolled_at", "reported_at", "last_checkin", "deferrals_used", "received_at"]

        static let devices = Table(
            name: "devices",
            columns: [
                "device", "platform", "os_version", "device_model", "locale", "time_zone", "enrolled_at",
                "reported_at", "last_checkin", "replica",
            ], conflict: ["device"])
        /// `device_apps` before migration 9.
        static let deviceAppsBeforeDDM = Table(
            name: "device_apps",
            columns: [
                "device", "app", "version", "build", "channel", "config_etag", "config_error", "deferrals_used",
                "last_checkin",
            ], conflict: ["device", "app"])
        /// The columns migration 9 adds: `ddm` when a status report gave the app's state (NULL: a check-in), and
        /// the device's words for the app's state and its configuration's.
        static let ddmColumns = ["delivery", "ddm_state", "ddm_config_state"]
        static let deviceApps = Table(
            name: "device_apps", columns: deviceAppsBeforeDDM.columns + ddmColumns, conflict: ["device", "app"])
        static let checkIns = Table(
            name: "checkins", columns: ["device", "received_at", "replica", "body"], conflict: nil, linked: true)
    }

    /// What a batch writes, table by table: each device's and each app's latest state (a state never replaces a
    /// newer one, so replicas may commit in any order), one history row per check-in.
    static func rows(of batch: [CheckInRecord], schema: Int) -> [(table: Table, rows: [[Value]])] {
        var latestDevice: [String: Int] = [:]
        var latestApp: [String: (record: Int, app: Int)] = [:]
        var deviceOrder: [String] = []
        var appOrder: [String] = []
        for (index, record) in batch.enumerated() {
            let device = record.checkIn.device
            if latestDevice.updateValue(index, forKey: device) == nil { deviceOrder.append(device) }
            for (appIndex, app) in record.checkIn.apps.enumerated() {
                let key = device + "\u{0}" + app.app
                if latestApp.updateValue((index, appIndex), forKey: key) == nil { appOrder.append(key) }
            }
        }
        // Rows in key order: two transactions that upsert the same rows (replicas) lock them in the same order, so
        // neither waits for the other in a circle.
        deviceOrder.sort()
        appOrder.sort()
        let deviceRows: [[Value]] = deviceOrder.compactMap { latestDevice[$0] }.map { index in
            let record = batch[index]
            let checkIn = record.checkIn
            return [
                .text(checkIn.device), .text(checkIn.platform), .optional(checkIn.osVersion),
                .optional(checkIn.deviceModel), .optional(checkIn.locale), .optional(checkIn.timeZone),
                .optional(checkIn.enrolledAt?.seconds), .optional(checkIn.at?.seconds),
                .integer(record.receivedAt.seconds), .text(record.replica),
            ]
        }
        let appRows: [[Value]] = appOrder.compactMap { latestApp[$0] }.map { position in
            let record = batch[position.record]
            let app = record.checkIn.apps[position.app]
            let row: [Value] = [
                .text(record.checkIn.device), .text(app.app), .text(app.version), .optional(app.build),
                .optional(app.channel), .optional(app.configETag), .optional(app.configError),
                .optional(app.deferralsUsed), .integer(record.receivedAt.seconds),
            ]
            guard schema >= 9 else { return row }
            return row + [
                .optional(app.ddm == nil ? nil : CheckIn.Delivery.ddm.rawValue), .optional(app.ddm?.state),
                .optional(app.ddm?.configState),
            ]
        }
        let historyRows: [[Value]] = batch.map { record in
            [
                .text(record.checkIn.device), .integer(record.receivedAt.seconds), .text(record.replica),
                .text(record.body),
            ]
        }
        return [
            (.devices, deviceRows), (schema >= 9 ? .deviceApps : .deviceAppsBeforeDDM, appRows),
            (.checkIns, historyRows),
        ]
    }

    /// SQLite: the statements that store `batch`, to run in one transaction, a row each. The store keeps their few
    /// texts prepared (multi-row statements were compiled anew for every batch size), and a linked history row reads
    /// the link the row before it left. `schema` is the store's migration (tests write stores of older ones).
    public static func writeRowByRow(_ batch: [CheckInRecord], schema: Int = latestVersion) -> [Statement] {
        rows(of: batch, schema: schema).flatMap { table, rows in
            insert(
                into: table.name, columns: table.columns, rows: rows, conflict: table.conflict, dialect: .sqlite,
                rowsPerStatement: 1, linked: table.linked && schema >= 4)
        } + (schema >= 6 ? watchedRowByRow(batch) : [])
    }

    // MARK: Watched states and their events

    /// The watched states of a batch: each device's from its latest check-in (an earlier check-in of the same
    /// device in the batch is passed over, as its state rows are).
    static func watched(of batch: [CheckInRecord]) -> [(device: String, at: Instant, state: WatchedState)] {
        var latest: [String: Int] = [:]
        for (index, record) in batch.enumerated() where !record.watched.isEmpty {
            latest[record.checkIn.device] = index
        }
        return latest.keys.sorted().flatMap { device in
            let record = batch[latest[device]!]
            return record.watched.map { (device, record.receivedAt, $0) }
        }
    }

    /// SQLite: for each watched state, its events added unless the stored value is the same, then the value stored.
    static func watchedRowByRow(_ batch: [CheckInRecord]) -> [Statement] {
        var statements: [Statement] = []
        for (device, at, state) in watched(of: batch) {
            for event in state.events {
                statements.append(
                    Statement(
                        sql: """
                            INSERT INTO event_outbox (event_id, endpoint, type, subject, body, created_at, next_attempt) \
                            SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?6 WHERE NOT EXISTS (SELECT 1 FROM event_state \
                            WHERE device = ?7 AND kind = ?8 AND value = ?9)
                            """,
                        values: [
                            .text(event.eventID), .text(event.endpoint), .text(event.type), .text(event.subject),
                            .text(event.body), .integer(event.createdAt.seconds), .text(device), .text(state.kind),
                            .text(state.value),
                        ]))
            }
            statements.append(
                Statement(
                    sql: """
                        INSERT INTO event_state (device, kind, value, changed_at) VALUES (?1, ?2, ?3, ?4) \
                        ON CONFLICT (device, kind) DO UPDATE SET value = excluded.value, changed_at = excluded.changed_at \
                        WHERE event_state.value <> excluded.value
                        """,
                    values: [.text(device), .text(state.kind), .text(state.value), .integer(at.seconds)]))
        }
        return statements
    }

    /// PostgreSQL: a batch's watched states and their events in one statement, run in the batch's transaction; nil
    /// when the batch has none, or when the store's procedure writes them with the batch (migration 7:
    /// `writeAsColumns`). Every `WITH` query reads the states as they were before the statement, so a state's
    /// events are added exactly when its stored value differs.
    public static func watchedAsColumns(_ batch: [CheckInRecord], schema: Int = latestVersion) -> ColumnStatement? {
        guard schema == 6, let columns = watchedColumns(batch) else { return nil }
        return ColumnStatement(sql: watchedSQL(after: 0), columns: columns, commits: false)
    }

    /// The columns of `watchedSQL`: the states (device, kind, value, time), then their events (id, endpoint,
    /// type, subject, body, time, the state's kind and device); nil when the batch has no watched states.
    static func watchedColumns(_ batch: [CheckInRecord]) -> [ColumnStatement.Column]? {
        let watched = watched(of: batch)
        guard !watched.isEmpty else { return nil }
        var events: [(OutboxEvent, kind: String, device: String)] = []
        for (device, _, state) in watched { for event in state.events { events.append((event, state.kind, device)) } }
        return [
            .text(watched.map(\.device)), .text(watched.map(\.state.kind)), .text(watched.map(\.state.value)),
            .integer(watched.map(\.at.seconds)),
            .text(events.map(\.0.eventID)), .text(events.map(\.0.endpoint)), .text(events.map(\.0.type)),
            .text(events.map(\.0.subject)), .text(events.map(\.0.body)), .integer(events.map(\.0.createdAt.seconds)),
            .text(events.map(\.kind)), .text(events.map(\.device)),
        ]
    }

    /// The array types of `watchedColumns`, in order.
    private static let watchedTypes = [
        "TEXT[]", "TEXT[]", "TEXT[]", "BIGINT[]", "TEXT[]", "TEXT[]", "TEXT[]", "TEXT[]", "TEXT[]", "BIGINT[]",
        "TEXT[]",
        "TEXT[]",
    ]

    /// The statement of the watched states and their events, its parameters numbered after the first `offset`.
    static func watchedSQL(after offset: Int) -> String {
        let p = watchedTypes.enumerated().map { "$\($0.offset + offset + 1)::\($0.element)" }
        return """
            WITH s AS (SELECT * FROM unnest(\(p[0]), \(p[1]), \(p[2]), \(p[3])) \
            AS s(device, kind, value, changed_at)), \
            changed AS (SELECT s.* FROM s LEFT JOIN event_state c ON c.device = s.device AND c.kind = s.kind \
            WHERE c.value IS DISTINCT FROM s.value), \
            stored AS (INSERT INTO event_state (device, kind, value, changed_at) \
            SELECT device, kind, value, changed_at FROM changed \
            ON CONFLICT (device, kind) DO UPDATE SET value = excluded.value, changed_at = excluded.changed_at) \
            INSERT INTO event_outbox (event_id, endpoint, type, subject, body, created_at, next_attempt) \
            SELECT e.event_id, e.endpoint, e.type, e.subject, e.body, e.created_at, e.created_at \
            FROM unnest(\(p[4...].joined(separator: ", "))) \
            AS e(event_id, endpoint, type, subject, body, created_at, kind, device) \
            JOIN changed ON changed.device = e.device AND changed.kind = e.kind
            """
    }

    /// A statement whose parameters are whole columns, each bound as one array.
    public struct ColumnStatement: Sendable, Equatable {
        /// One column's values, bound as an array.
        public enum Column: Sendable, Equatable {
            /// A text column.
            case text([String?])
            /// An integer column.
            case integer([Int64?])
        }

        /// The SQL text.
        public var sql: String
        /// The columns, in placeholder order.
        public var columns: [Column]
        /// The statement commits its own work (`CALL mdmconf_write_checkins`): it must not run inside `BEGIN`.
        public var commits: Bool
    }

    /// PostgreSQL: `batch` in one statement, the state upserts as data-modifying `WITH` queries before the history
    /// insert, each table's rows bound as one array per column and read back with `unnest`. The text is the same for
    /// every batch, so PostgreSQL parses and plans a short statement instead of one with a placeholder per value
    /// (a quarter of its time per check-in went to parsing and planning those).
    /// From migration 5 on, the statement is the stored procedure that runs it and commits (`writeProcedure`).
    public static func writeAsColumns(_ batch: [CheckInRecord], schema: Int = latestVersion) -> ColumnStatement {
        var columns: [ColumnStatement.Column] = []
        for (table, rows) in rows(of: batch, schema: schema) {
            for (index, name) in table.columns.enumerated() {
                columns.append(
                    table.integers.contains(name)
                        ? .integer(rows.map { $0[index].integer }) : .text(rows.map { $0[index].text }))
            }
        }
        let sql = BatchSQL.of(schema: schema)
        // A batch with watched states: from migration 7 one call writes both; at migration 6 their statement
        // (`watchedAsColumns`) follows the batch's in one transaction.
        if schema >= 6, let watched = watchedColumns(batch) {
            return schema >= 7
                ? ColumnStatement(sql: sql.callWatched, columns: columns + watched, commits: true)
                : ColumnStatement(sql: sql.columns, columns: columns, commits: false)
        }
        return schema >= 5
            ? ColumnStatement(sql: sql.call, columns: columns, commits: true)
            : ColumnStatement(sql: sql.columns, columns: columns, commits: false)
    }

    /// PostgreSQL: the texts that write a batch, for the tables of one schema version (the columns of
    /// `device_apps` changed at migration 9).
    struct BatchSQL {
        /// The array type of each of `columns`' parameters, in order.
        let columnTypes: [String]
        /// `writeAsColumns`' statement.
        let columns: String
        /// The call of `writeProcedure` with a batch's columns.
        let call: String
        /// The call of `writeWatchedProcedure`.
        let callWatched: String

        static let latest = BatchSQL(tables: [.devices, .deviceApps, .checkIns])
        static let beforeDDM = BatchSQL(tables: [.devices, .deviceAppsBeforeDDM, .checkIns])

        static func of(schema: Int) -> BatchSQL { schema >= 9 ? latest : beforeDDM }

        init(tables: [Table]) {
            columnTypes = tables.flatMap { table in
                table.columns.map { table.integers.contains($0) ? "BIGINT[]" : "TEXT[]" }
            }
            func slots(_ types: [String]) -> String {
                types.enumerated().map { "$\($0.offset + 1)::\($0.element)" }.joined(separator: ", ")
            }
            var parameters = columnTypes.enumerated().map { "$\($0.offset + 1)::\($0.element)" }[...]
            let inserts = tables.map { table in
                let arrays = parameters.prefix(table.columns.count)
                parameters = parameters.dropFirst(table.columns.count)
                return insertText(
                    into: table.name, columns: table.columns,
                    source: "SELECT * FROM unnest(\(arrays.joined(separator: ", ")))",
                    conflict: table.conflict)
            }
            // Every insert but the last is a `WITH` query; PostgreSQL runs each once, to completion.
            columns =
                "WITH " + inserts.dropLast().enumerated().map { "w\($0) AS (\($1))" }.joined(separator: ", ") + " "
                + inserts[inserts.count - 1]
            call = "CALL mdmconf_write_checkins(\(slots(columnTypes)))"
            callWatched = "CALL mdmconf_write_checkins_watched(\(slots(columnTypes + watchedTypes)))"
        }

        /// Migration 5: `columns` in a procedure that commits before it answers, so a batch is one round trip to
        /// the database instead of three (`BEGIN`, the statement, `COMMIT`, each waiting for the one before).
        /// `COMMIT` in a procedure is a whole commit, flushed as `synchronous_commit` asks, so the `CALL`'s answer
        /// confirms the batch is stored; a failure before it rolls the batch back. A migration that changes the
        /// columns of these tables drops and creates the procedures again (migration 9).
        var writeProcedure: String {
            "CREATE PROCEDURE mdmconf_write_checkins(\(columnTypes.joined(separator: ", "))) LANGUAGE plpgsql AS "
                + "$procedure$ BEGIN \(columns); COMMIT; END $procedure$"
        }

        /// Migration 7: a batch with watched states, its states and their events written and committed by one
        /// call, as `writeProcedure` writes a batch without them.
        var writeWatchedProcedure: String {
            "CREATE PROCEDURE mdmconf_write_checkins_watched(\((columnTypes + watchedTypes).joined(separator: ", "))) "
                + "LANGUAGE plpgsql AS $procedure$ BEGIN \(columns); \(watchedSQL(after: columnTypes.count)); "
                + "COMMIT; END $procedure$"
        }

    }

    /// Multi-row `INSERT`s of at most `maxParameters` values (or `rowsPerStatement` rows) each; with `conflict`, an
    /// upsert that keeps the row with the later `last_checkin`.
    static func insert(
        into table: String, columns: [String], rows: [[Value]], conflict: [String]?, dialect: Dialect,
        rowsPerStatement: Int? = nil, linked: Bool = false
    ) -> [Statement] {
        guard !rows.isEmpty else { return [] }
        let perStatement = max(1, min(rowsPerStatement ?? .max, dialect.maxParameters / columns.count))
        var full: String?  // every full chunk has the same text
        var statements: [Statement] = []
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + perStatement)]
            let sql: String
            if chunk.count == perStatement, let full {
                sql = full
            } else {
                sql = insertText(
                    into: table, columns: columns, rows: chunk.count, conflict: conflict, dialect: dialect,
                    linked: linked)
                if chunk.count == perStatement { full = sql }
            }
            var values: [Value] = []
            values.reserveCapacity(chunk.count * columns.count)
            for row in chunk { values += row }
            statements.append(Statement(sql: sql, values: values))
            start += perStatement
        }
        return statements
    }

    /// The text of an `INSERT` of `count` rows of parameters (numbered from 1). A `linked` row
    /// (its first column the device) also records its device's latest check-in as `previous`.
    static func insertText(
        into table: String, columns: [String], rows count: Int, conflict: [String]?, dialect: Dialect,
        linked: Bool = false
    ) -> String {
        var values = "VALUES "
        var parameter = 1
        for row in 0..<count {
            if row > 0 { values += ", " }
            values += "("
            let device = dialect.parameter(parameter)
            for column in columns.indices {
                if column > 0 { values += ", " }
                values += dialect.parameter(parameter)
                parameter += 1
            }
            if linked { values += ", (SELECT last_history FROM devices WHERE device = \(device))" }
            values += ")"
        }
        return insertText(
            into: table, columns: columns + (linked ? ["previous"] : []), source: values, conflict: conflict)
    }

    /// An `INSERT` of the rows of `source` (`VALUES …` or a `SELECT`); with `conflict`, an upsert that keeps the row
    /// with the later `last_checkin`.
    static func insertText(into table: String, columns: [String], source: String, conflict: [String]?) -> String {
        var sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) " + source
        if let conflict {
            let updates = columns.filter { !conflict.contains($0) }.map { "\($0) = excluded.\($0)" }
            sql += " ON CONFLICT (\(conflict.joined(separator: ", "))) DO UPDATE SET "
            sql += updates.joined(separator: ", ")
            sql += " WHERE excluded.last_checkin >= \(table).last_checkin"
        }
        return sql
    }

    /// The roll-up rows of one day, replacing what the day had.
    public static func saveRollup(day: String, rows: [RollupRow], dialect: Dialect) -> [Statement] {
        var statements = [
            Statement(sql: "DELETE FROM compliance_daily WHERE day = \(dialect.parameter(1))", values: [.text(day)])
        ]
        statements += insert(
            into: "compliance_daily", columns: ["day", "app", "dimension", "value", "devices"],
            rows: rows.map {
                [.text($0.day), .text($0.app), .text($0.dimension), .text($0.value), .integer(Int64($0.devices))]
            },
            conflict: nil, dialect: dialect)
        return statements
    }

    // MARK: Reading

    /// A page of devices after a device id, in id order.
    public static func devices(dialect: Dialect) -> String {
        """
        SELECT device, platform, os_version, device_model, locale, time_zone, enrolled_at, reported_at, \
        last_checkin, replica FROM devices WHERE device > \(dialect.parameter(1)) ORDER BY device \
        LIMIT \(dialect.parameter(2))
        """
    }

    /// One device by id.
    public static func device(dialect: Dialect) -> String {
        """
        SELECT device, platform, os_version, device_model, locale, time_zone, enrolled_at, reported_at, \
        last_checkin, replica FROM devices WHERE device = \(dialect.parameter(1))
        """
    }

    /// The columns of an app row, in the order `appState` reads them; the DDM states from migration 9 on.
    private static func appColumns(schema: Int) -> String {
        "device, app, version, build, channel, config_etag, config_error, deferrals_used, last_checkin"
            + (schema >= 9 ? ", " + Table.ddmColumns.joined(separator: ", ") : "")
    }

    /// The apps of the devices in `(after, through]`.
    public static func apps(dialect: Dialect, schema: Int = latestVersion) -> String {
        """
        SELECT \(appColumns(schema: schema)) \
        FROM device_apps WHERE device > \(dialect.parameter(1)) AND device <= \(dialect.parameter(2)) \
        ORDER BY device, app
        """
    }

    /// One device's apps, in app order.
    public static func appsOfDevice(dialect: Dialect, schema: Int = latestVersion) -> String {
        """
        SELECT \(appColumns(schema: schema)) FROM device_apps WHERE device = \(dialect.parameter(1)) ORDER BY app
        """
    }

    /// A device's latest check-ins, newest first: on PostgreSQL through `checkins_by_device`, on SQLite by following
    /// the links from the device's latest check-in (migration 4), at most the limit's number of steps.
    public static func checkIns(dialect: Dialect) -> String {
        switch dialect {
        case .postgres:
            """
            SELECT id, device, received_at, replica, body FROM checkins WHERE device = $1 ORDER BY id DESC LIMIT $2
            """
        case .sqlite:
            """
            WITH RECURSIVE chain (id, step) AS (SELECT last_history, 1 FROM devices WHERE device = ?1 AND ?2 > 0 \
            UNION ALL SELECT checkins.previous, chain.step + 1 FROM chain JOIN checkins ON checkins.id = chain.id \
            WHERE chain.step < ?2) \
            SELECT checkins.id, checkins.device, checkins.received_at, checkins.replica, checkins.body \
            FROM chain JOIN checkins ON checkins.id = chain.id WHERE checkins.device = ?1 ORDER BY checkins.id DESC
            """
        }
    }

    /// The daily roll-ups from a day on, optionally of one app.
    public static func rollups(app: Bool, dialect: Dialect) -> String {
        "SELECT day, app, dimension, value, devices FROM compliance_daily WHERE day >= \(dialect.parameter(1))"
            + (app ? " AND app = \(dialect.parameter(2))" : "") + " ORDER BY day, app, dimension, value"
    }

    /// Removes the history received before the cutoff. SQLite removes it oldest first, up to the first check-in
    /// stored that was received at or after the cutoff: what stays is whole at its old end, so each device's links
    /// lead to all of its check-ins that stay. It finds that check-in by reading the history in storage order from
    /// the oldest, which is what goes. (Only a clock set back makes the two differ: a check-in stamped before the
    /// cutoff but stored after a later-stamped one then stays until a later prune.)
    public static func pruneCheckIns(dialect: Dialect) -> String {
        switch dialect {
        case .postgres: "DELETE FROM checkins WHERE received_at < $1"
        case .sqlite:
            """
            DELETE FROM checkins WHERE id < COALESCE(\
            (SELECT id FROM checkins NOT INDEXED WHERE received_at >= ?1 ORDER BY id LIMIT 1), \
            (SELECT MAX(id) + 1 FROM checkins))
            """
        }
    }

    /// Removes the roll-ups before a day.
    public static func pruneRollups(dialect: Dialect) -> String {
        "DELETE FROM compliance_daily WHERE day < \(dialect.parameter(1))"
    }

    /// How many devices the store holds.
    public static let deviceCount = "SELECT COUNT(*) FROM devices"

    /// The id of the device at a 0-based position in id order.
    public static func deviceAt(dialect: Dialect) -> String {
        "SELECT device FROM devices ORDER BY device LIMIT 1 OFFSET \(dialect.parameter(1))"
    }

    /// The row counts of the three fleet tables.
    public static let counts =
        "SELECT (SELECT COUNT(*) FROM devices), (SELECT COUNT(*) FROM device_apps), (SELECT COUNT(*) FROM checkins)"

    // MARK: Rows back into values

    /// A device row in the column order of `devices(dialect:)`, apps added later.
    public static func deviceState(_ columns: [Value]) -> DeviceState? {
        guard columns.count == 10, case .text(let device) = columns[0], case .text(let platform) = columns[1],
            case .integer(let last) = columns[8], case .text(let replica) = columns[9]
        else { return nil }
        return DeviceState(
            device: device, platform: platform, osVersion: columns[2].text, deviceModel: columns[3].text,
            locale: columns[4].text, timeZone: columns[5].text,
            enrolledAt: columns[6].integer.map { Instant(seconds: $0) },
            reportedAt: columns[7].integer.map { Instant(seconds: $0) }, lastCheckIn: Instant(seconds: last),
            replica: replica, apps: [])
    }

    /// An app row in the column order of `apps(dialect:)` (with or without the DDM states): its device and state.
    public static func appState(_ columns: [Value]) -> (device: String, app: DeviceState.App)? {
        guard columns.count == 9 || columns.count == 12, case .text(let device) = columns[0],
            case .text(let app) = columns[1], case .text(let version) = columns[2], case .integer(let last) = columns[8]
        else { return nil }
        let ddm = columns.count == 12 ? ddmState(delivery: columns[9].text, columns[10].text, columns[11].text) : nil
        return (
            device,
            DeviceState.App(
                app: CheckIn.App(
                    app: app, version: version, build: columns[3].text, channel: columns[4].text,
                    configETag: columns[5].text, configError: columns[6].text, deferralsUsed: columns[7].integer,
                    ddm: ddm),
                lastCheckIn: Instant(seconds: last))
        )
    }

    /// An app's DDM states from its `delivery`, `ddm_state` and `ddm_config_state` columns: nil unless it was
    /// delivered by DDM.
    public static func ddmState(delivery: String?, _ state: String?, _ configState: String?) -> CheckIn.DDMAppState? {
        delivery == CheckIn.Delivery.ddm.rawValue ? CheckIn.DDMAppState(state: state, configState: configState) : nil
    }

    /// A check-in history row in the column order of `checkIns(dialect:)`.
    public static func storedCheckIn(_ columns: [Value]) -> StoredCheckIn? {
        guard columns.count == 5, let id = columns[0].integer, let device = columns[1].text,
            let received = columns[2].integer, let replica = columns[3].text, let body = columns[4].text
        else { return nil }
        return StoredCheckIn(
            id: id, device: device, receivedAt: Instant(seconds: received), replica: replica, body: body)
    }

    /// A roll-up row in the column order of `rollups(app:dialect:)`.
    public static func rollupRow(_ columns: [Value]) -> RollupRow? {
        guard columns.count == 5, let day = columns[0].text, let app = columns[1].text,
            let dimension = columns[2].text, let value = columns[3].text, let devices = columns[4].integer
        else { return nil }
        return RollupRow(day: day, app: app, dimension: dimension, value: value, devices: Int(devices))
    }

    /// Attaches app rows (ordered by device) to their devices (ordered by device).
    public static func attach(_ apps: [(device: String, app: DeviceState.App)], to devices: inout [DeviceState]) {
        var index = 0
        for (device, app) in apps {
            while index < devices.count, devices[index].device < device { index += 1 }
            guard index < devices.count, devices[index].device == device else { continue }
            devices[index].apps.append(app)
        }
    }
}

/// Reading a column's value.
extension FleetSQL.Value {
    /// The value as text, when it is text.
    public var text: String? { if case .text(let value) = self { value } else { nil } }
    /// The value as an integer, when it is one.
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
}
