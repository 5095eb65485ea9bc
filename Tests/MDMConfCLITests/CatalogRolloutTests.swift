import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import Testing
import WebhookEvents

/// Staged rollouts as an admin runs them: `publish --rollout` on a real store, `serve --from-store` serving each
/// device its generation, devices checking in over HTTP, the server's gate halting the rollout, the schedule
/// advancing it, and `rollout` steps followed by replicas.
@Suite(.serialized) struct CatalogRolloutTests {
    static let admin = ["Authorization": "Bearer example-admin-token-c0ffee"]
    /// The generated devices the rollouts split.
    static let fleet = (0..<100).map { String(format: "fleet-%03d", $0) }

    /// The example catalog with events to a port nobody listens on (the outbox keeps them) and 100 more devices.
    static func catalog() throws -> String {
        let folder = try EventDeliveryTests.catalog(
            url: "http://127.0.0.1:9/hook",
            types: [.rolloutAdvanced, .rolloutHalted, .rolloutCompleted, .catalogPublished, .catalogRolledBack])
        let inventory = folder + "/devices.plist"
        let entries = fleet.map { id in
            """
            \t<key>\(id)</key>
            \t<dict>
            \t\t<key>udid</key><string>00008110-\(id)</string>
            \t\t<key>serialNumber</key><string>SN\(id)</string>
            \t\t<key>email</key><string>\(id)@example.com</string>
            \t\t<key>username</key><string>\(id)</string>
            \t\t<key>deviceName</key><string>\(id)</string>
            \t</dict>

            """
        }.joined()
        let text = try String(contentsOfFile: inventory, encoding: .utf8)
        guard let end = text.range(of: "</dict>\n</plist>", options: .backwards) else {
            throw ServerProcessError(message: "devices.plist does not end as expected")
        }
        try text.replacingCharacters(in: end, with: entries + "</dict>\n</plist>")
            .write(toFile: inventory, atomically: true, encoding: .utf8)
        return folder
    }

    /// Changes the field app's sync interval from 30 to `minutes`.
    static func change(_ folder: String, to minutes: Int) throws {
        let config = folder + "/apps/com.example.field/config.plist"
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(
            of: "<key>SyncIntervalMinutes</key>\n\t<integer>30</integer>",
            with: "<key>SyncIntervalMinutes</key>\n\t<integer>\(minutes)</integer>"
        ).write(toFile: config, atomically: true, encoding: .utf8)
    }

    static func run(_ arguments: [String]) async throws -> CLIProcess.Result {
        try await CLIProcess.runDetached(CLIProcess.binary, arguments, in: CLIProcess.packageRoot)
    }

    /// `rollout status --format json`.
    static func status(_ store: String) async throws -> [String: Any] {
        let shown = try await run(["rollout", "status", "--store", store, "--format", "json"])
        return try CLIProcess.json(shown.stdout)
    }

    /// The generation `replica` serves `device` (its configuration's `X-MDMConf-Catalog-Generation`).
    static func generation(of device: String, on replica: RawHTTP) async throws -> Int {
        let answer = try await replica.request(
            "GET", "/v1/apps/com.example.field/config?device=\(device)", headers: admin)
        #expect(answer.status == 200, "\(answer.text)")
        return Int(answer.header("X-MDMConf-Catalog-Generation") ?? "") ?? 0
    }

