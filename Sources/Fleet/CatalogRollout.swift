import CivilTime
import MDMConf
import MDMDiagnostics
import UpdatePolicy

/// How a stored generation reaches the fleet in stages: its rings (a group first, if named, then increasing
/// percentages of the devices), how often it advances by itself, and when its health gate stops it.
public struct RolloutPlan: Sendable, Equatable {
    /// A group of `devices.plist` that is the first ring, or nil.
    public var group: String?
    /// The percentages of the rings after the group, increasing, the last 100.
    public var percents: [RolloutPercent]
    /// The time between automatic advances while the gate holds, or nil to advance only when asked.
    public var every: PolicyDuration?
    /// When the rollout halts by itself.
    public var gate: HealthGate
    /// How many moved devices must have reported before the gate judges.
    public var minDevices: Int

    /// A plan of `rings` as `--rollout` writes them.
    public init(
        rings: String, every: PolicyDuration? = nil, gate: HealthGate = .standard, minDevices: Int = 20
    ) throws(RolloutError) {
        let items = rings.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0.trimmingASCIIWhitespace())
        }
        var group: String?
        var percents: [RolloutPercent] = []
        for (index, item) in items.enumerated() {
            let number = item.hasSuffix("%") ? String(item.dropLast()) : item
            if let percent = RolloutPercent(literal: number) {
                guard percent.hundredths > (percents.last?.hundredths ?? 0) else {
                    throw RolloutError(
                        "the rings must grow: \(item) does not follow \(percents.last.map { "\($0)" } ?? "0")")
                }
                percents.append(percent)
            } else if number.first?.isNumber == true {
                throw RolloutError("'\(item)' is not a ring: a percentage is from 0 to 100, with at most two decimals")
            } else if index == 0, CatalogDevice.isValidID(item) {
                group = item
            } else {
                throw RolloutError(
                    "'\(item)' is not a ring: rings are percentages (1,10,50,100), and only the first may be a group")
            }
        }
        guard percents.last?.hundredths == 10_000 else {
            throw RolloutError("the last ring must be 100, so that the rollout reaches every device")
        }
        guard minDevices >= 1 else { throw RolloutError("--min-devices must be at least 1") }
        (self.group, self.percents, self.every, self.gate, self.minDevices) = (group, percents, every, gate, minDevices)
    }

    /// A plan as the command line gives it: `every` a duration (`24h`, `30m`), `haltWhen` a gate (the standard one
    /// when nil).
    public init(rings: String, every: String?, haltWhen: String?, minDevices: Int) throws(RolloutError) {
        var interval: PolicyDuration?
        if let every {
            guard let parsed = PolicyDuration(every), parsed.seconds > 0 else {
                throw RolloutError("--every must be a duration such as 24h, 30m or 90s, not '\(every)'")
            }
            interval = parsed
        }
        try self.init(
            rings: rings, every: interval, gate: try haltWhen.map(HealthGate.init) ?? .standard, minDevices: minDevices)
    }

    /// A plan as the store keeps it: `rings` as `--rollout` writes them, `every` and `haltWhen` as `PolicyDuration`
    /// and ``HealthGate`` write them (`never` for no gate).
    public init(storedRings rings: String, every: String?, haltWhen: String, minDevices: Int) throws(RolloutError) {
        try self.init(
            rings: rings, every: every.flatMap(PolicyDuration.init),
            gate: haltWhen == "never" ? HealthGate(configErrors: nil, newlyNoncompliant: nil) : HealthGate(haltWhen),
            minDevices: minDevices)
    }

    /// The rings as `--rollout` writes them.
    public var rings: String { ([group].compactMap { $0 } + percents.map { "\($0)" }).joined(separator: ",") }

    /// How many rings there are.
    public var ringCount: Int { percents.count + (group == nil ? 0 : 1) }

    /// Ring `index` for people: the group's name, or `10%`.
    public func label(ofRing index: Int) -> String {
        if let group, index == 0 { return "group \(group)" }
        return "\(percents[index - (group == nil ? 0 : 1)])%"
    }
}

