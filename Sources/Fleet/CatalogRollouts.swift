import CivilTime
import MDMConf
import WebhookEvents

/// The rollouts in the fleet store. A rollout is started by the publish that stores its generation, and changes
/// only by adding a step: each step's number is given, so of two changes made at once from the same step one fails
/// on the primary key and nothing of it is written (its events neither).
public struct CatalogRollouts: Sendable {
    /// The store the rollouts live in.
    public let store: any FleetStore

    /// The rollouts in `store`.
    public init(store: any FleetStore) { self.store = store }

    /// The rollout of `generation`, or nil when it was published to every device at once.
    public func rollout(of generation: Int) async throws -> CatalogRollout? {
        try await store.rollout(of: generation)
    }

    /// The newest rollout, whatever its phase, or nil when no generation was rolled out.
    public func newest() async throws -> CatalogRollout? {
        guard let generation = try await store.newestRolloutGeneration() else { return nil }
        return try await rollout(of: generation)
    }

    /// The rollout of the newest generation while it splits the fleet (rolling, paused or halted), else nil.
    public func active() async throws -> CatalogRollout? {
        guard let latest = try await CatalogHistory(store: store).latest(),
            let rollout = try await rollout(of: latest.number), rollout.phase.splitsTheFleet
        else { return nil }
        return rollout
    }

    /// The changes that start rolling out `generation` over `base`: part of its publish.
    static func start(
        _ plan: RolloutPlan, generation: Int, base: Int, at: Instant, author: String
    ) -> [FleetChange] {
        let first = RolloutStep(
            number: 1, action: "start", phase: .rolling, ring: 0, at: at, author: author,
            reason: "rings \(plan.rings)")
        return [
            .rolloutStart(generation: generation, base: base, plan: plan), .rolloutStep(generation: generation, first),
        ]
    }

    /// What `action` does to `rollout`: the step it adds, or why it cannot (a halted rollout does not advance, a
    /// finished one does not change). `advance` past the last ring completes it.
    public static func next(
        _ rollout: CatalogRollout, action: String, at: Instant, author: String, reason: String = ""
    ) throws(RolloutError) -> RolloutStep {
        let phase = rollout.phase
        let last = rollout.plan.ringCount - 1
        func step(_ action: String, _ phase: RolloutPhase, ring: Int) -> RolloutStep {
            RolloutStep(
                number: rollout.current.number + 1, action: action, phase: phase, ring: ring, at: at, author: author,
                reason: reason)
        }
        guard phase.splitsTheFleet else {
            throw RolloutError(
                "the rollout of generation \(rollout.generation) is \(phase.rawValue): it does not change any more")
        }
        switch action {
        case "advance":
            guard phase == .rolling else {
                throw RolloutError(
                    "the rollout of generation \(rollout.generation) is \(phase.rawValue): resume it first\(phase == .halted ? " (its gate stopped it: see rollout status), or abort it" : "")"
                )
            }
            return rollout.ring >= last
                ? step("complete", .completed, ring: last) : step("advance", .rolling, ring: rollout.ring + 1)
        case "pause":
            guard phase == .rolling else {
                throw RolloutError("the rollout of generation \(rollout.generation) is already \(phase.rawValue)")
            }
            return step("pause", .paused, ring: rollout.ring)
        case "resume":
            guard phase != .rolling else {
                throw RolloutError("the rollout of generation \(rollout.generation) is rolling already")
            }
            return step("resume", .rolling, ring: rollout.ring)
        case "halt":
            guard phase == .rolling else {
                throw RolloutError("the rollout of generation \(rollout.generation) is \(phase.rawValue), not rolling")
            }
            return step("halt", .halted, ring: rollout.ring)
        case "complete": return step("complete", .completed, ring: last)
        case "abort": return step("abort", .aborted, ring: rollout.ring)
        default: throw RolloutError("'\(action)' is not a rollout action")
        }
    }

    /// Adds `step` to `rollout` with `events`, in one transaction (which also announces it to PostgreSQL
    /// replicas). Fails with a `RolloutError` when another change was made first.
    @discardableResult
    public func record(_ step: RolloutStep, to rollout: CatalogRollout, events: [OutboxEvent] = []) async throws
        -> CatalogRollout
    {
        do {
            try await store.commit(
                [.rolloutStep(generation: rollout.generation, step)] + events.map(FleetChange.event)
                    + [.announce(payload: "rollout")])
        } catch {
            if let newer = try? await self.rollout(of: rollout.generation),
                newer.current.number >= step.number
            {
                throw RolloutError(
                    "the rollout of generation \(rollout.generation) changed meanwhile (\(newer.current.action) by \(newer.current.author)); nothing was done"
                )
            }
            throw error
        }
        var changed = rollout
        changed.steps.append(step)
        return changed
    }

    /// Ends `rollout` by publishing its base generation's content again (kind `abort`), with the `abort` step and
    /// `events`, in one transaction: every device goes back, and the history keeps both.
    private func abort(
        _ rollout: CatalogRollout, step: RolloutStep, author: String, reason: String, at: Instant,
        events: @escaping @Sendable (CatalogGeneration, _ previous: CatalogGeneration?) -> [OutboxEvent]
    ) async throws -> CatalogGeneration {
        let history = CatalogHistory(store: store)
        guard let files = try await history.files(of: rollout.base) else {
            throw RolloutError("generation \(rollout.base), the one to go back to, is not in the store")
        }
        let outcome = try await history.publish(
            files, author: author,
            message: reason.isEmpty ? "abort the rollout of generation \(rollout.generation)" : reason,
            kind: "abort", source: rollout.base, at: at, events: events
        ) { _, _ in [.rolloutStep(generation: rollout.generation, step)] }
        switch outcome {
        case .published(let generation, _): return generation
        case .unchanged(let newest):
            throw RolloutError("generation \(newest.number) already holds generation \(rollout.base)'s content")
        }
    }

    /// What a change did.
    public enum Change: Sendable {
        /// The rollout after the step.
        case stepped(CatalogRollout)
        /// The rollout after its `abort` step, and the generation that took every device back.
        case aborted(CatalogRollout, CatalogGeneration)

        /// The rollout after the change.
        public var rollout: CatalogRollout {
            switch self {
            case .stepped(let rollout), .aborted(let rollout, _): rollout
            }
        }
    }

    /// Does `action` (`advance`, `pause`, `resume`, `halt`, `complete` or `abort`) to `rollout` with the events
    /// `subscriptions` send for it (`health`, when measured, goes into them): the one implementation behind the
    /// command, the admin page and the server's gate and schedule.
    public func perform(
        _ action: String, on rollout: CatalogRollout, author: String, reason: String = "", at: Instant = .now,
        subscriptions: EventSubscriptions?, health: RolloutHealth? = nil
    ) async throws -> Change {
        let step = try Self.next(rollout, action: action, at: at, author: author, reason: reason)
        var after = rollout
        after.steps.append(step)
        if action == "abort" {
            let generation = try await abort(rollout, step: step, author: author, reason: reason, at: at) {
                generation, previous in subscriptions?.published(generation, previous: previous) ?? []
            }
            return .aborted(after, generation)
        }
        let type: EventType? =
            switch step.action {
            case "advance": .rolloutAdvanced
            case "complete": .rolloutCompleted
            case "halt": .rolloutHalted
            default: nil
            }
        let events = type.map { subscriptions?.rollout($0, after, health: health) ?? [] } ?? []
        return .stepped(try await record(step, to: rollout, events: events))
    }
}
