import CivilTime
import MDMConf
import MDMDiagnostics
import UpdatePolicy
import WebhookEvents

/// Which events a server sends, to which endpoints, and the events a change makes: the device states a check-in
/// leaves (compliance, configuration errors) and a publish's. Built once per catalog; the same events whoever
/// takes the change (a route, the fast path, `publish`).
public struct EventSubscriptions: Sendable {
    /// Every endpoint.
    public let endpoints: [EventEndpoint]
    /// The events' `source`: `mdmconf://` and the server's name.
    public let source: String
    private let byType: [EventType: [String]]

    /// The subscriptions of `endpoints`, for events from the server named `server`.
    public init(endpoints: [EventEndpoint], server: String) {
        self.endpoints = endpoints
        source = CloudEvent.source(server: server)
        var byType: [EventType: [String]] = [:]
        for endpoint in endpoints {
            for type in EventType.allCases where endpoint.receives(type) && type != .test {
                byType[type, default: []].append(endpoint.name)
            }
        }
        self.byType = byType
    }

    /// The names of the endpoints that receive `type`.
    public func subscribers(_ type: EventType) -> [String] { byType[type] ?? [] }

    /// Whether a check-in's states are watched at all (any endpoint receives device events).
    public var watchesCheckIns: Bool {
        !subscribers(.complianceChanged).isEmpty || !subscribers(.configError).isEmpty || !subscribers(.silent).isEmpty
    }

    /// `event` for each endpoint that receives its type, its body written once (by `writeData` when given, for
    /// `data`).
    public func outbox(_ event: CloudEvent, data writeData: ((inout JSONText) -> Void)? = nil) -> [OutboxEvent] {
        let endpoints = subscribers(event.type)
        guard !endpoints.isEmpty else { return [] }
        let body = writeData.map { event.body(data: $0) } ?? event.body
        return endpoints.map { OutboxEvent(event, endpoint: $0, body: body) }
    }

    /// The watched states of a check-in as `catalog` judges it at `receivedAt`: its compliance (`compliant` or
    /// `noncompliant`), judged from the apps this check-in reports, and its configuration errors (each failing app
    /// and its error), each with the events a change sends. None when no endpoint receives device events.
    public func watched(
        _ record: CheckInRecord, catalog: Catalog, cache: ParseCache
    ) -> [WatchedState] {
        judge(record, catalog: catalog, cache: cache).states
    }

    /// A check-in's watched states, and the device's compliance they were judged from.
    public struct Judgement: Sendable {
        /// The watched states (`watched(_:catalog:cache:)`).
        public var states: [WatchedState] = []
        /// When an endpoint receives compliance changes: each reported app's update decision, in the check-in's
        /// order (nil for an app the catalog does not serve). They are the ones the check-in's answer gives, so the
        /// answer takes them instead of deciding again.
        public var decisions: [Decision?]?
    }

