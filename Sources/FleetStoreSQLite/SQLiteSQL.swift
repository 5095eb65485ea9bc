import CivilTime
import Fleet
import FleetStoreSQL

/// The SQL only SQLite runs: the linked check-in history (migration 4), a batch written row by row, and the reads
/// and deletes of the linked history.
enum SQLiteSQL {
    typealias Statement = FleetSQL.Statement

    /// This driver's statements of each migration, after the shared ones.
    static let migrations = [4: linkedHistory]

    /// SQLite's history without `checkins_by_device`: that index took a page of the WAL for nearly every check-in
    /// (its entries are in device order, so a batch's check-ins land on as many pages), two thirds of what a commit
    /// wrote. Instead each check-in records its device's previous one (`previous`) and the device row its latest
    /// (`last_history`, kept by a trigger), pages a batch already writes; a device's history is read by following
    /// the links (`checkIns`). SQLite has one writer, so the links are made in the order rows are stored.
    /// PostgreSQL, whose replicas write side by side, keeps the index.
    static let linkedHistory = [
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

    /// One statement of a batch, and how it runs.
    struct Step: Sendable {
        enum Role: Sendable, Equatable {
            /// It always runs.
            case always
            /// It stores a watched state; whether it changed a row (a new value) decides the `ifChanged` steps
            /// after it.
            case watchedState
            /// It runs only when the `watchedState` step before it changed a row: an event of that change.
            case ifChanged
        }

        var statement: Statement
        var role: Role = .always
    }

    /// SQLite: the statements that store `batch`, to run in one transaction, a row each. The store keeps their few
    /// texts prepared (multi-row statements were compiled anew for every batch size), and a linked history row reads
    /// the link the row before it left. `schema` is the store's migration (tests write stores of older ones).
    static func writeRowByRow(_ batch: [CheckInRecord], schema: Int = FleetSQL.latestVersion) -> [Step] {
        FleetSQL.rows(of: batch, schema: schema).flatMap { table, rows in
            FleetSQL.insert(
                into: table.name, columns: table.columns, rows: rows, conflict: table.conflict, dialect: .sqlite,
                rowsPerStatement: 1, linked: table.linked && schema >= 4
            ).map { Step(statement: $0) }
        } + (schema >= 6 ? watchedRowByRow(batch, schema: schema) : [])
    }

    /// SQLite: each watched state stored unless the stored value is the same, then its events, which run only when
    /// it was stored (SQLite counts an upsert that left the row as it was as no change). From migration 11, an event
    /// whose body is made at delivery records its check-in: the device's latest, which the batch has just stored
    /// (`last_history`).
    static func watchedRowByRow(_ batch: [CheckInRecord], schema: Int = FleetSQL.latestVersion) -> [Step] {
        var steps: [Step] = []
        for (device, at, state) in FleetSQL.watched(of: batch) {
            steps.append(
                Step(
                    statement: Statement(
                        sql: stateUpsert,
                        values: [.text(device), .text(state.kind), .text(state.value), .integer(at.seconds)]),
                    role: .watchedState))
            for event in state.events {
                var values: [FleetSQL.Value] = [
                    .text(event.eventID), .text(event.endpoint), .text(event.type), .text(event.subject),
                    .text(event.body), .integer(event.createdAt.seconds),
                ]
                if schema >= 11 { values += [.optional(event.madeFrom.map(Int64.init)), .text(device)] }
                steps.append(
                    Step(
                        statement: Statement(sql: schema >= 11 ? outboxInsertMadeFrom : outboxInsert, values: values),
                        role: .ifChanged))
            }
        }
        return steps
    }

    /// A watched state stored when it is new or its value differs; a row changed exactly then.
    static let stateUpsert = """
        INSERT INTO event_state (device, kind, value, changed_at) VALUES (?1, ?2, ?3, ?4) \
        ON CONFLICT (device, kind) DO UPDATE SET value = excluded.value, changed_at = excluded.changed_at \
        WHERE event_state.value <> excluded.value
        """

    /// An event of a changed state (migrations 6–10).
    static let outboxInsert = """
        INSERT INTO event_outbox (event_id, endpoint, type, subject, body, created_at, next_attempt) \
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
        """

    /// `outboxInsert` with the generation an event's body is made from at delivery (?7), and then the check-in of
    /// device ?8 it is made from.
    static let outboxInsertMadeFrom = """
        INSERT INTO event_outbox (event_id, endpoint, type, subject, body, created_at, next_attempt, generation, \
        checkin) \
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, CASE WHEN ?7 IS NULL THEN NULL ELSE \
        (SELECT last_history FROM devices WHERE device = ?8) END)
        """

    /// A device's latest check-ins, newest first, by following the links from the device's latest check-in
    /// (migration 4), at most the limit's number of steps.
    static let checkIns = """
        WITH RECURSIVE chain (id, step) AS (SELECT last_history, 1 FROM devices WHERE device = ?1 AND ?2 > 0 \
        UNION ALL SELECT checkins.previous, chain.step + 1 FROM chain JOIN checkins ON checkins.id = chain.id \
        WHERE chain.step < ?2) \
        SELECT checkins.id, checkins.device, checkins.received_at, checkins.replica, checkins.body \
        FROM chain JOIN checkins ON checkins.id = chain.id WHERE checkins.device = ?1 ORDER BY checkins.id DESC
        """

    /// Removes the history received before the cutoff, oldest first, up to the first check-in stored that was
    /// received at or after the cutoff: what stays is whole at its old end, so each device's links lead to all of its
    /// check-ins that stay. It finds that check-in by reading the history in storage order from the oldest, which is
    /// what goes. (Only a clock set back makes the two differ: a check-in stamped before the cutoff but stored after a
    /// later-stamped one then stays until a later prune.)
    /// From migration 11 it also stops at the oldest check-in an event not yet delivered is made from
    /// (`FleetSQL.madeFromCheckIns`), so every such event can still be sent.
    static func pruneCheckIns(schema: Int = FleetSQL.latestVersion) -> String {
        let cutoff = """
            COALESCE((SELECT id FROM checkins NOT INDEXED WHERE received_at >= ?1 ORDER BY id LIMIT 1), \
            (SELECT MAX(id) + 1 FROM checkins))
            """
        guard schema >= 11 else { return "DELETE FROM checkins WHERE id < \(cutoff)" }
        return """
            DELETE FROM checkins WHERE id < MIN(\(cutoff), \
            COALESCE((SELECT MIN(checkin) FROM event_outbox WHERE \(FleetSQL.madeFromCheckIns)), \(Int64.max)))
            """
    }
}