    /// `/readyz`: the generation for every device and the rollout's step (0 without one).
    static func ready(_ replica: RawHTTP) async throws -> (generation: Int, step: Int, phase: String?) {
        let answer = try await replica.request("GET", "/readyz")
        let root = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] ?? [:]
        let rollout = root["rollout"] as? [String: Any]
        return (root["catalogGeneration"] as? Int ?? 0, rollout?["step"] as? Int ?? 0, rollout?["phase"] as? String)
    }

    /// Waits (up to 30 s) until `replica` serves generation `generation` with rollout step `step`.
    static func follow(_ replica: RawHTTP, generation: Int, step: Int) async throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let asked = Date()
            let now = try await ready(replica)
            if now.generation == generation && now.step == step { return }
            guard asked < deadline else {
                Issue.record("the replica serves \(now), not generation \(generation) at step \(step)")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The outbox's event types.
    static func events(_ store: String) async throws -> [String] {
        let listed = try await run(["events", "list", "--store", store, "--limit", "1000", "--format", "json"])
        let rows = try CLIProcess.json(listed.stdout)["deliveries"] as? [[String: Any]] ?? []
        return rows.compactMap { $0["type"] as? String }
    }

    /// The halt test: a rollout whose moved devices report a configuration error 30 % of the time is halted by
    /// the server by itself, names those devices, refuses to advance, and `abort` sends every device back.
    @Test(arguments: StoreKind.available)
    func theGateHaltsABadRolloutAndAbortSendsEveryoneBack(kind: StoreKind) async throws {
        let store = try TestStores.freshLocation(kind).description
        let folder = try Self.catalog()
        #expect(try await Self.run(["publish", folder, "--store", store, "--message", "base"]).status == 0)
        try Self.change(folder, to: 60)
        // Refused plans change nothing.
        let noGroup = try await Self.run(["publish", folder, "--store", store, "--rollout", "nobody,100"])
        #expect(noGroup.status == 1 && noGroup.stderr.contains("'nobody'"), "\(noGroup.stderr)")
        let notToAll = try await Self.run(["publish", folder, "--store", store, "--rollout", "10,50"])
        #expect(notToAll.status == 64 && notToAll.stderr.contains("100"), "\(notToAll.stderr)")
        let started = try await Self.run([
            "publish", folder, "--store", store, "--rollout", "warehouse,50,100", "--min-devices", "10",
            "--halt-when", "config-errors > 20%", "--message", "hourly sync",
        ])
        #expect(started.status == 0 && started.stdout.contains("group warehouse has it now"), "\(started.stderr)")
        let blocked = try await Self.run(["publish", folder, "--store", store])
        #expect(blocked.status == 1 && blocked.stderr.contains("being rolled out"), "\(blocked.stderr)")

        let server = try ServerProcess([
            "serve", "--from-store", "--store", store, "--port", "0", "--rollout-check-interval", "0.2",
            "--public-url", "https://mdm.example.com",
        ])
        defer { server.stop() }
        let http = RawHTTP(port: server.port)
        let first = try await Self.ready(http)
        #expect(first.generation == 1 && first.step == 1 && first.phase == "rolling")
        // Ring one is the group: its device has generation 2, the others generation 1.
        #expect(try await Self.generation(of: "ipad-0042", on: http) == 2)
        #expect(try await Self.generation(of: "iphone-0117", on: http) == 1)
        for device in Self.fleet.prefix(10) { #expect(try await Self.generation(of: device, on: http) == 1) }

        #expect(try await Self.run(["rollout", "advance", "--store", store]).status == 0)
        try await Self.follow(http, generation: 1, step: 2)
        var moved: [String] = []
        for device in Self.fleet {
            let generation = try await Self.generation(of: device, on: http)
            #expect(generation == 1 || generation == 2)
            if generation == 2 { moved.append(device) }
            // Every answer about a device comes from its generation: the update check says the same.
            let check = try await http.request(
                "POST", "/v1/update-check", headers: Self.admin,
                body: #"{"app": "com.example.field", "version": "3.2.1", "platform": "ios", "deviceId": "\#(device)"}"#)
            #expect(check.header("X-MDMConf-Catalog-Generation") == String(generation), "\(check.text)")
        }
        #expect((30...70).contains(moved.count), "50 % of 100 devices moved \(moved.count)")
        // The declarative channel and policy answers too: a moved device's are generation 2's, the others' 1's.
        let stayed = try #require(Self.fleet.first { !moved.contains($0) })
        for (device, generation) in [(moved[0], "2"), (stayed, "1")] {
            let answer = try await http.request(
                "POST", "/v1/policy/evaluate?device=\(device)", headers: Self.admin,
                body: #"{"query": {"type": "url", "arg": "https://intranet.example.com/"}}"#)
            #expect(
                answer.status == 200 && answer.header("X-MDMConf-Catalog-Generation") == generation, "\(answer.text)")
        }
        for (device, generation) in [(moved[0], "2"), (stayed, "1")] {
            let tokens = try await http.request("GET", "/v1/ddm/\(device)/tokens", headers: Self.admin)
            #expect(
                tokens.status == 200 && tokens.header("X-MDMConf-Catalog-Generation") == generation, "\(tokens.text)")
        }
        // The served bytes are the generation's: the moved devices sync hourly.
        let answer = try await http.request(
            "GET", "/v1/apps/com.example.field/config?device=\(moved[0])",
            headers: Self.admin.merging(["Accept": "application/json"]) { $1 })
        #expect(
            answer.text.contains(#""SyncIntervalMinutes":60"#) || answer.text.contains(#""SyncIntervalMinutes": 60"#))

        // The moved devices check in; every third-or-so reports a configuration error, the others the ETag they
        // were served.
        let failing = Set(moved.enumerated().filter { $0.offset % 10 < 3 }.map(\.element))
        for device in moved {
            let served = try await http.request(
                "GET", "/v1/apps/com.example.field/config?device=\(device)", headers: Self.admin)
            let body = EventDeliveryTests.checkIn(
                device, error: failing.contains(device) ? "SyncIntervalMinutes rejected" : nil,
                etag: served.header("ETag"))
            let response = try await http.request("POST", "/v1/checkin", headers: Self.admin, body: body)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.header("X-MDMConf-Catalog-Generation") == "2")
        }
        // The server halts it by itself.
        var status: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(30)
        repeat {
            try await Task.sleep(for: .milliseconds(200))
            status = try await Self.status(store)
        } while status["phase"] as? String != "halted" && Date() < deadline
        #expect(status["phase"] as? String == "halted", "\(status)")
        let last = (status["steps"] as? [[String: Any]] ?? []).last ?? [:]
        let reason = last["reason"] as? String ?? ""
        #expect(last["action"] as? String == "halt" && last["author"] as? String == "gate")
        #expect(reason.contains("config-errors"), "\(reason)")
        let health = status["health"] as? [String: Any] ?? [:]
        let named = Set((health["configErrorDevices"] as? [[String: Any]] ?? []).compactMap { $0["device"] as? String })
        #expect(!named.isEmpty && named.isSubset(of: failing), "\(named) ⊄ \(failing)")
        let text = try await Self.run(["rollout", "status", "--store", store])
        #expect(
            text.status == 1 && text.stdout.contains("halted") && text.stdout.contains("SyncIntervalMinutes rejected"))
        #expect(try await Self.events(store).contains(EventType.rolloutHalted.rawValue))

        // Each device is judged against its generation, and the views can be asked for one generation.
        func judged(_ arguments: [String]) async throws -> [String: [String: Any]] {
            let shown = try await Self.run(["report", "--store", store, "--format", "json"] + arguments)
            let devices = try CLIProcess.json(shown.stdout)["devices"] as? [[String: Any]] ?? []
            return Dictionary(
                devices.compactMap { row in (row["device"] as? String).map { ($0, row) } }.filter {
                    $0.0.hasPrefix("fleet-")
                }, uniquingKeysWith: { a, _ in a })
        }
        let rolled = try await judged(["--generation", "2"])
        let kept = try await judged(["--generation", "1"])
        #expect(Set(rolled.keys) == Set(moved) && Set(kept.keys) == Set(Self.fleet).subtracting(moved))
        #expect(rolled.values.allSatisfy { $0["generation"] as? Int == 2 })
        for (device, row) in rolled where !failing.contains(device) {
            let field = (row["apps"] as? [[String: Any]] ?? []).first { $0["app"] as? String == "com.example.field" }
            #expect((field?["config"] as? [String: Any])?["status"] as? String == "current", "\(device): \(row)")
        }
        let listed = try await http.request(
            "GET", "/v1/fleet/devices?generation=2&limit=1000",
            headers: Self.admin.merging(["Accept": "application/json"]) { $1 })
        let rows =
            (try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])?["devices"]
            as? [[String: Any]] ?? []
        #expect(Set(rows.compactMap { $0["device"] as? String }.filter { $0.hasPrefix("fleet-") }) == Set(moved))

        // Halted: nothing advances, the moved devices stay.
        let advance = try await Self.run(["rollout", "advance", "--store", store])
        #expect(advance.status == 1 && advance.stderr.contains("halted"), "\(advance.stderr)")
        try await Self.follow(http, generation: 1, step: 3)
        #expect(try await Self.generation(of: moved[0], on: http) == 2)

        // Abort: generation 3 holds generation 1's content, for everyone; history keeps it all.
        let abort = try await Self.run(["rollout", "abort", "--store", store, "--message", "sync rejected"])
        #expect(abort.status == 0 && abort.stdout.contains("generation 3"), "\(abort.stderr)")
        try await Self.follow(http, generation: 3, step: 0)
        for device in moved.prefix(10) + ["ipad-0042", "iphone-0117"] {
            #expect(try await Self.generation(of: device, on: http) == 3)
        }
        let history = try await Self.run(["history", "--store", store, "--format", "json"])
        let kinds = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]] ?? []).map {
            $0["kind"] as? String ?? ""
        }
        #expect(kinds == ["abort", "publish", "publish"], "\(kinds)")
        let generations = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(
            (generations.first { $0["generation"] as? Int == 2 }?["rollout"] as? [String: Any])?["phase"] as? String
                == "aborted")
        let table = try await Self.run(["history", "--store", store])
        #expect(table.stdout.contains("publish (rollout aborted)"), "\(table.stdout)")
        #expect(try await Self.events(store).contains(EventType.catalogRolledBack.rawValue))
        let after = try await Self.run(["rollout", "resume", "--store", store, "2"])
        #expect(after.status == 1 && after.stderr.contains("aborted"), "\(after.stderr)")
    }

    /// `--every` advances a healthy rollout ring by ring and completes it; the events say so.
    @Test(arguments: StoreKind.available)
    func theScheduleAdvancesAndCompletes(kind: StoreKind) async throws {
        let store = try TestStores.freshLocation(kind).description
        let folder = try Self.catalog()
        #expect(try await Self.run(["publish", folder, "--store", store]).status == 0)
        try Self.change(folder, to: 15)
        #expect(
            try await Self.run(["publish", folder, "--store", store, "--rollout", "10,100", "--every", "1s"]).status
                == 0)
        let server = try ServerProcess([
            "serve", "--from-store", "--store", store, "--port", "0", "--rollout-check-interval", "0.2",
        ])
        defer { server.stop() }
        let http = RawHTTP(port: server.port)
        var status: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(30)
        repeat {
            try await Task.sleep(for: .milliseconds(200))
            status = try await Self.status(store)
        } while status["phase"] as? String != "completed" && Date() < deadline
        let actions = (status["steps"] as? [[String: Any]] ?? []).map { "\($0["action"] ?? "")/\($0["author"] ?? "")" }
        #expect(
            actions == [
                "start/\(ProcessInfo.processInfo.environment["USER"] ?? "unknown")", "advance/schedule",
                "complete/schedule",
            ], "\(actions)")
        try await Self.follow(http, generation: 2, step: 0)
        for device in Self.fleet.prefix(20) { #expect(try await Self.generation(of: device, on: http) == 2) }
        let types = try await Self.events(store)
        #expect(
            types.contains(EventType.rolloutAdvanced.rawValue) && types.contains(EventType.rolloutCompleted.rawValue))
        // Completed: publishing works again.
        try Self.change(folder, to: 240)
        #expect(try await Self.run(["publish", folder, "--store", store]).status == 0)
    }

    /// Two replicas on one PostgreSQL follow every step through LISTEN/NOTIFY and give every device the same
    /// generation at every ring.
    @Test(.enabled(if: StoreKind.available.contains(.postgres)))
    func twoReplicasOnPostgreSQLAgreeAtEveryRing() async throws {
        let store = try TestStores.freshLocation(.postgres).description
        let folder = try Self.catalog()
        #expect(try await Self.run(["publish", folder, "--store", store]).status == 0)
        try Self.change(folder, to: 60)
        #expect(
            try await Self.run([
                "publish", folder, "--store", store, "--rollout", "1,10,50,100", "--min-devices", "1000",
            ])
            .status == 0)
        let replicas = try ["a", "b"].map {
            try ServerProcess(["serve", "--from-store", "--store", store, "--port", "0", "--replica", $0])
        }
        defer { for replica in replicas { replica.stop() } }
        let http = replicas.map { RawHTTP(port: $0.port) }
        var counts: [Int] = []
        for step in 1...4 {
            if step > 1 { #expect(try await Self.run(["rollout", "advance", "--store", store]).status == 0) }
            for replica in http { try await Self.follow(replica, generation: 1, step: step) }
            var moved = 0
            for device in Self.fleet {
                let a = try await Self.generation(of: device, on: http[0])
                let b = try await Self.generation(of: device, on: http[1])
                #expect(a == b, "\(device): replica a serves generation \(a), replica b \(b)")
                if a == 2 { moved += 1 }
            }
            counts.append(moved)
        }
        // Rings only grow, and 100 % is everyone.
        #expect(counts == counts.sorted() && counts.last == 100, "\(counts)")
        #expect(try await Self.run(["rollout", "complete", "--store", store]).status == 0)
        for replica in http { try await Self.follow(replica, generation: 2, step: 0) }
    }
}
