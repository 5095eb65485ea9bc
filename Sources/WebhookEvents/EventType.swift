/// What an event says happened. Each endpoint subscribes to some of them in `events.plist`.
public enum EventType: String, Sendable, CaseIterable, Hashable {
    /// A device became compliant, or stopped being compliant (its first check-in counts as a change).
    case complianceChanged = "io.mdmconf.device.compliance.changed"
    /// A device reported an error applying a configuration it was served.
    case configError = "io.mdmconf.device.config.error"
    /// A device stopped checking in (the catalog's `silentAfterDays`).
    case silent = "io.mdmconf.device.silent"
    /// A catalog generation was published.
    case catalogPublished = "io.mdmconf.catalog.published"
    /// An earlier generation's content was published again (`rollback`).
    case catalogRolledBack = "io.mdmconf.catalog.rolledback"
    /// A rollout moved to its next ring.
    case rolloutAdvanced = "io.mdmconf.rollout.advanced"
    /// A rollout's health gate stopped it.
    case rolloutHalted = "io.mdmconf.rollout.halted"
    /// A rollout reached every device.
    case rolloutCompleted = "io.mdmconf.rollout.completed"
    /// `mdmconf events test`: a signed event that changes nothing, to check an endpoint end to end.
    case test = "io.mdmconf.test"

    /// The types an endpoint may subscribe to (every type but `test`, which is sent only when asked).
    public static let subscribable: [EventType] = allCases.filter { $0 != .test }
}
