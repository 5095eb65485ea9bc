import CivilTime
import Fleet
import WebhookEvents

extension AdminSite {
    // MARK: Events

    /// The events page: each endpoint with its deliveries by state (and whether a 410 disabled it), the failing
    /// deliveries, and the most recent ones.
    public func events(
        _ outbox: EventOutbox, endpoints: [EventEndpoint], _ snapshot: CatalogSnapshot, chrome: AdminChrome
    ) async -> String {
        struct Endpoint {
            var name: String, url: String, types: String, pending: Int, delivered: Int, failed: Int, disabled: Int
            var disabledSince: String?
        }
        struct Row {
            var event: String, endpoint: String, type: String, subject: String, state: String, attempts: Int
            var createdAt: String, last: String
        }
        struct Page {
            var endpoints: [Endpoint], hasEndpoints: Bool, failures: [Row], hasFailures: Bool, recent: [Row]
            var hasRecent: Bool, problem: String?
        }
        func row(_ delivery: OutboxDelivery) -> Row {
            Row(
                event: delivery.event.eventID, endpoint: delivery.event.endpoint, type: delivery.event.type,
                subject: delivery.event.subject, state: delivery.state.rawValue, attempts: delivery.attempts,
                createdAt: delivery.event.createdAt.description,
                last: [delivery.lastStatus.map { "HTTP \($0)" }, delivery.lastError].compactMap { $0 }.joined(
                    separator: ": "))
        }
        var page = Page(
            endpoints: [], hasEndpoints: !endpoints.isEmpty, failures: [], hasFailures: false, recent: [],
            hasRecent: false, problem: nil)
        do {
            let counts = try await outbox.counts()
            let disabled = try await outbox.disabledEndpoints()
            page.endpoints = endpoints.map { endpoint in
                let states = counts[endpoint.name] ?? [:]
                return Endpoint(
                    name: endpoint.name, url: endpoint.url,
                    types: endpoint.types.map(\.rawValue).sorted().joined(separator: ", "),
                    pending: states[.pending] ?? 0, delivered: states[.delivered] ?? 0, failed: states[.failed] ?? 0,
                    disabled: states[.disabled] ?? 0, disabledSince: disabled[endpoint.name]?.description)
            }
            // Pending deliveries that have failed at least once are failing too.
            let failing =
                try await outbox.list(state: .failed, limit: 50) + outbox.list(state: .disabled, limit: 50)
                + outbox.list(state: .pending, limit: 200).filter { $0.attempts > 0 }
            page.failures = failing.sorted { $0.id > $1.id }.prefix(50).map(row)
            page.hasFailures = !page.failures.isEmpty
            page.recent = try await outbox.list(limit: 30).map(row)
            page.hasRecent = !page.recent.isEmpty
        } catch {
            page.problem = "the store cannot be read: \((error as? FleetStoreError)?.message ?? "\(error)")"
        }
        return render("events", page, chrome: chrome, title: "Events", nav: "events")
    }
}
