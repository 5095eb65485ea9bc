// SQLite's C API from the system's library (`CSQLite3`, pkg-config `sqlite3`). It is the one copy of SQLite in the
// process; two copies of SQLite must never open the same file, as their locks would not see each other.
import CSQLite3
import Fleet
import FleetStoreSQL
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connection to the store's file, driven through SQLite's C API on a thread of its own: the store's writer and
/// its readers. A whole transaction, or a whole read, is one job on that thread. Through sqlite-nio's API every
/// statement was a hop to its thread pool and back to a task through an event loop, and a batch of check-ins
/// waited for five of them in turn, each behind the server's request tasks (the writer, which is serial, spent
/// more time waiting than writing); every row read came as a row of named columns behind the connection's mutex.
/// The store's own statements are prepared once and kept.
///
/// Only the one thread of `thread` touches `handle` and `prepared`, which is what makes the class sendable; the
/// connection is opened without SQLite's own mutex for that reason.
final class SQLiteThreadConnection: @unchecked Sendable {
    private let thread: NIOThreadPool
    private var handle: OpaquePointer?
    /// Statements kept prepared, by SQL text (the store's few statement texts).
    private var prepared: [String: OpaquePointer] = [:]
    /// The last few of them used, looked at first: a batch of check-ins runs the same few statements row after row,
    /// each with the same text, and finding one in `prepared` hashed its whole text every time (a few thousand
    /// instructions a row). Comparing texts that share their storage takes a few.
    private var recent: [(sql: String, statement: OpaquePointer)] = []
    let path: String

    /// Opens (creating when missing) the database at `path` on a new thread.
    static func open(path: String) async throws -> SQLiteThreadConnection {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        let writer = SQLiteThreadConnection(path: path, thread: thread)
        do {
            try await writer.run { connection in try connection.open() }
        } catch {
            try? await thread.shutdownGracefully()
            throw error
        }
        return writer
    }

    private init(path: String, thread: NIOThreadPool) {
        self.path = path
        self.thread = thread
    }

