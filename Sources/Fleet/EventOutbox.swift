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
    /// The CloudEvents envelope, as sent.
    public var body: String
    /// When it was made.
    public var createdAt: Instant

    /// `event` for `endpoint`.
    public init(_ event: CloudEvent, endpoint: String) {
        self.init(
            eventID: event.id, endpoint: endpoint, type: event.type.rawValue, subject: event.subject, body: event.body,
            createdAt: event.time)
    }

    /// An event as stored.
    public init(eventID: String, endpoint: String, type: String, subject: String, body: String, createdAt: Instant) {
        self.eventID = eventID
        self.endpoint = endpoint
        self.type = type
        self.subject = subject
        self.body = body
        self.createdAt = createdAt
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
}

/// The transactional outbox of events in the fleet store: events are written in the transaction of the change that
/// caused them (a check-in batch, a publish), and the dispatcher reads the due ones, sends them, and records each
/// outcome here. Nothing is deleted by delivery, so `events list` shows what was sent.
public struct EventOutbox: Sendable {
    /// The store the outbox lives in.
    public let store: any FleetStore

    /// The outbox in `store`.
    public init(store: any FleetStore) { self.store = store }

    private func p(_ number: Int) -> String { store.dialect.parameter(number) }

    static let columns =
        "id, event_id, endpoint, type, subject, body, created_at, state, attempts, next_attempt, last_status, last_error, delivered_at"

    /// The statement that adds `event` (to run in the transaction of the change that caused it).
    public static func enqueue(_ event: OutboxEvent, dialect: FleetSQL.Dialect) -> FleetSQL.Statement {
        let p = dialect.parameter
        return FleetSQL.Statement(
            sql:
                "INSERT INTO event_outbox (event_id, endpoint, type, subject, body, created_at, next_attempt) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), \(p(6)))",
            values: [
                .text(event.eventID), .text(event.endpoint), .text(event.type), .text(event.subject), .text(event.body),
                .integer(event.createdAt.seconds),
            ])
    }

    /// Adds `events` in one transaction (`events test`).
    public func enqueue(_ events: [OutboxEvent]) async throws {
        try await store.execute(events.map { Self.enqueue($0, dialect: store.dialect) })
    }

    /// Pending deliveries due at `now`, oldest first, at most `limit`, none for a disabled endpoint.
    public func due(now: Instant, limit: Int) async throws -> [OutboxDelivery] {
        try await store.rows(
            FleetSQL.Statement(
                sql: """
                    SELECT \(Self.columns) FROM event_outbox WHERE state = 'pending' AND next_attempt <= \(p(1)) \
                    ORDER BY next_attempt, id LIMIT \(p(2))
                    """,
                values: [.integer(now.seconds), .integer(Int64(limit))])
        ).compactMap(Self.delivery)
    }

    /// The deliveries, newest first: optionally of one endpoint and in one state, at most `limit`.
    public func list(endpoint: String? = nil, state: OutboxDelivery.State? = nil, limit: Int = 100) async throws
        -> [OutboxDelivery]
    {
        var conditions: [String] = []
        var values: [FleetSQL.Value] = []
        if let endpoint {
            values.append(.text(endpoint))
            conditions.append("endpoint = \(p(values.count))")
        }
        if let state {
            values.append(.text(state.rawValue))
            conditions.append("state = \(p(values.count))")
        }
        values.append(.integer(Int64(limit)))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") + " "
        return try await store.rows(
            FleetSQL.Statement(
                sql: "SELECT \(Self.columns) FROM event_outbox \(filter)ORDER BY id DESC LIMIT \(p(values.count))",
                values: values)
        ).compactMap(Self.delivery)
    }

