import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import TestScratch
import Testing
import WebhookEvents

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Events as they run in production: `mdmconf serve` processes on real stores deliver signed events to the example
/// receiver (`Examples/webhook-receiver`) over loopback, through a receiver that is down, failing, hanging or gone,
/// and a `kill -9` of the server.
@Suite(.serialized) struct EventDeliveryTests {
    static let admin = ["Authorization": "Bearer example-admin-token-c0ffee"]
    static let devices = ["ipad-0042", "ipad-0300", "iphone-0117", "iphone-0201", "iphone-0202", "iphone-0400"]
    static let secret = "whsec_" + Data((0..<32).map { UInt8($0 * 7 & 0xFF) }).base64EncodedString()

    /// A check-in of `device`, with a configuration error for com.example.field when `error` is given, and the
    /// configuration's ETag when `etag` is.
    static func checkIn(_ device: String, error: String? = nil, etag: String? = nil) -> String {
        let failure =
            (error.map { #", "configError": "\#($0)""# } ?? "")
            + (etag.map { #", "configETag": "\#($0.replacingOccurrences(of: "\"", with: "\\\""))""# } ?? "")
        return #"{"device": "\#(device)", "at": "\#(Instant.now.description)", "platform": "ios", "#
            + #""osVersion": "17.4.1", "apps": [{"app": "com.example.field", "version": "3.2.1"\#(failure)}, "#
            + #"{"app": "com.example.fieldsync", "version": "1.0"}]}"#
    }

    /// A copy of the example catalog whose events.plist sends device events to `url`, signed with `secret` from a
    /// file: (the catalog folder, the secret file).
    static func catalog(url: String, types: [EventType] = [.complianceChanged, .configError]) throws -> String {
        let folder = Scratch.url(
            "mdmconf-events-\(UUID().uuidString)")
        try FileManager.default.copyItem(
            at: CLIProcess.packageRoot.appendingPathComponent("Examples/catalog"), to: folder)
        let secretFile = folder.deletingLastPathComponent().appendingPathComponent("\(UUID().uuidString).whsec").path
        try secret.write(toFile: secretFile, atomically: true, encoding: .utf8)
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>ops</key>
                <dict>
                    <key>url</key><string>\(url)</string>
                    <key>types</key>
                    <array>\(types.map { "<string>\($0.rawValue)</string>" }.joined())</array>
                    <key>secretFile</key><string>\(secretFile)</string>
                </dict>
            </dict>
            </plist>
            """
        try plist.write(toFile: folder.appendingPathComponent("events.plist").path, atomically: true, encoding: .utf8)
        return folder.path
    }

    /// Sends `rounds` of check-ins: each device once per round; returns how many got a 200.
    static func send(_ port: Int, _ bodies: [String]) async throws -> Int {
        var acknowledged = 0
        for body in bodies {
            let response = try await RawHTTP(port: port).request("POST", "/v1/checkin", headers: admin, body: body)
            #expect(response.status == 200, "\(response.text)")
            if response.status == 200 { acknowledged += 1 }
        }
        return acknowledged
    }

    /// Every delivery in the store's outbox.
    static func outbox(_ store: String) throws -> [[String: Any]] {
        let listed = try CLIProcess.run(["events", "list", "--store", store, "--limit", "10000", "--format", "json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        return try CLIProcess.json(listed.stdout)["deliveries"] as? [[String: Any]] ?? []
    }

    /// Waits (up to a minute) until `done` holds for the outbox.
    static func waitForOutbox(_ store: String, _ done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(60)
        var rows = try outbox(store)
        while !done(rows) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            rows = try outbox(store)
        }
        return rows
    }

    static func states(_ rows: [[String: Any]]) -> [String: Int] {
        rows.reduce(into: [:]) { counts, row in counts[row["state"] as? String ?? "?", default: 0] += 1 }
    }

    /// Check-ins are acknowledged while the receiver is down, the server is killed with SIGKILL with every event
    /// still pending, and after a restart (the receiver back on its port) every event is delivered, verified by the
    /// receiver: none is lost. 6 first check-ins change compliance; 6 more report a configuration error. Served
    /// from a folder, and from a stored generation (`--from-store`), whose events keep no body in the outbox: the
    /// restarted server makes each from its check-in (a compliance change's with the generation too).
    @Test(arguments: StoreKind.available.flatMap { kind in [(kind, false), (kind, true)] })
    func eventsPendingAtKill9AreDeliveredAfterRestart(kind: StoreKind, fromStore: Bool) async throws {
        let location = try TestStores.freshLocation(kind).description
        // The receiver's port is learnt, then the receiver stopped: the server finds nobody there. The port lies
        // outside the kernel's ephemeral range, so no process another test starts on port 0 can take it meanwhile
        // (a receiver that could not bind it again failed this test once in CI).
        let first = try ReceiverProcess.outsideEphemeralPorts()
        let port = first.port
        first.stop()
        let catalog = try Self.catalog(url: "http://127.0.0.1:\(port)/hooks/mdmconf")
        var serve = ["serve", catalog, "--port", "0", "--store", location, "--event-retry-base", "1"]
        if fromStore {
            let published = try CLIProcess.run(["publish", catalog, "--store", location, "--message", "events"])
            #expect(published.status == 0, "\(published.stderr)")
            serve[1] = "--from-store"
        }
        let server = try ServerProcess(serve)
        let sent = try await Self.send(
            server.port, Self.devices.map { Self.checkIn($0) } + Self.devices.map { Self.checkIn($0, error: "bad") })
        #expect(sent == 12)
        let pending = try await Self.waitForOutbox(location) { rows in
            rows.count == 12 && rows.allSatisfy { ($0["attempts"] as? Int ?? 0) >= 1 }
        }
        #expect(Self.states(pending) == ["pending": 12], "\(pending)")
        if fromStore {
            // The compliance events' rows hold no body: only the generation and the check-in it is made from.
            let store = try await TestStores.open(try #require(StoreLocation.parse(location).get()))
            let rows = try await EventOutbox(store: store).list()
            try await store.close()
            let compliance = rows.filter { $0.event.type == EventType.complianceChanged.rawValue }
            #expect(compliance.count == 6 && compliance.allSatisfy { $0.event.body.isEmpty && $0.event.madeFrom == 1 })
            // Nor do the configuration errors': theirs are made from the check-in alone.
            let errors = rows.filter { $0.event.type == EventType.configError.rawValue }
            #expect(errors.count == 6 && errors.allSatisfy { $0.event.body.isEmpty && $0.event.madeFrom == 1 })
        }
        server.kill9()

        let receiver = try ReceiverProcess(["--port", String(port)])
        let restarted = try ServerProcess(serve)
        let delivered = try await Self.waitForOutbox(location) { rows in Self.states(rows) == ["delivered": 12] }
        #expect(Self.states(delivered) == ["delivered": 12], "\(delivered)\n\(restarted.log)")
        #expect(restarted.stop() == 0)
        receiver.stop()
        let received = receiver.accepted
        let ids = Set(delivered.compactMap { $0["event"] as? String })
        #expect(Set(received.map(\.id)) == ids, "the receiver verified \(received.count) deliveries")
        let types = Dictionary(grouping: received.filter { !$0.duplicate }, by: \.type).mapValues(\.count)
        #expect(types == [EventType.complianceChanged.rawValue: 6, EventType.configError.rawValue: 6])
        #expect(receiver.rejected == 0)
    }

    /// Two replicas on one PostgreSQL database: the one holding the dispatcher's lock sends every event, whichever
    /// replica took the check-in, and each is received once. When it is killed, the other takes the lock and sends
    /// what comes next.
    @Test(.enabled(if: TestStores.postgresURL != nil || TestStores.inCI))
    func twoReplicasDeliverEachEventOnce() async throws {
        let location = try TestStores.freshLocation(.postgres).description
        let receiver = try ReceiverProcess([])
        let catalog = try Self.catalog(url: "http://127.0.0.1:\(receiver.port)/")
        func replica(_ name: String) throws -> ServerProcess {
            try ServerProcess([
                "serve", catalog, "--port", "0", "--store", location, "--replica", name, "--event-retry-base", "1",
            ])
        }
        let replicas = [try replica("replica-a"), try replica("replica-b")]
        for (index, device) in Self.devices.enumerated() {
            let port = replicas[index % 2].port
            #expect(try await Self.send(port, [Self.checkIn(device), Self.checkIn(device, error: "bad")]) == 2)
        }
        var rows = try await Self.waitForOutbox(location) { Self.states($0) == ["delivered": 12] }
        #expect(Self.states(rows) == ["delivered": 12], "\(rows)")
        let holders = replicas.filter { $0.log.contains("this replica sends the fleet's events") }
        #expect(holders.count == 1, "\(replicas.map(\.log))")
        let received = receiver.accepted
        #expect(received.filter(\.duplicate).isEmpty, "duplicates: \(received.filter(\.duplicate).map(\.id))")
        #expect(Set(received.map(\.id)) == Set(rows.compactMap { $0["event"] as? String }))

        // The holder dies; the other replica takes the lock and sends the events of its next check-ins.
        guard let holder = holders.first, let other = replicas.first(where: { $0 !== holder }) else { return }
        holder.kill9()
        #expect(try await Self.send(other.port, Self.devices.map { Self.checkIn($0, error: "worse") }) == 6)
        rows = try await Self.waitForOutbox(location) { Self.states($0) == ["delivered": 18] }
        #expect(Self.states(rows) == ["delivered": 18], "\(rows)\n\(other.log)")
        #expect(other.log.contains("this replica sends the fleet's events"))
        #expect(other.stop() == 0)
        receiver.stop()
        #expect(receiver.accepted.filter(\.duplicate).isEmpty)
    }

    /// A receiver that answers 500 to its first 4 deliveries gets every event later, each verified once.
    @Test func aFailingReceiverGetsTheEventsLater() async throws {
        let location = try TestStores.freshLocation(.sqlite).description
        let receiver = try ReceiverProcess(["--fail-first", "4"])
        let catalog = try Self.catalog(url: "http://127.0.0.1:\(receiver.port)/")
        let server = try ServerProcess([
            "serve", catalog, "--port", "0", "--store", location, "--event-retry-base", "1",
        ])
        #expect(try await Self.send(server.port, Self.devices.map { Self.checkIn($0) }) == 6)
        let rows = try await Self.waitForOutbox(location) { Self.states($0) == ["delivered": 6] }
        #expect(Self.states(rows) == ["delivered": 6], "\(rows)")
        #expect(rows.reduce(0) { $0 + ($1["attempts"] as? Int ?? 0) } == 10)
        // /metrics counts them per endpoint.
        let metrics = try await RawHTTP(port: server.port).request("GET", "/metrics").text
        #expect(metrics.contains(#"mdmconf_events_sent_total{endpoint="ops"} 6"#), "\(metrics)")
        #expect(metrics.contains(#"mdmconf_events_failed_total{endpoint="ops"} 4"#))
        #expect(server.stop() == 0)
        receiver.stop()
        #expect(receiver.accepted.filter { !$0.duplicate }.count == 6)
    }

    /// A receiver that never answers holds the dispatcher, not the check-ins: 120 check-ins that each change a
    /// device's configuration-error state are all answered while the first deliveries are still waiting.
    @Test func aReceiverThatNeverAnswersDoesNotHoldCheckIns() async throws {
        let location = try TestStores.freshLocation(.sqlite).description
        let receiver = try ReceiverProcess(["--hang"])
        let catalog = try Self.catalog(url: "http://127.0.0.1:\(receiver.port)/", types: [.configError])
        let server = try ServerProcess(["serve", catalog, "--port", "0", "--store", location])
        // Wait until the dispatcher holds a delivery to the hanging receiver.
        #expect(try await Self.send(server.port, [Self.checkIn("iphone-0117", error: "first")]) == 1)
        try await Task.sleep(for: .milliseconds(800))
        var bodies: [String] = []
        for round in 0..<20 {
            for device in Self.devices {
                bodies.append(Self.checkIn(device, error: round % 2 == 0 ? nil : "e\(round)"))
            }
        }
        #expect(try await Self.send(server.port, bodies) == 120)
        let rows = try Self.outbox(location)
        // 1 + 10 rounds of errors × 6 devices; none delivered, the first still in its first attempt.
        #expect(rows.count == 61)
        #expect(Self.states(rows) == ["pending": 61])
        #expect(server.stop() == 0)
        receiver.stop()
    }

    /// An endpoint that answers 410 Gone is disabled with its pending deliveries; `events retry` sends them again.
    @Test func goneDisablesTheEndpointUntilRetry() async throws {
        let location = try TestStores.freshLocation(.sqlite).description
        let receiver = try ReceiverProcess(["--status", "410"])
        let catalog = try Self.catalog(url: "http://127.0.0.1:\(receiver.port)/", types: [.complianceChanged])
        let server = try ServerProcess(["serve", catalog, "--port", "0", "--store", location])
        #expect(try await Self.send(server.port, Self.devices.map { Self.checkIn($0) }) == 6)
        let rows = try await Self.waitForOutbox(location) { Self.states($0)["disabled"] == 6 }
        #expect(Self.states(rows) == ["disabled": 6], "\(rows)")
        let listed = try CLIProcess.run(["events", "list", "--store", location])
        #expect(listed.stdout.contains("endpoint ops is disabled since"), "\(listed.stdout)")
        #expect(server.stop() == 0)
        let retried = try CLIProcess.run(["events", "retry", "--store", location, "--endpoint", "ops"])
        #expect(retried.status == 0)
        #expect(retried.stdout.contains("6 deliveries will be sent again"), "\(retried.stdout)")
        #expect(Self.states(try Self.outbox(location)) == ["pending": 6])
        receiver.stop()
    }

    /// The receiver accepts a delivery signed with the endpoint's secret and refuses one whose body, signature,
    /// secret or timestamp is wrong; `events test` sends it a signed test event.
    @Test func theReceiverVerifiesSignatures() async throws {
        let receiver = try ReceiverProcess([])
        let http = RawHTTP(port: receiver.port)
        let signer = try WebhookSignature(secrets: Self.secret)
        let other = try WebhookSignature(secrets: "whsec_" + Data(repeating: 9, count: 32).base64EncodedString())
        let event = CloudEvent(
            source: "mdmconf://test", type: .complianceChanged, time: .now, subject: "iphone-0117",
            data: .object([("compliant", .bool(false))]))
        let body = event.body
        func post(
            _ body: String, signer: WebhookSignature, signedBody: String? = nil, at time: Int64 = Instant.now.seconds
        )
            async throws -> Int
        {
            let headers = signer.headers(id: event.id, timestamp: time, body: Array((signedBody ?? body).utf8))
            var fields = ["Content-Type": CloudEvent.contentType]
            for header in headers { fields[header.name] = header.value }
            return try await http.request("POST", "/", headers: fields, body: body).status
        }
        #expect(try await post(body, signer: signer) == 204)
        #expect(
            try await post(body.replacingOccurrences(of: "false", with: "true "), signer: signer, signedBody: body)
                == 401)
        #expect(try await post(body, signer: other) == 401)
        #expect(try await post(body, signer: signer, at: Instant.now.seconds - 3_600) == 401)
        let catalog = try Self.catalog(url: "http://127.0.0.1:\(receiver.port)/")
        let test = try CLIProcess.run(["events", "test", "ops", "--events", catalog + "/events.plist"])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("ops answered 204 to test event evt_"), "\(test.stdout)")
        receiver.stop()
        #expect(receiver.accepted.map(\.type) == [EventType.complianceChanged.rawValue, EventType.test.rawValue])
        #expect(receiver.rejected == 3)
    }

    /// `publish` of a catalog whose events.plist subscribes to publishes writes the event with the generation, and
    /// a server on that store delivers it.
    @Test func publishSendsAnEvent() async throws {
        let location = try TestStores.freshLocation(.sqlite).description
        let receiver = try ReceiverProcess([])
        let catalog = try Self.catalog(url: "http://127.0.0.1:\(receiver.port)/", types: [.catalogPublished])
        let published = try CLIProcess.run(["publish", catalog, "--store", location, "--message", "first"])
        #expect(published.status == 0, "\(published.stderr)")
        let server = try ServerProcess(["serve", "--from-store", "--store", location, "--port", "0"])
        let rows = try await Self.waitForOutbox(location) { Self.states($0) == ["delivered": 1] }
        #expect(Self.states(rows) == ["delivered": 1], "\(rows)")
        #expect(rows.first?["type"] as? String == EventType.catalogPublished.rawValue)
        #expect(rows.first?["subject"] as? String == "1")
        #expect(server.stop() == 0)
        receiver.stop()
        // A second publish counts its changes against the first.
        let config = catalog + "/apps/com.example.field/config.plist"
        try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
            of: "<integer>443</integer>", with: "<integer>8443</integer>"
        )
        .write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try CLIProcess.run(["publish", catalog, "--store", location, "--message", "port"]).status == 0)
        let store = try await TestStores.open(try #require(StoreLocation.parse(location).get()))
        let second = try await EventOutbox(store: store).list().first
        try await store.close()
        #expect(second?.event.subject == "2")
        #expect(
            second?.event.body.contains(#""changes":{"against":1,"files":1,"values":1}"#) == true,
            "\(second?.event.body ?? "")")
    }
}

/// The example webhook receiver as a separate process on a free port (or the one given), its output read as it
/// comes.
final class ReceiverProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var output = ""
    private(set) var port = 0

    struct Accepted {
        var id: String
        var type: String
        var duplicate: Bool
    }

    init(_ arguments: [String]) throws {
        let secretFile = try CLIProcess.temporaryFile("receiver.whsec", EventDeliveryTests.secret)
        process.executableURL = CLIProcess.binary.deletingLastPathComponent().appendingPathComponent("webhook-receiver")
        process.arguments =
            (arguments.contains("--port") ? [] : ["--port", "0"]) + ["--secret-file", secretFile] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        PipeReader.drain(out) { [weak self] data in
            self?.lock.withLock { self?.output += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
                let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...])
            {
                self.port = port
                return
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        process.terminate()
        throw ServerProcessError(message: "webhook-receiver did not start: \(text)")
    }

    var text: String { lock.withLock { output } }

    /// A receiver on a free port between 20000 and 29999, below Linux's ephemeral range (32768–60999).
    static func outsideEphemeralPorts() throws -> ReceiverProcess {
        var failure: Error?
        for _ in 0..<20 {
            do {
                return try ReceiverProcess(["--port", String(Int.random(in: 20_000...29_999))])
            } catch {
                failure = error
            }
        }
        throw failure ?? ServerProcessError(message: "no free port for webhook-receiver")
    }

    /// The deliveries it verified and accepted, in order.
    var accepted: [Accepted] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "verified" || words[0] == "duplicate" else { return nil }
            return Accepted(id: String(words[3]), type: String(words[1]), duplicate: words[0] == "duplicate")
        }
    }

    /// How many deliveries it refused (401).
    var rejected: Int { text.split(separator: "\n").filter { $0.hasPrefix("rejected ") }.count }

    /// SIGTERM, and SIGKILL when it has not ended within 3 s (a `--hang` receiver waits for its requests).
    func stop() {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        usleep(50_000)  // the last lines of its output
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
