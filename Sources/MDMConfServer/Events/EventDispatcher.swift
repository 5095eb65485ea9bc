import AsyncHTTPClient
import CivilTime
import Fleet
import Foundation
import Logging
import MDMConf
import Metrics
import NIOCore
import PropertyList
import ServiceLifecycle
import WebhookEvents

/// Sends the outbox's due events (*Events*): one dispatcher per fleet (with PostgreSQL, the replica holding the
/// dispatcher's advisory lock; the others check every few seconds whether it is free). Each delivery is POSTed with
/// the Standard Webhooks headers, signed when it is sent; a 2xx marks it delivered, a 410 disables its endpoint,
/// anything else (an error status, a refused connection, no answer within the attempt time-out) is tried again on
/// `DeliverySchedule`'s back-off until the event is 3 days old. Delivery is at least once: a dispatcher that dies
/// between a receiver's 2xx and recording it sends that event again, with the same `webhook-id`.
struct EventDispatcher: Service {
    let outbox: EventOutbox
    let catalogs: CatalogStore
    let fleet: FleetService
    var schedule = DeliverySchedule()
    /// How often the outbox is read when nothing was due.
    var pollInterval: Duration = .milliseconds(250)
    /// How often a replica without the lock tries it.
    var lockInterval: Duration = .seconds(2)
    /// How many deliveries go out at once, and how they give way to check-ins.
    var pace = DispatchPace()
    let environment: [String: String]
    /// How stored check-ins and generations are read when an event's body is made at delivery.
    var readerOptions = PlistReaderOptions()
    let logger: Logger

