import CivilTime
import MDMConf

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

    /// A generation as stored.
    public init(
        number: Int, contentHash: String, author: String, message: String, createdAt: Instant, kind: String,
        source: Int?, files: Int
    ) {
        (self.number, self.contentHash, self.author, self.message) = (number, contentHash, author, message)
        (self.createdAt, self.kind, self.source, self.files) = (createdAt, kind, source, files)
    }
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

    /// The newest generation, or nil before the first publish.
    public func latest() async throws -> CatalogGeneration? { try await store.generations(limit: 1).first }

    /// Newest first.
    public func generations(limit: Int = 1_000) async throws -> [CatalogGeneration] {
        try await store.generations(limit: limit)
    }

    /// Generation `number`, or nil when there is none.
    public func generation(_ number: Int) async throws -> CatalogGeneration? { try await store.generation(number) }

    /// The files of a generation; nil when there is no such generation.
    public func files(of number: Int) async throws -> CatalogFiles? {
        guard try await generation(number) != nil else { return nil }
        return CatalogFiles(try await store.catalogFiles(of: number))
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
        also: @Sendable (CatalogGeneration, _ previous: CatalogGeneration?) -> [FleetChange] = { _, _ in [] }
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
                    throw RolloutError(
                        "the first generation of a store goes to every device: publish it without --rollout")
                }
                extra += CatalogRollouts.start(
                    rollout, generation: generation.number, base: previous.number, at: generation.createdAt,
                    author: author)
            }
            do {
                try await store.commit(
                    try await changes(
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

    /// The changes of one publish: the generation with the bytes of the files the previous one does not hold, its
    /// events, `also`, and the announcement to replicas.
    private func changes(
        _ files: CatalogFiles, _ generation: CatalogGeneration, previous: CatalogGeneration?, events: [OutboxEvent],
        also: [FleetChange]
    ) async throws -> [FleetChange] {
        var held = Set<String>()
        if let previous { held = try await store.catalogFileHashes(of: previous.number) }
        let hashes = files.files.mapValues(CatalogFiles.hash)
        var blobs: [String: [UInt8]] = [:]
        for (path, bytes) in files.files {
            let hash = hashes[path, default: ""]
            if !held.contains(hash) { blobs[hash] = bytes }
        }
        return [.generation(generation, files: hashes, newBlobs: blobs)] + events.map(FleetChange.event) + also
            + [.announce(payload: String(generation.number))]
    }

    /// The PostgreSQL notification channel a publish notifies.
    public static let channel = "mdmconf_catalog"
}
