import ArgumentParser
import Fleet
import Foundation
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics

struct PublishCommand: ParsableCommand {
    static let configuration = ServerCommands.publish

    @Argument(help: "The catalog folder.") var catalog: String
    @Option(name: .long, help: "The fleet store: sqlite:PATH or postgres://user@host:port/db.") var store: String
    @Option(name: .long, help: "Why: shown in history.") var message: String = ""
    @Option(name: .long, help: "Who publishes (default: $USER).") var author: String?
    @Option(name: .long, help: "text or json.") var format: HistoryCommand.Format = .text
    @Option(
        name: .long,
        help: "Roll the generation out in rings: percentages (1,10,50,100), the first may be a group (pilot,10,100).")
    var rollout: String?
    @Option(name: .long, help: "With --rollout: advance by itself this often while the gate holds (24h, 30m).")
    var every: String?
    @Option(
        name: .long,
        help: "With --rollout: the health gate (default: 'config-errors > 2% or newly-noncompliant > 5%').")
    var haltWhen: String?
    @Option(name: .long, help: "With --rollout: moved devices that must report before the gate judges.")
    var minDevices: Int = 20

    /// The rollout's plan, when there is one.
    private func plan() throws -> RolloutPlan? {
        guard let rollout else {
            if every != nil || haltWhen != nil {
                throw ValidationError("--every and --halt-when go with --rollout")
            }
            return nil
        }
        let plan = Result { () throws(RolloutError) in
            try RolloutPlan(rings: rollout, every: every, haltWhen: haltWhen, minDevices: minDevices)
        }
        switch plan {
        case .success(let plan): return plan
        case .failure(let error): throw ValidationError(error.message)
        }
    }

    func validate() throws { _ = try plan() }

    func run() throws {
        let code = try BlockingTask.run { try await publish() }
        if code != 0 { throw ExitCode(code) }
    }

    private func publish() async throws -> Int32 {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: catalog, isDirectory: &isFolder), isFolder.boolValue else {
            Console.error("error: \(catalog): no such catalog folder\n")
            return ExitStatus.unreadableInput.rawValue
        }
        guard let loaded = CatalogFolder.load(catalog, consequence: ": nothing was published") else {
            return ExitStatus.invalidConfiguration.rawValue
        }
        let files: CatalogFiles
        do { files = try CatalogFiles.read(folder: catalog) } catch {
            Console.error("error: \(error.path): \(error.reason)\n")
            return ExitStatus.unreadableInput.rawValue
        }
        let who = author ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown"
        let plan = try plan()
        if let group = plan?.group, !loaded.devices.values.contains(where: { $0.groups.contains(group) }) {
            Console.error(
                "error: no device of \(catalog)/devices.plist is in the group '\(group)', the rollout's first ring; nothing was published\n"
            )
            return ExitStatus.findings.rawValue
        }
        return try await StoredCatalogs.withStore(store) { history in
            if let refusal = try await StoredCatalogs.refuseDuringRollout(history.store, "publish") { return refusal }
            let subscriptions = EventSubscriptions(endpoints: loaded.events, server: StorePaths.hostName)
            let changes = try await StoredCatalogs.changes(to: files, catalog: loaded, history, for: subscriptions)
            let outcome: CatalogHistory.PublishOutcome
            do {
                outcome = try await history.publish(files, author: who, message: message, rollout: plan) {
                    generation, previous in
                    subscriptions.published(generation, previous: previous, changes: changes.against(previous))
                }
            } catch let error as RolloutError {
                Console.error("error: \(error.message); nothing was published\n")
                return ExitStatus.findings.rawValue
            }
            let code = try await Self.report(outcome, files: files, catalog: loaded, history: history, format: format)
            if case .published(let generation, _) = outcome, let plan, format == .text {
                Console.out(
                    "rolling out in rings \(plan.rings): \(plan.label(ofRing: 0)) has it now; the others keep generation \(generation.number - 1) (mdmconf rollout status --store …)\n"
                )
            }
            return code
        }
    }

    /// Prints what a publish or rollback did: the new generation and its changes, or that nothing changed.
    static func report(
        _ outcome: CatalogHistory.PublishOutcome, files: CatalogFiles, catalog: Catalog?, history: CatalogHistory,
        format: HistoryCommand.Format
    ) async throws -> Int32 {
        switch outcome {
        case .unchanged(let newest):
            if format == .json {
                Console.out(
                    JSONValue.object([("published", .bool(false)), ("generation", StoredCatalogs.json(newest))])
                        .serialized())
            } else {
                Console.out("unchanged: the content equals generation \(newest.number); nothing was written\n")
            }
        case .published(let generation, let previous):
            var diff: CatalogDiff?
            var impact: FleetImpact?
            if let previous, let before = try await history.files(of: previous.number) {
                let oldCatalog = StoredCatalogs.load(before)
                diff = CatalogDiff.compare(before, files, oldCatalog: oldCatalog, newCatalog: catalog)
                impact = try await StoredCatalogs.impact(history.store, oldCatalog, catalog)
            }
            if format == .json {
                Console.out(
                    JSONValue.object([
                        ("published", .bool(true)), ("generation", StoredCatalogs.json(generation)),
                        ("previous", previous.map { .integer($0.number) } ?? .null), ("diff", diff?.json ?? .null),
                        ("fleet", impact?.json ?? .null),
                    ]).serialized())
            } else {
                let source = generation.source.map { " (the content of generation \($0))" } ?? ""
                Console.out(
                    "published generation \(generation.number)\(source): \(generation.files) files, content \(generation.contentHash.prefix(12)), by \(generation.author)\n"
                )
                if let diff, let previous {
                    Console.out("changes since generation \(previous.number):\n")
                    Console.out(
                        diff.text.split(separator: "\n", omittingEmptySubsequences: false).map {
                            $0.isEmpty ? "" : "  \($0)"
                        }.joined(separator: "\n"))
                    if let impact {
                        Console.out(
                            "  the fleet in the store, judged now:\n" + impact.lines.map { "    \($0)\n" }.joined())
                    }
                } else {
                    Console.out("the first generation in this store\n")
                }
            }
        }
        return 0
    }
}

