import CivilTime
import Fleet
import Logging
import MDMConf

/// What a `--from-store` server serves, brought in line with the store: the newest generation for every device,
/// or, while its rollout splits the fleet, the generation it was rolled out over plus the new one for the devices
/// the rollout reached. A generation already loaded is not loaded again; one that does not load is logged,
/// counted and shown at `/readyz` once, and what is served stays.
public struct StoredGenerations: Sendable {
    let catalogs: CatalogStore
    let history: CatalogHistory
    let loader: CatalogLoader
    let logger: Logger

    /// Follows `history`'s store into `catalogs`, loading with `loader`.
    public init(catalogs: CatalogStore, history: CatalogHistory, loader: CatalogLoader, logger: Logger) {
        (self.catalogs, self.history, self.loader, self.logger) = (catalogs, history, loader, logger)
    }

    /// What the store holds now, as a key that changes with every publish and every rollout step.
    public struct Key: Sendable, Equatable {
        let generation: Int
        let steps: Int
    }

    /// Reads the store and installs what it says, unless it is `installed` or `failed` (a key whose generation did
    /// not load). Returns the key now served, or `failed` when loading failed; nil when the store cannot be read.
    public func sync(installed: Key?, failed: Key?) async -> (installed: Key?, failed: Key?) {
        guard let latest = try? await history.latest() else { return (installed, failed) }
        let rollout: CatalogRollout?
        do { rollout = try await CatalogRollouts(store: history.store).rollout(of: latest.number) } catch {
            return (installed, failed)
        }
        let key = Key(generation: latest.number, steps: rollout?.steps.count ?? 0)
        guard key != installed, key != failed else { return (installed, failed) }
        // A store that cannot be read now is read again at the next check; a generation that does not load is
        // not tried again until the store changes.
        do {
            if let rollout, rollout.phase.splitsTheFleet {
                guard let base = try await load(rollout.base), let rolled = try await load(latest.number) else {
                    return (installed, key)
                }
                catalogs.install(base: base, rolledOut: (rollout, rolled))
            } else {
                guard let newest = try await load(latest.number) else { return (installed, key) }
                catalogs.install(base: newest, rolledOut: nil)
            }
        } catch {
            return (installed, failed)
        }
        return (key, nil)
    }

    /// Generation `number`: the catalog already served when it is, else loaded from its stored files; nil when it
    /// does not load (logged and kept for `/readyz`). Throws when the store cannot be read.
    private func load(_ number: Int) async throws -> StoredCatalog? {
        let current = catalogs.current
        for served in [current, current.rollout?.state].compactMap({ $0 }) where served.generation == number {
            return StoredCatalog(catalog: served.catalog, generation: number, publishedAt: served.changedAt)
        }
        guard let generation = try await history.generation(number), let files = try await history.files(of: number)
        else { throw FleetStoreError(.unusable, "generation \(number) is not in the store") }
        logger.info("stored generation \(number) published by \(generation.author): loading")
        switch loader.load(files: files) {
        case .success(let catalog):
            return StoredCatalog(catalog: catalog, generation: number, publishedAt: generation.createdAt)
        case .failure(let failure):
            catalogs.install(.failure(failure), generation: number)
            return nil
        }
    }
}