    /// Counts of deliveries by endpoint and state.
    public func counts() async throws -> [String: [OutboxDelivery.State: Int]] {
        var counts: [String: [OutboxDelivery.State: Int]] = [:]
        for row in try await store.rows(
            FleetSQL.Statement(
                sql: "SELECT endpoint, state, COUNT(*) FROM event_outbox GROUP BY endpoint, state", values: []))
        {
            guard row.count == 3, let endpoint = row[0].text,
                let state = row[1].text.flatMap(OutboxDelivery.State.init),
                let count = row[2].integer
            else { continue }
            counts[endpoint, default: [:]][state] = Int(count)
        }
        return counts
    }

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
    /// transaction per delivery took the store's writer from the check-ins).
    public func record(_ outcomes: [Outcome], at now: Instant) async throws {
        var statements: [FleetSQL.Statement] = []
        var delivered: [Int: [Int64]] = [:]
        var gone: [String: Int64] = [:]
        for outcome in outcomes {
            switch outcome {
            case .delivered(let id, let status): delivered[status, default: []].append(id)
            case .failed(let id, let status, let error, let next):
                statements.append(
                    FleetSQL.Statement(
                        sql: """
                            UPDATE event_outbox SET state = \(p(2)), attempts = attempts + 1, last_status = \(p(3)), \
                            last_error = \(p(4)), next_attempt = \(p(5)) WHERE id = \(p(1)) AND state = 'pending'
                            """,
                        values: [
                            .integer(id), .text(next == nil ? "failed" : "pending"), .optional(status.map(Int64.init)),
                            .text(String(error.prefix(500))), .integer(next?.seconds ?? 0),
                        ]))
            case .gone(let id, let endpoint): gone[endpoint] = id
            }
        }
        for (status, ids) in delivered.sorted(by: { $0.key < $1.key }) {
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ ids[$0..<min(ids.count, $0 + 500)] }) {
                let list = (0..<chunk.count).map { p($0 + 3) }.joined(separator: ", ")
                statements.append(
                    FleetSQL.Statement(
                        sql: """
                            UPDATE event_outbox SET state = 'delivered', attempts = attempts + 1, last_status = \(p(1)), \
                            last_error = NULL, delivered_at = \(p(2)) WHERE id IN (\(list)) AND state = 'pending'
                            """,
                        values: [.integer(Int64(status)), .integer(now.seconds)] + chunk.map { .integer($0) }))
            }
        }
        for (endpoint, id) in gone.sorted(by: { $0.key < $1.key }) {
            statements += [
                FleetSQL.Statement(
                    sql: """
                        UPDATE event_outbox SET attempts = attempts + CASE WHEN id = \(p(2)) THEN 1 ELSE 0 END, \
                        last_status = CASE WHEN id = \(p(2)) THEN 410 ELSE last_status END, state = 'disabled', \
                        last_error = 'the endpoint answered 410 Gone and is disabled' \
                        WHERE endpoint = \(p(1)) AND state = 'pending'
                        """,
                    values: [.text(endpoint), .integer(id)]),
                FleetSQL.Statement(
                    sql: "DELETE FROM event_endpoints WHERE endpoint = \(p(1))", values: [.text(endpoint)]),
                FleetSQL.Statement(
                    sql:
                        "INSERT INTO event_endpoints (endpoint, disabled_at, reason) VALUES (\(p(1)), \(p(2)), \(p(3)))",
                    values: [.text(endpoint), .integer(now.seconds), .text("answered 410 Gone")]),
            ]
        }
        if !statements.isEmpty { try await store.execute(statements) }
    }

    /// The endpoints disabled by a `410`, with when.
    public func disabledEndpoints() async throws -> [String: Instant] {
        var disabled: [String: Instant] = [:]
        for row in try await store.rows(
            FleetSQL.Statement(sql: "SELECT endpoint, disabled_at FROM event_endpoints", values: []))
        {
            if let endpoint = row.first?.text, let at = row.last?.integer { disabled[endpoint] = Instant(seconds: at) }
        }
        return disabled
    }

    /// Sends failed and disabled deliveries again (of one endpoint, or all), from `now`, enabling the endpoint;
    /// returns how many.
    @discardableResult
    public func retry(endpoint: String?, now: Instant) async throws -> Int {
        let filter = endpoint == nil ? "" : " AND endpoint = \(p(2))"
        var values: [FleetSQL.Value] = [.integer(now.seconds)]
        if let endpoint { values.append(.text(endpoint)) }
        let count =
            try await store.rows(
                FleetSQL.Statement(
                    sql: "SELECT COUNT(*) FROM event_outbox WHERE state IN ('failed', 'disabled')"
                        + (endpoint == nil ? "" : " AND endpoint = \(p(1))"),
                    values: endpoint.map { [.text($0)] } ?? [])
            ).first?.first?.integer ?? 0
        try await store.execute([
            FleetSQL.Statement(
                sql:
                    "UPDATE event_outbox SET state = 'pending', next_attempt = \(p(1)) WHERE state IN ('failed', 'disabled')"
                    + filter, values: values),
            FleetSQL.Statement(
                sql: endpoint == nil
                    ? "DELETE FROM event_endpoints" : "DELETE FROM event_endpoints WHERE endpoint = \(p(1))",
                values: endpoint.map { [.text($0)] } ?? []),
        ])
        return Int(count)
    }

    static func delivery(_ row: [FleetSQL.Value]) -> OutboxDelivery? {
        guard row.count == 13, let id = row[0].integer, let eventID = row[1].text, let endpoint = row[2].text,
            let type = row[3].text, let subject = row[4].text, let body = row[5].text, let created = row[6].integer,
            let state = row[7].text.flatMap(OutboxDelivery.State.init), let attempts = row[8].integer,
            let next = row[9].integer
        else { return nil }
        let event = OutboxEvent(
            eventID: eventID, endpoint: endpoint, type: type, subject: subject, body: body,
            createdAt: Instant(seconds: created))
        return OutboxDelivery(
            id: id, event: event, state: state, attempts: Int(attempts), nextAttempt: Instant(seconds: next),
            lastStatus: row[10].integer.map(Int.init), lastError: row[11].text,
            deliveredAt: row[12].integer.map { Instant(seconds: $0) })
    }
}