/// The health gate: the shares of moved, reporting devices past which a rollout halts.
public struct HealthGate: Sendable, Equatable, CustomStringConvertible {
    /// Halt when more than this share reported a configuration error (nil: not judged).
    public var configErrors: RolloutPercent?
    /// Halt when more than this share became non-compliant (nil: not judged).
    public var newlyNoncompliant: RolloutPercent?

    /// `config-errors > 2% or newly-noncompliant > 5%`.
    public static let standard = HealthGate(
        configErrors: RolloutPercent(literal: "2"), newlyNoncompliant: RolloutPercent(literal: "5"))

    /// A gate of the given shares.
    public init(configErrors: RolloutPercent?, newlyNoncompliant: RolloutPercent?) {
        self.configErrors = configErrors
        self.newlyNoncompliant = newlyNoncompliant
    }

    /// Parses `--halt-when`: `config-errors > N%`, `newly-noncompliant > N%`, or both joined by `or`.
    public init(_ text: String) throws(RolloutError) {
        var gate = HealthGate(configErrors: nil, newlyNoncompliant: nil)
        for clause in text.components(separatedBy: " or ") {
            let words = clause.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count == 3, words[1] == ">", words[2].hasSuffix("%"),
                let share = RolloutPercent(literal: String(words[2].dropLast()))
            else {
                throw RolloutError(
                    "'\(clause.trimmingASCIIWhitespace())' is not a condition: write config-errors > N% or newly-noncompliant > N%, joined by 'or'"
                )
            }
            switch words[0] {
            case "config-errors" where gate.configErrors == nil: gate.configErrors = share
            case "newly-noncompliant" where gate.newlyNoncompliant == nil: gate.newlyNoncompliant = share
            default:
                throw RolloutError(
                    "'\(words[0])' is not a measure, or is named twice: config-errors, newly-noncompliant")
            }
        }
        self = gate
    }

    public var description: String {
        var clauses: [String] = []
        if let configErrors { clauses.append("config-errors > \(configErrors)%") }
        if let newlyNoncompliant { clauses.append("newly-noncompliant > \(newlyNoncompliant)%") }
        return clauses.isEmpty ? "never" : clauses.joined(separator: " or ")
    }
}

/// A plan, a gate or a transition that cannot be: the message says why.
public struct RolloutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for people.
    public let message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where a rollout stands.
public enum RolloutPhase: String, Sendable, CaseIterable {
    /// Devices of the reached rings get the new generation; `--every` advances it.
    case rolling
    /// Stopped by an admin: no device moves until `resume`.
    case paused
    /// Stopped by its health gate: no device moves; the moved ones stay until `abort`.
    case halted
    /// Every device has the generation.
    case completed
    /// Every device went back to the generation before it.
    case aborted

    /// Whether devices are split between two generations.
    public var splitsTheFleet: Bool { self == .rolling || self == .paused || self == .halted }
}

/// One change of a rollout, kept for ever: what was done, by whom, and where it left the rollout.
public struct RolloutStep: Sendable, Equatable {
    /// 1 for the start, then +1 per change.
    public var number: Int
    /// `start`, `advance`, `pause`, `resume`, `halt`, `abort` or `complete`.
    public var action: String
    /// The phase after it.
    public var phase: RolloutPhase
    /// The ring reached after it (an index into the plan's rings).
    public var ring: Int
    /// When.
    public var at: Instant
    /// Who: a person, or `gate` and `schedule` for the server.
    public var author: String
    /// Why, when said (the gate's measurements for a halt).
    public var reason: String

    /// A step.
    public init(
        number: Int, action: String, phase: RolloutPhase, ring: Int, at: Instant, author: String, reason: String
    ) {
        (self.number, self.action, self.phase, self.ring, self.at) = (number, action, phase, ring, at)
        (self.author, self.reason) = (author, reason)
    }
}

