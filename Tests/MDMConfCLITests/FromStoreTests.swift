import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import MDMConf
import Testing

/// Two `mdmconf serve --from-store` replicas on one store follow what `mdmconf publish` stores: the lag of every
/// publish, a broken generation that both keep out, and answers that never mix two generations under load.
@Suite(.serialized) struct FromStoreTests {
    static let intervals = [15, 30, 60, 240]

    @Test(arguments: StoreKind.available)
    func replicasFollowPublishes(kind: StoreKind) async throws {
        let location = try TestStores.freshLocation(kind)
        let store = location.description
        let catalog = try TestStores.copyCatalog()
        let config = catalog.appendingPathComponent("apps/com.example.field/config.plist")
        let original = try String(contentsOf: config, encoding: .utf8)
        func publish(interval: Int, message: String) async throws -> Int {
            try original.replacingOccurrences(
                of: "<key>SyncIntervalMinutes</key>\n\t<integer>30</integer>",
                with: "<key>SyncIntervalMinutes</key>\n\t<integer>\(interval)</integer>"
            ).write(to: config, atomically: true, encoding: .utf8)
            // On a thread of its own, so a slow process does not hold one of the threads the readers share.
            let result = try await CLIProcess.runDetached(
                CLIProcess.binary,
                ["publish", catalog.path, "--store", store, "--message", message, "--format", "json"],
                in: CLIProcess.packageRoot)
            #expect(result.status == 0, "\(result.stderr)")
            let generation = try CLIProcess.json(result.stdout)["generation"] as? [String: Any]
            return generation?["generation"] as? Int ?? -1
        }
        #expect(try await publish(interval: 30, message: "initial") == 1)

        let replicas = try ["replica-a", "replica-b"].map {
            try ServerProcess([
                "serve", "--from-store", "--store", store, "--port", "0", "--replica", $0, "--public-url",
                "https://mdm.example.com",
            ])
        }
        let http = replicas.map { RawHTTP(port: $0.port) }
        func generation(_ replica: RawHTTP) async throws -> Int {
            let ready = try await replica.request("GET", "/readyz")
            return (try JSONSerialization.jsonObject(with: Data(ready.body)) as? [String: Any])?["catalogGeneration"]
                as? Int ?? 0
        }
        for replica in http { #expect(try await generation(replica) == 1) }

        // Readers on both replicas during the publishes. Every answer is whole (its bytes hash to its ETag) and
        // holds the interval its generation published; both replicas answer each generation with the same bytes.
        // After each publish both serve, the test waits for two more rounds of reads, so every generation is read
        // on both replicas while the next publish is under way.
        let admin = ["Authorization": "Bearer example-admin-token-c0ffee", "Accept": "application/json"]
        let rounds = LoadCounter()
        let reading = Task {
            var answers = 0
            var failures: [String] = []
            var seen: [Int: [String: Set<String>]] = [:]  // replica → generation → ETags
            while !rounds.stopped {
                for (index, replica) in http.enumerated() {
                    let answer: RawHTTP.Response
                    do {
                        answer = try await replica.request(
                            "GET", "/v1/apps/com.example.field/config?device=iphone-0117", headers: admin)
                    } catch {
                        failures.append("replica \(index): \(error)")
                        continue
                    }
                    answers += 1
                    let etag = "\"" + ContentHash.hex(answer.body, bytes: 16) + "\""
                    let value =
                        (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?[
                            "SyncIntervalMinutes"] as? Int
                    guard answer.status == 200, let generation = answer.header("X-MDMConf-Catalog-Generation"),
                        let number = Int(generation), answer.header("ETag") == etag,
                        value == Self.intervals[number % Self.intervals.count]
                    else {
                        failures.append("replica \(index): \(answer.status) \(answer.headers) \(answer.text)")
                        continue
                    }
                    seen[index, default: [:]][generation, default: []].insert(etag)
                }
                rounds.add()
            }
            return (answers, failures, seen)
        }
        func twoMoreRounds() async throws {
            let now = rounds.value
            #expect(try await eventually { rounds.value >= now + 2 }, "the readers stopped")
        }
        try await twoMoreRounds()

        let publishes = kind == .postgres ? 50 : 12
        var lags: [Double] = []
        for index in 1...publishes {
            let number = try await publish(
                interval: Self.intervals[(index + 1) % Self.intervals.count], message: "change \(index)")
            #expect(number == index + 1)
            let published = Date()
            // A replica is late only when a request sent more than 15 s after the publish still finds the old
            // generation: under a loaded machine this test's own tasks can wait long for a thread, and an answer
            // read late says nothing about the replica.
            for (index, replica) in http.enumerated() {
                while true {
                    let asked = Date()
                    if try await generation(replica) >= number { break }
                    guard asked.timeIntervalSince(published) < 15 else {
                        Issue.record(
                            "replica \(index) did not serve generation \(number) within 15 s; its log:\n\(replicas[index].log.suffix(3_000))"
                        )
                        break
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            lags.append(Date().timeIntervalSince(published))
            try await twoMoreRounds()
        }
        rounds.stop()
        let (answers, failures, seen) = await reading.value
        #expect(failures.isEmpty, "answers mixing generations, or failed reads: \(failures.prefix(2))")
        let every = Set((1...publishes + 1).map(String.init))
        #expect(Set(seen[0]?.keys ?? [:].keys) == every && Set(seen[1]?.keys ?? [:].keys) == every)
        for generation in every.sorted() {
            let etags = (seen[0]?[generation] ?? []).union(seen[1]?[generation] ?? [])
            #expect(etags.count == 1, "generation \(generation) answered differently by the replicas: \(etags)")
        }
        let sorted = lags.sorted()
        print(
            "from-store \(kind): \(publishes) publishes, lag until both replicas serve it: p50 \(Int(sorted[sorted.count / 2] * 1000)) ms, max \(Int(sorted.last! * 1000)) ms; \(answers) reads during them"
        )

        // The declarative channel: both replicas serve the last generation's tokens, timestamp included, byte for byte.
        var tokens: [String] = []
        for replica in http {
            let answer = try await replica.request("GET", "/v1/ddm/iphone-0117/tokens", headers: admin)
            #expect(answer.status == 200 && answer.header("X-MDMConf-Catalog-Generation") == String(publishes + 1))
            tokens.append(answer.text)
        }
        #expect(tokens.count == 2 && tokens[0] == tokens[1] && tokens[0].contains("DeclarationsToken"), "\(tokens)")

        // A generation inserted behind publish's back that does not load: both keep the last good one and say so.
        let opened = try await TestStores.open(location)
        let last = publishes + 1
        let broken = CatalogGeneration(
            number: last + 1, contentHash: "x", author: "mallory", message: "broken", createdAt: Instant(seconds: 0),
            kind: "publish", source: nil, files: 1)
        try await opened.commit([
            .generation(
                broken, files: ["apps/com.example.field/config.plist": "broken-\(kind)"],
                newBlobs: ["broken-\(kind)": Array("<bad>".utf8)])
        ])
        try await opened.close()
        for replica in http {
            var report: [String: Any] = [:]
            for _ in 0..<100 {
                let ready = try await replica.request("GET", "/readyz")
                report = (try JSONSerialization.jsonObject(with: Data(ready.body)) as? [String: Any]) ?? [:]
                if !(report["lastReloadError"] is NSNull), report["lastReloadError"] != nil { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(report["catalogGeneration"] as? Int == last, "\(report)")
            #expect(report["lastReloadError"] is [String: Any], "\(report)")
            let config = try await replica.request(
                "GET", "/v1/apps/com.example.field/config?device=iphone-0117", headers: admin)
            #expect(config.status == 200)
            let metrics = try await replica.request("GET", "/metrics")
            #expect(metrics.text.contains("mdmconf_catalog_reload_failures_total 1"), "\(metrics.text.prefix(300))")
        }
        for replica in replicas { replica.stop() }
    }

    @Test func refusals() throws {
        let none = try CLIProcess.run(["serve", "--from-store"])
        #expect(none.status == 64 && none.stderr.contains("--from-store needs --store"), "\(none.stderr)")
        let store = try TestStores.freshLocation(.sqlite).description
        let empty = try CLIProcess.run(["serve", "--from-store", "--store", store, "--port", "0"])
        #expect(empty.status == 78 && empty.stderr.contains("holds no generation that loads"), "\(empty.stderr)")
    }
}
