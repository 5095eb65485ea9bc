import CivilTime
import Fleet
import Logging
import MDMConf
import MDMDiagnostics
import NIOConcurrencyHelpers

/// What every request reads once at its start: the current catalog, its generation and the last reload
/// failure. Replaced as a whole, so no request sees parts of two catalogs.
public struct CatalogState: Sendable {
    /// The catalog being served.
    public let catalog: Catalog
    /// 1 for the catalog loaded at start-up, +1 on every successful reload.
    public let generation: Int
    /// When this catalog was loaded.
    public let loadedAt: Instant
    /// The findings of the last failed reload, if it came after the last successful one.
    public let lastReloadError: ReloadFailure?
    /// When the content served changed: the stored generation's publication, or `loadedAt` for a folder. Every
    /// replica serving one generation gives the same time (the declarative channel's token timestamp).
    public var changedAt: Instant { publishedAt ?? loadedAt }
    /// The stored generation's publication time, when the catalog came from the store.
    let publishedAt: Instant?
    /// The generation being rolled out over this one and who gets it, while a rollout splits the fleet.
    public let rollout: ServedRollout?

    init(
        catalog: Catalog, generation: Int, loadedAt: Instant, lastReloadError: ReloadFailure?,
        publishedAt: Instant? = nil, rollout: ServedRollout? = nil
    ) {
        (self.catalog, self.generation, self.loadedAt) = (catalog, generation, loadedAt)
        (self.lastReloadError, self.publishedAt, self.rollout) = (lastReloadError, publishedAt, rollout)
    }

    /// The state `device` is served from: the rolled-out generation's when the rollout has reached the device,
    /// else this one. Every answer about a device reads its catalog and generation from here.
    public func serving(device: String?) -> CatalogState {
        guard let rollout, let device else { return self }
        return rollout.rollout.includes(device, new: rollout.state.catalog, base: catalog) ? rollout.state : self
    }

    /// Judges each device against the generation it is served, at `now`.
    public func complianceEvaluator(now: Instant) -> ComplianceEvaluator {
        ComplianceEvaluator(
            catalog: catalog, now: now, generation: generation,
            rollout: rollout.map { ($0.rollout, $0.state.catalog) })
    }

    /// This state with `rollout` (nil: none).
    func with(rollout: ServedRollout?) -> CatalogState {
        CatalogState(
            catalog: catalog, generation: generation, loadedAt: loadedAt, lastReloadError: lastReloadError,
            publishedAt: publishedAt, rollout: rollout)
    }
}

/// A stored generation's loaded catalog.
public struct StoredCatalog: Sendable {
    /// The catalog.
    public let catalog: Catalog
    /// Its generation number.
    public let generation: Int
    /// When it was published.
    public let publishedAt: Instant

    /// A loaded generation.
    public init(catalog: Catalog, generation: Int, publishedAt: Instant) {
        self.catalog = catalog
        self.generation = generation
        self.publishedAt = publishedAt
    }
}

/// A generation being rolled out: its rollout (rings, phase) and its own state.
public final class ServedRollout: Sendable {
    /// The rollout as stored.
    public let rollout: CatalogRollout
    /// The rolled-out generation's catalog.
    public let state: CatalogState

    init(rollout: CatalogRollout, state: CatalogState) {
        self.rollout = rollout
        self.state = state
    }
}

/// A reload that failed: the last good catalog stays, and `/readyz` and the admin page show the findings.
public struct ReloadFailure: Sendable {
    /// When the reload was tried.
    public let at: Instant
    /// Every finding that made the catalog unusable.
    public let diagnostics: [Diagnostic]
}

/// The current `CatalogState`, swapped atomically on reload. Reloads are serialised.
public final class CatalogStore: Sendable {
    /// The catalog folder (reloaded from on SIGHUP and with `--watch`).
    public let path: String
    let loader: CatalogLoader
    private let state: NIOLockedValueBox<CatalogState>
    private let reloading = NIOLock()
    private let logger: Logger

    /// Loads the catalog at `path`; a catalog with errors throws with every finding.
    public init(path: String, loader: CatalogLoader = CatalogLoader(), logger: Logger) throws(CatalogLoader.Failure) {
        self.path = path
        self.loader = loader
        self.logger = logger
        let catalog = try loader.load(path).get()
        state = NIOLockedValueBox(CatalogState(catalog: catalog, generation: 1, loadedAt: .now, lastReloadError: nil))
    }

    /// Serves an already loaded catalog (a stored generation) as `generation`; `label` names where it came from.
    public init(
        catalog: Catalog, generation: Int, label: String, publishedAt: Instant? = nil,
        loader: CatalogLoader = CatalogLoader(), logger: Logger
    ) {
        self.path = label
        self.loader = loader
        self.logger = logger
        state = NIOLockedValueBox(
            CatalogState(
                catalog: catalog, generation: generation, loadedAt: .now, lastReloadError: nil, publishedAt: publishedAt
            ))
    }

