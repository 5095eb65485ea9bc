import CivilTime
import Fleet
import FleetStoreSQL
import Logging
import NIOPosix
import PostgresNIO

/// The store for several replicas serving one fleet: PostgreSQL through postgres-nio's connection pool, which
/// reconnects by itself when the database comes back. Migrations run under an advisory lock, so replicas that
/// start together migrate once.
public final class PostgresFleetStore: SQLFleetStore {
    public let location: PostgresLocation
    private let client: PostgresClient
    private let runTask: Task<Void, Never>
    private let logger: Logger
    /// Batches of check-ins are written on a connection of their own, outside the pool: leasing a pooled connection
    /// took 0.20-0.25 ms of a batch's 2.3 ms, and the batches are the serial part of taking check-ins. Connected when
    /// first needed and again after it failed; a write that finds it busy uses the pool.
    private let writingConfiguration: PostgresConnection.Configuration
    private let writingConnection = Locked(WritingConnection())
    private struct WritingConnection {
        var connection: PostgresConnection?
        var busy = false
        var closed = false
    }
    /// The connection holding the event dispatcher's advisory lock, while this replica holds it.
    private let dispatcherConnection = Locked<PostgresConnection?>(nil)
    /// The schema version batches are written for (`PostgresSQL.writeAsColumns`): the latest, or `upTo` in tests.
    private let schema: Int
    /// How long one read or transaction may wait for the database.
    public let operationTimeout: Duration

    public var description: String { location.description }

    /// Connects, checks the database answers, and migrates. `upTo` stops the migrations early (tests build older
    /// stores with it).
    public static func open(
        _ location: PostgresLocation, logger: Logger, connectTimeout: Duration = .seconds(10),
        operationTimeout: Duration = .seconds(10), upTo: Int = FleetSQL.latestVersion
    ) async throws -> PostgresFleetStore {
        // The pool's connections and the writing one, to the same database.
        var configuration: PostgresClient.Configuration
        var writing: PostgresConnection.Configuration
        let (user, password, database) = (location.user, location.password, location.database)
        if let socket = location.socketPath {
            configuration = .init(unixSocketPath: socket, username: user, password: password, database: database)
            writing = .init(unixSocketPath: socket, username: user, password: password, database: database)
        } else {
            let (host, port) = (location.host, location.port)
            configuration = .init(
                host: host, port: port, username: user, password: password, database: database, tls: .disable)
            writing = .init(
                host: host, port: port, username: user, password: password, database: database, tls: .disable)
        }
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = 8
        writing.options.connectTimeout = .seconds(connectTimeout.components.seconds)
        let client = PostgresClient(
            configuration: configuration, eventLoopGroup: Self.eventLoops, backgroundLogger: logger)
        let runTask = Task { await client.run() }
        let store = PostgresFleetStore(
            location: location, client: client, runTask: runTask, writing: writing, logger: logger,
            operationTimeout: operationTimeout, schema: min(upTo, FleetSQL.latestVersion))
        do {
            let seconds = Double(connectTimeout.components.seconds)
            try await withTimeout(seconds: seconds, "no answer within \(Int(seconds)) s") {
                try await store.migrate(upTo: upTo)
            }
        } catch {
            runTask.cancel()
            if let error = error as? FleetStoreError, error.kind == .tooNew { throw error }
            throw FleetStoreError(.unusable, "cannot use the PostgreSQL store \(location): \(Self.reason(error))")
        }
        return store
    }

    private init(
        location: PostgresLocation, client: PostgresClient, runTask: Task<Void, Never>,
        writing: PostgresConnection.Configuration, logger: Logger, operationTimeout: Duration, schema: Int
    ) {
        self.schema = schema
        self.writingConfiguration = writing
        (self.location, self.operationTimeout, self.client) = (location, operationTimeout, client)
        (self.runTask, self.logger) = (runTask, logger)
    }

    /// The event loops of every PostgreSQL connection: threads of their own, not the HTTP server's. On the server's
    /// loops a database answer waited behind the requests each loop was busy with, and a batch's `BEGIN`, statement
    /// and `COMMIT` are three answers in a row (a batch took 1.9-2.1 ms from `BEGIN` to the statement's answer
    /// there, 1.3-1.6 ms on these).
    static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

