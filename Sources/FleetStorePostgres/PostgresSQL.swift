import CivilTime
import Fleet
import FleetStoreSQL

/// The SQL only PostgreSQL runs: a batch written as one statement of column arrays, the stored procedures that write
/// and commit it in one call (migrations 5, 7 and 9), and the reads and deletes of the indexed history.
enum PostgresSQL {
    typealias Statement = FleetSQL.Statement
    typealias Table = FleetSQL.Table

    /// Set in the due deliveries' read transaction. With few rows pending when the outbox's statistics were
    /// gathered (a new outbox, or one just drained), PostgreSQL expects a handful of pending rows, fetches every
    /// pending row through a bitmap of the due index and sorts them: 33 ms a read with 120,000 pending, against
    /// 0.09 ms reading the index's first entries in order (`EXPLAIN ANALYZE`, 2026-11-28).
    static let dueReadSettings = "SET LOCAL enable_bitmapscan = off"

    /// This driver's statements of each migration, after the shared ones.
    static let migrations = [
        5: [BatchSQL.beforeDDM.writeProcedure],
        7: [BatchSQL.beforeDDM.writeWatchedProcedure],
        // The procedures name the columns they write: made again with the columns migration 9 adds.
        9: [
            "DROP PROCEDURE mdmconf_write_checkins", "DROP PROCEDURE mdmconf_write_checkins_watched",
            BatchSQL.ddm.writeProcedure, BatchSQL.ddm.writeWatchedProcedure,
        ],
        // An outbox row (an event's body is about 2 KB) stays in its page as written: PostgreSQL otherwise
        // compresses every body past 2 KB on insert, in the check-in batch's transaction.
        10: ["ALTER TABLE event_outbox SET (toast_tuple_target = 8160)"],
        // The watched states' events take the generation their body is made from, and record their check-in.
        // The due deliveries can be read in the index's order: with ties on `next_attempt` ordered by `id` too,
        // PostgreSQL can read the first ones of the index instead of sorting every pending row (with statistics
        // that expect few pending rows it still sorted them: the read sets `dueReadSettings`). SQLite's index ends in
        // the row id already.
        11: [
            "DROP PROCEDURE mdmconf_write_checkins_watched", BatchSQL.latest.writeWatchedProcedure,
            "DROP INDEX event_outbox_due", "CREATE INDEX event_outbox_due ON event_outbox (state, next_attempt, id)",
        ],
    ]

    /// PostgreSQL: a batch's watched states and their events in one statement, run in the batch's transaction; nil
    /// when the batch has none, or when the store's procedure writes them with the batch (migration 7:
    /// `writeAsColumns`). Every `WITH` query reads the states as they were before the statement, so a state's
    /// events are added exactly when its stored value differs.
    static func watchedAsColumns(_ batch: [CheckInRecord], schema: Int = FleetSQL.latestVersion) -> ColumnStatement? {
        guard schema == 6, let columns = watchedColumns(batch, schema: schema) else { return nil }
        return ColumnStatement(sql: watchedSQL(after: 0, schema: schema), columns: columns, commits: false)
    }

    /// The columns of `watchedSQL`: the states (device, kind, value, time), then their events (id, endpoint,
    /// type, subject, body, time, the state's kind and device, and from migration 11 the generation the body is made
    /// from); nil when the batch has no watched states.
    static func watchedColumns(_ batch: [CheckInRecord], schema: Int) -> [ColumnStatement.Column]? {
        let watched = FleetSQL.watched(of: batch)
        guard !watched.isEmpty else { return nil }
        var events: [(OutboxEvent, kind: String, device: String)] = []
        for (device, _, state) in watched { for event in state.events { events.append((event, state.kind, device)) } }
        return [
            .text(watched.map(\.device)), .text(watched.map(\.state.kind)), .text(watched.map(\.state.value)),
            .integer(watched.map(\.at.seconds)),
            .text(events.map(\.0.eventID)), .text(events.map(\.0.endpoint)), .text(events.map(\.0.type)),
            .text(events.map(\.0.subject)), .text(events.map(\.0.body)), .integer(events.map(\.0.createdAt.seconds)),
            .text(events.map(\.kind)), .text(events.map(\.device)),
        ] + (schema >= 11 ? [.integer(events.map { $0.0.madeFrom.map(Int64.init) })] : [])
    }

