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
        let loaded = try await Self.catalog(number, served: catalogs.current, history: history, loader: loader) {
            logger.info("stored generation \(number) published by \($0.author): loading")
        }
        switch loaded {
        case .success(let stored): return stored
        case .failure(let failure):
            catalogs.install(.failure(failure), generation: number)
            return nil
        }
    }

    /// Stored generation `number`'s catalog: the one `served` already serves, else loaded from the generation's
    /// stored files with `loader` (after calling `loading`), or why it does not load. Throws when the store cannot
    /// be read or holds no such generation. What a `--from-store` server follows, and what the event dispatcher
    /// judges a check-in again against.
    static func catalog(
        _ number: Int, served: CatalogState, history: CatalogHistory, loader: CatalogLoader,
        loading: (CatalogGeneration) -> Void = { _ in }
    ) async throws -> Result<StoredCatalog, CatalogLoader.Failure> {
        // A folder's state numbers its reloads, not stored generations: only a stored one (published) is taken.
        for state in [served, served.rollout?.state].compactMap({ $0 })
        where state.publishedAt != nil && state.generation == number {
            return .success(StoredCatalog(catalog: state.catalog, generation: number, publishedAt: state.changedAt))
        }
        guard let generation = try await history.generation(number), let files = try await history.files(of: number)
        else { throw FleetStoreError(.unusable, "generation \(number) is not in the store") }
        loading(generation)
        return loader.load(files: files).map {
            StoredCatalog(catalog: $0, generation: number, publishedAt: generation.createdAt)
        }
    }
}
