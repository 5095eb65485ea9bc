import CivilTime
import MDMConf
import PropertyList

/// One published catalog generation: its number, what it holds and who published it why.
public struct CatalogGeneration: Sendable, Equatable {
    /// The generation's number, from 1, increasing.
    public var number: Int
    /// `CatalogFiles.contentHash` (MDMConf) of its files.
    public var contentHash: String
    /// Who published it.
    public var author: String
    /// Why (the `--message`).
    public var message: String
    /// When it was published.
    public var createdAt: Instant
    /// `publish`, `rollback` or `abort` (then ``source`` is the generation whose content it republished).
    public var kind: String
    /// For a rollback or abort: the generation whose content it republished.
    public var source: Int?
    /// How many files it holds.
    public var files: Int
}

/// The catalog's history in the fleet store: generations are only ever added (a rollback publishes an old
/// generation's content again), and each file's bytes are stored once per content hash.
public struct CatalogHistory: Sendable {
    /// The store the history lives in.
    public let store: any FleetStore

    /// The history in `store`.
    public init(store: any FleetStore) { self.store = store }

    /// What a publish did.
    public enum PublishOutcome: Sendable, Equatable {
        /// A new generation; `previous` is the one before it (nil for the first).
        case published(CatalogGeneration, previous: CatalogGeneration?)
        /// The content equals the newest generation's: nothing was written.
        case unchanged(CatalogGeneration)
    }

    static let columns = "generation, content_hash, author, message, created_at, kind, source, files"

    /// The newest generation, or nil before the first publish.
    public func latest() async throws -> CatalogGeneration? {
        try await store.rows(
            FleetSQL.Statement(
                sql: "SELECT \(Self.columns) FROM catalog_generations ORDER BY generation DESC LIMIT 1", values: [])
        ).first.flatMap(Self.generation)
    }

    /// Newest first.
    public func generations(limit: Int = 1_000) async throws -> [CatalogGeneration] {
        try await store.rows(
            FleetSQL.Statement(
                sql:
                    "SELECT \(Self.columns) FROM catalog_generations ORDER BY generation DESC LIMIT \(store.dialect.parameter(1))",
                values: [.integer(Int64(limit))])
        ).compactMap(Self.generation)
    }

    /// Generation `number`, or nil when there is none.
    public func generation(_ number: Int) async throws -> CatalogGeneration? {
        try await store.rows(
            FleetSQL.Statement(
                sql: "SELECT \(Self.columns) FROM catalog_generations WHERE generation = \(store.dialect.parameter(1))",
                values: [.integer(Int64(number))])
        ).first.flatMap(Self.generation)
    }

    /// The files of a generation; nil when there is no such generation.
    public func files(of number: Int) async throws -> CatalogFiles? {
        guard try await generation(number) != nil else { return nil }
        let rows = try await store.rows(
            FleetSQL.Statement(
                sql: """
                    SELECT f.path, b.content FROM catalog_files f JOIN catalog_blobs b ON b.hash = f.hash \
                    WHERE f.generation = \(store.dialect.parameter(1))
                    """,
                values: [.integer(Int64(number))]))
        var files: [String: [UInt8]] = [:]
        for row in rows {
            guard row.count == 2, let path = row[0].text, let content = row[1].text,
                case .success(let bytes) = Base64.decode(Array(content.utf8))
            else { throw FleetStoreError(.unusable, "generation \(number) holds a file that cannot be decoded") }
            files[path] = bytes
        }
        return CatalogFiles(files)
    }

