import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import MDMConf
import PropertyList
import Testing
import UpdatePolicy
import WebhookEvents

/// The outbox on both stores: events written with the check-in batch that changed a watched state (and only then),
/// and the dispatcher's bookkeeping of deliveries.
@Suite struct EventOutboxTests {
    static let endpoint = EventEndpoint(
        name: "ops", url: "http://127.0.0.1:9/", types: [.complianceChanged, .configError], secret: .environment("X"))
    let subscriptions = EventSubscriptions(endpoints: [endpoint], server: "test")

    /// A check-in of `device` whose field app reports `error`, with its watched states as the server makes them.
    func record(_ device: String, at seconds: Int64, error: String? = nil, catalog: Catalog) -> CheckInRecord {
        var record = TestStores.record(
            device, at: seconds,
            apps: [.init(app: "com.example.field", version: "3.2.1", configError: error)])
        record.watched = subscriptions.watched(record, catalog: catalog, cache: ParseCache())
        return record
    }

    /// A device's first check-in changes its compliance (from nothing); the same state again sends nothing; a
    /// configuration error sends one event, the same error again none, and another error one more. Two check-ins
    /// of one device in one batch count as its last.
    @Test(arguments: StoreKind.available)
    func eventsOnlyWhenAWatchedStateChanges(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let catalog = try TestStores.catalog()
        let outbox = EventOutbox(store: store)
        try await store.write([record("iphone-0117", at: 1_000, catalog: catalog)])
        try await store.write([record("iphone-0117", at: 1_001, catalog: catalog)])
        var rows = try await outbox.list()
        #expect(rows.map(\.event.type) == [EventType.complianceChanged.rawValue])
        try await store.write([record("iphone-0117", at: 1_002, error: "bad", catalog: catalog)])
        try await store.write([record("iphone-0117", at: 1_003, error: "bad", catalog: catalog)])
        try await store.write([
            record("iphone-0117", at: 1_004, error: "worse", catalog: catalog),
            record("ipad-0042", at: 1_004, catalog: catalog),
            record("iphone-0117", at: 1_005, error: "worst", catalog: catalog),
        ])
        rows = try await outbox.list()
        #expect(rows.map(\.event.subject).sorted() == ["ipad-0042", "iphone-0117", "iphone-0117", "iphone-0117"])
        #expect(rows.filter { $0.event.type == EventType.configError.rawValue }.count == 2)
        let last = try #require(rows.first { $0.event.type == EventType.configError.rawValue })
        #expect(last.event.body.contains(#""error":"worst""#))
        #expect(rows.allSatisfy { $0.state == .pending && $0.attempts == 0 && $0.event.endpoint == "ops" })
        // The check-ins themselves are stored as ever.
        #expect(try await store.counts().checkIns == 7)
        try await store.close()
    }

    /// A compliance event's body, its device document written straight into the text, is the envelope the event
    /// describes with that document as its data: the same bytes as serialising the value, for each endpoint.
    @Test func complianceEventBodyIsTheDeviceDocument() throws {
        let catalog = try TestStores.catalog()
        let two = EventSubscriptions(
            endpoints: [
                Self.endpoint,
                EventEndpoint(
                    name: "audit", url: "http://127.0.0.1:9/", types: [.complianceChanged], secret: .environment("X")),
            ],
            server: "test")
        var record = TestStores.record(
            "iphone-0117", at: 1_000, apps: [.init(app: "com.example.field", version: "1.0.0", configError: "bad")])
        record.watched = two.watched(record, catalog: catalog, cache: ParseCache())
        let events = try #require(record.watched.first { $0.kind == "compliance" }).events
        #expect(events.map(\.endpoint) == ["ops", "audit"])
        let checkIn = record.checkIn
        let state = DeviceState(
            device: checkIn.device, platform: checkIn.platform, osVersion: checkIn.osVersion,
            deviceModel: checkIn.deviceModel, locale: checkIn.locale, timeZone: checkIn.timeZone,
            enrolledAt: checkIn.enrolledAt, reportedAt: checkIn.at, lastCheckIn: record.receivedAt,
            replica: record.replica, apps: checkIn.apps.map { DeviceState.App(app: $0, lastCheckIn: record.receivedAt) }
        )
        let document = ComplianceEvaluator(catalog: catalog, now: record.receivedAt).evaluate(
            state, cache: ParseCache())
        #expect(!document.compliant)
        let expected = CloudEvent(
            id: events[0].eventID, source: two.source, type: .complianceChanged, time: record.receivedAt,
            subject: "iphone-0117", data: document.json)
        #expect(events.allSatisfy { $0.body == expected.body && $0.eventID == expected.id })
    }