    func run() async throws {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(schedule.attemptTimeout), read: .seconds(schedule.attemptTimeout))))
        do {
            try await cancelWhenGracefulShutdown { try await loop(client) }
        } catch {
            if !(error is CancellationError) { logger.error("the event dispatcher stopped: \(error)") }
        }
        try? await client.shutdown()
    }

    private func loop(_ client: HTTPClient) async throws {
        var holding = false
        let generations = GenerationCatalogs()
        var pressure = WriterPressure()
        var lastSent: ContinuousClock.Instant?
        while !Task.isCancelled {
            let endpoints = Dictionary(
                (fleet.eventEndpoints ?? catalogs.current.catalog.events).map { ($0.name, $0) },
                uniquingKeysWith: { first, _ in first })
            // Nothing to send to: the outbox is not read (what it holds waits for an endpoint of its name).
            guard !endpoints.isEmpty else {
                try await Task.sleep(for: lockInterval)
                continue
            }
            guard await outbox.store.holdsDispatcherLock() else {
                if holding { logger.info("another replica sends the events now") }
                holding = false
                try await Task.sleep(for: lockInterval)
                continue
            }
            if !holding { logger.info("this replica sends the fleet's events") }
            holding = true
            // Check-ins first: while they queue for the store, what is due waits in the outbox (stored, so nothing
            // is lost) and a small batch goes out once a `yieldInterval`, leaving the cores to the devices.
            let busy = fleet.writer.map { pressure.meanBatch(of: $0) >= pace.busyBatch } ?? false
            guard let limit = pace.limit(busy: busy, sinceLastSent: lastSent.map { ContinuousClock.now - $0 }) else {
                EventMetrics.yielded.increment()
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            let due: [OutboxDelivery]
            do {
                due = try await outbox.due(now: .now, limit: limit)
            } catch {
                logger.warning("the event outbox cannot be read; trying again: \(error)")
                try await Task.sleep(for: .seconds(1))
                continue
            }
            EventMetrics.pendingRead.record(due.count)
            guard !due.isEmpty else {
                try await Task.sleep(for: pollInterval)
                continue
            }
            lastSent = .now
            let (ready, unmade) = await madeBodies(due, generations: generations)
            // Each endpoint's secret is read once a batch (a rotated secret is used from the next batch on).
            var signers: [String: Result<WebhookSignature, SecretError>] = [:]
            for name in Set(ready.map(\.event.endpoint)) {
                signers[name] = endpoints[name]?.signer(environment: environment)
            }
            let outcomes = await withTaskGroup(of: EventOutbox.Outcome.self) { [signers] group in
                for delivery in ready {
                    let name = delivery.event.endpoint
                    group.addTask {
                        await send(delivery, to: endpoints[name], signer: signers[name], client: client)
                    }
                }
                return await group.reduce(into: unmade) { $0.append($1) }
            }
            do {
                try await outbox.record(outcomes, at: .now)
            } catch {
                // Not recorded: the deliveries stay pending and are sent again (at least once).
                logger.warning("the outcome of \(outcomes.count) deliveries cannot be recorded: \(error)")
            }
        }
    }

    /// `due` with the bodies of the events made at delivery (`OutboxEvent.madeFrom`) written: each such event's
    /// stored check-in judged again against the generation that judged it when it was taken (a configuration
    /// error's body needs the check-in only), the same bytes the check-in would have stored. An event whose body
    /// cannot be made now (its generation does not load, the store does not answer) is put off like a failed
    /// attempt, and one whose check-in is gone is given up.
    func madeBodies(
        _ due: [OutboxDelivery], generations: GenerationCatalogs
    ) async -> (ready: [OutboxDelivery], unmade: [EventOutbox.Outcome]) {
        var ready: [OutboxDelivery] = []
        var unmade: [EventOutbox.Outcome] = []
        ready.reserveCapacity(due.count)
        for var delivery in due {
            guard let generation = delivery.event.madeFrom, delivery.event.body.isEmpty else {
                ready.append(delivery)
                continue
            }
            let event = delivery.event
            func putOff(_ error: String, giveUp: Bool = false) {
                let next =
                    giveUp
                    ? nil
                    : schedule.nextAttempt(
                        afterAttempt: delivery.attempts + 1, at: Instant.now.seconds, created: event.createdAt.seconds)
                logger.warning("the body of event \(event.eventID) cannot be made: \(error)")
                unmade.append(
                    .failed(id: delivery.id, status: nil, error: error, next: next.map { Instant(seconds: $0) }))
            }
            guard let stored = delivery.checkIn else {
                putOff("the check-in it is made from is no longer in the store", giveUp: true)
                continue
            }
            let parsed = MalformedRequest.json(Array(stored.body.utf8), options: readerOptions).map(
                CheckIn.parseStored)
            guard case .success(.success(let checkIn)) = parsed else {
                putOff("the stored check-in \(stored.id) does not read back", giveUp: true)
                continue
            }
            if event.type == EventType.configError.rawValue {
                // Made from the check-in alone.
                delivery.event.body = EventSubscriptions.configErrorBody(of: event, checkIn: checkIn, stored: stored)
                ready.append(delivery)
                continue
            }
            let catalog: Catalog
            do {
                catalog = try await generations.catalog(
                    generation, served: catalogs.current, store: outbox.store, readerOptions: readerOptions)
            } catch {
                putOff("generation \(generation) cannot be loaded: \(error)")
                continue
            }
            delivery.event.body = EventSubscriptions.complianceChangeBody(
                of: event, checkIn: checkIn, stored: stored, catalog: catalog, cache: fleet.parseCache)
            ready.append(delivery)
        }
        return (ready, unmade)
    }

    /// One attempt, and what it came to.
    func send(
        _ delivery: OutboxDelivery, to endpoint: EventEndpoint?, signer: Result<WebhookSignature, SecretError>?,
        client: HTTPClient
    ) async -> EventOutbox.Outcome {
        let now = Instant.now
        switch await attempt(delivery, to: endpoint, signer: signer, client: client) {
        case .delivered(let status):
            EventMetrics.counter("mdmconf_events_sent_total", delivery.event.endpoint).increment()
            return .delivered(id: delivery.id, status: status)
        case .gone:
            EventMetrics.counter("mdmconf_events_failed_total", delivery.event.endpoint).increment()
            logger.warning("endpoint \(delivery.event.endpoint) answered 410 Gone: disabled until events retry")
            return .gone(id: delivery.id, endpoint: delivery.event.endpoint)
        case .failed(let status, let message):
            let next = schedule.nextAttempt(
                afterAttempt: delivery.attempts + 1, at: now.seconds, created: delivery.event.createdAt.seconds)
            EventMetrics.counter("mdmconf_events_failed_total", delivery.event.endpoint).increment()
            logger.debug(
                "event \(delivery.event.eventID) to \(delivery.event.endpoint) failed: \(message)",
                metadata: ["next": "\(next.map { "\(Instant(seconds: $0))" } ?? "given up")"])
            return .failed(id: delivery.id, status: status, error: message, next: next.map { Instant(seconds: $0) })
        }
    }

    enum Outcome: Equatable {
        case delivered(Int)
        case gone
        case failed(Int?, String)
    }

    func attempt(
        _ delivery: OutboxDelivery, to endpoint: EventEndpoint?, signer: Result<WebhookSignature, SecretError>?,
        client: HTTPClient
    ) async -> Outcome {
        guard let endpoint, let signer else {
            return .failed(nil, "no endpoint named \(delivery.event.endpoint) is configured now")
        }
        let signing: WebhookSignature
        switch signer {
        case .failure(let error): return .failed(nil, error.message)
        case .success(let made): signing = made
        }
        switch await WebhookPost.send(
            delivery.event.body, id: delivery.event.eventID, to: endpoint.url, signer: signing, client: client,
            timeout: schedule.attemptTimeout)
        {
        case .success(let status) where (200..<300).contains(status): return .delivered(status)
        case .success(410): return .gone
        case .success(let status): return .failed(status, "the endpoint answered \(status)")
        case .failure(let error): return .failed(nil, "no answer: \(error)")
        }
    }
}

/// The catalogs of the generations events made at delivery were judged against: the ones served, else loaded from
/// the store's history once and kept (the last few), for the dispatcher's task alone.
final class GenerationCatalogs: @unchecked Sendable {
    private var loaded: [(generation: Int, catalog: Catalog)] = []
    private static let kept = 4

