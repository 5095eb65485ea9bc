import CivilTime
import Fleet
import PropertyList

/// The statements of the named writes (``FleetChange``) and the texts of the named reads that are not the check-ins'
/// own: the catalog's history, rollouts, the event outbox.
extension FleetSQL {
    /// The statements of `changes`, in order, for one transaction. On PostgreSQL a transaction that stores a
    /// generation first takes the publishes' transaction lock, so publishes run one after another.
    public static func statements(of changes: [FleetChange], dialect: Dialect) -> [Statement] {
        var statements: [Statement] = []
        if dialect == .postgres, changes.contains(where: { if case .generation = $0 { true } else { false } }) {
            statements.append(Statement(sql: "SELECT pg_advisory_xact_lock(7415002)", values: []))
        }
        for change in changes { statements += Self.statements(of: change, dialect: dialect) }
        return statements
    }

    static func statements(of change: FleetChange, dialect: Dialect) -> [Statement] {
        let p = dialect.parameter
        switch change {
        case .generation(let generation, let files, let blobs):
            return generationStatements(generation, files: files, blobs: blobs, dialect: dialect)
        case .rolloutStart(let generation, let base, let plan):
            return [
                Statement(
                    sql: """
                        INSERT INTO catalog_rollouts (generation, base, ring_group, percents, every, halt_when, \
                        min_devices) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), \(p(7)))
                        """,
                    values: [
                        .integer(Int64(generation)), .integer(Int64(base)), .optional(plan.group),
                        .text(plan.percents.map(\.description).joined(separator: ",")), .optional(plan.every?.text),
                        .text(plan.gate.description), .integer(Int64(plan.minDevices)),
                    ])
            ]
        case .rolloutStep(let generation, let step):
            return [
                Statement(
                    sql: """
                        INSERT INTO catalog_rollout_steps (generation, step, action, phase, ring, at, author, reason) \
                        VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), \(p(7)), \(p(8)))
                        """,
                    values: [
                        .integer(Int64(generation)), .integer(Int64(step.number)), .text(step.action),
                        .text(step.phase.rawValue), .integer(Int64(step.ring)), .integer(step.at.seconds),
                        .text(step.author), .text(step.reason),
                    ])
            ]
        case .event(let event):
            return [
                Statement(
                    sql: """
                        INSERT INTO event_outbox (event_id, endpoint, type, subject, body, created_at, next_attempt) \
                        VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), \(p(6)))
                        """,
                    values: [
                        .text(event.eventID), .text(event.endpoint), .text(event.type), .text(event.subject),
                        .text(event.body), .integer(event.createdAt.seconds),
                    ])
            ]
        case .deliveryOutcomes(let outcomes, let now):
            return outcomeStatements(outcomes, at: now, dialect: dialect)
        case .watchedState(let device, let kind, let value, let at):
            return [
                Statement(
                    sql: "DELETE FROM event_state WHERE device = \(p(1)) AND kind = \(p(2))",
                    values: [.text(device), .text(kind)]),
                Statement(
                    sql: """
                        INSERT INTO event_state (device, kind, value, changed_at) \
                        VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)))
                        """,
                    values: [.text(device), .text(kind), .text(value), .integer(at.seconds)]),
            ]
        case .announce(let payload):
            return dialect == .postgres
                ? [Statement(sql: "SELECT pg_notify('\(CatalogHistory.channel)', \(p(1)))", values: [.text(payload)])]
                : []
        }
    }

