import ArgumentParser
import CivilTime
import Fleet
import Foundation
import MDMConf
import MDMConfCommandSupport
import MDMDiagnostics

/// `mdmconf rollout status|advance|pause|resume|abort|complete [GEN]`: a staged rollout in the fleet store.
struct RolloutCommand: ParsableCommand {
    static let configuration = ServerCommands.rollout

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case status, advance, pause, resume, abort, complete
    }

    @Argument(help: "status, advance, pause, resume, abort or complete.") var action: Action
    @Argument(help: "The generation rolled out (default: the rollout under way, or for status the newest).")
    var generation: Int?
    @Option(name: .long, help: "The fleet store: sqlite:PATH or postgres://user@host:port/db.") var store: String
    @Option(name: .long, help: "Why: kept with the step.") var message: String = ""
    @Option(name: .long, help: "Who (default: $USER).") var author: String?
    @Option(name: .long, help: "text or json.") var format: HistoryCommand.Format = .text

    func run() throws {
        let code = try BlockingTask.run {
            try await StoredCatalogs.withStore(store) { history in try await act(history) }
        }
        if code != 0 { throw ExitCode(code) }
    }

    private func act(_ history: CatalogHistory) async throws -> Int32 {
        let rollouts = CatalogRollouts(store: history.store)
        let found: CatalogRollout?
        if let generation {
            found = try await rollouts.rollout(of: generation)
        } else {
            found = action == .status ? try await rollouts.newest() : try await rollouts.active()
        }
        guard let rollout = found else {
            Console.error(
                generation.map { "error: generation \($0) was not rolled out (see mdmconf history)\n" }
                    ?? "error: no rollout is under way: start one with mdmconf publish CATALOG --rollout 1,10,100 --store …\n"
            )
            return ExitStatus.findings.rawValue
        }
        guard let base = try await history.files(of: rollout.base).flatMap(StoredCatalogs.load),
            let new = try await history.files(of: rollout.generation).flatMap(StoredCatalogs.load)
        else {
            Console.error("error: generation \(rollout.base) or \(rollout.generation) does not load as a catalog\n")
            return ExitStatus.invalidConfiguration.rawValue
        }
        let health = try await RolloutHealth.measure(
            rollout, store: history.store, base: base, new: new, now: .now)
        guard action != .status else {
            show(rollout, health: health)
            return rollout.phase == .halted ? ExitStatus.findings.rawValue : 0
        }
        let change: CatalogRollouts.Change
        do {
            change = try await rollouts.perform(
                action.rawValue, on: rollout,
                author: author ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown",
                reason: message, subscriptions: EventSubscriptions(endpoints: new.events, server: StorePaths.hostName),
                health: health)
        } catch let error as RolloutError {
            Console.error("error: \(error.message)\n")
            return ExitStatus.findings.rawValue
        }
        if format == .json {
            show(change.rollout, health: health)
        } else if case .aborted(_, let generation) = change {
            Console.out(
                "aborted the rollout of generation \(rollout.generation): generation \(generation.number) publishes generation \(rollout.base)'s content again, for every device\n"
            )
        } else {
            let after = change.rollout
            Console.out(
                after.phase == .completed
                    ? "completed: generation \(after.generation) is served to every device\n"
                    : "generation \(after.generation) is \(after.phase.rawValue) at ring \(after.ring + 1) of \(after.plan.ringCount) (\(after.plan.label(ofRing: after.ring)))\n"
            )
        }
        return 0
    }

    private func show(_ rollout: CatalogRollout, health: RolloutHealth) {
        if format == .json {
            var json = rollout.json
            if case .object(var fields) = json {
                fields.append(("health", health.json(limit: 1_000)))
                fields.append(("verdict", .optional(health.verdict(rollout.plan))))
                json = .object(fields)
            }
            Console.out(json.serialized())
            return
        }
        Console.out(Self.text(rollout, health: health))
    }

    /// `rollout status` for people.
    static func text(_ rollout: CatalogRollout, health: RolloutHealth) -> String {
        let plan = rollout.plan
        let reached = "at ring \(rollout.ring + 1) of \(plan.ringCount) (\(plan.label(ofRing: rollout.ring)))"
        let others =
            switch rollout.phase {
            case .completed: "every device has it"
            case .aborted: "every device went back to generation \(rollout.base)'s content"
            default: "the other devices keep generation \(rollout.base)"
            }
        var lines = ["generation \(rollout.generation): \(rollout.phase.rawValue) \(reached); \(others)"]
        let rings = (0..<plan.ringCount).map { index in
            let label = plan.label(ofRing: index)
            guard let started = rollout.startOfRing(index) else { return label }
            return "\(label) since \(started)"
        }
        lines.append("rings: " + rings.joined(separator: ", "))
        var gate = "gate: \(plan.gate), judged once \(plan.minDevices) moved devices report"
        if let every = plan.every { gate += "; advances every \(every)" }
        lines.append(gate)
        lines.append(
            "devices: \(health.moved) moved, \(health.reporting) reported since; \(health.configErrors.count) with a configuration error (\(RolloutHealth.percent(health.configErrorShare))), \(health.newlyNoncompliant.count) newly non-compliant (\(RolloutHealth.percent(health.newlyNoncompliantShare)))"
        )
        if let verdict = health.verdict(plan) { lines.append("the gate trips: \(verdict)") }
        for (title, findings) in [
            ("configuration errors", health.configErrors), ("newly non-compliant", health.newlyNoncompliant),
        ] where !findings.isEmpty {
            lines.append("\(title):")
            lines += StoredCatalogs.columns(findings.prefix(50).map { ["  \($0.device)", $0.reason] }).split(
                separator: "\n"
            ).map(String.init)
            if findings.count > 50 { lines.append("  … and \(findings.count - 50) more (--format json lists them)") }
        }
        lines.append("steps:")
        lines += StoredCatalogs.columns(
            rollout.steps.map { step in
                [
                    "  \(step.number)", step.action, step.phase.rawValue, plan.label(ofRing: step.ring),
                    step.at.description, step.author, step.reason,
                ]
            }
        ).split(separator: "\n").map(String.init)
        return lines.joined(separator: "\n") + "\n"
    }
}
