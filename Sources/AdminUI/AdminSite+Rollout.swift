import CivilTime
import Fleet
import MDMConf

extension AdminSite {
    // MARK: Rollout

    /// The catalogs a rollout moves between: its base generation's and its own, loaded by `loader` (nil when either
    /// does not load).
    public static func catalogs(of rollout: CatalogRollout, history: CatalogHistory, loader: CatalogLoader)
        async throws -> (base: Catalog, new: Catalog)?
    {
        guard let baseFiles = try await history.files(of: rollout.base),
            let newFiles = try await history.files(of: rollout.generation),
            case .success(let base) = loader.load(files: baseFiles),
            case .success(let new) = loader.load(files: newFiles)
        else { return nil }
        return (base, new)
    }

    /// The rollout panel: the newest rollout's rings, counts and gate, the devices that count against it, its steps,
    /// and a form (with the session's CSRF token) for each step it can take now. `health` is measured by the caller.
    public func rollout(
        _ rollout: CatalogRollout?, health: RolloutHealth?, done: String?, problem: String?,
        _ snapshot: CatalogSnapshot, chrome: AdminChrome
    ) -> String {
        guard let rollout else {
            let page = RolloutPanel.Page(
                any: false, generation: 0, base: 0, phase: "", badge: "", ring: "", rings: [], gate: "", minDevices: 0,
                every: nil, moved: 0, reporting: 0, configErrors: "", newlyNoncompliant: "", verdict: nil, findings: [],
                hasFindings: false, steps: [], actions: [], hasActions: false, done: done, problem: problem)
            return render("rollout", page, chrome: chrome, title: "Rollout", nav: "rollout")
        }
        let plan = rollout.plan
        let health = health ?? RolloutHealth()
        let findings =
            health.configErrors.map {
                RolloutPanel.Finding(device: $0.device, kind: "configuration error", reason: $0.reason)
            }
            + health.newlyNoncompliant.map {
                RolloutPanel.Finding(device: $0.device, kind: "newly non-compliant", reason: $0.reason)
            }
        let possible: [(String, String, Bool)] = [
            (
                "advance",
                rollout.ring + 1 >= plan.ringCount
                    ? "Complete" : "Advance to \(plan.label(ofRing: min(rollout.ring + 1, plan.ringCount - 1)))", false
            ),
            ("pause", "Pause", false), ("resume", "Resume", false), ("complete", "Complete for every device", false),
            ("abort", "Abort: every device back to generation \(rollout.base)", true),
        ]
        let actions = possible.filter { name, _, _ in
            (try? CatalogRollouts.next(rollout, action: name, at: .now, author: "")) != nil
        }.map { RolloutPanel.Action(name: $0.0, label: $0.1, danger: $0.2) }
        let page = RolloutPanel.Page(
            any: true, generation: rollout.generation, base: rollout.base, phase: rollout.phase.rawValue,
            badge: rollout.phase == .halted || rollout.phase == .aborted
                ? "error" : rollout.phase == .completed ? "ok" : "warning",
            ring: "\(rollout.ring + 1) of \(plan.ringCount) (\(plan.label(ofRing: rollout.ring)))",
            rings: (0..<plan.ringCount).map {
                RolloutPanel.Ring(
                    label: plan.label(ofRing: $0), started: rollout.startOfRing($0)?.description,
                    current: $0 == rollout.ring && rollout.phase.splitsTheFleet)
            },
            gate: plan.gate.description, minDevices: plan.minDevices, every: plan.every?.text, moved: health.moved,
            reporting: health.reporting,
            configErrors: "\(health.configErrors.count) (\(RolloutHealth.percent(health.configErrorShare)))",
            newlyNoncompliant:
                "\(health.newlyNoncompliant.count) (\(RolloutHealth.percent(health.newlyNoncompliantShare)))",
            verdict: health.verdict(plan), findings: Array(findings.prefix(200)), hasFindings: !findings.isEmpty,
            steps: rollout.steps.reversed().map {
                RolloutPanel.Step(
                    number: $0.number, action: $0.action, phase: $0.phase.rawValue, ring: plan.label(ofRing: $0.ring),
                    at: $0.at.description, author: $0.author, reason: $0.reason)
            },
            actions: actions, hasActions: !actions.isEmpty, done: done, problem: problem)
        return render(
            "rollout", page, chrome: chrome, title: "Rollout of generation \(rollout.generation)", nav: "rollout")
    }
}

/// What the rollout panel's template reads.
private enum RolloutPanel {
    struct Ring {
        var label: String
        var started: String?
        var current: Bool
    }
    struct Finding {
        var device: String
        var kind: String
        var reason: String
    }
    struct Step {
        var number: Int, action: String, phase: String, ring: String, at: String, author: String, reason: String
    }
    struct Action {
        var name: String
        var label: String
        var danger: Bool
    }
    struct Page {
        var any: Bool, generation: Int, base: Int, phase: String, badge: String, ring: String, rings: [Ring]
        var gate: String, minDevices: Int, every: String?, moved: Int, reporting: Int, configErrors: String
        var newlyNoncompliant: String, verdict: String?, findings: [Finding], hasFindings: Bool, steps: [Step]
        var actions: [Action], hasActions: Bool, done: String?, problem: String?
    }
}
