import CSQLite3
import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import TestScratch
import Testing

@testable import FleetStoreSQLite

/// SQLite's process-wide settings are made before the store's first connection opens.
@Suite struct SQLiteSettingsTests {
    /// Memory statistics are off (each allocation would otherwise take a process-wide mutex): SQLite accepted the
    /// setting, and counts no memory in use while a connection is open.
    @Test func memoryStatisticsAreOff() async throws {
        let path = Scratch.url("mdmconf-\(UUID()).sqlite").path
        let connection = try await SQLiteThreadConnection.open(path: path)
        let used = sqlite3_memory_used()
        try await connection.close()
        try FileManager.default.removeItem(atPath: path)
        #expect(SQLiteThreadConnection.processSettings == SQLITE_OK)
        #expect(used == 0)
    }

    /// The write-ahead log is copied into the database file by the checkpointer, on its own connection, while
    /// batches are written (the writer's own threshold, 64 MB, is far off), and nothing is checkpointed while nothing
    /// is written.
    @Test func theCheckpointerCopiesTheLogWhileBatchesAreWritten() async throws {
        let path = Scratch.url("mdmconf-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try await SQLiteFleetStore.open(path: path, logger: TestStores.logger)
        func size(_ file: String) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        }
        // Migrations are written, and checkpointed, before this point: wait for that to end.
        for _ in 0..<50 where store.checkpoints == 0 { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(300))
        let (before, migrated) = (try size(path), store.checkpoints)
        for batch in 0..<10 {
            try await store.write(
                (0..<100).map { index in
                    TestStores.record(
                        "device-\(batch)-\(index)", at: 1_000 + Int64(batch),
                        apps: [CheckIn.App(app: "com.example.field", version: "3.2.\(index)")])
                })
        }
        for _ in 0..<50 where try size(path) <= before + 100_000 { try await Task.sleep(for: .milliseconds(100)) }
        let after = try size(path)
        #expect(after > before + 100_000, "the database file holds the batches: \(before) → \(after) bytes")
        #expect(store.checkpoints > migrated)
        // Idle: the last checkpoint ends after its pause, and no other starts.
        try await Task.sleep(for: .milliseconds(400))
        let idle = store.checkpoints
        try await Task.sleep(for: .milliseconds(400))
        #expect(store.checkpoints == idle)
        #expect(try await store.devices(after: nil, limit: 2_000).count == 1_000)
        try await store.close()
    }
}