    static func reason(_ error: any Error) -> String {
        if let error = error as? FleetStoreError { return error.message }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError { return reason(inner) }
            if let inner = error.beginError ?? error.commitError { return reason(inner) }
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        return "\(error)"
    }

    // MARK: Migrations

    private func migrate(upTo target: Int) async throws {
        do {
            try await migrateInTransaction(upTo: target)
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError as? FleetStoreError { throw inner }
            throw error
        }
    }

    private func migrateInTransaction(upTo target: Int) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7415001)", logger: self.logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: FleetSQL.migrationsTable(.postgres)), logger: self.logger)
            let rows = try await connection.query(
                "SELECT COALESCE(MAX(version), 0)::BIGINT FROM mdmconf_migrations", logger: self.logger
            ).collect()
            let current = rows.first.flatMap { Self.values($0).first?.integer } ?? 0
            for migration in try FleetSQL.pending(
                from: current, to: target, .postgres, own: PostgresSQL.migrations, store: "\(self.location)")
            {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
                try await connection.query(
                    "INSERT INTO mdmconf_migrations (version, name, applied_at) VALUES (\(migration.version), \(migration.name), \(Instant.now.seconds))",
                    logger: self.logger)
            }
        }
    }

    public func schemaVersion() async throws -> Int {
        let rows = try await client.query("SELECT COALESCE(MAX(version), 0)::BIGINT FROM mdmconf_migrations").collect()
        return Int(rows.first.flatMap { Self.values($0).first?.integer } ?? 0)
    }

    // MARK: Writing

    /// A batch is one statement (`PostgresSQL.writeAsColumns`), committed before it answers or in a transaction of its
    /// own (`transaction(_:commits:on:logger:)`).
    public func write(_ batch: [CheckInRecord]) async throws {
        guard !batch.isEmpty else { return }
        let (queries, commits) = writing(batch)
        do {
            // The writing connection fails at once when the database is gone (its connect has a time-out, and a
            // check-in's write is bounded by `CheckInWriter`); the pool keeps a lease waiting, so its writes are
            // bounded here.
            if let connection = try await takeWritingConnection() {
                do {
                    try await Self.transaction(queries, commits: commits, on: connection, logger: logger).get()
                } catch {
                    giveBack(connection, broken: true)
                    throw error
                }
                giveBack(connection, broken: false)
            } else {
                try await bounded {
                    try await self.client.withConnection { connection in
                        try await Self.transaction(queries, commits: commits, on: connection, logger: self.logger).get()
                    }
                }
            }
        } catch {
            throw Self.refused(error)
        }
    }

    /// On the writing connection's event loop when it is connected and free: the check-in writer's next batch is
    /// taken and sent from there, with no task to wake in between. Otherwise through `write(_:)`.
    public func write(_ batch: [CheckInRecord], completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let connection = writingConnection.withLock { state -> PostgresConnection? in
            guard !batch.isEmpty, !state.busy, !state.closed, let connection = state.connection, !connection.isClosed
            else {
                return nil
            }
            state.busy = true
            return connection
        }
        guard let connection else {
            writeInTask(batch, completion: completion)
            return
        }
        let (queries, commits) = writing(batch)
        Self.transaction(queries, commits: commits, on: connection, logger: logger).whenComplete { result in
            switch result {
            case .success:
                self.giveBack(connection, broken: false)
                completion(.success(()))
            case .failure(let error):
                self.giveBack(connection, broken: true)
                completion(.failure(Self.refused(error)))
            }
        }
    }

    /// The queries that write `batch` (the batch; its watched states and their events), and whether they commit by
    /// themselves (the procedure, for a batch without watched states).
    private func writing(_ batch: [CheckInRecord]) -> (queries: [PostgresQuery], commits: Bool) {
        let statement = PostgresSQL.writeAsColumns(batch, schema: schema)
        let statements = [statement] + (PostgresSQL.watchedAsColumns(batch, schema: schema).map { [$0] } ?? [])
        return (statements.map(Self.query), statement.commits)
    }

    /// A statement whose parameters are whole columns, each bound as one array.
    static func query(_ statement: PostgresSQL.ColumnStatement) -> PostgresQuery {
        var binds = PostgresBindings(capacity: statement.columns.count)
        for column in statement.columns {
            switch column {
            case .text(let values): binds.append(ArrayParameter(text: values))
            case .integer(let values): binds.append(ArrayParameter(integers: values))
            }
        }
        return PostgresQuery(unsafeSQL: statement.sql, binds: binds)
    }

    private static func refused(_ error: any Error) -> FleetStoreError {
        FleetStoreError(.unavailable, "the PostgreSQL store refused a write: \(reason(error))")
    }

    /// `writes`, stored once they are answered: a statement that `commits` (migration 5's procedure) alone,
    /// others between `BEGIN` and `COMMIT`, all queued on `connection` together (it sends each as soon as the one
    /// before is answered), stored once `COMMIT` answered `COMMIT`. Completes on the connection's loop.
    ///
    /// They are queued on the connection's event loop, after checking there that it is open: a query handed to a
    /// connection that has just closed is dropped by PostgresNIO and never answered (a write waited for ever in a
    /// test that ended the connection), while one queued on an open connection fails when it closes.
    private static func transaction(
        _ writes: [PostgresQuery], commits: Bool, on connection: PostgresConnection, logger: Logger
    ) -> EventLoopFuture<Void> {
        let queued = connection.eventLoop.submit { () throws -> [EventLoopFuture<PostgresQueryResult>] in
            guard !connection.isClosed else {
                throw FleetStoreError(.unavailable, "the connection to PostgreSQL has closed")
            }
            if commits { return writes.map { connection.query($0, logger: logger) } }
            return [connection.query("BEGIN", logger: logger)] + writes.map { connection.query($0, logger: logger) }
                + [connection.query("COMMIT", logger: logger)]
        }
        return queued.flatMap { answers -> EventLoopFuture<Void> in
            if commits { return answers[0].map { _ in } }
            let commit = answers[answers.count - 1]
            let loop = connection.eventLoop
            let written = EventLoopFuture.andAllSucceed(Array(answers.dropLast()), on: loop)
            return written.flatMap { _ in commit }.flatMapThrowing { committed in
                guard committed.metadata.command == "COMMIT" else {
                    throw FleetStoreError(
                        .unavailable, "PostgreSQL ended the transaction with \(committed.metadata.command)")
                }
            }.flatMapError { error in
                // A failed transaction ends in ROLLBACK; the error is reported once that has answered.
                commit.map { _ in }.recover { _ in }.flatMapThrowing { throw error }
            }
        }
    }

    /// The writing connection, connected if need be; nil when another write has it.
    private func takeWritingConnection() async throws -> PostgresConnection? {
        enum Taken { case busy, connected(PostgresConnection), missing }
        let taken = writingConnection.withLock { state -> Taken in
            guard !state.busy, !state.closed else { return .busy }
            state.busy = true
            if let connection = state.connection, !connection.isClosed { return .connected(connection) }
            return .missing
        }
        switch taken {
        case .busy: return nil
        case .connected(let connection): return connection
        case .missing:
            do {
                let connection = try await PostgresConnection.connect(
                    on: Self.eventLoops.next(), configuration: writingConfiguration, id: 0, logger: logger)
                writingConnection.withLock { $0.connection = connection }
                return connection
            } catch {
                writingConnection.withLock { $0.busy = false }
                throw error
            }
        }
    }

    /// Returns the writing connection after a write; one that failed is closed, and the next write connects anew.
    private func giveBack(_ connection: PostgresConnection, broken: Bool) {
        let close = writingConnection.withLock { state -> Bool in
            state.busy = false
            guard broken || state.closed else { return false }
            if state.connection === connection { state.connection = nil }
            return true
        }
        // The connection is kept until it has closed (PostgresNIO asserts that a connection is closed when freed).
        if close { connection.close().whenComplete { _ in withExtendedLifetime(connection) {} } }
    }

    public func prune(checkInsBefore cutoff: Instant, rollupsBefore rollupCutoffDay: String) async throws -> Int {
        do {
            return try await bounded {
                try await self.client.withTransaction(logger: self.logger) { connection in
                    let prune = PostgresSQL.pruneCheckIns(schema: self.schema)
                    let rows = try await connection.query(
                        Self.query(
                            .init(
                                sql: "WITH gone AS (\(prune) RETURNING 1) SELECT COUNT(*) FROM gone",
                                values: [.integer(cutoff.seconds)])), logger: self.logger
                    ).collect()
                    try await connection.query(
                        Self.query(
                            .init(sql: FleetSQL.pruneRollups(dialect: .postgres), values: [.text(rollupCutoffDay)])),
                        logger: self.logger)
                    return Int(rows.first.flatMap { Self.values($0).first?.integer } ?? 0)
                }
            }
        } catch {
            throw FleetStoreError(.unavailable, "the PostgreSQL store refused a write: \(Self.reason(error))")
        }
    }

    private func run(_ statements: [FleetSQL.Statement]) async throws {
        do {
            try await bounded {
                try await self.client.withTransaction(logger: self.logger) { connection in
                    for statement in statements {
                        try await connection.query(Self.query(statement), logger: self.logger)
                    }
                }
            }
        } catch {
            throw FleetStoreError(.unavailable, "the PostgreSQL store refused a write: \(Self.reason(error))")
        }
    }

    /// `body`, or a failure after `operationTimeout`: while the database is gone the pool keeps a query waiting for
    /// a connection instead of failing it, and a request must get its 503 instead.
    private func bounded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let seconds = Double(operationTimeout.components.seconds)
        return try await withTimeout(seconds: seconds, "no answer within \(Int(seconds)) s", body)
    }

    // MARK: Reading

    private func rows(_ sql: String, _ values: [FleetSQL.Value]) async throws -> [[FleetSQL.Value]] {
        try await decoded(sql, values, Self.values)
    }

    /// The rows of one read, each made into a value by `decode` as it arrives.
    private func decoded<Row: Sendable>(
        _ sql: String, _ values: [FleetSQL.Value], _ decode: @escaping @Sendable (PostgresRow) throws -> Row
    ) async throws -> [Row] {
        try await folded(sql, values, into: []) { rows, row in rows.append(try decode(row)) }
    }

    /// The rows of one read, each taken into `result` by `take` as it arrives.
    private func folded<Result: Sendable>(
        _ sql: String, _ values: [FleetSQL.Value], into result: Result,
        _ take: @escaping @Sendable (inout Result, PostgresRow) throws -> Void
    ) async throws -> Result {
        do {
            return try await bounded {
                try await self.client.withConnection { connection in
                    let taken = Collected(result)
                    _ = try await connection.query(
                        Self.query(FleetSQL.Statement(sql: sql, values: values)), logger: self.logger
                    ) { row in try take(&taken.result, row) }.get()
                    return taken.result
                }
            }
        } catch {
            throw FleetStoreError(.unavailable, "the PostgreSQL store did not answer: \(Self.reason(error))")
        }
    }

    /// What a query's rows make as its event loop decodes them, one at a time (`onRow` calls come in order, on that
    /// loop), handed over once the query has ended.
    private final class Collected<Result>: @unchecked Sendable {
        var result: Result
        init(_ result: Result) { self.result = result }
    }

    /// A row of `FleetSQL.devices`/`device`, read cell by cell from the wire bytes (through `FleetSQL.Value`, or
    /// through PostgresNIO's generic decoding, this was a sixth of the CPU of a fleet scan).
    static func deviceState(_ row: PostgresRow) throws -> DeviceState {
        var cells = Cells(row)
        return try FleetSQL.deviceState(&cells)
    }

    /// A row of `FleetSQL.apps`/`appsOfDevice`: its device and state.
    static func appState(_ row: PostgresRow) throws -> (device: String, app: DeviceState.App) {
        var cells = Cells(row)
        return try FleetSQL.appState(&cells)
    }

    /// A row's cells in column order, as text and integers read straight from their bytes.
    struct Cells: FleetRowCells {
        var cells: PostgresRow.Iterator

        init(_ row: PostgresRow) { cells = row.makeIterator() }

        private mutating func next() throws -> PostgresCell {
            guard let cell = cells.next() else { throw FleetStoreError(.unavailable, "a row has too few columns") }
            return cell
        }

        mutating func optionalText() throws -> String? {
            try next().bytes.map { String(buffer: $0) }
        }

        /// The next cell's text; nil when it is null or the row has no more cells.
        mutating func trailingText() -> String? {
            cells.next()?.bytes.map { String(buffer: $0) }
        }

        mutating func optionalInteger() throws -> Int64? {
            let cell = try next()
            guard let bytes = cell.bytes else { return nil }
            let number: Int64? =
                switch (cell.format, bytes.readableBytes) {
                case (.binary, 8): bytes.getInteger(at: bytes.readerIndex, as: Int64.self)
                case (.binary, 4): bytes.getInteger(at: bytes.readerIndex, as: Int32.self).map(Int64.init)
                case (.binary, 2): bytes.getInteger(at: bytes.readerIndex, as: Int16.self).map(Int64.init)
                case (.text, _): Int64(String(buffer: bytes))
                default: nil
                }
            guard let number else { throw FleetStoreError(.unavailable, "\(cell.columnName) is not an integer") }
            return number
        }

    }

    public func devices(after: String?, limit: Int) async throws -> [DeviceState] {
        var devices = try await decoded(
            FleetSQL.devices(dialect: .postgres), [.text(after ?? ""), .integer(Int64(limit))], Self.deviceState)
        guard let last = devices.last?.device else { return devices }
        let apps = try await folded(
            FleetSQL.apps(dialect: .postgres, schema: schema), [.text(after ?? ""), .text(last)], into: DeviceApps()
        ) { apps, row in
            var cells = Cells(row)
            try apps.add(&cells)
        }
        apps.attach(to: &devices)
        return devices
    }

    public func device(_ id: String) async throws -> DeviceState? {
        guard var device = try await decoded(FleetSQL.device(dialect: .postgres), [.text(id)], Self.deviceState).first
        else { return nil }
        device.apps = try await decoded(
            FleetSQL.appsOfDevice(dialect: .postgres, schema: schema), [.text(id)], Self.appState
        ).map(
            \.app)
        return device
    }

    /// Pending deliveries due at `now`, oldest first (`FleetSQL.dueDeliveries`), read with bitmap scans off for the
    /// read's transaction (`PostgresSQL.dueReadSettings`).
    public func dueDeliveries(at now: Instant, limit: Int) async throws -> [OutboxDelivery] {
        do {
            return try await bounded {
                try await self.client.withTransaction(logger: self.logger) { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: PostgresSQL.dueReadSettings), logger: self.logger)
                    let rows = try await connection.query(
                        Self.query(
                            .init(
                                sql: FleetSQL.dueDeliveries(dialect: .postgres),
                                values: [.integer(now.seconds), .integer(Int64(limit))])), logger: self.logger
                    ).collect()
                    return rows.map(Self.values).compactMap(FleetSQL.delivery)
                }
            }
        } catch {
            throw FleetStoreError(.unavailable, "the PostgreSQL store did not answer: \(Self.reason(error))")
        }
    }

    public func checkIns(device: String, limit: Int) async throws -> [StoredCheckIn] {
        try await rows(PostgresSQL.checkIns, [.text(device), .integer(Int64(limit))]).compactMap(
            FleetSQL.storedCheckIn)
    }

    /// The dispatcher's lock: `pg_try_advisory_lock` on a connection kept for it, so the lock is held while the
    /// connection lives and released by PostgreSQL when it ends (the replica stopped or died).
    public func holdsDispatcherLock() async -> Bool {
        if let held = dispatcherConnection.withLock({ $0 }), !held.isClosed { return true }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: Self.eventLoops.next(), configuration: writingConfiguration, id: 1, logger: logger)
        } catch {
            logger.debug("the event dispatcher's lock cannot be tried: \(Self.reason(error))")
            return false
        }
        do {
            let rows = try await connection.query("SELECT pg_try_advisory_lock(7415003)", logger: logger).collect()
            if let held = try rows.first?.decode(Bool.self), held {
                dispatcherConnection.withLock { $0 = connection }
                return true
            }
        } catch {
            logger.debug("the event dispatcher's lock cannot be tried: \(Self.reason(error))")
        }
        try? await connection.close()
        return false
    }

    public func close() async throws {
        if let dispatcher = dispatcherConnection.withLock({ connection -> PostgresConnection? in
            defer { connection = nil }
            return connection
        }) {
            try? await dispatcher.close()
        }
        let writing = writingConnection.withLock { state -> PostgresConnection? in
            state.closed = true
            return state.busy ? nil : state.connection  // a write under way closes it when it ends
        }
        try? await writing?.close()
        runTask.cancel()
        await runTask.value
    }

    public var dialect: FleetSQL.Dialect { .postgres }

    /// `LISTEN mdmconf_catalog` on a connection of its own, re-established a second after it is lost.
    public func catalogNotifications() -> AsyncStream<Int>? {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let client = client
        let logger = logger
        let task = Task {
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: CatalogHistory.channel) { notifications in
                            continuation.yield(0)  // a publish may have come while nothing listened
                            for try await notification in notifications {
                                continuation.yield(Int(notification.payload) ?? 0)
                            }
                        }
                    }
                } catch {
                    logger.debug("LISTEN \(CatalogHistory.channel) lost: \(Self.reason(error)); again in 1 s")
                }
                try? await Task.sleep(for: .seconds(1))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    public func execute(_ statements: [FleetSQL.Statement]) async throws { try await run(statements) }

    public func rows(_ statement: FleetSQL.Statement) async throws -> [[FleetSQL.Value]] {
        try await rows(statement.sql, statement.values)
    }

    // MARK: Values

    static func query(_ statement: FleetSQL.Statement) -> PostgresQuery {
        var binds = PostgresBindings(capacity: statement.values.count)
        for value in statement.values {
            switch value {
            case .text(let text): binds.append(text)
            case .integer(let number): binds.append(number)
            case .null: binds.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: statement.sql, binds: binds)
    }

    /// A column of a batch as one array parameter, `TEXT[]` or `BIGINT[]`, in PostgreSQL's binary array format,
    /// whose elements may be NULL (PostgresNIO's own arrays have no NULL elements).
    struct ArrayParameter: PostgresDynamicTypeEncodable {
        private enum Elements {
            case text([String?])
            case integers([Int64?])
        }

        private let elements: Elements

        init(text: [String?]) { elements = .text(text) }
        init(integers: [Int64?]) { elements = .integers(integers) }

        var psqlType: PostgresDataType {
            switch elements {
            case .text: .textArray
            case .integers: .int8Array
            }
        }
        var psqlFormat: PostgresFormat { .binary }

        func encode<JSONEncoder: PostgresJSONEncoder>(
            into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
        ) {
            let count: Int
            let hasNull: Bool
            let element: PostgresDataType
            switch elements {
            case .text(let values): (count, hasNull, element) = (values.count, values.contains(nil), .text)
            case .integers(let values): (count, hasNull, element) = (values.count, values.contains(nil), .int8)
            }
            // Dimensions, whether any element is NULL, the element type; then the one dimension's size and lower
            // bound; then each element as its length (-1 for NULL) and bytes.
            buffer.writeInteger(count == 0 ? 0 : 1, as: Int32.self)
            buffer.writeInteger(hasNull ? 1 : 0, as: Int32.self)
            buffer.writeInteger(element.rawValue)
            guard count > 0 else { return }
            buffer.writeInteger(Int32(count))
            buffer.writeInteger(1, as: Int32.self)
            switch elements {
            case .text(let values):
                for value in values {
                    guard let value else {
                        buffer.writeInteger(-1, as: Int32.self)
                        continue
                    }
                    buffer.writeInteger(Int32(value.utf8.count))
                    buffer.writeString(value)
                }
            case .integers(let values):
                for value in values {
                    guard let value else {
                        buffer.writeInteger(-1, as: Int32.self)
                        continue
                    }
                    buffer.writeInteger(8, as: Int32.self)
                    buffer.writeInteger(value)
                }
            }
        }
    }

    static func values(_ row: PostgresRow) -> [FleetSQL.Value] {
        row.map { cell in
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int2, .int4, .int8: return (try? cell.decode(Int64.self)).map(FleetSQL.Value.integer) ?? .null
            default: return (try? cell.decode(String.self)).map(FleetSQL.Value.text) ?? .null
            }
        }
    }
}
