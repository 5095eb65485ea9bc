import CivilTime
import Fleet
import FleetTestSupport
import Foundation
import MDMConf
import Testing
import UpdatePolicy
import WebhookEvents

/// Rollout plans, gates and rings as the library decides them, and rollouts stored on both stores.
@Suite struct CatalogRolloutModelTests {
    @Test(
        arguments: [
            ("1,10,50,100", nil, "1,10,50,100", 4),
            ("pilot,10,100", "pilot", "pilot,10,100", 3),
            ("pilot, 5%, 100%", "pilot", "pilot,5,100", 3),
            ("0.5,100", nil, "0.50,100", 2),
            ("100", nil, "100", 1),
        ] as [(String, String?, String, Int)])
    func plans(_ text: String, _ group: String?, _ rings: String, _ count: Int) throws {
        let plan = try RolloutPlan(rings: text, every: nil, haltWhen: nil, minDevices: 20)
        #expect(plan.group == group && plan.rings == rings && plan.ringCount == count)
        #expect(plan.gate == .standard)
    }

    @Test(arguments: [
        ("10,50", "the last ring must be 100"),
        ("50,10,100", "must grow"),
        ("10,10,100", "must grow"),
        ("10,pilot,100", "only the first may be a group"),
        ("", "not a ring"),
        ("1,,100", "not a ring"),
        ("101", "not a ring"),
        ("pilot", "the last ring must be 100"),
    ])
    func refusedPlans(_ text: String, _ message: String) {
        #expect(throws: RolloutError.self) { try RolloutPlan(rings: text, every: nil, haltWhen: nil, minDevices: 20) }
        do {
            _ = try RolloutPlan(rings: text, every: nil, haltWhen: nil, minDevices: 20)
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test(
        arguments: [
            ("config-errors > 2% or newly-noncompliant > 5%", "2", "5"),
            ("config-errors > 20%", "20", nil),
            ("newly-noncompliant > 0.5%", nil, "0.50"),
        ] as [(String, String?, String?)])
    func gates(_ text: String, _ errors: String?, _ noncompliant: String?) throws {
        let gate = try HealthGate(text)
        #expect(gate.configErrors?.description == errors && gate.newlyNoncompliant?.description == noncompliant)
        #expect(try HealthGate(gate.description) == gate)
    }

    @Test(arguments: [
        "config-errors >= 2%", "config-errors > 2", "crashes > 1%", "config-errors > 2% and newly-noncompliant > 5%",
        "config-errors > 2% or config-errors > 3%", "",
    ])
    func refusedGates(_ text: String) {
        #expect(throws: RolloutError.self) { try HealthGate(text) }
    }

    @Test func refusedSchedulesAndMinimums() {
        #expect(throws: RolloutError.self) {
            try RolloutPlan(rings: "10,100", every: "soon", haltWhen: nil, minDevices: 20)
        }
        #expect(throws: RolloutError.self) {
            try RolloutPlan(rings: "10,100", every: "0s", haltWhen: nil, minDevices: 20)
        }
        #expect(throws: RolloutError.self) {
            try RolloutPlan(rings: "10,100", every: nil, haltWhen: nil, minDevices: 0)
        }
    }

    static func rollout(_ rings: String, ring: Int, phase: RolloutPhase = .rolling, generation: Int = 7)
        throws -> CatalogRollout
    {
        let plan = try RolloutPlan(rings: rings, every: nil, haltWhen: nil, minDevices: 1)
        let steps = (0...ring).map { index in
            RolloutStep(
                number: index + 1, action: index == 0 ? "start" : "advance", phase: .rolling, ring: index,
                at: Instant(seconds: Int64(1_000 + index * 100)), author: "test", reason: "")
        }
        var rollout = CatalogRollout(generation: generation, base: generation - 1, plan: plan, steps: steps)
        if phase != .rolling {
            rollout.steps.append(
                RolloutStep(
                    number: steps.count + 1, action: "pause", phase: phase, ring: ring,
                    at: Instant(seconds: 5_000), author: "test", reason: ""))
        }
        return rollout
    }

    /// A device is in a percent ring when its bucket under the generation's seed (UpdatePolicy's bucketing) is
    /// below it; rings only add devices; a device moves at the start of the first ring that holds it; the group
    /// ring holds its members whatever their bucket; a new generation shuffles who goes first.
    @Test func rings() throws {
        let devices = (0..<2_000).map { "device-\($0)" }
        var previous = Set<String>()
        for ring in 0..<4 {
            let rollout = try Self.rollout("1,10,50,100", ring: ring)
            let moved = Set(devices.filter { rollout.includes($0, groups: []) })
            let percent = [1, 10, 50, 100][ring]
            for device in devices {
                let bucket = Rollout.bucket(seed: "catalog-generation-7", deviceID: device)
                #expect(moved.contains(device) == (bucket < percent * 100))
            }
            #expect(moved.isSuperset(of: previous))
            #expect(abs(Double(moved.count) / 20 - Double(percent)) <= max(2, Double(percent) * 0.2), "\(moved.count)")
            for device in moved.subtracting(previous) {
                #expect(rollout.movedAt(device, groups: []) == Instant(seconds: Int64(1_000 + ring * 100)))
            }
            previous = moved
        }
        let grouped = try Self.rollout("pilot,10,100", ring: 0)
        #expect(grouped.includes("anyone", groups: ["sales", "pilot"]))
        #expect(devices.filter { grouped.includes($0, groups: []) }.isEmpty)
        let other = try Self.rollout("1,10,50,100", ring: 1, generation: 8)
        let first = try Self.rollout("1,10,50,100", ring: 1)
        #expect(
            Set(devices.filter { other.includes($0, groups: []) })
                != Set(devices.filter { first.includes($0, groups: []) }))
        // Finished: completed is everyone, aborted no one.
        #expect(try Self.rollout("1,100", ring: 0, phase: .completed).includes("device-1", groups: []))
        let aborted = try Self.rollout("50,100", ring: 1, phase: .aborted)
        #expect(devices.allSatisfy { !aborted.includes($0, groups: []) })
        // Halted and paused keep who moved.
        let rolling = try Self.rollout("50,100", ring: 0)
        for phase in [RolloutPhase.halted, .paused] {
            let stopped = try Self.rollout("50,100", ring: 0, phase: phase)
            #expect(
                devices.filter { stopped.includes($0, groups: []) }
                    == devices.filter { rolling.includes($0, groups: []) })
        }
    }

    @Test(arguments: [
        (RolloutPhase.rolling, 0, "advance", "advance", RolloutPhase.rolling, 1),
        (.rolling, 2, "advance", "complete", .completed, 2),
        (.rolling, 1, "pause", "pause", .paused, 1),
        (.paused, 1, "resume", "resume", .rolling, 1),
        (.halted, 1, "resume", "resume", .rolling, 1),
        (.rolling, 1, "halt", "halt", .halted, 1),
        (.halted, 1, "abort", "abort", .aborted, 1),
        (.paused, 0, "complete", "complete", .completed, 2),
    ])
    func steps(
        _ phase: RolloutPhase, _ ring: Int, _ action: String, _ taken: String, _ after: RolloutPhase, _ afterRing: Int
    )
        throws
    {
        let rollout = try Self.rollout("1,10,100", ring: ring, phase: phase)
        let step = try CatalogRollouts.next(rollout, action: action, at: Instant(seconds: 9_000), author: "ana")
        #expect(step.action == taken && step.phase == after && step.ring == afterRing)
        #expect(step.number == rollout.current.number + 1)
    }

    @Test(arguments: [
        (RolloutPhase.halted, "advance"), (.paused, "advance"), (.paused, "pause"), (.rolling, "resume"),
        (.paused, "halt"), (.completed, "abort"), (.aborted, "resume"), (.rolling, "jump"),
    ])
    func refusedSteps(_ phase: RolloutPhase, _ action: String) throws {
        let rollout = try Self.rollout("1,10,100", ring: 1, phase: phase)
        #expect(throws: RolloutError.self) {
            try CatalogRollouts.next(rollout, action: action, at: .now, author: "ana")
        }
    }

    /// The gate judges only once `minDevices` reported, and trips past either share.
    @Test func verdicts() throws {
        let plan = try RolloutPlan(rings: "10,100", every: nil, haltWhen: "config-errors > 20%", minDevices: 10)
        var health = RolloutHealth()
        health.reporting = 9
        health.configErrors = (0..<5).map { .init(device: "d\($0)", reason: "bad") }
        #expect(health.verdict(plan) == nil)
        health.reporting = 25
        #expect(health.verdict(plan) == nil)  // exactly 20 %
        health.reporting = 24
        #expect(health.verdict(plan)?.contains("config-errors 20.8% > 20% (5 of 24 devices)") == true)
    }
}

