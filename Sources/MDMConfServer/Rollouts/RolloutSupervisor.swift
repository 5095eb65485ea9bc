import CivilTime
import Fleet
import Logging
import ServiceLifecycle

/// Watches the rollout being served: halts it when its health gate trips, and advances it every `--every` while
/// the gate holds. With PostgreSQL one replica does it (the one that sends the fleet's events); whoever acts, a
/// step is taken once (a second taker fails on the step's number and does nothing).
struct RolloutSupervisor: Service {
    let catalogs: CatalogStore
    let rollouts: CatalogRollouts
    let fleet: FleetService
    let interval: Double
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
            let state = catalogs.current
            guard state.rollout?.rollout.phase == .rolling, await rollouts.store.holdsDispatcherLock() else {
                continue
            }
            do {
                try await check(state)
            } catch let error as RolloutError {
                logger.debug("rollout: \(error.message)")
            } catch {
                logger.warning("rollout check failed: \(error)")
            }
        }
    }

    /// One look at the rollout of `state`: halt, advance, or nothing.
    func check(_ state: CatalogState, now: Instant = .now) async throws {
        guard let served = state.rollout else { return }
        let rollout = served.rollout
        let health = try await RolloutHealth.measure(
            rollout, store: rollouts.store, base: state.catalog, new: served.state.catalog, now: now)
        let subscriptions = fleet.subscriptions(served.state.catalog)
        if let verdict = health.verdict(rollout.plan) {
            _ = try await rollouts.perform(
                "halt", on: rollout, author: "gate", reason: verdict, at: now, subscriptions: subscriptions,
                health: health)
            logger.warning(
                "rollout of generation \(rollout.generation) halted by its gate: \(verdict)",
                metadata: ["ring": "\(rollout.plan.label(ofRing: rollout.ring))"])
        } else if let every = rollout.plan.every, let started = rollout.startOfRing(rollout.ring),
            now >= started.adding(seconds: every.seconds)
        {
            let after = try await rollouts.perform(
                "advance", on: rollout, author: "schedule", reason: "every \(every)", at: now,
                subscriptions: subscriptions, health: health
            ).rollout
            logger.info(
                "rollout of generation \(rollout.generation) advanced on schedule",
                metadata: ["ring": "\(after.plan.label(ofRing: after.ring))", "phase": "\(after.phase.rawValue)"])
        }
    }
}