    /// Generation `number`'s catalog (`StoredGenerations.catalog`); throws when the store cannot be read or the
    /// generation does not load.
    func catalog(
        _ number: Int, served: CatalogState, store: any FleetStore, readerOptions: PlistReaderOptions
    ) async throws -> Catalog {
        if let known = loaded.first(where: { $0.generation == number }) { return known.catalog }
        let stored = try await StoredGenerations.catalog(
            number, served: served, history: CatalogHistory(store: store),
            loader: CatalogLoader(readerOptions: readerOptions))
        switch stored {
        case .success(let stored):
            loaded.append((number, stored.catalog))
            if loaded.count > Self.kept { loaded.removeFirst() }
            return stored.catalog
        case .failure(let failure):
            throw FleetStoreError(.unusable, "generation \(number) does not load (\(failure.errors.count) errors)")
        }
    }
}

/// One event POSTed to an endpoint, signed as it is sent: the dispatcher's deliveries and `mdmconf events test`.
public enum WebhookPost {
    /// POSTs `body` (a CloudEvents envelope) as message `id` to `url`, with the Standard Webhooks headers of `signer`
    /// stamped now; the status it answered within `timeout` seconds, or why there was none.
    public static func send(
        _ body: String, id: String, to url: String, signer: WebhookSignature, client: HTTPClient, timeout: Int64
    ) async -> Result<Int, any Error> {
        let bytes = Array(body.utf8)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: CloudEvent.contentType)
        request.headers.add(name: "User-Agent", value: "mdmconf-events")
        for header in signer.headers(id: id, timestamp: Instant.now.seconds, body: bytes) {
            request.headers.add(name: header.name, value: header.value)
        }
        request.body = .bytes(ByteBuffer(bytes: bytes))
        do {
            let response = try await client.execute(request, timeout: .seconds(timeout))
            _ = try? await response.body.collect(upTo: 65_536)
            return .success(Int(response.status.code))
        } catch {
            return .failure(error)
        }
    }
}

/// How many due deliveries the dispatcher sends at once, and how it gives way while check-ins queue for the store
/// (`WriterPressure`): then it sends a small batch at most once a `yieldInterval`, enough that events keep moving
/// and few enough that their bodies, signatures and requests (and a receiver on the same machine) take little from
/// the check-ins. The rest waits in the outbox and goes out in full batches once the check-ins stop queueing.
struct DispatchPace {
    /// Deliveries read and sent at once.
    var batch = 256
    /// While check-ins queue, a batch goes out at most this often,
    var yieldInterval: Duration = .seconds(1)
    /// and holds at most this many.
    var busyBatchLimit = 32
    /// The check-in writer's mean batch, since the dispatcher's last look, from which it counts as busy: one
    /// check-in a commit is a store keeping up; many, check-ins arriving faster than commits take them.
    var busyBatch = 8.0

    /// How many due deliveries to read and send now, when check-ins are queueing (`busy`) and the last batch went
    /// out `sinceLastSent` ago (nil: none has); nil to give way for now.
    func limit(busy: Bool, sinceLastSent: Duration?) -> Int? {
        guard busy else { return batch }
        if let since = sinceLastSent, since < yieldInterval { return nil }
        return min(busyBatchLimit, batch)
    }
}

/// How busy the check-in writer has been since the last look: the mean size of the batches it committed.
struct WriterPressure {
    private var written = 0
    private var batches = 0

    /// Check-ins per batch committed since the last call (0 when none was).
    mutating func meanBatch(of writer: CheckInWriter) -> Double {
        meanBatch(written: writer.written, batches: writer.batches)
    }

    /// `meanBatch(of:)` of a writer that has committed `written` check-ins in `batches` batches so far.
    mutating func meanBatch(written: Int, batches: Int) -> Double {
        defer { (self.written, self.batches) = (written, batches) }
        guard batches > self.batches else { return 0 }
        return Double(written - self.written) / Double(batches - self.batches)
    }
}

/// The events' metrics: deliveries sent and failed per endpoint, how many were due at the last read, and how often
/// the dispatcher gave way to check-ins.
enum EventMetrics {
    static let yielded: Metrics.Counter = {
        _ = ServerMetrics.registry
        return Metrics.Counter(label: "mdmconf_events_yielded_total")
    }()

    static let pendingRead: Metrics.Gauge = {
        _ = ServerMetrics.registry
        return Metrics.Gauge(label: "mdmconf_events_due")
    }()

    private static let counters = Locked<[String: Metrics.Counter]>([:])

    static func counter(_ label: String, _ endpoint: String) -> Metrics.Counter {
        counters.withLock { counters in
            let key = label + "\u{0}" + endpoint
            if let counter = counters[key] { return counter }
            _ = ServerMetrics.registry
            let counter = Metrics.Counter(label: label, dimensions: [("endpoint", endpoint)])
            counters[key] = counter
            return counter
        }
    }
}