/// Rollouts in the store: started by the publish, changed only by steps, the first of two concurrent steps wins,
/// and abort publishes the base's content again with the step in one transaction.
@Suite struct CatalogRolloutStoreTests {
    /// Plans as the store keeps them come back equal: a group as the first ring, a schedule, a gate of two measures
    /// with decimals, and no gate at all (stored as `never`).
    static let storedPlans: [RolloutPlan] = {
        do {
            return [
                try RolloutPlan(rings: "pilot,10,100", every: "24h", haltWhen: nil, minDevices: 20),
                try RolloutPlan(
                    rings: "0.5,12.25,100", every: nil,
                    haltWhen: "config-errors > 2% or newly-noncompliant > 0.5%", minDevices: 3),
                try RolloutPlan(
                    rings: "1,100", every: PolicyDuration("90m"),
                    gate: HealthGate(configErrors: nil, newlyNoncompliant: nil),
                    minDevices: 1),
            ]
        } catch {
            return []
        }
    }()

    @Test(arguments: StoreKind.available)
    func plansComeBackAsStored(kind: StoreKind) async throws {
        #expect(Self.storedPlans.count == 3)
        let store = try await TestStores.open(kind)
        let history = CatalogHistory(store: store)
        let files = try CatalogFiles.read(folder: try TestStores.copyCatalog().path)
        _ = try await history.publish(files, author: "ana", message: "first")
        for (index, plan) in Self.storedPlans.enumerated() {
            var changed = files.files
            changed["settings.plist"] = Array("<plist version=\"1.0\"><dict/><!-- \(index) --></plist>".utf8)
            // Each rollout is aborted before the next, so that the next publish may roll out again.
            guard
                case .published(let generation, _) = try await history.publish(
                    CatalogFiles(changed), author: "ana", message: "plan \(index)", rollout: plan)
            else {
                Issue.record("plan \(index) was not published")
                continue
            }
            let stored = try #require(try await CatalogRollouts(store: store).rollout(of: generation.number))
            #expect(stored.plan == plan, "\(stored.plan) ≠ \(plan)")
            #expect(stored.steps.map(\.action) == ["start"] && stored.current.reason == "rings \(plan.rings)")
            _ = try await CatalogRollouts(store: store).perform(
                "abort", on: stored, author: "ana", subscriptions: nil)
        }
        try await store.close()
    }