/// A stored generation's rollout: its plan, the generation the other devices keep, and its steps.
public struct CatalogRollout: Sendable, Equatable {
    /// The generation rolled out.
    public var generation: Int
    /// The last completed generation when it started: what devices outside the rollout are served.
    public var base: Int
    /// The plan.
    public var plan: RolloutPlan
    /// Every step, oldest first (never empty).
    public var steps: [RolloutStep]

    /// A rollout with its steps.
    public init(generation: Int, base: Int, plan: RolloutPlan, steps: [RolloutStep]) {
        (self.generation, self.base, self.plan, self.steps) = (generation, base, plan, steps)
    }

    /// The newest step.
    public var current: RolloutStep { steps[steps.count - 1] }
    /// Where it stands.
    public var phase: RolloutPhase { current.phase }
    /// The ring reached.
    public var ring: Int { current.ring }

    /// When ring `index` was reached (nil while it is not).
    public func startOfRing(_ index: Int) -> Instant? {
        steps.first { ($0.action == "start" || $0.action == "advance") && $0.ring >= index }?.at
    }

    /// The seed of the devices' buckets: a new one for every generation, so the same devices are not always first.
    public var seed: String { "catalog-generation-\(generation)" }

    /// The first reached ring that holds `device` (of `groups`), or nil when the device keeps the base generation.
    public func ring(of device: String, groups: [String]) -> Int? {
        guard phase.splitsTheFleet || phase == .completed else { return nil }
        var index = 0
        if let group = plan.group {
            if groups.contains(group) { return 0 }
            index = 1
        }
        guard index <= ring else { return nil }
        let bucket = Rollout.bucket(seed: seed, deviceID: device)
        for percent in plan.percents {
            if index > ring { return nil }
            if percent.hundredths == 10_000 || bucket < percent.hundredths { return index }
            index += 1
        }
        return nil
    }

    /// Whether `device` (of `groups`) is served this rollout's generation.
    public func includes(_ device: String, groups: [String]) -> Bool {
        phase == .completed || ring(of: device, groups: groups) != nil
    }

    /// When `device` (of `groups`) was moved to this generation, or nil when it was not.
    public func movedAt(_ device: String, groups: [String]) -> Instant? {
        ring(of: device, groups: groups).flatMap(startOfRing)
    }

    /// Whether `device` is served this rollout's generation, its groups as `new` (the rolled-out generation's
    /// inventory) lists them, else `base`.
    public func includes(_ device: String, new: Catalog, base: Catalog) -> Bool {
        includes(device, groups: Self.groups(of: device, new: new, base: base))
    }

    /// When `device` was moved, its groups as in ``includes(_:new:base:)``.
    public func movedAt(_ device: String, new: Catalog, base: Catalog) -> Instant? {
        movedAt(device, groups: Self.groups(of: device, new: new, base: base))
    }

    private static func groups(of device: String, new: Catalog, base: Catalog) -> [String] {
        new.devices[device]?.groups ?? base.devices[device]?.groups ?? []
    }

    /// The rollout as JSON: plan, phase, ring and steps.
    public var json: JSONValue {
        .object([
            ("generation", .integer(generation)), ("base", .integer(base)), ("phase", .string(phase.rawValue)),
            ("ring", .integer(ring)), ("ringLabel", .string(plan.label(ofRing: ring))),
            ("rings", .string(plan.rings)), ("every", .optional(plan.every?.text)),
            ("haltWhen", .string(plan.gate.description)), ("minDevices", .integer(plan.minDevices)),
            (
                "steps",
                .array(
                    steps.map { step in
                        .object([
                            ("step", .integer(step.number)), ("action", .string(step.action)),
                            ("phase", .string(step.phase.rawValue)), ("ring", .integer(step.ring)),
                            ("at", .string(step.at.description)), ("author", .string(step.author)),
                            ("reason", .string(step.reason)),
                        ])
                    })
            ),
        ])
    }
}