    /// The array types of `watchedColumns`, in order.
    static func watchedTypes(schema: Int) -> [String] {
        let types = [
            "TEXT[]", "TEXT[]", "TEXT[]", "BIGINT[]", "TEXT[]", "TEXT[]", "TEXT[]", "TEXT[]", "TEXT[]", "BIGINT[]",
            "TEXT[]", "TEXT[]",
        ]
        return schema >= 11 ? types + ["BIGINT[]"] : types
    }

    /// The statement of the watched states and their events, its parameters numbered after the first `offset`. From
    /// migration 11 an event made at delivery records its check-in: the device's last history row of the batch,
    /// whose ids the procedure kept from the batch's insert (`checkin_ids`, `checkin_devices`). Looking it up in
    /// the history instead cost a third of this statement, and could not tell two check-ins of a device in one
    /// second apart.
    static func watchedSQL(after offset: Int, schema: Int) -> String {
        let p = watchedTypes(schema: schema).enumerated().map { "$\($0.offset + offset + 1)::\($0.element)" }
        guard schema >= 11 else { return watchedSQLBeforeMadeFrom(p) }
        // The states that changed are the rows the upsert wrote: a new state, or one whose value differs (the
        // update's `WHERE`); an unchanged state is neither written nor returned.
        return """
            WITH changed AS (INSERT INTO event_state (device, kind, value, changed_at) \
            SELECT * FROM unnest(\(p[0]), \(p[1]), \(p[2]), \(p[3])) \
            ON CONFLICT (device, kind) DO UPDATE SET value = excluded.value, changed_at = excluded.changed_at \
            WHERE event_state.value IS DISTINCT FROM excluded.value RETURNING device, kind), \
            history AS (SELECT device, MAX(id) AS id FROM unnest(checkin_ids, checkin_devices) AS h(id, device) \
            GROUP BY device) \
            INSERT INTO event_outbox (event_id, endpoint, type, subject, body, created_at, next_attempt, generation, \
            checkin) \
            SELECT e.event_id, e.endpoint, e.type, e.subject, e.body, e.created_at, e.created_at, e.generation, \
            CASE WHEN e.generation IS NULL THEN NULL ELSE history.id END \
            FROM unnest(\(p[4...].joined(separator: ", "))) \
            AS e(event_id, endpoint, type, subject, body, created_at, kind, device, generation) \
            JOIN changed ON changed.device = e.device AND changed.kind = e.kind \
            LEFT JOIN history ON history.device = e.device
            """
    }

