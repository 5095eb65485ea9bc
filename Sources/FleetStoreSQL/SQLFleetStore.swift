import CivilTime
import Fleet
import PropertyList

/// A fleet store that runs ``FleetSQL``'s statements: what a driver provides (a dialect, a transaction of
/// statements, the rows of a read) for the named operations of `FleetStore` that both drivers answer with the same
/// SQL, implemented here once: the catalog's history, rollouts, the event outbox and the scans' positions.
public protocol SQLFleetStore: FleetStore {
    /// The SQL dialect the store speaks.
    var dialect: FleetSQL.Dialect { get }

    /// Runs statements in one transaction: all committed, or none (an error).
    func execute(_ statements: [FleetSQL.Statement]) async throws

    /// The rows of one read.
    func rows(_ statement: FleetSQL.Statement) async throws -> [[FleetSQL.Value]]
}

extension SQLFleetStore {
    private func rows(_ sql: String, _ values: [FleetSQL.Value] = []) async throws -> [[FleetSQL.Value]] {
        try await rows(FleetSQL.Statement(sql: sql, values: values))
    }

    private func p(_ number: Int) -> String { dialect.parameter(number) }

    /// The changes' statements in one transaction.
    public func commit(_ changes: [FleetChange]) async throws {
        let statements = FleetSQL.statements(of: changes, dialect: dialect)
        if !statements.isEmpty { try await execute(statements) }
    }

    // MARK: Roll-ups and counts

    /// Replaces the roll-up rows of `day` with `rows`, in one transaction.
    public func saveRollup(day: String, rows: [RollupRow]) async throws {
        try await execute(FleetSQL.saveRollup(day: day, rows: rows, dialect: dialect))
    }

    /// Roll-up rows from `sinceDay` on, optionally of one app, ordered by day.
    public func rollups(app: String?, sinceDay: String) async throws -> [RollupRow] {
        try await rows(
            FleetSQL.rollups(app: app != nil, dialect: dialect), [.text(sinceDay)] + (app.map { [.text($0)] } ?? [])
        ).compactMap(FleetSQL.rollupRow)
    }

    /// How many rows the fleet tables hold.
    public func counts() async throws -> StoreCounts {
        let values = try await rows(FleetSQL.counts).first ?? []
        guard values.count == 3 else { return StoreCounts(devices: 0, deviceApps: 0, checkIns: 0) }
        return StoreCounts(
            devices: Int(values[0].integer ?? 0), deviceApps: Int(values[1].integer ?? 0),
            checkIns: Int(values[2].integer ?? 0))
    }

    // MARK: The catalog's history

    /// Generations, newest first, at most `limit`.
    public func generations(limit: Int) async throws -> [CatalogGeneration] {
        try await rows(
            "SELECT \(FleetSQL.generationColumns) FROM catalog_generations ORDER BY generation DESC LIMIT \(p(1))",
            [.integer(Int64(limit))]
        ).compactMap(FleetSQL.generation)
    }

    /// Generation `number`, or nil.
    public func generation(_ number: Int) async throws -> CatalogGeneration? {
        try await rows(
            "SELECT \(FleetSQL.generationColumns) FROM catalog_generations WHERE generation = \(p(1))",
            [.integer(Int64(number))]
        ).first.flatMap(FleetSQL.generation)
    }

    /// The files of generation `number`, their bytes decoded from the stored base64.
    public func catalogFiles(of number: Int) async throws -> [String: [UInt8]] {
        let rows = try await rows(
            """
            SELECT f.path, b.content FROM catalog_files f JOIN catalog_blobs b ON b.hash = f.hash \
            WHERE f.generation = \(p(1))
            """, [.integer(Int64(number))])
        var files: [String: [UInt8]] = [:]
        for row in rows {
            guard row.count == 2, let path = row[0].text, let content = row[1].text,
                case .success(let bytes) = Base64.decode(Array(content.utf8))
            else { throw FleetStoreError(.unusable, "generation \(number) holds a file that cannot be decoded") }
            files[path] = bytes
        }
        return files
    }

    /// The content hashes of generation `number`'s files.
    public func catalogFileHashes(of number: Int) async throws -> Set<String> {
        Set(
            try await rows("SELECT hash FROM catalog_files WHERE generation = \(p(1))", [.integer(Int64(number))])
                .compactMap { $0.first?.text })
    }

    // MARK: Rollouts

    /// The rollout of `generation` with its steps, or nil.
    public func rollout(of generation: Int) async throws -> CatalogRollout? {
        let plans = try await rows(
            """
            SELECT base, ring_group, percents, every, halt_when, min_devices FROM catalog_rollouts \
            WHERE generation = \(p(1))
            """, [.integer(Int64(generation))])
        guard let row = plans.first, row.count == 6, let base = row[0].integer, let percents = row[2].text,
            let haltWhen = row[4].text, let minDevices = row[5].integer
        else { return nil }
        let plan: RolloutPlan
        do {
            plan = try RolloutPlan(
                storedRings: ([row[1].text].compactMap { $0 } + [percents]).joined(separator: ","),
                every: row[3].text, haltWhen: haltWhen, minDevices: Int(minDevices))
        } catch {
            throw FleetStoreError(.unusable, "the rollout of generation \(generation) is stored unreadable: \(error)")
        }
        let steps = try await rows(
            """
            SELECT step, action, phase, ring, at, author, reason FROM catalog_rollout_steps \
            WHERE generation = \(p(1)) ORDER BY step
            """, [.integer(Int64(generation))]
        ).compactMap(FleetSQL.rolloutStep)
        guard !steps.isEmpty else { return nil }
        return CatalogRollout(generation: generation, base: Int(base), plan: plan, steps: steps)
    }

