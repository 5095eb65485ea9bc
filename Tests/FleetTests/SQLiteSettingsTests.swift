import CSQLite3
import Foundation
import Testing

@testable import FleetStoreSQLite

/// SQLite's process-wide settings are made before the store's first connection opens.
@Suite struct SQLiteSettingsTests {
    /// Memory statistics are off (each allocation would otherwise take a process-wide mutex): SQLite accepted the
    /// setting, and counts no memory in use while a connection is open.
    @Test func memoryStatisticsAreOff() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mdmconf-\(UUID()).sqlite").path
        let connection = try await SQLiteThreadConnection.open(path: path)
        let used = sqlite3_memory_used()
        try await connection.close()
        try FileManager.default.removeItem(atPath: path)
        #expect(SQLiteThreadConnection.processSettings == SQLITE_OK)
        #expect(used == 0)
    }
}