    /// The watched states of a check-in (`watched(_:catalog:cache:)`), with the compliance judged for them. With
    /// `generation` (the stored generation `catalog` is), a compliance change's body is not written now: the
    /// dispatcher makes it again from the stored check-in and that generation when it sends it, so the outbox row
    /// holds a reference instead of about 2 KB (`OutboxEvent.madeFrom`).
    /// `requests` are the apps' update requests as the check-in's parse read them, in the check-in's order.
    public func judge(
        _ record: CheckInRecord, catalog: Catalog, cache: ParseCache, generation: Int? = nil,
        requests: [UpdateRequest]? = nil
    ) -> Judgement {
        guard watchesCheckIns else { return Judgement() }
        let checkIn = record.checkIn
        let now = record.receivedAt
        var judgement = Judgement()
        var states: [WatchedState] = []
        let complianceSubscribers = subscribers(.complianceChanged)
        if !complianceSubscribers.isEmpty {
            let event = CloudEvent(
                source: source, type: .complianceChanged, time: now, subject: checkIn.device, data: .null)
            let compliant: Bool
            let events: [OutboxEvent]
            if let generation {
                // Only the verdict now; the document is made at delivery.
                let judged = ComplianceEvaluator(catalog: catalog, now: now).checkInCompliance(
                    checkIn, cache: cache, requests: requests)
                (compliant, judgement.decisions) = judged
                events = complianceSubscribers.map { OutboxEvent(event, endpoint: $0, body: "", madeFrom: generation) }
            } else {
                let compliance = Self.compliance(
                    of: checkIn, receivedAt: now, replica: record.replica, catalog: catalog, cache: cache,
                    requests: requests)
                compliant = compliance.compliant
                judgement.decisions = checkIn.apps.map { app in
                    compliance.apps.first { $0.app == app.app }?.decision
                }
                // The data (the device document) is written straight into the body, once for every endpoint.
                let body = Self.complianceChangeBody(id: event.id, source: source, time: now, compliance: compliance)
                events = complianceSubscribers.map { OutboxEvent(event, endpoint: $0, body: body) }
            }
            states.append(
                WatchedState(kind: "compliance", value: compliant ? "compliant" : "noncompliant", events: events))
        }
        let configErrorSubscribers = subscribers(.configError)
        if !configErrorSubscribers.isEmpty {
            let failing = Self.failingApps(of: checkIn)
            let value = failing.map { "\($0.app): \($0.configError ?? "")" }.joined(separator: "\n")
            var events: [OutboxEvent] = []
            if !failing.isEmpty {
                let event = CloudEvent(
                    source: source, type: .configError, time: now, subject: checkIn.device,
                    data: Self.configErrorData(device: checkIn.device, failing: failing))
                // With a stored generation the body is made at delivery, from the stored check-in, as a compliance
                // change's is.
                let body = generation == nil ? event.body : ""
                events = configErrorSubscribers.map {
                    OutboxEvent(event, endpoint: $0, body: body, madeFrom: generation)
                }
            }
            states.append(WatchedState(kind: "config-error", value: value, events: events))
        }
        if !subscribers(.silent).isEmpty {
            // A check-in makes the device active again: its next silence is a change.
            states.append(WatchedState(kind: Self.seenKind, value: "active", events: []))
        }
        judgement.states = states
        return judgement
    }

    /// The compliance a check-in leaves, as `catalog` judges it at `receivedAt` from the apps this check-in reports:
    /// the one judgement of a compliance change, when the check-in is taken and when its event's body is made again
    /// at delivery. `requests`, when given, are the apps' update requests as the check-in's parse read them.
    public static func compliance(
        of checkIn: CheckIn, receivedAt now: Instant, replica: String, catalog: Catalog, cache: ParseCache,
        requests: [UpdateRequest]? = nil
    ) -> DeviceCompliance {
        let state = DeviceState(
            device: checkIn.device, platform: checkIn.platform, osVersion: checkIn.osVersion,
            deviceModel: checkIn.deviceModel, locale: checkIn.locale, timeZone: checkIn.timeZone,
            enrolledAt: checkIn.enrolledAt, reportedAt: checkIn.at, lastCheckIn: now, replica: replica,
            apps: checkIn.apps.map { DeviceState.App(app: $0, lastCheckIn: now) })
        return ComplianceEvaluator(catalog: catalog, now: now).evaluate(state, cache: cache, requests: requests)
    }

    /// The body of `io.mdmconf.device.compliance.changed` with id `id` from `source` at `time`: the envelope around
    /// the device document of `compliance`, written straight into the text.
    public static func complianceChangeBody(
        id: String, source: String, time: Instant, compliance: DeviceCompliance
    ) -> String {
        CloudEvent(
            id: id, source: source, type: .complianceChanged, time: time, subject: compliance.device, data: .null
        ).body { compliance.write(to: &$0) }
    }

    /// The body of a compliance change made at delivery (`OutboxEvent.madeFrom`): `checkIn`, the stored check-in
    /// the event is of, judged again against `catalog`, the generation that judged it when it was taken; the same
    /// bytes the check-in would have stored.
    public static func complianceChangeBody(
        of event: OutboxEvent, checkIn: CheckIn, stored: StoredCheckIn, catalog: Catalog, cache: ParseCache
    ) -> String {
        let compliance = compliance(
            of: checkIn, receivedAt: stored.receivedAt, replica: stored.replica, catalog: catalog, cache: cache)
        return complianceChangeBody(
            id: event.eventID, source: CloudEvent.source(server: stored.replica), time: event.createdAt,
            compliance: compliance)
    }

