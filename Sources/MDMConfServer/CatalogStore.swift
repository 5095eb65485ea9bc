import CivilTime
import Logging
import MDMConf
import MDMDiagnostics
import NIOConcurrencyHelpers

/// What every request reads once at its start: the current catalog, its generation and the last reload
/// failure. Replaced as a whole, so no request sees parts of two catalogs.
public struct CatalogState: Sendable {
    public let catalog: Catalog
    /// 1 for the catalog loaded at start-up, +1 on every successful reload.
    public let generation: Int
    public let loadedAt: Instant
    /// The findings of the last failed reload, if it came after the last successful one.
    public let lastReloadError: ReloadFailure?
}

public struct ReloadFailure: Sendable {
    public let at: Instant
    public let diagnostics: [Diagnostic]
}

/// The current `CatalogState`, swapped atomically on reload. Reloads are serialised.
public final class CatalogStore: Sendable {
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

    public var current: CatalogState { state.withLockedValue { $0 } }

    /// Loads the folder again: on success the new catalog is served from the next request on; on failure the
    /// current one stays and the findings are logged and kept for `/readyz`. Returns whether it succeeded.
    @discardableResult
    public func reload() -> Bool {
        reloading.withLock {
            switch loader.load(path) {
            case .success(let catalog):
                let generation = state.withLockedValue { current in
                    current = CatalogState(
                        catalog: catalog, generation: current.generation + 1, loadedAt: .now, lastReloadError: nil)
                    return current.generation
                }
                ServerMetrics.catalogGeneration.record(generation)
                logger.info(
                    "catalog reloaded", metadata: ["generation": "\(generation)", "apps": "\(catalog.apps.count)"])
                for warning in catalog.warnings { logger.warning("\(warning.summaryLine)") }
                return true
            case .failure(let failure):
                let failureRecord = ReloadFailure(at: .now, diagnostics: failure.errors)
                state.withLockedValue { current in
                    current = CatalogState(
                        catalog: current.catalog, generation: current.generation, loadedAt: current.loadedAt,
                        lastReloadError: failureRecord)
                }
                ServerMetrics.reloadFailures.increment()
                logger.error(
                    "catalog reload failed; still serving the last good catalog",
                    metadata: ["errors": "\(failure.errors.count)"])
                for diagnostic in failure.errors { logger.error("\(diagnostic.summaryLine)") }
                return false
            }
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
