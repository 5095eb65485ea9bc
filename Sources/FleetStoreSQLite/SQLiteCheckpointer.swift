import CSQLite3
import Fleet

/// Copies the store's write-ahead log into its database file on a connection and a thread of its own, so the
/// writer only appends to the log and syncs it. Left to SQLite, the connection that commits past the
/// `wal_autocheckpoint` threshold copies the log itself, syncs the database file, and holds the next batch of
/// check-ins meanwhile. A checkpoint here is `PASSIVE`: it copies what no reader still needs and never waits for
/// the writer, nor makes it wait; the writer's own threshold stays, raised, for when this one falls behind.
///
/// A committed batch asks for a checkpoint (``wrote()``); they run one after another, at most one every
/// ``pause`` milliseconds, and none while nothing is written.
final class SQLiteCheckpointer: Sendable {
    private struct State {
        /// A checkpoint is running or waits out its pause.
        var running = false
        /// A batch was committed since the running checkpoint started.
        var again = false
        var closed = false
        /// Checkpoints run (tests).
        var runs = 0
    }

    /// Milliseconds between two checkpoints.
    static let pause: Int32 = 100
    /// Milliseconds slept at a time during the pause.
    static let slice: Int32 = 5

    private let connection: SQLiteThreadConnection
    private let state = Locked(State())

    /// A checkpointer on `connection`, which it owns.
    init(connection: SQLiteThreadConnection) {
        self.connection = connection
    }

    /// Checkpoints run so far.
    var runs: Int { state.withLock { $0.runs } }

    /// After a commit: starts a checkpoint, or asks the running one for another after its pause.
    func wrote() {
        let start = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            guard !state.running else {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        if start { connection.submit { self.checkpoint(on: $0) } }
    }

    /// On the checkpointing thread: checkpoints until no batch was committed during the last one and its pause.
    private func checkpoint(on connection: SQLiteThreadConnection?) {
        guard let connection else {
            state.withLock { $0.running = false }
            return
        }
        while true {
            // A busy database or a failed copy is left to the next checkpoint, or to the writer's own threshold.
            _ = try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            state.withLock { $0.runs += 1 }
            // The pause in slices, so that closing the store (a command's last step) waits for at most one.
            var paused: Int32 = 0
            while paused < Self.pause, !state.withLock({ $0.closed }) {
                sqlite3_sleep(Self.slice)
                paused += Self.slice
            }
            let more = state.withLock { state -> Bool in
                guard state.again, !state.closed else {
                    state.running = false
                    return false
                }
                state.again = false
                return true
            }
            if !more { return }
        }
    }

    /// Stops checkpointing and closes the connection (after the running checkpoint, if any).
    func close() async throws {
        state.withLock { $0.closed = true }
        try await connection.close()
    }
}
