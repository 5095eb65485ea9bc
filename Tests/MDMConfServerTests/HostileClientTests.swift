import Fleet
import FleetTestSupport
import Foundation
import Logging
import MDMConf
import MDMConfServer
import ServiceLifecycle
import TestScratch
import Testing

/// A copy of the example catalog in a temporary folder (symlinks followed), with settings changed per test.
struct CatalogCopy {
    let root: URL

    init(settings: String? = nil) throws {
        root = Scratch.url("served-\(UUID().uuidString)")
        try Self.copy(URL(fileURLWithPath: Fixture.exampleCatalog), to: root)
        if let settings {
            try write("mdmconf-server.plist", plist: "<dict>\(settings)</dict>")
        }
    }

    private static func copy(_ source: URL, to target: URL) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: target, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: source.path) {
            let from = source.appendingPathComponent(name).resolvingSymlinksInPath()
            var isFolder: ObjCBool = false
            _ = manager.fileExists(atPath: from.path, isDirectory: &isFolder)
            if isFolder.boolValue {
                try copy(from, to: target.appendingPathComponent(name))
            } else {
                try manager.copyItem(at: from, to: target.appendingPathComponent(name))
            }
        }
    }

    func write(_ path: String, plist body: String) throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">\(body)</plist>
            """
        try Data(text.utf8).write(to: root.appendingPathComponent(path), options: .atomic)
    }

    func write(_ path: String, text: String) throws {
        try Data(text.utf8).write(to: root.appendingPathComponent(path), options: .atomic)
    }
}

struct HostileClientTests {
    @Test func oversizedBodiesAre413() async throws {
        let copy = try CatalogCopy(settings: "<key>maxBodySize</key><integer>1024</integer>")
        try await Fixture.live(try Fixture.store(copy.root.path)) { http, _ in
            let big = "{\"app\": \"" + String(repeating: "a", count: 5000) + "\"}"
            let announced = try await http.request("POST", "/v1/update-check", headers: Fixture.admin, body: big)
            #expect(announced.status == 413)
            #expect(announced.text.contains("MC6105"))
            // Chunked, so the size is only known while reading.
            let chunk = String(repeating: "x", count: 800)
            let head =
                "POST /v1/policy/evaluate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer example-admin-token-c0ffee\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            let chunked = try await http.send([head + "320\r\n\(chunk)\r\n320\r\n\(chunk)\r\n0\r\n\r\n"])
            #expect(chunked?.status == 413)
            let fine = try await http.request(
                "POST", "/v1/update-check", headers: Fixture.admin,
                body: #"{"app": "com.example.fieldsync", "version": "1.0", "platform": "ios"}"#)
            #expect(fine.status == 200, "the server still answers")
        }
    }

    /// Broken HTTP never takes the server down; each gets an answer or a closed connection.
    @Test func malformedRequestsDoNotHurtTheServer() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let attacks = [
                "GARBAGE\r\n\r\n",
                "GET / HTTP/9.9\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                    + String(repeating: "X-Filler: \(String(repeating: "y", count: 1000))\r\n", count: 100) + "\r\n",
                "POST /v1/update-check HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nzzzzz",
                "GET /v1/apps/\u{0}/config HTTP/1.1\r\nHost: x\r\n\r\n",
                "POST /v1/update-check HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n[1,2,3,4,]",
                "POST /v1/policy/evaluate HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n\u{FF}\u{FE}{}",
            ]
            for attack in attacks {
                if let response = try await http.send([attack]) {
                    #expect((400..<500).contains(response.status), "\(attack.prefix(40)): \(response.status)")
                }
            }
            let deep = String(repeating: "[", count: 100_000)
            let nested = try await http.request("POST", "/v1/update-check", headers: Fixture.admin, body: deep)
            #expect(nested.status == 400)
            let health = try await http.request("GET", "/healthz")
            #expect(health.status == 200)
        }
    }

    /// Every malformed body the other hostile tests send, and check-ins that break the grammar in hostile ways, sent
    /// to `POST /v1/checkin` on a real store: each gets a 4xx with the error shape, and nothing is written.
    @Test func hostileCheckInsLeaveTheStoreUnchanged() async throws {
        let store = try await TestStores.open(.sqlite)
        let fleet = FleetService(store: store, replica: "hostile")
        let auth = "Authorization: Bearer example-device-token-iphone-0117\r\n"
        @Sendable func post(_ body: String, extraHeaders: String = "") -> String {
            "POST /v1/checkin HTTP/1.1\r\nHost: x\r\n\(auth)\(extraHeaders)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        }
        let app = #"{"app": "com.example.field", "version": "3.2.1"}"#
        let tooMany = "[" + Array(repeating: app, count: CheckIn.maxApps + 1).joined(separator: ",") + "]"
        let bodies: [(String, String)] = [
            ("trailing comma", "[1,2,3,4,]"),
            ("byte-order garbage", "\u{FF}\u{FE}{}"),
            ("deep nesting", String(repeating: "[", count: 100_000)),
            ("deep object", String(repeating: #"{"a":"#, count: 10_000)),
            ("truncated", #"{"platform": "ios", "apps": [{"app": "#),
            ("not an object", #""iphone-0117""#),
            ("null", "null"),
            ("duplicate key", #"{"platform": "ios", "platform": "macos", "apps": []}"#),
            ("unknown key", #"{"platform": "ios", "apps": [], "admin": true}"#),
            ("unknown app key", #"{"platform": "ios", "apps": [{"app": "com.example.field", "version": "1", "sql": "x"}]}"#),
            ("wrong types", #"{"platform": 7, "osVersion": ["17"], "apps": {}}"#),
            ("apps not objects", #"{"platform": "ios", "apps": ["com.example.field"]}"#),
            ("too many apps", #"{"platform": "ios", "apps": \#(tooMany)}"#),
            ("bad platform", #"{"platform": "i/os", "apps": []}"#),
            ("bad OS version", #"{"platform": "ios", "osVersion": "17..4", "apps": []}"#),
            ("huge number", #"{"platform": "ios", "apps": [{"app": "com.example.field", "version": "1", "deferralsUsed": 1e999}]}"#),
            ("negative deferrals", #"{"platform": "ios", "apps": [{"app": "com.example.field", "version": "1", "deferralsUsed": -1}]}"#),
            ("bad time", #"{"platform": "ios", "at": "yesterday", "apps": []}"#),
            ("bad zone", #"{"platform": "ios", "timeZone": "../../etc/passwd", "apps": []}"#),
            ("NUL in an app id", #"{"platform": "ios", "apps": [{"app": "com.example\u0000field", "version": "1"}]}"#),
            ("SQL in an app id", #"{"platform": "ios", "apps": [{"app": "x'); DROP TABLE devices; --", "version": "1"}]}"#),
            ("another device", #"{"device": "ipad-0042", "platform": "ios", "apps": []}"#),
            ("long device id", #"{"device": "\#(String(repeating: "d", count: 10_000))", "platform": "ios", "apps": []}"#),
        ]
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            for (name, body) in bodies {
                let response = try #require(try await http.send([post(body)]), "\(name): no answer")
                #expect((400..<500).contains(response.status), "\(name): \(response.status) \(response.text.prefix(200))")
                #expect(response.text.contains(#""error""#), "\(name): \(response.text.prefix(200))")
            }
            // HTTP-level attacks aimed at the check-in route.
            let framing = [
                "POST /v1/checkin HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nzzzzz",
                "POST /v1/checkin HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: -5\r\n\r\n",
                post(#"{"platform": "ios", "apps": []}"#, extraHeaders: "Content-Type: application/json\r\nContent-Length: 3\r\n"),
            ]
            for attack in framing {
                if let response = try await http.send([attack]) {
                    #expect((400..<500).contains(response.status), "\(attack.prefix(60)): \(response.status)")
                }
            }
            #expect(try await store.counts() == StoreCounts(devices: 0, deviceApps: 0, checkIns: 0))
            let fine = try #require(try await http.send([post(#"{"platform": "ios", "apps": [\#(app)]}"#)]))
            #expect(fine.status == 200, "the server still takes check-ins: \(fine.text)")
        }
        #expect(try await store.counts() == StoreCounts(devices: 1, deviceApps: 1, checkIns: 1))
        try await store.close()
    }

    /// Pipelined requests on one connection are answered in order, whichever path answers each (configurations
    /// are answered on the event loop, the update check by a route).
    @Test func pipelinedRequestsKeepTheirOrder() async throws {
        try await Fixture.live(try Fixture.store()) { http, _ in
            let auth = "Authorization: Bearer example-admin-token-c0ffee\r\n"
            let body = #"{"app": "com.example.field", "version": "3.2.1", "platform": "ios", "osVersion": "17.4"}"#
            let text =
                "POST /v1/update-check HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
                + "GET /v1/apps/com.example.field/config?device=ipad-0042 HTTP/1.1\r\nHost: x\r\n\(auth)\r\n"
                + "GET /v1/apps/com.example.field/config HTTP/1.1\r\nHost: x\r\n\(auth)If-None-Match: *\r\n\r\n"
                + "GET /v1/apps/com.example.nope/config HTTP/1.1\r\nHost: x\r\n\(auth)\r\n"
                + "GET /v1/apps/com.example.field/config?device=iphone-0117 HTTP/1.1\r\nHost: x\r\n\(auth)Accept: application/json\r\nConnection: close\r\n\r\n"
            let all = try await http.sendReadingToClose(text)
            let markers = [
                "\"decision\": \"ok\"", "dock.team@example.com", "HTTP/1.1 304", "no app 'com.example.nope'",
                "\"UserEmail\": \"ana.lima@example.com\"",
            ]
            let positions = markers.map { all.range(of: $0)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil }, "\(all)")
            let found = positions.compactMap { $0 }
            #expect(found == found.sorted(), "answers out of order: \(all)")
            #expect(all.components(separatedBy: "HTTP/1.1 ").count - 1 == 5)
        }
    }

    /// Stored check-ins are answered on the event loop, refused ones by the route: pipelined with other requests
    /// on one connection, every answer still comes in order, only the valid check-ins are stored, and the metrics
    /// count both paths under the route.
    @Test func pipelinedCheckInsKeepTheirOrder() async throws {
        let store = try await TestStores.open(.sqlite)
        let fleet = FleetService(store: store, replica: "r")
        try await Fixture.live(try Fixture.store(), fleet: fleet) { http, _ in
            let device = "Authorization: Bearer example-device-token-iphone-0117\r\n"
            func post(_ body: String, _ extra: String = "") -> String {
                "POST /v1/checkin HTTP/1.1\r\nHost: x\r\n\(device)\(extra)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            func checkIn(_ version: String) -> String {
                #"{"platform": "ios", "apps": [{"app": "com.example.field", "version": "\#(version)"}]}"#
            }
            let text =
                post(checkIn("3.2.1")) + "GET /v1/apps/com.example.field/config HTTP/1.1\r\nHost: x\r\n\(device)\r\n"
                + post(#"{"platform": "ios", "apps": [], "admin": true}"#)
                + post(checkIn("3.0.2"), "Content-Type: application/json\r\n")
                + "GET /v1/update-check?app=com.example.field&version=3.0&platform=ios HTTP/1.1\r\nHost: x\r\n\(device)\r\n"
                + post(checkIn("3.1.0"), "Connection: close\r\n")
            let all = try await http.sendReadingToClose(text)
            let answers: [String] = Array(all.components(separatedBy: "HTTP/1.1 ").dropFirst())
            try #require(answers.count == 6, "\(all)")
            let expected: [(status: String, marker: String)] = [
                ("200", #""receivedAt""#), ("200", "ana.lima@example.com"), ("422", "invalid_checkin"),
                ("200", #""receivedAt""#), ("200", #""evaluatedAt""#), ("200", #""receivedAt""#),
            ]
            for (answer, (status, marker)) in zip(answers, expected) {
                #expect(answer.hasPrefix(status), "\(answer.prefix(300))")
                #expect(answer.contains(marker), "\(marker) not in \(answer.prefix(600))")
            }
            #expect(!answers[4].contains("receivedAt"), "the update check's answer, not a check-in's")
            #expect(answers[0].contains("X-MDMConf-Catalog-Generation: 1"))
            // Chunked and over the limit only while reading: the route's 413, nothing stored.
            let chunk = String(repeating: "x", count: 8_000)
            let over = try await http.send([
                "POST /v1/checkin HTTP/1.1\r\nHost: x\r\n\(device)Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    + String(repeating: "1F40\r\n\(chunk)\r\n", count: 140) + "0\r\n\r\n"
            ])
            #expect(over?.status == 413)
            let metrics = try await http.request("GET", "/metrics")
            // The registry is the process's, shared with other tests: at least these three.
            let stored = #"hb_requests{http_route="/v1/checkin",http_request_method="POST",http_response_status_code="200"} "#
            let count = metrics.text.split(separator: "\n").first { $0.hasPrefix(stored) }.flatMap { Int($0.dropFirst(stored.count)) }
            #expect((count ?? 0) >= 3, "\(metrics.text)")
            #expect(metrics.text.contains(#"http_route="/v1/checkin",http_request_method="POST",http_response_status_code="422""#))
        }
        #expect(try await store.counts().checkIns == 3)
        #expect(try await store.device("iphone-0117")?.apps.first?.app.version == "3.1.0")
        try await store.close()
    }

    /// A client that trickles its request is cut off at requestTimeout, however often it sends a byte; others are
    /// served meanwhile. The request never ends, so only the server's deadline can end the connection.
    @Test func slowClientsAreClosed() async throws {
        let copy = try CatalogCopy(settings: "<key>requestTimeout</key><real>0.5</real>")
        try await Fixture.live(try Fixture.store(copy.root.path)) { http, _ in
            let slow = try RawHTTP.Connection(port: http.port)
            #expect(await slow.write("GET /healthz HTTP/1.1\r\nHost: x\r\n"))
            var outcome = RawHTTP.Connection.Outcome.open
            var lines = 0
            // A header line at least every 0.1 s: never idle as long as the deadline. Up to 20 s, then it failed.
            while case .open = outcome, lines < 200 {
                guard await slow.write("X-\(lines): 1\r\n") else {
                    outcome = .closed
                    break
                }
                lines += 1
                if lines == 1 {
                    let other = try await http.request("GET", "/healthz")
                    #expect(other.status == 200, "others are served meanwhile")
                }
                outcome = await slow.outcome(within: 0.1)
            }
            guard case .closed = outcome else {
                Issue.record("the trickling client was not cut off after \(lines) lines: \(outcome)")
                return
            }
        }
    }

    /// Reloads with good and broken catalogs while requests are in flight: no request fails, and every answer
    /// is one whole catalog's (its body, ETag and generation agree).
    @Test func reloadUnderLoadNeverMixesCatalogs() async throws {
        let copy = try CatalogCopy()
        let store = try Fixture.store(copy.root.path)
        let configPath = "apps/com.example.fieldsync/config.plist"
        let original = try String(contentsOf: copy.root.appendingPathComponent(configPath), encoding: .utf8)
        try await Fixture.live(store) { http, _ in
            // The load runs until the reloads are done; each reload waits for two answers after the one before
            // it, the second asked after that reload, so every generation is served while others are in flight.
            let answered = LoadCounter()
            let load = Task {
                var seen: [String: (etag: String, body: [UInt8])] = [:]
                var failures: [String] = []
                while !answered.stopped {
                    let response = try await http.request(
                        "GET", "/v1/apps/com.example.fieldsync/config", headers: Fixture.admin)
                    answered.add()
                    guard response.status == 200, let generation = response.header("X-MDMConf-Catalog-Generation"),
                        let etag = response.header("ETag")
                    else {
                        failures.append("\(response.status) \(response.text)")
                        continue
                    }
                    if let earlier = seen[generation], earlier.etag != etag || earlier.body != response.body {
                        failures.append("generation \(generation) answered two ways")
                    }
                    seen[generation] = (etag, response.body)
                }
                return (Set(seen.keys), failures)
            }
            var successes = 0
            for round in 0..<20 {
                let before = answered.value
                guard try await eventually({ answered.value >= before + 2 }) else {
                    Issue.record("round \(round): the load stopped answering")
                    break
                }
                if round % 2 == 0 {
                    try copy.write(
                        configPath,
                        text: original.replacingOccurrences(of: "warning", with: round % 4 == 0 ? "error" : "info"))
                    if store.reload() { successes += 1 }
                } else {
                    try copy.write(
                        configPath,
                        text: original.replacingOccurrences(
                            of: "<string>warning</string>", with: "<integer>7</integer>"))
                    #expect(!store.reload(), "a config that breaks its schema is refused")
                }
            }
            let last = answered.value
            #expect(try await eventually { answered.value >= last + 2 }, "the load stopped answering")
            answered.stop()
            let (generations, failures) = try await load.value
            #expect(failures == [])
            #expect(successes == 10)
            #expect(store.current.generation == 11)
            #expect(generations == Set((1...11).map(String.init)), "every generation served during the load")
            let ready = try await http.request("GET", "/readyz")
            #expect(ready.text.contains("\"catalogGeneration\": 11"))
            #expect(ready.text.contains("MC2003"), "the last reload failed: \(ready.text)")
            try copy.write(configPath, text: original)
            #expect(store.reload())
            let after = try await http.request("GET", "/readyz")
            #expect(after.text.contains("\"lastReloadError\": null"))
        }
    }

    /// `--watch` notices a changed file and reloads; a broken edit keeps the last good catalog.
    @Test func watchReloadsWhenAFileChanges() async throws {
        let copy = try CatalogCopy(settings: "<key>reloadInterval</key><real>0.1</real>")
        let store = try Fixture.store(copy.root.path)
        let app = MDMConfServer.buildApplication(
            store: store, options: ServerOptions(host: "127.0.0.1", port: 0, watch: true, reloadOnSIGHUP: false),
            logger: Fixture.logger)
        try await app.test(.live) { client in
            let http = RawHTTP(port: try #require(client.port))
            func waitForReadiness(_ text: String) async throws -> String {
                var body = ""
                for _ in 0..<100 where !body.contains(text) {
                    try await Task.sleep(for: .milliseconds(100))
                    body = try await http.request("GET", "/readyz").text
                }
                return body
            }
            let configPath = "apps/com.example.fieldsync/config.plist"
            let original = try String(contentsOf: copy.root.appendingPathComponent(configPath), encoding: .utf8)
            try copy.write(configPath, text: original.replacingOccurrences(of: "warning", with: "error"))
            #expect(try await waitForReadiness("\"catalogGeneration\": 2").contains("\"lastReloadError\": null"))
            let config = try await http.request("GET", "/v1/apps/com.example.fieldsync/config", headers: Fixture.admin)
            #expect(config.text.contains("<string>error</string>"))
            try copy.write(configPath, text: "<plist><dict>")
            let failed = try await waitForReadiness("MC1")
            #expect(failed.contains("\"catalogGeneration\": 2"), "the last good catalog stays: \(failed)")
            let still = try await http.request("GET", "/v1/apps/com.example.fieldsync/config", headers: Fixture.admin)
            #expect(still.status == 200 && still.text.contains("<string>error</string>"))
        }
    }

    /// SIGTERM's graceful shutdown lets a request that is still arriving finish.
    @Test func gracefulShutdownFinishesAnInFlightRequest() async throws {
        let store = try Fixture.store()
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = MDMConfServer.buildApplication(
            store: store, options: ServerOptions(host: "127.0.0.1", port: 0, watch: false, reloadOnSIGHUP: false),
            logger: Fixture.logger
        ) { channel in continuation.yield(channel.localAddress?.port ?? 0) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [], logger: Fixture.logger))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let body = #"{"app": "com.example.field", "version": "3.2.1", "platform": "ios", "osVersion": "17.4"}"#
        let head =
            "POST /v1/update-check HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer example-admin-token-c0ffee\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        // The head and part of the body, taken off the socket by the server; then the shutdown, seen to have begun
        // when the port stops taking connections; then the rest of the body.
        let request = try RawHTTP.Connection(port: port)
        #expect(await request.write(head + body.prefix(20)))
        #expect(try await eventually { request.serverHasReadEverything() }, "the server never read the request")
        await group.triggerGracefulShutdown()
        #expect(try await eventually { !RawHTTP(port: port).isListening() }, "the server kept listening")
        #expect(await request.write(String(body.dropFirst(20))))
        let response = try await request.response()
        #expect(response?.status == 200)
        #expect(response?.text.contains("\"decision\": \"ok\"") == true)
        try await running.value
    }
}
