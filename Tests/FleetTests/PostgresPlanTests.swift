import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import Testing

@testable import FleetStorePostgres
@testable import FleetStoreSQL

/// The plans PostgreSQL chooses for the outbox's reads, whatever its statistics say.
@Suite struct PostgresPlanTests {
    /// The due deliveries are read from the first entries of the due index, in order, even when the outbox's
    /// statistics were gathered with few rows pending: PostgreSQL had then fetched every pending row through a
    /// bitmap and sorted them (33 ms a read at 120,000 pending). The outbox here has never been analysed.
    @Test(
        .enabled(
            if: StoreKind.available.contains(.postgres),
            "needs PostgreSQL: run the tests through Tests/with-postgres.sh (CI always does)"))
    func postgreSQLReadsDueDeliveriesInTheIndexOrder() async throws {
        guard case .postgres(let postgres) = try TestStores.freshLocation(.postgres) else {
            Issue.record("a PostgreSQL location is not a PostgreSQL location")
            return
        }
        let store = try await TestStores.open(.postgres(postgres))
        let bin = ProcessInfo.processInfo.environment["MDMCONF_TEST_POSTGRES_BIN"] ?? "/usr/bin"
        func psql(_ sql: String) throws -> String {
            try Spawn.run([
                bin + "/psql", "-h", postgres.host, "-p", String(postgres.port), "-U", postgres.user, "-d",
                postgres.database, "-qtA", "-v", "ON_ERROR_STOP=1", "-c", sql,
            ])
        }
        _ = try psql(
            """
            ALTER TABLE event_outbox SET (autovacuum_enabled = false);
            INSERT INTO event_outbox (event_id, endpoint, type, subject, body, created_at, next_attempt)
            SELECT 'evt_' || g, 'ops', 'io.mdmconf.test', 'd', '{}', g / 100, g / 100 FROM generate_series(1, 20000) g;
            """)
        // The read as the store runs it: its settings, then its statement.
        let plan = try psql(
            """
            BEGIN; \(PostgresSQL.dueReadSettings);
            PREPARE due(bigint, bigint) AS \(FleetSQL.dueDeliveries(dialect: .postgres));
            EXPLAIN EXECUTE due(1000000, 256); COMMIT;
            """)
        #expect(plan.contains("Index Scan using event_outbox_due"), "\(plan)")
        #expect(!plan.contains("Bitmap"), "\(plan)")
        let due = try await store.dueDeliveries(at: Instant(seconds: 1_000_000), limit: 256)
        #expect(due.map(\.event.eventID) == (1...256).map { "evt_\($0)" })
        try await store.close()
    }
}