    /// A generation's row and file list, and the bytes of its new hashes (base64, once per hash).
    static func generationStatements(
        _ generation: CatalogGeneration, files: [String: String], blobs: [String: [UInt8]], dialect: Dialect
    ) -> [Statement] {
        let p = dialect.parameter
        var statements = blobs.keys.sorted().map { hash in
            let bytes = blobs[hash, default: []]
            return Statement(
                sql: """
                    INSERT INTO catalog_blobs (hash, size, content) VALUES (\(p(1)), \(p(2)), \(p(3))) \
                    ON CONFLICT (hash) DO NOTHING
                    """,
                values: [.text(hash), .integer(Int64(bytes.count)), .text(Base64.encode(bytes))])
        }
        // The number is given, not computed: a concurrent publish of the same number fails on the primary key.
        statements.append(
            Statement(
                sql: """
                    INSERT INTO catalog_generations (\(generationColumns)) \
                    VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), \(p(7)), \(p(8)))
                    """,
                values: [
                    .integer(Int64(generation.number)), .text(generation.contentHash), .text(generation.author),
                    .text(generation.message), .integer(generation.createdAt.seconds), .text(generation.kind),
                    .optional(generation.source.map(Int64.init)), .integer(Int64(generation.files)),
                ]))
        for path in files.keys.sorted() {
            statements.append(
                Statement(
                    sql: "INSERT INTO catalog_files (generation, path, hash) VALUES (\(p(1)), \(p(2)), \(p(3)))",
                    values: [.integer(Int64(generation.number)), .text(path), .text(files[path, default: ""])]))
        }
        return statements
    }

