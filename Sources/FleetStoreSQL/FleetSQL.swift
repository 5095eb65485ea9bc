import CivilTime
import Fleet

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
        package func parameter(_ number: Int) -> String {
            switch self {
            case .sqlite: "?\(number)"
            case .postgres: "$\(number)"
            }
        }

        /// A text column that sorts and compares byte by byte (device and app ids are ordered that way).
        package var keyText: String {
            switch self {
            case .sqlite: "TEXT"
            case .postgres: "TEXT COLLATE \"C\""
            }
        }

        /// At most this many parameters in one statement (SQLite's default limit is 32,766, PostgreSQL's 65,535).
        package var maxParameters: Int { 30_000 }
    }

    /// A bound value.
    public enum Value: Sendable, Equatable {
        /// Text.
        case text(String)
        /// A 64-bit integer.
        case integer(Int64)
        /// SQL `NULL`.
        case null

        package static func optional(_ text: String?) -> Value { text.map(Value.text) ?? .null }
        package static func optional(_ number: Int64?) -> Value { number.map(Value.integer) ?? .null }
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

    /// Every migration, in order: the tables both databases share, each version followed by the driver's `own`
    /// statements for it (SQLite's linked history, PostgreSQL's batch procedures). A store whose highest recorded
    /// version is above the last one here was written by a newer mdmconf and is refused.
    public static func migrations(_ dialect: Dialect, own: [Int: [String]] = [:]) -> [Migration] {
        shared(dialect).map {
            Migration(version: $0.version, name: $0.name, statements: $0.statements + own[$0.version, default: []])
        }
    }

    /// The migrations' statements that are the same on both databases (but for the key collation and the serial
    /// column).
    private static func shared(_ dialect: Dialect) -> [Migration] {
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
            Migration(version: 4, name: "SQLite: each device's check-ins linked newest first", statements: []),
            Migration(version: 5, name: "PostgreSQL: a batch written and committed by one call", statements: []),
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
                statements: []),
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
                statements: Table.ddmColumns.map { "ALTER TABLE device_apps ADD COLUMN \($0) TEXT" }),
            Migration(version: 10, name: "PostgreSQL: an event's body kept in its row, not compressed", statements: []),
            Migration(
                version: 11, name: "events whose body is made at delivery from their check-in and generation",
                statements: [
                    "ALTER TABLE event_outbox ADD COLUMN checkin BIGINT",
                    "ALTER TABLE event_outbox ADD COLUMN generation BIGINT",
                ]),
        ]
    }

    /// The migrations a store at version `current` runs to reach `target`, in order; throws `FleetStoreError`
    /// `.tooNew` when the store (named `store` in the message) was written by a newer mdmconf.
    public static func pending(
        from current: Int64, to target: Int, _ dialect: Dialect, own: [Int: [String]], store: String
    ) throws -> [Migration] {
        guard current <= latestVersion else {
            throw FleetStoreError(
                .tooNew,
                "the store \(store) is at schema version \(current), newer than this mdmconf (\(latestVersion)); use a newer mdmconf"
            )
        }
        return migrations(dialect, own: own).filter { $0.version > current && $0.version <= target }
    }

    /// The schema version this mdmconf writes.
    public static var latestVersion: Int { shared(.sqlite).last?.version ?? 0 }

    // MARK: Writing a batch

    /// A table a batch writes: its columns, and the key whose row an upsert keeps (none: rows are only added).
    package struct Table {
        package let name: String
        package let columns: [String]
        package let conflict: [String]?
        /// On SQLite, each row also records its device's previous check-in (`previous`, migration 4).
        package var linked = false
        /// The columns that hold integers (the others hold text).
        package var integers: Set<String> = [
            "enrolled_at", "reported_at", "last_checkin", "deferrals_used", "received_at",
        ]

        package static let devices = Table(
            name: "devices",
            columns: [
                "device", "platform", "os_version", "device_model", "locale", "time_zone", "enrolled_at",
                "reported_at", "last_checkin", "replica",
            ], conflict: ["device"])
        /// `device_apps` before migration 9.
        package static let deviceAppsBeforeDDM = Table(
            name: "device_apps",
            columns: [
                "device", "app", "version", "build", "channel", "config_etag", "config_error", "deferrals_used",
                "last_checkin",
            ], conflict: ["device", "app"])
        /// The columns migration 9 adds: `ddm` when a status report gave the app's state (NULL: a check-in), and
        /// the device's words for the app's state and its configuration's.
        package static let ddmColumns = ["delivery", "ddm_state", "ddm_config_state"]
        package static let deviceApps = Table(
            name: "device_apps", columns: deviceAppsBeforeDDM.columns + ddmColumns, conflict: ["device", "app"])
        package static let checkIns = Table(
            name: "checkins", columns: ["device", "received_at", "replica", "body"], conflict: nil, linked: true)
    }

    /// What a batch writes, table by table: each device's and each app's latest state (a state never replaces a
    /// newer one, so replicas may commit in any order), one history row per check-in.
    package static func rows(of batch: [CheckInRecord], schema: Int) -> [(table: Table, rows: [[Value]])] {
        var latestDevice: [String: Int] = [:]
        var latestApp: [AppKey: (record: Int, app: Int)] = [:]
        var deviceOrder: [String] = []
        var appOrder: [AppKey] = []
        for (index, record) in batch.enumerated() {
            let device = record.checkIn.device
            if latestDevice.updateValue(index, forKey: device) == nil { deviceOrder.append(device) }
            for (appIndex, app) in record.checkIn.apps.enumerated() {
                let key = AppKey(device: device, app: app.app)
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
            // One array made whole (joining the DDM columns to the others made two more); before migration 9
            // the table has no DDM columns.
            let row: [Value] = [
                .text(record.checkIn.device), .text(app.app), .text(app.version), .optional(app.build),
                .optional(app.channel), .optional(app.configETag), .optional(app.configError),
                .optional(app.deferralsUsed), .integer(record.receivedAt.seconds),
                .optional(app.ddm == nil ? nil : CheckIn.Delivery.ddm.rawValue), .optional(app.ddm?.state),
                .optional(app.ddm?.configState),
            ]
            return schema >= 9 ? row : Array(row.prefix(9))
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

    /// A device's app in a batch, ordered by device, then app: the order of the rows' primary key. (A text made of
    /// the two, joined by a NUL, had the same order and cost an allocation for every app of every check-in.)
    private struct AppKey: Hashable, Comparable {
        var device: String
        var app: String

        static func < (lhs: Self, rhs: Self) -> Bool {
            lhs.device != rhs.device ? lhs.device < rhs.device : lhs.app < rhs.app
        }
    }

    // MARK: Watched states and their events

    /// The watched states of a batch: each device's from its latest check-in (an earlier check-in of the same
    /// device in the batch is passed over, as its state rows are).
    package static func watched(of batch: [CheckInRecord]) -> [(device: String, at: Instant, state: WatchedState)] {
        var latest: [String: Int] = [:]
        for (index, record) in batch.enumerated() where !record.watched.isEmpty {
            latest[record.checkIn.device] = index
        }
        return latest.sorted { $0.key < $1.key }.flatMap { device, index in
            let record = batch[index]
            return record.watched.map { (device, record.receivedAt, $0) }
        }
    }

    /// Multi-row `INSERT`s of at most `maxParameters` values (or `rowsPerStatement` rows) each; with `conflict`, an
    /// upsert that keeps the row with the later `last_checkin`.
    package static func insert(
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
    package static func insertText(
        into table: String, columns: [String], rows count: Int, conflict: [String]?, dialect: Dialect,
        linked: Bool = false
    ) -> String {
        // A batch's statements have a few shapes, made again for every batch: a small one's text is kept (at low
        // load a batch is one check-in, and making its three upserts' texts cost a fifth of its instructions).
        let key = TextKey(
            table: table, columns: columns, rows: count, conflict: conflict, postgres: dialect == .postgres,
            linked: linked)
        if count <= 16, let known = insertTexts.withLock({ $0[key] }) { return known }
        let text = makeInsertText(
            into: table, columns: columns, rows: count, conflict: conflict, dialect: dialect, linked: linked)
        if count <= 16 { insertTexts.withLock { if $0.count < 256 { $0[key] = text } } }
        return text
    }

    /// What an `INSERT`'s text is made from.
    private struct TextKey: Hashable {
        var table: String
        var columns: [String]
        var rows: Int
        var conflict: [String]?
        var postgres: Bool
        var linked: Bool
    }

    /// The texts of small `INSERT`s made so far (at most 256: the store's few tables and batch sizes).
    private static let insertTexts = Locked<[TextKey: String]>([:])

    private static func makeInsertText(
        into table: String, columns: [String], rows count: Int, conflict: [String]?, dialect: Dialect, linked: Bool
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
    package static func insertText(into table: String, columns: [String], source: String, conflict: [String]?) -> String
    {
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

    /// The daily roll-ups from a day on, optionally of one app.
    public static func rollups(app: Bool, dialect: Dialect) -> String {
        "SELECT day, app, dimension, value, devices FROM compliance_daily WHERE day >= \(dialect.parameter(1))"
            + (app ? " AND app = \(dialect.parameter(2))" : "") + " ORDER BY day, app, dimension, value"
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
}

/// Reading a column's value.
extension FleetSQL.Value {
    /// The value as text, when it is text.
    public var text: String? { if case .text(let value) = self { value } else { nil } }
    /// The value as an integer, when it is one.
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
}
