import FleetTestSupport
import Foundation
import PropertyList
import TestScratch
import Testing

@testable import MDMConfClient
@testable import MDMConfClientCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `MDMConfClient` against a real `mdmconf serve` process on loopback (and, for what a real server never does,
/// a canned one): launches, the cache, offline behaviour, refusals, time limits.
@Suite(.serialized) struct ClientTests {
    static let field = "com.example.field"
    static let iphoneToken = "example-device-token-iphone-0117"

    /// A copy of the example catalog (so a test may change it) served by its own `mdmconf serve`. Its clients
    /// wait up to 30 s (not the 5 s an app uses): the whole suite runs in parallel on two cores, and a debug server
    /// under that load was seen to take more than 5 s for its first answer.
    final class LiveCatalog: @unchecked Sendable {
        let root: URL
        let catalog: URL
        var server: ServerProcess?

        init() throws {
            root = Scratch.url("mdmconf-client-\(UUID().uuidString)")
            catalog = root.appendingPathComponent("catalog")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: CLIProcess.packageRoot.appendingPathComponent("Examples/catalog"), to: catalog)
            try start()
        }

        func start() throws {
            server = try ServerProcess([
                "serve", catalog.path, "--port", "0", "--watch", "--store",
                "sqlite:" + root.appendingPathComponent("fleet.sqlite").path,
            ])
        }

        var url: URL { URL(string: "http://127.0.0.1:\(server?.port ?? 9)") ?? URL(fileURLWithPath: "/") }

        func cache(_ name: String = "cache") -> URL { root.appendingPathComponent(name) }

        /// A client of the live server. Its time-out only keeps a broken test from hanging: in a full run of the
        /// suite on two cores, the cooperative threads were once busy with other tests for about 60 s, and a first
        /// launch with a 60 s time-out gave up on a server that had answered (the tests of time-outs give their own).
        func client(
            token: String? = ClientTests.iphoneToken, device: String? = nil, cache name: String = "cache",
            transport: any ClientTransport = URLSessionTransport(), timeout: Double = 300
        ) -> MDMConfClient {
            MDMConfClient(
                server: url, token: token, app: ClientTests.field, cache: cache(name), device: device, timeout: timeout,
                transport: transport)
        }

        deinit {
            server?.stop()
            try? FileManager.default.removeItem(at: root)
        }
    }

    /// The real URLSession transport, noting each request (method, path, `If-None-Match`) and status.
    final class Recording: ClientTransport, @unchecked Sendable {
        private let inner = URLSessionTransport()
        private let lock = NSLock()
        private var seen: [String] = []

        var requests: [String] {
            lock.lock()
            defer { lock.unlock() }
            return seen
        }

        func clear() {
            lock.lock()
            seen = []
            lock.unlock()
        }

        private func note(_ line: String) {
            lock.lock()
            seen.append(line)
            lock.unlock()
        }

        func send(_ request: ClientRequest, timeout: Double) async throws -> ClientResponse {
            let response = try await inner.send(request, timeout: timeout)
            let match = request.headers["If-None-Match"] == nil ? "" : " if-none-match"
            note("\(request.method) \(request.url.path)\(match) → \(response.status)")
            return response
        }
    }

    @Test func firstLaunchThenCurrentThenNotModified() async throws {
        let live = try LiveCatalog()
        let recording = Recording()
        let client = live.client(transport: recording)

        let first = await client.launch(version: "3.2.1", platform: "ios", osVersion: "17.4.1")
        #expect(first.problem == nil)
        let config = try #require(first.configuration)
        #expect(config.source == .network && config.isCurrent)
        #expect(config.string("ServerURL") == "https://field.example.com/api")
        #expect(config.string("UserEmail") == "ana.lima@example.com", "variables are substituted for the device")
        #expect(config.integer("ServerPort") == 443)
        #expect(config.bool("AllowOfflineMode") == true)
        // Decoded into a type of the app's own, as `schema codegen --swift` writes them.
        struct Field: Decodable, Equatable {
            enum Theme: String, Decodable { case light, dark, system }
            var ServerURL: String
            var ServerPort: Int
            var AllowedRegions: [String]
            var Theme: Theme?
        }
        let decoded = try config.decode(Field.self)
        #expect(decoded.ServerURL == "https://field.example.com/api" && decoded.ServerPort == 443)
        #expect(decoded.AllowedRegions == ["EU"] && decoded.Theme == .system)
        struct Wrong: Decodable { var ServerPort: String }
        #expect {
            try config.decode(Wrong.self)
        } throws: { error in
            guard case .typeMismatch(_, let context)? = error as? DecodingError else { return false }
            return context.codingPath.map(\.stringValue) == ["ServerPort"]
        }
        #expect(first.update?.decision == .ok && first.update?.source == .network)
        #expect(first.catalogGeneration == 1)
        #expect(recording.requests == ["POST /v1/checkin → 200", "GET /v1/apps/com.example.field/config → 200"])
        #expect(
            FileManager.default.fileExists(
                atPath: live.cache().appendingPathComponent("\(Self.field).mdmconf-cache.json").path))

        // The second launch reports the ETag it holds: the answer says `current`, nothing is fetched.
        recording.clear()
        let second = await client.launch(version: "3.2.1", platform: "ios", osVersion: "17.4.1")
        #expect(second.configuration?.source == .cache && second.configuration?.isCurrent == true)
        #expect(second.configuration?.etag == config.etag)
        #expect(recording.requests == ["POST /v1/checkin → 200"])

        // A foreground refresh asks with If-None-Match and gets 304.
        recording.clear()
        let refreshed = await client.refreshConfiguration()
        #expect(refreshed.notModified && refreshed.problem == nil)
        #expect(refreshed.configuration?.string("ServerURL") == "https://field.example.com/api")
        #expect(recording.requests == ["GET /v1/apps/com.example.field/config if-none-match → 304"])
    }

    @Test func aReloadedConfigurationIsFetchedAgain() async throws {
        let live = try LiveCatalog()
        let client = live.client()
        let before = try #require(await client.launch(version: "3.2.1", platform: "ios").configuration)
        let file = live.catalog.appendingPathComponent("apps/com.example.field/config.plist")
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: "https://field.example.com/api", with: "https://field-eu.example.com/api")
            .write(to: file, atomically: true, encoding: .utf8)
        // `--watch` reloads the catalog within its reload interval (2 s in the example).
        var after: LaunchResult?
        for _ in 0..<50 {
            let launch = await client.launch(version: "3.2.1", platform: "ios")
            if launch.catalogGeneration ?? 0 > 1 {
                after = launch
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let changed = try #require(after?.configuration, "the server did not reload within 10 s")
        #expect(changed.source == .network)
        #expect(changed.etag != before.etag)
        #expect(changed.string("ServerURL") == "https://field-eu.example.com/api")
    }

    struct DecisionCase: Sendable, CustomTestStringConvertible {
        var version: String
        var osVersion: String
        var decision: UpdateDecision
        var reason: String
        var mayContinue: Bool
        var testDescription: String { "\(version) on iOS \(osVersion) → \(decision)" }
    }

    static let decisions: [DecisionCase] = [
        DecisionCase(version: "3.2.1", osVersion: "17.4.1", decision: .ok, reason: "", mayContinue: true),
        // iphone-0117 is in the 50 % rollout of the 3.2.1 recommendation.
        DecisionCase(
            version: "3.0.5", osVersion: "17.4.1", decision: .recommended, reason: "below_recommended_version",
            mayContinue: true),
        DecisionCase(
            version: "2.3.1", osVersion: "17.4.1", decision: .required, reason: "below_min_version", mayContinue: false),
        DecisionCase(
            version: "3.1.0", osVersion: "17.4.1", decision: .required, reason: "blocked_version", mayContinue: false),
        DecisionCase(
            version: "2.3.1", osVersion: "15.7", decision: .unsupported, reason: "os_too_old_for_target",
            mayContinue: false),
    ]

    @Test func everyDecisionKindOnlineThenOffline() async throws {
        let live = try LiveCatalog()
        var online: [String: UpdateAdvice] = [:]
        for (index, testCase) in Self.decisions.enumerated() {
            let client = live.client(cache: "cache-\(index)")
            let launch = await client.launch(
                version: testCase.version, platform: "ios", osVersion: testCase.osVersion, locale: "de-DE")
            let update = try #require(launch.update, "\(testCase)")
            #expect(update.decision == testCase.decision, "\(testCase): \(update.document)")
            if !testCase.reason.isEmpty {
                #expect(update.reasons.contains(testCase.reason), "\(testCase): \(update.reasons)")
            }
            #expect(launch.mayContinue == testCase.mayContinue, "\(testCase)")
            online[testCase.testDescription] = update
        }
        let required = try #require(online[Self.decisions[2].testDescription])
        #expect(required.message?.title == "Field 3.0 ist erforderlich", "the message in the device's locale")
        #expect(required.updateURL?.absoluteString == "itms-apps://apps.apple.com/app/id000000001")
        #expect(required.urgency == "critical")

        // Offline: the same launches get the last decisions, marked cached with their age; `required` stays.
        live.server?.stop()
        for (index, testCase) in Self.decisions.enumerated() {
            let client = live.client(cache: "cache-\(index)")
            let launch = await client.launch(version: testCase.version, platform: "ios", osVersion: testCase.osVersion)
            guard case .unreachable? = launch.problem else {
                Issue.record("\(testCase): \(String(describing: launch.problem))")
                continue
            }
            #expect(launch.update?.decision == testCase.decision, "\(testCase)")
            #expect(launch.update?.source == .cache)
            #expect(launch.update?.document == online[testCase.testDescription]?.document)
            #expect(launch.configuration?.source == .cache && launch.configuration?.isCurrent == false)
            #expect(launch.configuration?.string("ServerURL") == "https://field.example.com/api")
            #expect(launch.mayContinue == testCase.mayContinue, "\(testCase)")
        }
        // Updated past the target while offline: ok. An OS update makes an `unsupported` unknown.
        let updated = await live.client(cache: "cache-2").launch(version: "3.2.1", platform: "ios", osVersion: "17.4.1")
        #expect(updated.update?.decision == .ok && updated.update?.reasons == ["updated_since_decision"])
        let newOS = await live.client(cache: "cache-4").launch(version: "2.3.1", platform: "ios", osVersion: "17.4.1")
        #expect(newOS.update == nil)
    }

    /// Offline, the cached decision follows its own deadline: a recommendation whose deadline passes while the
    /// device is offline becomes required, as the server would decide it.
    @Test func offlineDeadlinesFollowTheDecision() throws {
        let document =
            #"{"decision": "recommended", "policy": "p1", "targetVersion": "3.0", "deadline": "2026-12-01T09:00:00Z", "urgency": "approaching", "deferralsRemaining": 2, "message": {"locale": "en", "title": "Update", "body": null}, "updateUrl": "https://example.com/app", "reasons": [{"policy": "p1", "code": "below_min_version"}, {"policy": "p1", "code": "deadline_pending"}], "skipped": [], "evaluatedAt": "2026-11-25T09:00:00Z", "trace": null}"#
        let cached = CachedState.Decision(document: document, decidedAt: Date(), version: "2.9", osVersion: "17.4")
        func at(_ text: String) -> Date { Date(timeIntervalSince1970: PlistDate(iso8601: text)!.secondsSince1970) }
        let before = try #require(
            MDMConfClient.offlineAdvice(cached, version: "2.9", osVersion: "17.4", now: at("2026-11-30T09:00:00Z")))
        #expect(before.decision == .recommended && before.deadline == at("2026-12-01T09:00:00Z"))
        #expect(before.age == 5 * 86_400)
        let after = try #require(
            MDMConfClient.offlineAdvice(cached, version: "2.9", osVersion: "17.4", now: at("2026-12-01T09:00:00Z")))
        #expect(after.decision == .required && after.urgency == "critical")
        #expect(after.reasons == ["below_min_version", "deadline_passed"])
        let updated = try #require(
            MDMConfClient.offlineAdvice(cached, version: "3.0.1", osVersion: "17.4", now: at("2026-12-02T09:00:00Z")))
        #expect(updated.decision == .ok)
        let stillOld = try #require(
            MDMConfClient.offlineAdvice(cached, version: "2.9.5", osVersion: "17.4", now: at("2026-12-02T09:00:00Z")))
        #expect(stillOld.decision == .required)
    }

    @Test func offlineWithoutACache() async throws {
        let live = try LiveCatalog()
        live.server?.stop()
        let launch = await live.client().launch(version: "3.2.1", platform: "ios")
        guard case .unreachable(let reason)? = launch.problem else {
            Issue.record("\(String(describing: launch.problem))")
            return
        }
        #expect(!reason.isEmpty)
        #expect(launch.configuration == nil && launch.update == nil)
        #expect(launch.mayContinue, "nothing known: the app runs with its defaults")
    }

    @Test func refusedTokensAreErrorsNeverOk() async throws {
        let live = try LiveCatalog()
        // Fill the cache first, so a refusal cannot fall back to it.
        _ = await live.client().launch(version: "3.2.1", platform: "ios")
        let wrong = await live.client(token: "not-a-token").launch(version: "3.2.1", platform: "ios")
        #expect(wrong.problem == .refused(status: 401, message: "the bearer token is not valid"))
        #expect(
            wrong.problem?.kind == "refused" && !wrong.mayContinue && wrong.update == nil && wrong.configuration == nil)
        let other = await live.client(device: "ipad-0042").launch(version: "3.2.1", platform: "ios")
        guard case .refused(403, _)? = other.problem else {
            Issue.record("\(String(describing: other.problem))")
            return
        }
        #expect(!other.mayContinue)
        // An unknown device named with the admin token is the check-in's own refusal: 404, the cache stands in.
        let unknown = await live.client(token: "example-admin-token-c0ffee", device: "iphone-9999").launch(
            version: "3.2.1", platform: "ios")
        guard case .rejected(404, _)? = unknown.problem else {
            Issue.record("\(String(describing: unknown.problem))")
            return
        }
    }

    struct BadServerCase: Sendable, CustomTestStringConvertible {
        var name: String
        var answer: String?
        var kind: String
        var testDescription: String { name }
    }

    static let badServerCases: [BadServerCase] = [
        BadServerCase(
            name: "garbage 200",
            answer: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"apps\": ",
            kind: "bad_answer"),
        BadServerCase(
            name: "JSON of another shape",
            answer: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"apps\": [{}]}",
            kind: "bad_answer"),
        BadServerCase(
            name: "500", answer: "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", kind: "bad_answer"),
        BadServerCase(name: "not HTTP", answer: "SSH-2.0-OpenSSH_9.6\r\n", kind: "unreachable"),
        BadServerCase(name: "silent past the timeout", answer: nil, kind: "unreachable"),
    ]

    /// A server answering garbage, an error or nothing: the launch ends within its time limit with the cached
    /// configuration and decision, and says why.
    @Test(arguments: badServerCases)
    func badServers(_ testCase: BadServerCase) async throws {
        let live = try LiveCatalog()
        let good = await live.client().launch(version: "2.3.1", platform: "ios", osVersion: "17.4.1")
        #expect(good.update?.decision == .required)
        let canned = try CannedServer(testCase.answer.map { .answer($0) } ?? .silent)
        defer { canned.stop() }
        let client = MDMConfClient(
            server: URL(string: "http://127.0.0.1:\(canned.port)")!, token: Self.iphoneToken, app: Self.field,
            cache: live.cache(), timeout: 1)
        let launch = await client.launch(version: "2.3.1", platform: "ios", osVersion: "17.4.1")
        #expect(launch.problem?.kind == testCase.kind, "\(testCase.name): \(String(describing: launch.problem))")
        #expect(launch.update?.decision == .required && launch.update?.source == .cache, "\(testCase.name)")
        #expect(launch.configuration?.etag == good.configuration?.etag, "\(testCase.name)")
        // The silent server is left by the client's own time limit (not by the system giving up on the socket).
        if testCase.answer == nil {
            #expect("\(String(describing: launch.problem))".contains("no answer within 1 s"), "\(testCase.name)")
        }
    }

    /// A cache file cut short (a disk that filled, a copy interrupted) is ignored and replaced whole.
    @Test func aTruncatedCacheIsIgnoredAndReplaced() async throws {
        let live = try LiveCatalog()
        let client = live.client()
        _ = await client.launch(version: "3.2.1", platform: "ios")
        let file = live.cache().appendingPathComponent("\(Self.field).mdmconf-cache.json")
        let whole = try Data(contentsOf: file)
        try whole.prefix(whole.count / 2).write(to: file)
        let launch = await client.launch(version: "3.2.1", platform: "ios")
        #expect(launch.problem == nil && launch.cacheError == nil)
        #expect(
            launch.configuration?.source == .network, "the half file was not used: the configuration was fetched again")
        let rewritten = try Data(contentsOf: file)
        #expect(try JSONSerialization.jsonObject(with: rewritten) is [String: Any])
        // Offline with only half a file: nothing, not garbage.
        try rewritten.prefix(rewritten.count - 3).write(to: file)
        live.server?.stop()
        let offline = await client.launch(version: "3.2.1", platform: "ios")
        #expect(offline.configuration == nil && offline.update == nil)
    }

    /// An app killed in the middle of writing its cache leaves the old cache whole. Each round launches the example
    /// app held halfway through its cache write (the test seam `MDMCONF_TEST_HOLD_CACHE_WRITE`), kills it there
    /// with SIGKILL, and finds the cache byte for byte as before; then a whole launch replaces it, so the next
    /// round has a different cache to lose.
    @Test func aKilledLaunchNeverLeavesHalfACache() async throws {
        let live = try LiveCatalog()
        let cache = live.cache("killed")
        let file = cache.appendingPathComponent("\(Self.field).mdmconf-cache.json")
        let rounds = 6
        var killedMidWrite = 0
        for round in 0..<rounds {
            let arguments = [
                "--server", live.url.absoluteString, "--token", Self.iphoneToken, "--version",
                ["3.2.1", "2.3.1", "3.0.5", "3.1.0"][round % 4], "--cache", cache.path, "--timeout", "60",
            ]
            let before = FileManager.default.contents(atPath: file.path)
            let marker = live.root.appendingPathComponent("held-\(round)")
            let child = try Spawn.start(
                ExampleApp.binary.path, arguments, environment: ["MDMCONF_TEST_HOLD_CACHE_WRITE": marker.path])
            var ended: Int32?
            let held = try await eventually {
                ended = ended ?? Spawn.ended(child)
                return ended != nil || FileManager.default.fileExists(atPath: marker.path)
            }
            guard held, ended == nil else {
                Issue.record("round \(round): the app ended (status \(String(describing: ended))) or never wrote")
                if ended == nil { kill(child, SIGKILL); _ = Spawn.wait(child) }
                continue
            }
            let inProgress = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter {
                $0.hasSuffix(".tmp")
            }
            #expect(kill(child, SIGKILL) == 0)
            let status = Spawn.wait(child)
            if status & 0x7f == SIGKILL, !inProgress.isEmpty { killedMidWrite += 1 }
            #expect(
                FileManager.default.contents(atPath: file.path) == before,
                "round \(round): a write killed halfway changed the cache")

            let whole = try Spawn.start(ExampleApp.binary.path, arguments)
            let exit = Spawn.wait(whole)
            #expect(exit & 0x7f == 0, "round \(round): the whole launch ended by signal \(exit & 0x7f)")
            let data = try #require(FileManager.default.contents(atPath: file.path), "round \(round)")
            #expect(data != before, "round \(round): the whole launch did not replace the cache")
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(object?["format"] as? Int == 1, "round \(round)")
        }
        #expect(killedMidWrite == rounds, "\(killedMidWrite) of \(rounds) kills landed in a write in progress")
        let launch = await live.client(cache: "killed").launch(version: "3.2.1", platform: "ios")
        #expect(launch.problem == nil && launch.configuration != nil)
    }

    /// A managed configuration pushed by the MDM is checked against the app's schema and its errors reach the
    /// server as the check-in's `configError`, shown on the device page.
    @Test func managedConfigurationErrorsAreReported() async throws {
        let live = try LiveCatalog()
        let schemaBytes = try [UInt8](
            Data(contentsOf: live.catalog.appendingPathComponent("apps/com.example.field/schema.xml")))
        let schema = try #require(ManagedConfiguration.schema(from: schemaBytes, name: "schema.xml").schema)
        let pushed: PlistValue = ["ServerURL": "https://field.example.com/api", "ServerPort": "443"]
        let managed = ManagedConfiguration(value: pushed, schema: schema)
        let configError = try #require(managed.configError)
        #expect(configError.contains("ServerPort"))
        let launch = await live.client().launch(version: "3.2.1", platform: "ios", managedConfiguration: managed)
        #expect(launch.configError == configError)
        let page = try await RawHTTP(port: live.server!.port).request(
            "GET", "/v1/fleet/devices/iphone-0117", headers: ["Authorization": "Bearer example-admin-token-c0ffee"])
        #expect(page.text.contains("ServerPort"), "\(page.text)")
        let clean = ManagedConfiguration(
            value: ["ServerURL": "https://field.example.com/api", "ServerPort": 443], schema: schema)
        #expect(clean.configError == nil, "\(clean.findings)")
    }
}

/// The example app of `Examples/client`, built beside `mdmconf`.
enum ExampleApp {
    static let binary = CLIProcess.binary.deletingLastPathComponent().appendingPathComponent("field-app-launch")
}
