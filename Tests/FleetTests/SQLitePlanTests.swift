import CSQLite3
import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import TestScratch
import Testing

@testable import FleetStoreSQL
@testable import FleetStoreSQLite

/// The plans SQLite chooses for statements whose cost must not grow with the outbox.
@Suite struct SQLitePlanTests {
    /// Recording a batch's outcomes finds each delivery by its id. SQLite had taken the due index for
    /// `state = 'pending'` and read every pending delivery's entry: a batch's record grew with the backlog.
    @Test func outcomesAreRecordedByID() async throws {
        let path = Scratch.url("mdmconf-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try await SQLiteFleetStore.open(path: path, logger: TestStores.logger)
        try await store.close()
        var database: OpaquePointer?
        #expect(sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close(database) }
        let outcomes: [EventOutbox.Outcome] = [
            .delivered(id: 1, status: 204), .delivered(id: 2, status: 204),
            .failed(id: 3, status: 500, error: "the endpoint answered 500", next: Instant(seconds: 2_000)),
        ]
        let statements = FleetSQL.outcomeStatements(outcomes, at: Instant(seconds: 1_000), dialect: .sqlite)
        #expect(statements.count == 2)
        for statement in statements {
            var plan: OpaquePointer?
            #expect(sqlite3_prepare_v2(database, "EXPLAIN QUERY PLAN " + statement.sql, -1, &plan, nil) == SQLITE_OK)
            defer { sqlite3_finalize(plan) }
            var details: [String] = []
            while sqlite3_step(plan) == SQLITE_ROW { details.append(String(cString: sqlite3_column_text(plan, 3))) }
            #expect(details.contains { $0.contains("INTEGER PRIMARY KEY") }, "\(statement.sql): \(details)")
            #expect(!details.contains { $0.contains("event_outbox_due") }, "\(statement.sql): \(details)")
        }
    }
}
