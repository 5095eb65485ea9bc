import CivilTime

/// One named write to the fleet store. ``FleetStore/commit(_:)`` makes a list of them one transaction, which is how
/// a change and the events it causes are stored together (a publish with its outbox events and its rollout's start,
/// a rollout step with its events and its announcement to replicas). The drivers turn each into their SQL; nothing
/// here knows a table.
public enum FleetChange: Sendable, Equatable {
    /// A new generation of the catalog: its row, its files (path → content hash) and the bytes of the hashes the
    /// store does not hold yet (hash → bytes). Publishes are serialized: of two publishes of the same number, one
    /// fails on the generation's key.
    case generation(CatalogGeneration, files: [String: String], newBlobs: [String: [UInt8]])
    /// The start of `generation`'s rollout over `base` with `plan` (its first step is a `rolloutStep`).
    case rolloutStart(generation: Int, base: Int, plan: RolloutPlan)
    /// A step of `generation`'s rollout; a step whose number is already stored fails the transaction.
    case rolloutStep(generation: Int, RolloutStep)
    /// An event into the outbox.
    case event(OutboxEvent)
    /// What a batch of delivery attempts came to, recorded at `at`.
    case deliveryOutcomes([EventOutbox.Outcome], at: Instant)
    /// The value of a state of `device` that events watch (``WatchedState``), changed at `at`.
    case watchedState(device: String, kind: String, value: String, at: Instant)
    /// Tells the other replicas that the catalog or a rollout changed (PostgreSQL `NOTIFY` on
    /// ``CatalogHistory/channel`` with `payload`, sent at commit); nothing where replicas poll.
    case announce(payload: String)
}