    /// The newest generation that was rolled out, or nil.
    public func newestRolloutGeneration() async throws -> Int? {
        try await rows("SELECT MAX(generation) FROM catalog_rollouts").first?.first?.integer.map(Int.init)
    }

    // MARK: Events

    /// Pending deliveries due at `now`, oldest first (`FleetSQL.dueDeliveries`).
    public func dueDeliveries(at now: Instant, limit: Int) async throws -> [OutboxDelivery] {
        try await rows(FleetSQL.dueDeliveries(dialect: dialect), [.integer(now.seconds), .integer(Int64(limit))])
            .compactMap(FleetSQL.delivery)
    }

    /// Deliveries, newest first.
    public func deliveries(endpoint: String?, state: OutboxDelivery.State?, limit: Int) async throws
        -> [OutboxDelivery]
    {
        var conditions: [String] = []
        var values: [FleetSQL.Value] = []
        if let endpoint {
            values.append(.text(endpoint))
            conditions.append("o.endpoint = \(p(values.count))")
        }
        if let state {
            values.append(.text(state.rawValue))
            conditions.append("o.state = \(p(values.count))")
        }
        values.append(.integer(Int64(limit)))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") + " "
        return try await rows(
            """
            SELECT \(FleetSQL.deliveryColumns) FROM \(FleetSQL.deliveryRows) \(filter)ORDER BY o.id DESC \
            LIMIT \(p(values.count))
            """,
            values
        ).compactMap(FleetSQL.delivery)
    }

    /// Counts of deliveries by endpoint and state.
    public func deliveryCounts() async throws -> [String: [OutboxDelivery.State: Int]] {
        var counts: [String: [OutboxDelivery.State: Int]] = [:]
        for row in try await rows("SELECT endpoint, state, COUNT(*) FROM event_outbox GROUP BY endpoint, state") {
            guard row.count == 3, let endpoint = row[0].text,
                let state = row[1].text.flatMap(OutboxDelivery.State.init), let count = row[2].integer
            else { continue }
            counts[endpoint, default: [:]][state] = Int(count)
        }
        return counts
    }

    /// The endpoints disabled by a `410`, with when.
    public func disabledEndpoints() async throws -> [String: Instant] {
        var disabled: [String: Instant] = [:]
        for row in try await rows("SELECT endpoint, disabled_at FROM event_endpoints") {
            if let endpoint = row.first?.text, let at = row.last?.integer { disabled[endpoint] = Instant(seconds: at) }
        }
        return disabled
    }

    /// Failed and disabled deliveries made pending again, their endpoints enabled.
    public func retryDeliveries(endpoint: String?, at now: Instant) async throws -> Int {
        let count =
            try await rows(
                "SELECT COUNT(*) FROM event_outbox WHERE state IN ('failed', 'disabled')"
                    + (endpoint == nil ? "" : " AND endpoint = \(p(1))"),
                endpoint.map { [.text($0)] } ?? []
            ).first?.first?.integer ?? 0
        try await execute([
            FleetSQL.Statement(
                sql:
                    "UPDATE event_outbox SET state = 'pending', next_attempt = \(p(1)) WHERE state IN ('failed', 'disabled')"
                    + (endpoint == nil ? "" : " AND endpoint = \(p(2))"),
                values: [.integer(now.seconds)] + (endpoint.map { [.text($0)] } ?? [])),
            FleetSQL.Statement(
                sql: "DELETE FROM event_endpoints" + (endpoint == nil ? "" : " WHERE endpoint = \(p(1))"),
                values: endpoint.map { [.text($0)] } ?? []),
        ])
        return Int(count)
    }

    /// Devices silent since before `cutoff` whose watched state `kind` is not `value`.
    public func devices(lastCheckInBefore cutoff: Instant, unlessWatched kind: String, is value: String, limit: Int)
        async throws -> [(device: String, lastCheckIn: Instant)]
    {
        try await rows(
            """
            SELECT device, last_checkin FROM devices WHERE last_checkin < \(p(1)) AND NOT EXISTS \
            (SELECT 1 FROM event_state WHERE event_state.device = devices.device AND kind = \(p(2)) \
            AND value = \(p(3))) ORDER BY device LIMIT \(p(4))
            """, [.integer(cutoff.seconds), .text(kind), .text(value), .integer(Int64(limit))]
        ).compactMap { row in
            guard row.count == 2, let device = row[0].text, let last = row[1].integer else { return nil }
            return (device, Instant(seconds: last))
        }
    }

    // MARK: Scans

    /// How many devices the store holds.
    public func deviceCount() async throws -> Int {
        Int(try await rows(FleetSQL.deviceCount).first?.first?.integer ?? 0)
    }

    /// The id of the device at `position` in id order.
    public func deviceID(at position: Int) async throws -> String? {
        try await rows(FleetSQL.deviceAt(dialect: dialect), [.integer(Int64(position))]).first?.first?.text
    }
}