    /// Stores `files` as the next generation, unless they equal the newest one. The files' bytes are written only
    /// for hashes the store does not hold yet; the generation, its file list, the events `events` makes of it (the
    /// outbox), the start of its rollout when `rollout` is given (else it goes to every device at once), the
    /// statements `also` adds and (on PostgreSQL) the notification to replicas are one transaction. A publish that
    /// loses the race for the next number to another is tried again on top of it.
    public func publish(
        _ files: CatalogFiles, author: String, message: String, kind: String = "publish", source: Int? = nil,
        at time: Instant = .now, rollout: RolloutPlan? = nil,
        events: @Sendable (CatalogGeneration, _ previous: CatalogGeneration?) -> [OutboxEvent] = { _, _ in [] },
        also: @Sendable (CatalogGeneration, _ previous: CatalogGeneration?) -> [FleetSQL.Statement] = { _, _ in [] }
    ) async throws -> PublishOutcome {
        var attempt = 0
        while true {
            let previous = try await latest()
            if let previous, previous.contentHash == files.contentHash { return .unchanged(previous) }
            let generation = CatalogGeneration(
                number: (previous?.number ?? 0) + 1, contentHash: files.contentHash, author: author, message: message,
                createdAt: Instant(seconds: time.seconds), kind: kind, source: source, files: files.files.count)
            var extra = also(generation, previous)
            if let rollout {
                guard let previous else {
                    throw RolloutError("the first generation of a store goes to every device: publish it without --rollout")
                }
                extra += CatalogRollouts.start(
                    rollout, generation: generation.number, base: previous.number, at: generation.createdAt,
                    author: author, dialect: store.dialect)
            }
            do {
                try await store.execute(
                    try await statements(
                        files, generation, previous: previous, events: events(generation, previous), also: extra))
                return .published(generation, previous: previous)
            } catch {
                attempt += 1
                // Another publish took the number: publish on top of it (its content may even be this one).
                guard attempt < 3, let newest = try? await latest(), newest.number >= generation.number else {
                    throw error
                }
            }
        }
    }

    /// The statements of one publish.
    private func statements(
        _ files: CatalogFiles, _ generation: CatalogGeneration, previous: CatalogGeneration?, events: [OutboxEvent],
        also: [FleetSQL.Statement]
    ) async throws -> [FleetSQL.Statement] {
        let p = store.dialect.parameter
        var held = Set<String>()
        if let previous {
            let rows = try await store.rows(
                FleetSQL.Statement(
                    sql: "SELECT hash FROM catalog_files WHERE generation = \(p(1))",
                    values: [.integer(Int64(previous.number))]))
            held = Set(rows.compactMap { $0.first?.text })
        }
        var statements: [FleetSQL.Statement] = []
        if store.dialect == .postgres {
            statements.append(FleetSQL.Statement(sql: "SELECT pg_advisory_xact_lock(7415002)", values: []))
        }
        let hashes = files.files.mapValues(CatalogFiles.hash)
        var written = Set<String>()
        for (path, bytes) in files.files {
            let hash = hashes[path, default: ""]
            guard !held.contains(hash), written.insert(hash).inserted else { continue }
            statements.append(
                FleetSQL.Statement(
                    sql:
                        "INSERT INTO catalog_blobs (hash, size, content) VALUES (\(p(1)), \(p(2)), \(p(3))) ON CONFLICT (hash) DO NOTHING",
                    values: [.text(hash), .integer(Int64(bytes.count)), .text(Base64.encode(bytes))]))
        }
        // The number is given, not computed: a concurrent publish of the same number fails on the primary key.
        statements.append(
            FleetSQL.Statement(
                sql: """
                    INSERT INTO catalog_generations (\(Self.columns)) \
                    VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), \(p(7)), \(p(8)))
                    """,
                values: [
                    .integer(Int64(generation.number)), .text(generation.contentHash), .text(generation.author),
                    .text(generation.message), .integer(generation.createdAt.seconds), .text(generation.kind),
                    generation.source.map { .integer(Int64($0)) } ?? .null, .integer(Int64(generation.files)),
                ]))
        for path in files.files.keys.sorted() {
            statements.append(
                FleetSQL.Statement(
                    sql: "INSERT INTO catalog_files (generation, path, hash) VALUES (\(p(1)), \(p(2)), \(p(3)))",
                    values: [.integer(Int64(generation.number)), .text(path), .text(hashes[path, default: ""])]))
        }
        statements += events.map { EventOutbox.enqueue($0, dialect: store.dialect) }
        statements += also
        if store.dialect == .postgres {
            statements.append(
                FleetSQL.Statement(
                    sql: "SELECT pg_notify('\(Self.channel)', \(p(1)))", values: [.text(String(generation.number))]))
        }
        return statements
    }

    /// The PostgreSQL notification channel a publish notifies.
    public static let channel = "mdmconf_catalog"

    static func generation(_ row: [FleetSQL.Value]) -> CatalogGeneration? {
        guard row.count == 8, let number = row[0].integer, let hash = row[1].text, let author = row[2].text,
            let message = row[3].text, let created = row[4].integer, let kind = row[5].text, let files = row[7].integer
        else { return nil }
        return CatalogGeneration(
            number: Int(number), contentHash: hash, author: author, message: message,
            createdAt: Instant(seconds: created),
            kind: kind, source: row[6].integer.map(Int.init), files: Int(files))
    }
}
