import CivilTime
import WebhookEvents

/// A state of a device that events watch, as one check-in leaves it: `kind` (`compliance`, `config-error`) and its
/// `value`. When the value differs from the one stored for the device (or none is), `events` go into the outbox in
/// the same transaction as the check-in, and the new value is stored.
public struct WatchedState: Sendable, Equatable {
    /// What is watched.
    public var kind: String
    /// Its value now, as text.
    public var value: String
    /// The events a change sends (one per subscribed endpoint); none to only record the value.
    public var events: [OutboxEvent]

    /// A watched state.
    public init(kind: String, value: String, events: [OutboxEvent]) {
        self.kind = kind
        self.value = value
        self.events = events
    }
}

/// One event for one endpoint, as the outbox stores it until it is delivered.
public struct OutboxEvent: Sendable, Equatable {
    /// The event's id (also its `webhook-id`).
    public var eventID: String
    /// The endpoint's name.
    public var endpoint: String
    /// The event's type.
    public var type: String
    /// Its subject (a device id or a generation).
    public var subject: String
    /// The CloudEvents envelope, as sent; empty when it is made at delivery (`madeFrom`).
    public var body: String
    /// When it was made.
    public var createdAt: Instant
    /// For a compliance change judged against a stored generation: that generation. The body is not stored; the
    /// store keeps which check-in the event is of, and the dispatcher makes the body again from that check-in and
    /// that generation's catalog when it sends it (`EventSubscriptions.complianceChangeBody`). nil: `body` is the
    /// body.
    public var madeFrom: Int?

    /// `event` for `endpoint`; `body` when given is its body already written.
    public init(_ event: CloudEvent, endpoint: String, body: String? = nil, madeFrom generation: Int? = nil) {
        self.init(
            eventID: event.id, endpoint: endpoint, type: event.type.rawValue, subject: event.subject,
            body: body ?? event.body, createdAt: event.time, madeFrom: generation)
    }

    /// An event as stored.
    public init(
        eventID: String, endpoint: String, type: String, subject: String, body: String, createdAt: Instant,
        madeFrom generation: Int? = nil
    ) {
        (self.eventID, self.endpoint, self.type, self.subject, self.body) = (eventID, endpoint, type, subject, body)
        (self.createdAt, self.madeFrom) = (createdAt, generation)
    }
}

/// One row of the outbox: an event for an endpoint and where its delivery stands.
public struct OutboxDelivery: Sendable, Equatable {
    /// Where a delivery stands.
    public enum State: String, Sendable, CaseIterable {
        /// Not delivered yet; tried at `nextAttempt`.
        case pending
        /// Answered with a 2xx.
        case delivered
        /// Given up: still failing 3 days after it was made (`events retry` sends it again).
        case failed
        /// Its endpoint answered `410 Gone` and is disabled (`events retry` enables it again).
        case disabled
    }

    /// The row's id.
    public var id: Int64
    /// The event.
    public var event: OutboxEvent
    /// Where it stands.
    public var state: State
    /// Attempts made.
    public var attempts: Int
    /// When it is tried next (pending rows).
    public var nextAttempt: Instant
    /// The last attempt's HTTP status, if it got one.
    public var lastStatus: Int?
    /// The last attempt's failure.
    public var lastError: String?
    /// When it was delivered.
    public var deliveredAt: Instant?
    /// The check-in an event made at delivery is of (`OutboxEvent.madeFrom`), as due deliveries read it; nil for
    /// an event whose body is stored, or when the check-in is no longer stored.
    public var checkIn: StoredCheckIn?

    /// A delivery as stored.
    public init(
        id: Int64, event: OutboxEvent, state: State, attempts: Int, nextAttempt: Instant, lastStatus: Int?,
        lastError: String?, deliveredAt: Instant?, checkIn: StoredCheckIn? = nil
    ) {
        (self.id, self.event, self.state, self.attempts, self.nextAttempt) = (id, event, state, attempts, nextAttempt)
        (self.lastStatus, self.lastError, self.deliveredAt, self.checkIn) = (
            lastStatus, lastError, deliveredAt, checkIn
        )
    }
}

/// The transactional outbox of events in the fleet store: events are written in the transaction of the change that
/// caused them (a check-in batch, a publish), and the dispatcher reads the due ones, sends them, and records each
/// outcome here. Nothing is deleted by delivery, so `events list` shows what was sent.
public struct EventOutbox: Sendable {
    /// The store the outbox lives in.
    public let store: any FleetStore

    /// The outbox in `store`.
    public init(store: any FleetStore) { self.store = store }

    /// Adds `events` in one transaction (`events test`).
    public func enqueue(_ events: [OutboxEvent]) async throws {
        try await store.commit(events.map(FleetChange.event))
    }

    /// Pending deliveries due at `now`, oldest first, at most `limit`, none for a disabled endpoint.
    public func due(now: Instant, limit: Int) async throws -> [OutboxDelivery] {
        try await store.dueDeliveries(at: now, limit: limit)
    }

    /// The deliveries, newest first: optionally of one endpoint and in one state, at most `limit`.
    public func list(endpoint: String? = nil, state: OutboxDelivery.State? = nil, limit: Int = 100) async throws
        -> [OutboxDelivery]
    {
        try await store.deliveries(endpoint: endpoint, state: state, limit: limit)
    }

    /// Counts of deliveries by endpoint and state.
    public func counts() async throws -> [String: [OutboxDelivery.State: Int]] { try await store.deliveryCounts() }

    /// What one attempt to deliver came to.
    public enum Outcome: Sendable, Equatable {
        /// Answered with this 2xx.
        case delivered(id: Int64, status: Int)
        /// Failed (this status, or none without an answer): tried again at `next`, or given up when nil.
        case failed(id: Int64, status: Int?, error: String, next: Instant?)
        /// Answered `410 Gone`: the endpoint is disabled with its pending deliveries.
        case gone(id: Int64, endpoint: String)
    }

    /// Records a batch of outcomes in one transaction (the dispatcher records each batch it sent at once: a
    /// transaction per delivery took the store's writer from the check-ins). A `410` disables the endpoint with its
    /// pending deliveries.
    public func record(_ outcomes: [Outcome], at now: Instant) async throws {
        guard !outcomes.isEmpty else { return }
        try await store.commit([.deliveryOutcomes(outcomes, at: now)])
    }

    /// The endpoints disabled by a `410`, with when.
    public func disabledEndpoints() async throws -> [String: Instant] { try await store.disabledEndpoints() }

    /// Sends failed and disabled deliveries again (of one endpoint, or all), from `now`, enabling the endpoint;
    /// returns how many.
    @discardableResult
    public func retry(endpoint: String?, now: Instant) async throws -> Int {
        try await store.retryDeliveries(endpoint: endpoint, at: now)
    }
}