    /// `watchedSQL` of migrations 6–10.
    private static func watchedSQLBeforeMadeFrom(_ p: [String]) -> String {
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
    struct ColumnStatement: Sendable, Equatable {
        /// One column's values, bound as an array.
        enum Column: Sendable, Equatable {
            /// A text column.
            case text([String?])
            /// An integer column.
            case integer([Int64?])
        }

        /// The SQL text.
        var sql: String
        /// The columns, in placeholder order.
        var columns: [Column]
        /// The statement commits its own work (`CALL mdmconf_write_checkins`): it must not run inside `BEGIN`.
        var commits: Bool
    }

    /// PostgreSQL: `batch` in one statement, the state upserts as data-modifying `WITH` queries before the history
    /// insert, each table's rows bound as one array per column and read back with `unnest`. The text is the same for
    /// every batch, so PostgreSQL parses and plans a short statement instead of one with a placeholder per value
    /// (a quarter of its time per check-in went to parsing and planning those).
    /// From migration 5 on, the statement is the stored procedure that runs it and commits (`writeProcedure`).
    static func writeAsColumns(_ batch: [CheckInRecord], schema: Int = FleetSQL.latestVersion) -> ColumnStatement {
        var columns: [ColumnStatement.Column] = []
        for (table, rows) in FleetSQL.rows(of: batch, schema: schema) {
            for (index, name) in table.columns.enumerated() {
                columns.append(
                    table.integers.contains(name)
                        ? .integer(rows.map { $0[index].integer }) : .text(rows.map { $0[index].text }))
            }
        }
        let sql = BatchSQL.of(schema: schema)
        // A batch with watched states: from migration 7 one call writes both; at migration 6 their statement
        // (`watchedAsColumns`) follows the batch's in one transaction.
        if schema >= 6, let watched = watchedColumns(batch, schema: schema) {
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
        /// `columns` keeping the ids and devices of the history rows it adds, in the procedure's variables
        /// `checkin_ids` and `checkin_devices` (from migration 11, for `watchedSQL`).
        let columnsKeepingHistoryIDs: String
        /// The call of `writeProcedure` with a batch's columns.
        let call: String
        /// The call of `writeWatchedProcedure`.
        let callWatched: String

        /// The watched states' types and statement this version's procedure takes (`watchedSQL`).
        let watchedTypes: [String]
        let watchedSQLVersion: Int

        static let latest = BatchSQL(tables: [.devices, .deviceApps, .checkIns], watched: 11)
        /// Migrations 9 and 10.
        static let ddm = BatchSQL(tables: [.devices, .deviceApps, .checkIns], watched: 6)
        static let beforeDDM = BatchSQL(tables: [.devices, .deviceAppsBeforeDDM, .checkIns], watched: 6)

        static func of(schema: Int) -> BatchSQL { schema >= 11 ? latest : schema >= 9 ? ddm : beforeDDM }

        init(tables: [FleetSQL.Table], watched version: Int) {
            watchedSQLVersion = version
            watchedTypes = PostgresSQL.watchedTypes(schema: version)
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
                return FleetSQL.insertText(
                    into: table.name, columns: table.columns,
                    source: "SELECT * FROM unnest(\(arrays.joined(separator: ", ")))",
                    conflict: table.conflict)
            }
            // Every insert but the last is a `WITH` query; PostgreSQL runs each once, to completion.
            let before = "WITH " + inserts.dropLast().enumerated().map { "w\($0) AS (\($1))" }.joined(separator: ", ")
            columns = before + " " + inserts[inserts.count - 1]
            columnsKeepingHistoryIDs =
                before + ", history AS (\(inserts[inserts.count - 1]) RETURNING id, device) "
                + "SELECT array_agg(id), array_agg(device) INTO checkin_ids, checkin_devices FROM history"
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
        /// From migration 11 the batch's history rows are kept for their events (`columnsKeepingHistoryIDs`).
        var writeWatchedProcedure: String {
            let batch =
                watchedSQLVersion >= 11
                ? "DECLARE checkin_ids BIGINT[]; checkin_devices TEXT[]; BEGIN \(columnsKeepingHistoryIDs); "
                : "BEGIN \(columns); "
            let types = (columnTypes + watchedTypes).joined(separator: ", ")
            return "CREATE PROCEDURE mdmconf_write_checkins_watched(\(types)) LANGUAGE plpgsql AS $procedure$ \(batch)"
                + "\(watchedSQL(after: columnTypes.count, schema: watchedSQLVersion)); "
                + "COMMIT; END $procedure$"
        }

    }

    /// A device's latest check-ins, newest first, through `checkins_by_device`.
    static let checkIns =
        "SELECT id, device, received_at, replica, body FROM checkins WHERE device = $1 ORDER BY id DESC LIMIT $2"

    /// Removes the history received before the cutoff.
    /// From migration 11, a check-in an event not yet delivered is made from stays (`FleetSQL.madeFromCheckIns`).
    static func pruneCheckIns(schema: Int = FleetSQL.latestVersion) -> String {
        guard schema >= 11 else { return "DELETE FROM checkins WHERE received_at < $1" }
        return """
            DELETE FROM checkins WHERE received_at < $1 AND id NOT IN \
            (SELECT checkin FROM event_outbox WHERE \(FleetSQL.madeFromCheckIns))
            """
    }
}