    @Test(arguments: StoreKind.available)
    func stepsAndAbort(kind: StoreKind) async throws {
        let store = try await TestStores.open(kind)
        let history = CatalogHistory(store: store)
        let rollouts = CatalogRollouts(store: store)
        let folder = try TestStores.copyCatalog()
        let files = try CatalogFiles.read(folder: folder.path)
        let plan = try RolloutPlan(rings: "10,100", every: nil, haltWhen: nil, minDevices: 5)
        await #expect(throws: RolloutError.self) {
            try await history.publish(files, author: "ana", message: "first", rollout: plan)
        }
        _ = try await history.publish(files, author: "ana", message: "first")
        var changed = files.files
        changed["settings.plist"] = Array("<plist version=\"1.0\"><dict/></plist>".utf8)
        _ = try await history.publish(CatalogFiles(changed), author: "ana", message: "second", rollout: plan)
        let started = try #require(try await rollouts.active())
        #expect(started.generation == 2 && started.base == 1 && started.phase == .rolling && started.ring == 0)
        #expect(started.plan == plan)

        // Two steps from the same one: one is stored, the other fails and leaves nothing.
        let events = EventSubscriptions(
            endpoints: [
                EventEndpoint(
                    name: "ops", url: "http://127.0.0.1:9/", types: [.rolloutAdvanced, .rolloutHalted],
                    secret: .environment("X"))
            ], server: "test")
        func attempt(_ action: String, _ author: String) async -> Bool {
            (try? await rollouts.perform(action, on: started, author: author, subscriptions: events)) != nil
        }
        async let a = attempt("advance", "a")
        async let b = attempt("halt", "b")
        let outcomes = await [a, b]
        #expect(outcomes.filter { $0 }.count == 1)
        let stored = try #require(try await rollouts.rollout(of: 2))
        #expect(stored.steps.count == 2)
        let types = try await EventOutbox(store: store).list().map(\.event.type)
        #expect(
            types.count == 1
                && [EventType.rolloutAdvanced.rawValue, EventType.rolloutHalted.rawValue].contains(types[0]))

        // Abort: generation 3 holds generation 1's content; the rollout is over.
        let change = try await rollouts.perform(
            "abort", on: stored, author: "ana", reason: "bad", subscriptions: nil)
        guard case .aborted(let after, let generation) = change else {
            Issue.record("abort did not publish")
            return
        }
        #expect(
            after.phase == .aborted && generation.number == 3 && generation.kind == "abort" && generation.source == 1)
        #expect(generation.contentHash == files.contentHash)
        #expect(try await rollouts.active() == nil)
        #expect(try await rollouts.newest()?.phase == .aborted)
        try await store.close()
    }
}
