import CivilTime
import Fleet
import FleetStores
import Foundation
import Logging
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics
import PropertyList
import WebhookEvents

/// A catalog folder loaded for a command that needs it whole (`report`, `simulate`, `publish`): nil after printing
/// every finding and `error: PATH is not a usable catalog (N errors)` + `consequence` to standard error.
enum CatalogFolder {
    static func load(_ path: String, readerOptions: PlistReaderOptions = PlistReaderOptions(), consequence: String = "")
        -> Catalog?
    {
        switch CatalogLoader(readerOptions: readerOptions).load(path) {
        case .success(let catalog): return catalog
        case .failure(let failure):
            let report = DiagnosticReport(files: [FileReport(path: path, diagnostics: failure.errors)])
            Console.error(TextRenderer(options: RenderOptions(color: Console.stderrColorEnabled)).render(report))
            Console.error("error: \(path) is not a usable catalog (\(failure.errors.count) errors)\(consequence)\n")
            return nil
        }
    }
}

/// The catalog history of a fleet store, for `publish`, `history`, `rollback` and `diff GEN GEN`.
enum StoredCatalogs {
    /// Opens the store named by `url`, runs `body` with its history and closes it; a store that cannot be opened
    /// or read is reported and exits 78.
    static func withStore(_ url: String, _ body: (CatalogHistory) async throws -> Int32) async throws -> Int32 {
        let location: StoreLocation
        switch StoreLocation.parse(url) {
        case .success(let parsed): location = parsed
        case .failure(let error):
            Console.error("error: \(error.message)\n")
            return ExitStatus.usage.rawValue
        }
        let logger = Logger(label: "mdmconf") { _ in SwiftLogNoOpLogHandler() }
        let store: any FleetStore
        do {
            guard let opened = try await FleetStores.open(location, logger: logger) else {
                Console.error("error: --store none keeps no catalog history\n")
                return ExitStatus.usage.rawValue
            }
            store = opened
        } catch {
            Console.error(
                "error: the fleet store cannot be used: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
            return ExitStatus.invalidConfiguration.rawValue
        }
        do {
            let code = try await body(CatalogHistory(store: store))
            try? await store.close()
            return code
        } catch {
            try? await store.close()
            Console.error("error: the fleet store failed: \((error as? FleetStoreError)?.message ?? "\(error)")\n")
            return ExitStatus.invalidConfiguration.rawValue
        }
    }

    /// Exit 1, saying the way out, while a rollout splits the fleet: `what` (publish, rollback) waits for its end.
    static func refuseDuringRollout(_ store: any FleetStore, _ what: String) async throws -> Int32? {
        guard let active = try await CatalogRollouts(store: store).active() else { return nil }
        Console.error(
            "error: generation \(active.generation) is being rolled out (\(active.phase.rawValue) at \(active.plan.label(ofRing: active.ring))): complete or abort it before you \(what) (mdmconf rollout complete|abort --store …); nothing was written\n"
        )
        return ExitStatus.findings.rawValue
    }

    /// The catalog a generation's files make, loaded exactly as `serve` loads a folder; nil when it does not load.
    static func load(_ files: CatalogFiles) -> Catalog? {
        try? CatalogLoader().load(files: files).get()
    }

    /// The diff counts a publish event carries: against which generation (the newest before the publish), how many
    /// files and values change.
    struct ChangeCounts {
        var against: Int?
        var json: JSONValue

        /// The counts when the generation published on top of is the one they were counted against, else null (a
        /// publish came in between).
        func against(_ previous: CatalogGeneration?) -> JSONValue { previous?.number == against ? json : .null }
    }

    /// The counts of `files` against the newest stored generation, worked out only when an endpoint receives
    /// publishes or rollbacks.
    static func changes(
        to files: CatalogFiles, catalog: Catalog, _ history: CatalogHistory, for subscriptions: EventSubscriptions
    ) async throws -> ChangeCounts {
        guard
            !subscriptions.subscribers(.catalogPublished).isEmpty
                || !subscriptions.subscribers(.catalogRolledBack).isEmpty,
            let newest = try await history.latest(), let before = try await history.files(of: newest.number)
        else { return ChangeCounts(against: nil, json: .null) }
        let diff = CatalogDiff.compare(before, files, oldCatalog: load(before), newCatalog: catalog)
        return ChangeCounts(
            against: newest.number,
            json: .object([
                ("against", .integer(newest.number)), ("files", .integer(diff.files.count)),
                ("values", .integer(diff.changeCount)),
            ]))
    }

    /// What the change from `old` to `new` does to the fleet in `store`; nil when either catalog did not load.
    static func impact(_ store: any FleetStore, _ old: Catalog?, _ new: Catalog?) async throws -> FleetImpact? {
        guard let old, let new else { return nil }
        return try await FleetImpact.compare(store: store, old: old, new: new, now: .now)
    }

    /// The rollouts of `generations` that have one, by generation number.
    static func rollouts(of generations: [CatalogGeneration], in store: any FleetStore) async throws
        -> [Int: CatalogRollout]
    {
        let rollouts = CatalogRollouts(store: store)
        var found: [Int: CatalogRollout] = [:]
        for generation in generations where generation.kind == "publish" {
            if let rollout = try await rollouts.rollout(of: generation.number) { found[generation.number] = rollout }
        }
        return found
    }

    /// A rollout's standing in a history row: `rolling at 10%`, `halted at 50%`, `rollout completed`.
    static func standing(_ rollout: CatalogRollout) -> String {
        rollout.phase.splitsTheFleet
            ? "\(rollout.phase.rawValue) at \(rollout.plan.label(ofRing: rollout.ring))"
            : "rollout \(rollout.phase.rawValue)"
    }

    /// `2026-11-25T12:00:00Z  alice  publish  "message"`-style table of generations (with each rollout's standing).
    static func table(_ generations: [CatalogGeneration], rollouts: [Int: CatalogRollout] = [:]) -> String {
        var rows = [["GEN", "PUBLISHED", "AUTHOR", "KIND", "FILES", "CONTENT", "MESSAGE"]]
        for generation in generations {
            var kind = generation.source.map { "\(generation.kind) of \($0)" } ?? generation.kind
            if let rollout = rollouts[generation.number] { kind += " (\(standing(rollout)))" }
            rows.append([
                String(generation.number), generation.createdAt.description, generation.author, kind,
                String(generation.files), String(generation.contentHash.prefix(12)), generation.message,
            ])
        }
        return columns(rows)
    }

    /// Rows as text columns two spaces apart, each padded to its widest cell (the last left as it is).
    static func columns(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    static func json(_ generation: CatalogGeneration, rollout: CatalogRollout? = nil) -> JSONValue {
        .object([
            ("generation", .integer(generation.number)), ("contentHash", .string(generation.contentHash)),
            ("author", .string(generation.author)), ("message", .string(generation.message)),
            ("createdAt", .string(generation.createdAt.description)), ("kind", .string(generation.kind)),
            ("source", .optional(generation.source)), ("files", .integer(generation.files)),
            (
                "rollout",
                rollout.map {
                    .object([
                        ("phase", .string($0.phase.rawValue)), ("ring", .string($0.plan.label(ofRing: $0.ring))),
                        ("rings", .string($0.plan.rings)),
                    ])
                } ?? .null
            ),
        ])
    }
}