    /// The apps of a check-in that report a configuration error, by bundle id.
    static func failingApps(of checkIn: CheckIn) -> [CheckIn.App] {
        checkIn.apps.filter { !($0.configError ?? "").isEmpty }.sorted { $0.app < $1.app }
    }

    /// The data of `io.mdmconf.device.config.error` for `device`: the device and each app that reports an error
    /// (`failingApps(of:)` of its check-in).
    static func configErrorData(device: String, failing: [CheckIn.App]) -> JSONValue {
        .object([
            ("device", .string(device)),
            (
                "apps",
                .array(
                    failing.map { app in
                        .object([
                            ("app", .string(app.app)), ("version", .string(app.version)),
                            ("configETag", .optional(app.configETag)), ("error", .optional(app.configError)),
                        ])
                    })
            ),
        ])
    }

    /// The body of a configuration error made at delivery (`OutboxEvent.madeFrom`): from `checkIn`, the stored
    /// check-in the event is of; the same bytes the check-in would have stored. It needs no catalog.
    public static func configErrorBody(of event: OutboxEvent, checkIn: CheckIn, stored: StoredCheckIn) -> String {
        CloudEvent(
            id: event.eventID, source: CloudEvent.source(server: stored.replica), type: .configError,
            time: event.createdAt, subject: checkIn.device,
            data: configErrorData(device: checkIn.device, failing: failingApps(of: checkIn))
        ).body
    }

    /// The watched state that says whether a device went silent.
    static let seenKind = "seen"

    /// Sends `io.mdmconf.device.silent` for every device whose last check-in is before `now` minus the catalog's
    /// `silentAfterDays`, once per silence (a check-in in between makes the next silence a new one); returns how
    /// many were sent. Run by the server's periodic fleet maintenance.
    @discardableResult
    public func markSilent(in store: any FleetStore, catalog: Catalog, now: Instant) async throws -> Int {
        guard !subscribers(.silent).isEmpty else { return 0 }
        let cutoff = now.adding(seconds: -Int64(catalog.settings.silentAfterDays * 86_400))
        let silent = try await store.devices(
            lastCheckInBefore: cutoff, unlessWatched: Self.seenKind, is: "silent", limit: 10_000)
        var changes: [FleetChange] = []
        for (device, last) in silent {
            let data = JSONValue.object([
                ("device", .string(device)), ("lastCheckin", .string(last.description)),
                ("silentAfterDays", .number(String(catalog.settings.silentAfterDays))),
            ])
            let event = CloudEvent(source: source, type: .silent, time: now, subject: device, data: data)
            changes += outbox(event).map(FleetChange.event)
            changes.append(.watchedState(device: device, kind: Self.seenKind, value: "silent", at: now))
        }
        if !changes.isEmpty { try await store.commit(changes) }
        return silent.count
    }

    /// The events of a publish or rollback of `generation` (`previous` the generation it replaced), with the
    /// diff's counts when known.
    public func published(
        _ generation: CatalogGeneration, previous: CatalogGeneration?, changes: JSONValue = .null
    ) -> [OutboxEvent] {
        // An abort, like a rollback, publishes an earlier generation's content again.
        let type: EventType = generation.kind == "publish" ? .catalogPublished : .catalogRolledBack
        let data = JSONValue.object([
            ("generation", .integer(generation.number)), ("previous", .optional(previous?.number)),
            ("kind", .string(generation.kind)), ("source", .optional(generation.source)),
            ("author", .string(generation.author)), ("message", .string(generation.message)),
            ("contentHash", .string(generation.contentHash)), ("files", .integer(generation.files)),
            ("changes", changes),
        ])
        return outbox(
            CloudEvent(
                source: source, type: type, time: generation.createdAt, subject: String(generation.number),
                data: data))
    }

    /// The event of a rollout's step (`io.mdmconf.rollout.advanced`, `.halted` or `.completed`): the rollout after
    /// it, with the gate's measurements when they were taken.
    public func rollout(_ type: EventType, _ rollout: CatalogRollout, health: RolloutHealth?) -> [OutboxEvent] {
        var data = rollout.json
        if case .object(var fields) = data {
            fields.append(("health", health?.json(limit: 50) ?? .null))
            data = .object(fields)
        }
        return outbox(
            CloudEvent(
                source: source, type: type, time: rollout.current.at, subject: String(rollout.generation), data: data))
    }
}