    /// Check-ins whose compliance events are made at delivery: a device per line (its first state, so each is a
    /// change), and its apps as it reports them.
    static let madeAtDelivery: [(device: String, apps: [CheckIn.App], enrolled: Bool)] = [
        ("iphone-0117", [.init(app: "com.example.field", version: "3.2.1")], false),
        ("iphone-0201", [.init(app: "com.example.field", version: "1.0.0", deferralsUsed: 1)], true),
        ("ipad-0300", [.init(app: "com.example.field", version: "3.3.0-beta.2", build: "7", channel: "beta")], false),
        (
            "iphone-0400",
            [
                .init(app: "com.example.field", version: "2.0", configETag: "\"abc\"", configError: "bad \"value\""),
                .init(app: "com.example.other", version: "1"),
                .init(
                    app: "com.example.fieldsync", version: "1.0", ddm: .init(state: "installed", configState: "invalid")
                ),
            ], true
        ),
    ]

    /// A compliance change judged against a stored generation keeps no body in its row: the row names the
    /// generation and the check-in, and the body made from them at delivery is, byte for byte, the body the
    /// check-in would have stored (judged with the update requests the check-in's parse read, as the server does;
    /// at delivery they are parsed again). Each device's latest check-in of a batch is the one named; a check-in
    /// an undelivered event is made from outlives retention until the event is delivered.
    @Test(arguments: StoreKind.available)
    func bodyMadeAtDeliveryIsTheBodyTheCheckInWouldHaveStored(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let catalog = try TestStores.catalog()
        let outbox = EventOutbox(store: store)
        var expected: [String: String] = [:]
        var time: Int64 = 1_000
        for (index, line) in Self.madeAtDelivery.enumerated() {
            time += 1
            var record = TestStores.record(line.device, at: time, apps: line.apps, replica: "replica-\(index)")
            if line.enrolled {
                var checkIn = record.checkIn
                checkIn.enrolledAt = Instant(seconds: 500)
                record = CheckInRecord(checkIn: checkIn, receivedAt: record.receivedAt, replica: record.replica)
            }
            // The check-in as the server takes it: its apps' update requests from the parse of its body.
            let root = try #require(
                JSONPlistReader(options: PlistReaderOptions(), nullMembersAreAbsent: true)
                    .read(record.checkIn.jsonText(pretty: false), file: "check-in").root)
            let requests = try CheckIn.parseWithRequests(root, cache: ParseCache(), stored: true).get().requests
            let judged = subscriptions.judge(
                record, catalog: catalog, cache: ParseCache(), generation: 7, requests: requests)
            record.watched = judged.states
            let event = try #require(record.watched.first { $0.kind == "compliance" }?.events.first)
            #expect(event.body.isEmpty && event.madeFrom == 7)
            // A configuration error's body too: what the check-in would have stored is made from it alone.
            for failing in record.watched.filter({ $0.kind == "config-error" }).flatMap(\.events) {
                #expect(failing.body.isEmpty && failing.madeFrom == 7)
                expected[failing.eventID] =
                    CloudEvent(
                        id: failing.eventID, source: CloudEvent.source(server: record.replica), type: .configError,
                        time: record.receivedAt, subject: line.device,
                        data: .object([
                            ("device", .string(line.device)),
                            (
                                "apps",
                                .array(
                                    line.apps.filter { !($0.configError ?? "").isEmpty }.map { app in
                                        .object([
                                            ("app", .string(app.app)), ("version", .string(app.version)),
                                            ("configETag", .optional(app.configETag)),
                                            ("error", .optional(app.configError)),
                                        ])
                                    })
                            ),
                        ])
                    ).body
            }
            // What the row would have held: the check-in's compliance judged now, with its body written now.
            let compliance = EventSubscriptions.compliance(
                of: record.checkIn, receivedAt: record.receivedAt, replica: record.replica, catalog: catalog,
                cache: ParseCache(), requests: requests)
            #expect(record.watched.first?.value == (compliance.compliant ? "compliant" : "noncompliant"))
            expected[event.eventID] = EventSubscriptions.complianceChangeBody(
                id: event.eventID, source: CloudEvent.source(server: record.replica), time: record.receivedAt,
                compliance: compliance)
            // Each line's device checks in twice in its batch: an earlier check-in, then this one, which counts.
            var earlier = TestStores.record(line.device, at: time, apps: [], replica: "earlier")
            earlier.watched = subscriptions.judge(earlier, catalog: catalog, cache: ParseCache(), generation: 7).states
            try await store.write([earlier, record])
        }
        let due = try await outbox.due(now: Instant(seconds: 2_000), limit: 100)
        let compliance = due.filter { $0.event.type == EventType.complianceChanged.rawValue }
        #expect(compliance.count == Self.madeAtDelivery.count, "\(due)")
        let configErrors = due.filter { $0.event.type == EventType.configError.rawValue }
        #expect(configErrors.count == 1, "\(due)")
        for delivery in compliance + configErrors {
            #expect(delivery.event.body.isEmpty && delivery.event.madeFrom == 7)
            let stored = try #require(delivery.checkIn, "\(delivery)")
            #expect(stored.device == delivery.event.subject && stored.receivedAt == delivery.event.createdAt)
            let root = try #require(
                JSONPlistReader(options: PlistReaderOptions(), nullMembersAreAbsent: true)
                    .read(Array(stored.body.utf8), file: "stored").root)
            guard case .success(let checkIn) = CheckIn.parseStored(root) else {
                Issue.record("the stored check-in does not read back: \(stored.body)")
                continue
            }
            let body =
                delivery.event.type == EventType.configError.rawValue
                ? EventSubscriptions.configErrorBody(of: delivery.event, checkIn: checkIn, stored: stored)
                : EventSubscriptions.complianceChangeBody(
                    of: delivery.event, checkIn: checkIn, stored: stored, catalog: catalog, cache: ParseCache())
            #expect(body == expected[delivery.event.eventID], "\(delivery.event.subject)")
        }
        // Retention: the history older than every check-in stays while events made from it are undelivered.
        #expect(try await store.prune(checkInsBefore: Instant(seconds: 5_000), rollupsBefore: "2000-01-01") < 8)
        let kept = try await outbox.due(now: Instant(seconds: 2_000), limit: 100)
        #expect(kept.filter { $0.event.madeFrom != nil }.allSatisfy { $0.checkIn != nil })
        try await outbox.record(kept.map { .delivered(id: $0.id, status: 204) }, at: Instant(seconds: 2_001))
        try await store.prune(checkInsBefore: Instant(seconds: 5_000), rollupsBefore: "2000-01-01")
        #expect(try await store.counts().checkIns == 0)
        try await store.close()
    }

    /// The answer of a check-in whose compliance the events judged takes that judgement's update decisions: it is
    /// the answer decided on its own, for current, outdated, invalid and unmanaged apps alike, whether the event's
    /// body is written now (a folder) or at delivery (a stored generation, judged without the device's document).
    /// The verdict judged at check-in is the one the whole evaluation of the stored check-in gives.
    @Test(
        arguments: [
            [CheckIn.App(app: "com.example.field", version: "3.2.1")],
            [CheckIn.App(app: "com.example.field", version: "1.0.0", deferralsUsed: 1)],
            [CheckIn.App(app: "com.example.field", version: "not a version")],
            [
                CheckIn.App(app: "com.example.field", version: "2.0"),
                CheckIn.App(app: "com.example.other", version: "1"),
            ],
        ], [nil, 1])
    func answerTakesTheJudgedDecisions(apps: [CheckIn.App], generation: Int?) throws {
        let catalog = try TestStores.catalog()
        var record = TestStores.record("iphone-0117", at: 1_000, apps: apps)
        let judgement = subscriptions.judge(record, catalog: catalog, cache: ParseCache(), generation: generation)
        record.watched = judgement.states
        let decisions = try #require(judgement.decisions)
        #expect(decisions.count == apps.count)
        let answer = CheckInAnswer(for: record, catalog: catalog, generation: 1, now: record.receivedAt)
        #expect(
            CheckInAnswer(for: record, catalog: catalog, generation: 1, now: record.receivedAt, decisions: decisions)
                == answer)
        #expect(answer.apps.map(\.app) == apps.map(\.app))
        // What the server writes: the same document, its decisions written straight as text.
        let written = CheckInAnswer.Decided(
            for: record, catalog: catalog, generation: 1, now: record.receivedAt, decisions: decisions)
        #expect(written.jsonText() == answer.json.serializedBytes())
        let whole = EventSubscriptions.compliance(
            of: record.checkIn, receivedAt: record.receivedAt, replica: record.replica, catalog: catalog,
            cache: ParseCache())
        let verdict = judgement.states.first { $0.kind == "compliance" }?.value
        #expect(verdict == (whole.compliant ? "compliant" : "noncompliant"))
    }

    /// The verdict and decisions judged when a check-in is taken are those of the whole evaluation of the device it
    /// leaves, over a table of check-ins: every app current, a stale or failed configuration, an app below the
    /// minimum, an unmanaged app, an assigned app not reported, a device outside the inventory.
    @Test func checkInVerdictIsTheWholeEvaluation() throws {
        let catalog = try TestStores.catalog()
        let evaluator = ComplianceEvaluator(catalog: catalog, now: Instant(seconds: 1_000))
        let platform = ConfigPlatform("ios")
        func etag(_ app: String, _ device: String) -> String? {
            catalog.apps[app]?.config(forDevice: device, platform: platform).etag(for: platform)
        }
        var cases: [CheckIn] = []
        for device in ["iphone-0117", "ipad-0042", "not-in-inventory"] {
            let current = catalog.appIDs.map { CheckIn.App(app: $0, version: "9.9.9", configETag: etag($0, device)) }
            let variants: [[CheckIn.App]] = [
                current,
                current.map { CheckIn.App(app: $0.app, version: $0.version, configETag: "\"stale\"") },
                current.map {
                    CheckIn.App(app: $0.app, version: $0.version, configETag: $0.configETag, configError: "x")
                },
                current.map { CheckIn.App(app: $0.app, version: "0.1", configETag: $0.configETag) },
                current + [CheckIn.App(app: "com.example.unmanaged", version: "1")],
                Array(current.dropLast()),
                [],
            ]
            for apps in variants {
                cases.append(TestStores.record(device, at: 1_000, apps: apps).checkIn)
            }
        }
        var verdicts: Set<Bool> = []
        for checkIn in cases {
            let lean = evaluator.checkInCompliance(checkIn, cache: ParseCache())
            let whole = EventSubscriptions.compliance(
                of: checkIn, receivedAt: Instant(seconds: 1_000), replica: "test", catalog: catalog, cache: ParseCache()
            )
            #expect(lean.compliant == whole.compliant, "\(checkIn.device) \(checkIn.apps.map(\.app))")
            #expect(
                lean.decisions.map { $0?.decision }
                    == checkIn.apps.map { app in whole.apps.first { $0.app == app.app }?.decision?.decision })
            verdicts.insert(lean.compliant)
        }
        #expect(verdicts == [true, false])
    }

    /// Due deliveries come oldest first; a 2xx marks one delivered, a failure schedules it again or gives it up,
    /// a 410 disables the endpoint with its pending deliveries, and retry sends failed and disabled ones again.
    @Test(arguments: StoreKind.available)
    func deliveryBookkeeping(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let outbox = EventOutbox(store: store)
        var events: [OutboxEvent] = []
        for index in 0..<4 {
            let time = Instant(seconds: 100 + Int64(index))
            let event = CloudEvent(
                source: "mdmconf://test", type: .catalogPublished, time: time, subject: String(index + 1), data: .null)
            events.append(OutboxEvent(event, endpoint: index == 3 ? "other" : "ops"))
        }
        try await outbox.enqueue(events)
        var due = try await outbox.due(now: Instant(seconds: 200), limit: 10)
        #expect(due.map(\.event.subject) == ["1", "2", "3", "4"])
        #expect(try await outbox.due(now: Instant(seconds: 100), limit: 10).count == 1)
        try await outbox.record(
            [
                .delivered(id: due[0].id, status: 204),
                .failed(id: due[1].id, status: 500, error: "the endpoint answered 500", next: Instant(seconds: 300)),
                .failed(id: due[3].id, status: nil, error: "no answer", next: nil),
            ], at: Instant(seconds: 201))
        due = try await outbox.due(now: Instant(seconds: 250), limit: 10)
        #expect(due.map(\.event.subject) == ["3"])
        try await outbox.record([.gone(id: due[0].id, endpoint: "ops")], at: Instant(seconds: 260))
        #expect(try await outbox.due(now: Instant(seconds: 1_000), limit: 10).isEmpty)
        #expect(try await outbox.disabledEndpoints() == ["ops": Instant(seconds: 260)])
        let counts = try await outbox.counts()
        #expect(counts["ops"] == [.delivered: 1, .disabled: 2])
        #expect(counts["other"] == [.failed: 1])
        let rows = try await outbox.list(endpoint: "ops")
        #expect(rows.map(\.attempts) == [1, 1, 1])
        #expect(rows.first { $0.state == .delivered }?.deliveredAt == Instant(seconds: 201))
        #expect(try await outbox.retry(endpoint: "ops", now: Instant(seconds: 400)) == 2)
        #expect(try await outbox.disabledEndpoints().isEmpty)
        #expect(try await outbox.due(now: Instant(seconds: 400), limit: 10).map(\.event.subject) == ["2", "3"])
        #expect(try await outbox.retry(endpoint: nil, now: Instant(seconds: 400)) == 1)
        try await store.close()
    }

    /// A device that stops checking in is reported silent once; a check-in makes its next silence a new one.
    @Test(arguments: StoreKind.available)
    func silentDevicesAreReportedOncePerSilence(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let catalog = try TestStores.catalog()
        let silent = EventSubscriptions(
            endpoints: [EventEndpoint(name: "ops", url: "https://h/", types: [.silent], secret: .environment("X"))],
            server: "test")
        func checkIn(at seconds: Int64) async throws {
            var record = TestStores.record("iphone-0117", at: seconds, apps: [])
            record.watched = silent.watched(record, catalog: catalog, cache: ParseCache())
            try await store.write([record])
        }
        let week: Int64 = 7 * 86_400
        try await checkIn(at: 1_000)
        #expect(try await silent.markSilent(in: store, catalog: catalog, now: Instant(seconds: 1_000 + week - 60)) == 0)
        #expect(try await silent.markSilent(in: store, catalog: catalog, now: Instant(seconds: 1_000 + week + 60)) == 1)
        #expect(try await silent.markSilent(in: store, catalog: catalog, now: Instant(seconds: 1_000 + 2 * week)) == 0)
        try await checkIn(at: 1_000 + 2 * week)
        #expect(try await silent.markSilent(in: store, catalog: catalog, now: Instant(seconds: 1_000 + 4 * week)) == 1)
        let rows = try await EventOutbox(store: store).list()
        #expect(rows.map(\.event.type) == [EventType.silent.rawValue, EventType.silent.rawValue])
        #expect(rows.allSatisfy { $0.event.subject == "iphone-0117" })
        try await store.close()
    }

    /// A publish and its event are one transaction: the event names the generation it made.
    @Test(arguments: StoreKind.available)
    func publishWritesItsEvent(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let history = CatalogHistory(store: store)
        let subscriptions = EventSubscriptions(
            endpoints: [
                EventEndpoint(
                    name: "ops", url: "https://h/", types: [.catalogPublished, .catalogRolledBack],
                    secret: .environment("X"))
            ],
            server: "test")
        let files = CatalogFiles(["devices.plist": Array("<plist><dict/></plist>".utf8)])
        let changed = CatalogFiles(["devices.plist": Array("<plist><dict><key>a</key><dict/></dict></plist>".utf8)])
        for (content, kind) in [(files, "publish"), (changed, "publish"), (files, "rollback")] {
            _ = try await history.publish(
                content, author: "t", message: "m", kind: kind, source: kind == "rollback" ? 1 : nil
            ) {
                subscriptions.published($0, previous: $1)
            }
        }
        let rows = try await EventOutbox(store: store).list()
        #expect(rows.map(\.event.subject) == ["3", "2", "1"])
        #expect(
            rows.map(\.event.type) == [
                "io.mdmconf.catalog.rolledback", "io.mdmconf.catalog.published", "io.mdmconf.catalog.published",
            ])
        #expect(rows[0].event.body.contains(#""previous":2"#))
        try await store.close()
    }
}