    /// The state a request reads once at its start.
    public var current: CatalogState { state.withLockedValue { $0 } }

    /// Installs the outcome of loading stored generation `generation`: served from the next request on, or, on
    /// failure, logged, counted and kept for `/readyz` while the current catalog stays. Returns whether it was
    /// installed.
    @discardableResult
    public func install(
        _ outcome: Result<Catalog, CatalogLoader.Failure>, generation: Int, publishedAt: Instant? = nil
    ) -> Bool {
        reloading.withLock {
            apply(outcome, generation: { _ in generation }, publishedAt: publishedAt, what: "generation \(generation)")
        }
    }

    /// Installs stored generations that loaded: `base` for every device, and while a rollout splits the fleet,
    /// `rolledOut` for the devices it has reached. Served from the next request on.
    public func install(base: StoredCatalog, rolledOut: (rollout: CatalogRollout, catalog: StoredCatalog)?) {
        reloading.withLock {
            let now = Instant.now
            let current = state.withLockedValue { $0 }
            func served(_ stored: StoredCatalog) -> CatalogState {
                // A generation already served keeps its load time.
                let loadedAt =
                    [current, current.rollout?.state].compactMap { $0 }.first {
                        $0.generation == stored.generation && $0.catalog === stored.catalog
                    }?.loadedAt ?? now
                return CatalogState(
                    catalog: stored.catalog, generation: stored.generation, loadedAt: loadedAt, lastReloadError: nil,
                    publishedAt: stored.publishedAt)
            }
            let next = served(base).with(
                rollout: rolledOut.map { ServedRollout(rollout: $0.rollout, state: served($0.catalog)) })
            state.withLockedValue { $0 = next }
            ServerMetrics.catalogGeneration.record(base.generation)
            if current.generation == base.generation, current.rollout?.rollout == rolledOut?.rollout,
                current.rollout?.state.generation == rolledOut?.catalog.generation
            {
                return  // what was served already (the follower's first look after start-up)
            }
            if let rolledOut {
                let rollout = rolledOut.rollout
                logger.info(
                    "generation \(rollout.generation) rolled out over generation \(base.generation) to the devices its rollout reached",
                    metadata: [
                        "phase": "\(rollout.phase.rawValue)", "ring": "\(rollout.plan.label(ofRing: rollout.ring))",
                    ])
            } else {
                logger.info(
                    "catalog reloaded",
                    metadata: ["generation": "\(base.generation)", "apps": "\(base.catalog.apps.count)"])
            }
        }
    }

    /// Loads the folder again: on success the new catalog is served from the next request on; on failure the
    /// current one stays and the findings are logged and kept for `/readyz`. Returns whether it succeeded.
    @discardableResult
    public func reload() -> Bool {
        reloading.withLock { apply(loader.load(path), generation: { $0 + 1 }, publishedAt: nil, what: "catalog") }
    }

    /// Swaps in a loaded catalog with the generation `next` gives from the current one, or records the failure.
    private func apply(
        _ outcome: Result<Catalog, CatalogLoader.Failure>, generation next: (Int) -> Int, publishedAt: Instant?,
        what: String
    ) -> Bool {
        switch outcome {
        case .success(let catalog):
            let generation = state.withLockedValue { current in
                current = CatalogState(
                    catalog: catalog, generation: next(current.generation), loadedAt: .now, lastReloadError: nil,
                    publishedAt: publishedAt)
                return current.generation
            }
            ServerMetrics.catalogGeneration.record(generation)
            logger.info("catalog reloaded", metadata: ["generation": "\(generation)", "apps": "\(catalog.apps.count)"])
            for warning in catalog.warnings { logger.warning("\(warning.summaryLine)") }
            return true
        case .failure(let failure):
            let failureRecord = ReloadFailure(at: .now, diagnostics: failure.errors)
            state.withLockedValue { current in
                current = CatalogState(
                    catalog: current.catalog, generation: current.generation, loadedAt: current.loadedAt,
                    lastReloadError: failureRecord, publishedAt: current.publishedAt, rollout: current.rollout)
            }
            ServerMetrics.reloadFailures.increment()
            logger.error(
                "\(what) does not load; still serving the last good catalog",
                metadata: ["errors": "\(failure.errors.count)"])
            for diagnostic in failure.errors { logger.error("\(diagnostic.summaryLine)") }
            return false
        }
    }
}

extension Diagnostic {
    /// `file:line:column: severity: message [MCxxxx name]` on one line, for logs.
    var summaryLine: String {
        var place = location?.file ?? "-"
        if let line = location?.position.line { place += ":\(line):\(location?.position.column ?? 1)" }
        return "\(place): \(severity.rawValue): \(message) [\(code)]"
    }
}