    /// `body` on the connection's thread.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteThreadConnection) throws -> T) async throws -> T {
        try await thread.runIfActive { try body(self) }
    }

    /// `body` on the connection's thread, given nil when the thread has stopped (then at once, on the caller's).
    func submit(_ body: @escaping @Sendable (SQLiteThreadConnection?) -> Void) {
        thread.submit { state in body(state == .active ? self : nil) }
    }

    /// `body`, then `COMMIT`; `ROLLBACK` when either throws. Call from `run`, after a `BEGIN`.
    func commit<T>(after body: () throws -> T) throws -> T {
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // After some errors (a full disk, I/O) SQLite has already rolled back; ROLLBACK then fails harmlessly.
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `sql` with `values` bound (`?1`…) to its end, returning its rows. With `keep`, the prepared statement is
    /// kept for the next time the same text runs. Call from `run`.
    @discardableResult
    func execute(_ sql: String, _ values: [FleetSQL.Value] = [], keep: Bool = false) throws -> [[FleetSQL.Value]] {
        try query(sql, values, keep: keep) { cells in cells.values() }
    }

    /// `execute`, each row made into a value by `decode` from its cells as the statement stands on it.
    func query<Row>(
        _ sql: String, _ values: [FleetSQL.Value] = [], keep: Bool = false, _ decode: (inout SQLiteCells) throws -> Row
    ) throws -> [Row] {
        try query(sql, values, keep: keep, into: []) { rows, cells in rows.append(try decode(&cells)) }
    }

    /// `execute`, each row taken into `result` by `take` from its cells as the statement stands on it.
    func query<Result>(
        _ sql: String, _ values: [FleetSQL.Value] = [], keep: Bool = false, into result: Result,
        _ take: (inout Result, inout SQLiteCells) throws -> Void
    ) throws -> Result {
        let statement: OpaquePointer
        if keep, let last = recent.first(where: { $0.sql == sql }) {
            statement = last.statement
        } else if keep, let kept = prepared[sql] {
            statement = kept
            remember(sql, kept)
        } else {
            var made: OpaquePointer?
            let flags = keep ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
            try check(sqlite3_prepare_v3(handle, sql, -1, flags, &made, nil))
            guard let made else { return result }  // only white space or a comment
            statement = made
            if keep {
                prepared[sql] = made
                remember(sql, made)
            }
        }
        defer {
            if keep {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            } else {
                sqlite3_finalize(statement)
            }
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .text(var text):
                // The text's own bytes (SQLite copies them): passed as a C string, each was copied into a new
                // array first. An empty text still gets a pointer, or SQLite would bind NULL.
                try text.withUTF8 { bytes in
                    try check(
                        sqlite3_bind_text64(
                            statement, index,
                            bytes.baseAddress.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(Self.empty.utf8Start),
                            UInt64(bytes.count), Self.transient, UInt8(SQLITE_UTF8)))
                }
            case .integer(let number): try check(sqlite3_bind_int64(statement, index, number))
            case .null: try check(sqlite3_bind_null(statement, index))
            }
        }
        var result = result
        var cells = SQLiteCells(statement: statement, count: sqlite3_column_count(statement))
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return result }
            guard step == SQLITE_ROW else { throw failure(step) }
            cells.startRow()
            try take(&result, &cells)
        }
    }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`. Call from `run`.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Closes the connection and stops its thread.
    func close() async throws {
        try await run { connection in connection.closeHandle() }
        try await thread.shutdownGracefully()
    }

    /// SQLite's process-wide settings, made once before the first connection opens: no memory statistics (a global
    /// mutex on every allocation; Debian's SQLite keeps them on). Its value is SQLite's answer (`SQLITE_OK`).
    static let processSettings: Int32 = mdmconf_sqlite3_disable_memory_statistics()

    private func open() throws {
        _ = Self.processSettings
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let error = failure(status)
            closeHandle()
            throw error
        }
    }

    /// Puts a kept statement first among the `recent` ones (eight at most: a transaction's statements).
    private func remember(_ sql: String, _ statement: OpaquePointer) {
        if recent.count == 8 { recent.removeLast() }
        recent.insert((sql, statement), at: 0)
    }

    private func closeHandle() {
        for statement in prepared.values { sqlite3_finalize(statement) }
        prepared.removeAll()
        recent.removeAll()
        sqlite3_close_v2(handle)
        handle = nil
    }

    private func check(_ status: Int32) throws {
        guard status == SQLITE_OK else { throw failure(status) }
    }

    private func failure(_ status: Int32) -> SQLiteCallError {
        let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return SQLiteCallError(
            status: status, message: message ?? String(cString: sqlite3_errstr(status)))
    }

    /// SQLite copies a bound text before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    /// Where an empty text's no bytes are.
    private static let empty: StaticString = ""
}

/// A failed call on the writing connection: SQLite's result code and its message ("database is locked").
struct SQLiteCallError: Error, CustomStringConvertible {
    let status: Int32
    let message: String
    var description: String { message }
}

/// The cells of the row a statement stands on, read in column order straight from SQLite's buffers.
struct SQLiteCells: FleetRowCells {
    let statement: OpaquePointer
    let count: Int32
    private var column: Int32 = 0
    private var recent: RecentTexts

    init(statement: OpaquePointer, count: Int32) {
        self.statement = statement
        self.count = count
        recent = RecentTexts(columns: Int(count))
    }

    /// The statement stands on its next row: its cells are read from the first column again.
    mutating func startRow() { column = 0 }

    private mutating func next() throws -> Int32 {
        guard column < count else { throw FleetStoreError(.unavailable, "a row has too few columns") }
        defer { column += 1 }
        return column
    }

    /// The bytes of `column`'s text, nil when it is NULL.
    private func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard sqlite3_column_type(statement, column) != SQLITE_NULL, let bytes = sqlite3_column_text(statement, column)
        else { return nil }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// The text of `column`, nil when it is NULL.
    private func text(_ column: Int32) -> String? {
        bytes(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `text(column)`, the same string as a row before when the column held the same text there (`RecentTexts`).
    private mutating func recentText(_ column: Int32) -> String? {
        bytes(column).map { recent.text($0, column: Int(column)) }
    }

    mutating func optionalText() throws -> String? { recentText(try next()) }

    mutating func trailingText() -> String? { (try? next()).flatMap { recentText($0) } }

    mutating func optionalInteger() throws -> Int64? {
        let column = try next()
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER, SQLITE_FLOAT: return sqlite3_column_int64(statement, column)
        default:
            guard let number = text(column).flatMap({ Int64($0) }) else {
                throw FleetStoreError(.unavailable, "column \(column) is not an integer")
            }
            return number
        }
    }

    /// Every cell of the row as a value (an integer, text or NULL, as SQLite stores it).
    func values() -> [FleetSQL.Value] {
        (0..<count).map { column in
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER, SQLITE_FLOAT: .integer(sqlite3_column_int64(statement, column))
            case SQLITE_TEXT: text(column).map(FleetSQL.Value.text) ?? .null
            default: .null
            }
        }
    }
}

/// The last few texts each column held, longer than a small string (15 bytes), so that a text a column repeats row
/// after row (an app's id, an ETag, a time zone) is made once and shared instead of decoded and allocated for every
/// row. A column whose texts rarely repeat (device ids) stops being looked up after its first misses.
struct RecentTexts {
    private static let perColumn = 4
    private var texts: [String]
    private var next: [Int]
    private var hits: [Int]
    private var misses: [Int]

    init(columns: Int) {
        texts = Array(repeating: "", count: columns * Self.perColumn)
        next = Array(repeating: 0, count: columns)
        hits = next
        misses = next
    }

    /// `String(decoding: bytes, as: UTF8.self)`, or the same string read before in `column`.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, column: Int) -> String {
        guard bytes.count > 15, column < next.count, let base = bytes.baseAddress,
            misses[column] < 64 || hits[column] * 4 >= misses[column]
        else { return String(decoding: bytes, as: UTF8.self) }
        let first = column * Self.perColumn
        for slot in first..<first + Self.perColumn where texts[slot].utf8.count == bytes.count {
            // A stored text is valid UTF-8, so equal bytes decode to it.
            let same = texts[slot].utf8.withContiguousStorageIfAvailable { stored in
                stored.baseAddress.map { memcmp($0, base, bytes.count) == 0 } ?? false
            }
            if same == true {
                hits[column] += 1
                return texts[slot]
            }
        }
        misses[column] += 1
        let made = String(decoding: bytes, as: UTF8.self)
        texts[first + next[column]] = made
        next[column] = (next[column] + 1) % Self.perColumn
        return made
    }
}
