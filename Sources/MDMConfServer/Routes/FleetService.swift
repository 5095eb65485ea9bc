import CivilTime
import Fleet
import Logging
import MDMConf
import MDMDiagnostics
import ServiceLifecycle
import UpdatePolicy
import WebhookEvents

/// The fleet side of a running server: the store, the group-commit writer in front of it, and this replica's
/// name. nil store = `--store none`.
public final class FleetService: Sendable {
    /// The fleet store; nil with `--store none`.
    public let store: (any FleetStore)?
    /// The group-commit writer check-ins go through; nil without a store.
    public let writer: CheckInWriter?
    /// Recorded with every check-in this process takes.
    public let replica: String
    /// Check-in history older than this many days is deleted.
    public let historyDays: Int
    /// Check-ins' update requests parsed once per distinct texts, for the life of the process.
    public let parseCache = ParseCache()
    /// `serve --events FILE`: the endpoints events go to, instead of the served catalog's `events.plist`.
    public let eventEndpoints: [EventEndpoint]?
    /// The subscriptions of the catalog last asked about, made once per catalog.
    /// (Held, not only identified: an identifier of a freed catalog could come back as a new one's.)
    private let subscriptionsCache = Locked<(catalog: Catalog?, subscriptions: EventSubscriptions?)>((nil, nil))

    /// `clock` is the time the check-in writer reads for its refusal window after a failed write (tests move it).
    /// `events` replaces the catalog's `events.plist` (`serve --events`).
    public init(
        store: (any FleetStore)?, replica: String, historyDays: Int = 90, maxBatch: Int = 2_000,
        events: [EventEndpoint]? = nil, clock: @escaping @Sendable () -> Instant = { .now }
    ) {
        self.store = store
        self.writer = store.map { CheckInWriter(store: $0, maxBatch: maxBatch, clock: clock) }
        self.replica = replica
        self.historyDays = historyDays
        self.eventEndpoints = events
    }

    /// The record of a check-in taken now, with the device states events watch as `state` (what the device is
    /// served) judges them (none when no endpoint receives device events): a check-in and a DDM status report alike.
    func record(_ checkIn: CheckIn, state: CatalogState) -> CheckInRecord {
        judged(checkIn, state: state).record
    }

    /// `record(_:state:)`, with the apps' update decisions when the events judged its compliance (nil otherwise),
    /// for the answer to give. When `state` is a stored generation, a compliance change's body is made at delivery
    /// from the check-in and that generation.
    /// `requests` are the apps' update requests as the check-in's parse read them.
    func judged(
        _ checkIn: CheckIn, state: CatalogState, requests: [UpdateRequest]? = nil
    ) -> (record: CheckInRecord, decisions: [Decision?]?) {
        let catalog = state.catalog
        var record = CheckInRecord(checkIn: checkIn, receivedAt: .now, replica: replica)
        // Without endpoints (the usual case) a check-in takes no lock for them.
        guard eventEndpoints != nil || !catalog.events.isEmpty else { return (record, nil) }
        guard let subscriptions = subscriptions(catalog), subscriptions.watchesCheckIns else { return (record, nil) }
        let judgement = subscriptions.judge(
            record, catalog: catalog, cache: parseCache, generation: state.publishedAt == nil ? nil : state.generation,
            requests: requests)
        record.watched = judgement.states
        return (record, judgement.decisions)
    }

    /// Which events go where while `catalog` is served: `serve --events`, or the catalog's `events.plist`. Events
    /// need the store's outbox, so none without a store.
    public func subscriptions(_ catalog: Catalog) -> EventSubscriptions? {
        guard store != nil else { return nil }
        if let cached = subscriptionsCache.withLock({ $0.catalog === catalog ? $0.subscriptions : nil }) {
            return cached
        }
        let subscriptions = EventSubscriptions(endpoints: eventEndpoints ?? catalog.events, server: replica)
        subscriptionsCache.withLock { $0 = (catalog, subscriptions) }
        return subscriptions
    }

    /// `/readyz`'s `store`: where it is and whether it takes writes, with the last failure while it does not.
    public var health: JSONValue {
        get async {
            guard let store, let writer else {
                return .object([("url", .string("none")), ("status", .string("disabled"))])
            }
            let failure = writer.lastFailure
            return .object([
                ("url", .string(store.description)), ("status", .string(failure == nil ? "ok" : "unavailable")),
                ("replica", .string(replica)), ("checkinsStored", .integer(writer.written)),
                ("batches", .integer(writer.batches)),
                ("lastError", .optional(failure.map { "\($0.at): \($0.message)" })),
            ])
        }
    }

    /// Roll-up days are kept this long, whatever `historyDays` says: they are a few rows per app and day.
    public static let rollupDays = 730

    /// Writes today's roll-up from the live summary and deletes history past retention. Returns the check-ins
    /// deleted.
    @discardableResult
    public func maintain(_ state: CatalogState, now: Instant) async throws -> Int {
        guard let store else { return 0 }
        let catalog = state.catalog
        let query = FleetQuery(store: store, evaluator: state.complianceEvaluator(now: now))
        if let subscriptions = subscriptions(catalog) {
            try await subscriptions.markSilent(in: store, catalog: catalog, now: now)
        }
        let summary = try await query.summary(FleetFilter())
        try await store.saveRollup(
            day: FleetTrend.day(of: now), rows: FleetTrend.rows(of: summary, day: FleetTrend.day(of: now)))
        return try await store.prune(
            checkInsBefore: now.adding(seconds: -Int64(historyDays) * 86_400),
            rollupsBefore: FleetTrend.day(of: now.adding(seconds: -Int64(Self.rollupDays) * 86_400)))
    }
}

/// Runs `FleetService.maintain` at start-up and then every `interval` seconds, until shutdown.
struct FleetMaintenance: Service {
    let fleet: FleetService
    let catalogs: CatalogStore
    let interval: Double
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let pruned = try await fleet.maintain(catalogs.current, now: .now)
                logger.debug("fleet roll-up written", metadata: ["prunedCheckIns": "\(pruned)"])
            } catch {
                logger.warning("fleet roll-up and retention failed; will try again: \(error)")
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(Int(interval * 1000))) }
            } catch {
                break
            }
        }
    }
}