struct HistoryCommand: ParsableCommand {
    static let configuration = ServerCommands.history

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Option(name: .long, help: "The fleet store: sqlite:PATH or postgres://user@host:port/db.") var store: String
    @Option(name: .long, help: "At most this many generations.") var limit: Int = 50
    @Option(name: .long, help: "text or json.") var format: Format = .text

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 100000") }
    }

    func run() throws {
        let code = try BlockingTask.run {
            try await StoredCatalogs.withStore(store) { history in
                let generations = try await history.generations(limit: limit)
                let rollouts = try await StoredCatalogs.rollouts(of: generations, in: history.store)
                switch format {
                case .json:
                    Console.out(
                        JSONValue.array(generations.map { StoredCatalogs.json($0, rollout: rollouts[$0.number]) })
                            .serialized())
                case .text:
                    Console.out(
                        generations.isEmpty
                            ? "no generations: publish one with mdmconf publish CATALOG --store …\n"
                            : StoredCatalogs.table(generations, rollouts: rollouts))
                }
                return 0
            }
        }
        if code != 0 { throw ExitCode(code) }
    }
}

struct RollbackCommand: ParsableCommand {
    static let configuration = ServerCommands.rollback

    @Argument(help: "The generation to go back to.") var generation: Int
    @Option(name: .long, help: "The fleet store: sqlite:PATH or postgres://user@host:port/db.") var store: String
    @Option(name: .long, help: "Why (default: 'rollback to generation N').") var message: String?
    @Option(name: .long, help: "Who rolls back (default: $USER).") var author: String?
    @Option(name: .long, help: "text or json.") var format: HistoryCommand.Format = .text

    func run() throws {
        let code = try BlockingTask.run {
            try await StoredCatalogs.withStore(store) { history in
                if let refusal = try await StoredCatalogs.refuseDuringRollout(history.store, "rollback") {
                    return refusal
                }
                guard let files = try await history.files(of: generation) else {
                    Console.error("error: generation \(generation) is not in the store (see mdmconf history)\n")
                    return ExitStatus.invalidConfiguration.rawValue
                }
                guard let catalog = StoredCatalogs.load(files) else {
                    Console.error("error: generation \(generation) does not load as a catalog; nothing was published\n")
                    return ExitStatus.invalidConfiguration.rawValue
                }
                let subscriptions = EventSubscriptions(endpoints: catalog.events, server: StorePaths.hostName)
                let changes = try await StoredCatalogs.changes(to: files, catalog: catalog, history, for: subscriptions)
                let outcome = try await history.publish(
                    files, author: author ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown",
                    message: message ?? "rollback to generation \(generation)", kind: "rollback", source: generation
                ) { generation, previous in
                    subscriptions.published(generation, previous: previous, changes: changes.against(previous))
                }
                return try await PublishCommand.report(
                    outcome, files: files, catalog: catalog, history: history, format: format)
            }
        }
        if code != 0 { throw ExitCode(code) }
    }
}