    /// A batch of delivery outcomes: failures one by one, deliveries grouped by status (500 ids a statement), and
    /// for each endpoint that answered `410` its pending deliveries disabled and the endpoint recorded.
    static func outcomeStatements(_ outcomes: [EventOutbox.Outcome], at now: Instant, dialect: Dialect)
        -> [Statement]
    {
        let p = dialect.parameter
        var statements: [Statement] = []
        var delivered: [Int: [Int64]] = [:]
        var gone: [String: Int64] = [:]
        for outcome in outcomes {
            switch outcome {
            case .delivered(let id, let status): delivered[status, default: []].append(id)
            case .failed(let id, let status, let error, let next):
                statements.append(
                    Statement(
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
        // SQLite chose the due index for `state = 'pending'` and read every pending row's entry to find the ids
        // (about 13 ms a batch with 120,000 pending, growing with the backlog): `+state` keeps the term off the
        // index, so the rows are found by id.
        let pending = dialect == .sqlite ? "+state = 'pending'" : "state = 'pending'"
        for (status, ids) in delivered.sorted(by: { $0.key < $1.key }) {
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ ids[$0..<min(ids.count, $0 + 500)] }) {
                let list = (0..<chunk.count).map { p($0 + 3) }.joined(separator: ", ")
                statements.append(
                    Statement(
                        sql: """
                            UPDATE event_outbox SET state = 'delivered', attempts = attempts + 1, last_status = \(p(1)), \
                            last_error = NULL, delivered_at = \(p(2)) WHERE id IN (\(list)) AND \(pending)
                            """,
                        values: [.integer(Int64(status)), .integer(now.seconds)] + chunk.map { .integer($0) }))
            }
        }
        for (endpoint, id) in gone.sorted(by: { $0.key < $1.key }) {
            statements += [
                Statement(
                    sql: """
                        UPDATE event_outbox SET attempts = attempts + CASE WHEN id = \(p(2)) THEN 1 ELSE 0 END, \
                        last_status = CASE WHEN id = \(p(2)) THEN 410 ELSE last_status END, state = 'disabled', \
                        last_error = 'the endpoint answered 410 Gone and is disabled' \
                        WHERE endpoint = \(p(1)) AND state = 'pending'
                        """,
                    values: [.text(endpoint), .integer(id)]),
                Statement(sql: "DELETE FROM event_endpoints WHERE endpoint = \(p(1))", values: [.text(endpoint)]),
                Statement(
                    sql:
                        "INSERT INTO event_endpoints (endpoint, disabled_at, reason) VALUES (\(p(1)), \(p(2)), \(p(3)))",
                    values: [.text(endpoint), .integer(now.seconds), .text("answered 410 Gone")]),
            ]
        }
        return statements
    }

    // MARK: The catalog's history, rollouts and events: reading

    /// The columns of a generation row, in the order `generation(_:)` reads them.
    static let generationColumns = "generation, content_hash, author, message, created_at, kind, source, files"

    /// Pending deliveries due at the first parameter, oldest first, at most the second's number, with their
    /// check-ins. The rows are chosen before their check-ins are joined: with the join first, PostgreSQL joined every
    /// pending row before keeping the first ones (26,000 pending: 53 ms a read instead of 11).
    package static func dueDeliveries(dialect: Dialect) -> String {
        let p = dialect.parameter
        return """
            SELECT \(deliveryColumns) FROM (SELECT * FROM event_outbox \
            WHERE state = 'pending' AND next_attempt <= \(p(1)) ORDER BY next_attempt, id LIMIT \(p(2))) o \
            LEFT JOIN checkins c ON c.id = o.checkin ORDER BY o.next_attempt, o.id
            """
    }

    /// The columns of an outbox row and of the check-in an event made at delivery is of (migration 11), in the
    /// order `delivery(_:)` reads them, from `deliveryRows`.
    static let deliveryColumns = """
        o.id, o.event_id, o.endpoint, o.type, o.subject, o.body, o.created_at, o.state, o.attempts, o.next_attempt, \
        o.last_status, o.last_error, o.delivered_at, o.generation, c.id, c.device, c.received_at, c.replica, c.body
        """

    /// The outbox (`o`), each row with the check-in its body is made from (`c`), when it is one of those.
    static let deliveryRows = "event_outbox o LEFT JOIN checkins c ON c.id = o.checkin"

    /// The outbox rows whose check-in must stay stored: events made at delivery not delivered yet (`failed` and
    /// `disabled` ones can be sent again by `events retry`).
    package static let madeFromCheckIns = "checkin IS NOT NULL AND state IN ('pending', 'failed', 'disabled')"

    /// A generation row.
    static func generation(_ row: [Value]) -> CatalogGeneration? {
        guard row.count == 8, let number = row[0].integer, let hash = row[1].text, let author = row[2].text,
            let message = row[3].text, let created = row[4].integer, let kind = row[5].text, let files = row[7].integer
        else { return nil }
        return CatalogGeneration(
            number: Int(number), contentHash: hash, author: author, message: message,
            createdAt: Instant(seconds: created), kind: kind, source: row[6].integer.map(Int.init), files: Int(files))
    }

    /// A rollout step row (step, action, phase, ring, at, author, reason).
    static func rolloutStep(_ row: [Value]) -> RolloutStep? {
        guard row.count == 7, let number = row[0].integer, let action = row[1].text,
            let phase = row[2].text.flatMap(RolloutPhase.init), let ring = row[3].integer, let at = row[4].integer,
            let author = row[5].text, let reason = row[6].text
        else { return nil }
        return RolloutStep(
            number: Int(number), action: action, phase: phase, ring: Int(ring), at: Instant(seconds: at),
            author: author, reason: reason)
    }

    /// An outbox row.
    package static func delivery(_ row: [Value]) -> OutboxDelivery? {
        guard row.count == 19, let id = row[0].integer, let eventID = row[1].text, let endpoint = row[2].text,
            let type = row[3].text, let subject = row[4].text, let body = row[5].text, let created = row[6].integer,
            let state = row[7].text.flatMap(OutboxDelivery.State.init), let attempts = row[8].integer,
            let next = row[9].integer
        else { return nil }
        let event = OutboxEvent(
            eventID: eventID, endpoint: endpoint, type: type, subject: subject, body: body,
            createdAt: Instant(seconds: created), madeFrom: row[13].integer.map(Int.init))
        var checkIn: StoredCheckIn?
        if let checkInID = row[14].integer, let device = row[15].text, let received = row[16].integer,
            let replica = row[17].text, let checkInBody = row[18].text
        {
            checkIn = StoredCheckIn(
                id: checkInID, device: device, receivedAt: Instant(seconds: received), replica: replica,
                body: checkInBody)
        }
        return OutboxDelivery(
            id: id, event: event, state: state, attempts: Int(attempts), nextAttempt: Instant(seconds: next),
            lastStatus: row[10].integer.map(Int.init), lastError: row[11].text,
            deliveredAt: row[12].integer.map { Instant(seconds: $0) }, checkIn: checkIn)
    }
}
