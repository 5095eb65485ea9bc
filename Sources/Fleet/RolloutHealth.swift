import CivilTime
import MDMConf
import MDMDiagnostics
import UpdatePolicy

/// What the devices a rollout moved report: the measure of its health gate.
///
/// Only moved devices that checked in (or sent a declarative status) since their move count. One counts as a
/// configuration error when an app reported an error after the move; as newly non-compliant when the new
/// generation judges it non-compliant while the base generation, judging the same report, finds it compliant. A
/// configuration the device has not fetched yet is not bad news: stale configurations count for neither.
public struct RolloutHealth: Sendable, Equatable {
    /// A device that counts against the rollout, and why.
    public struct Finding: Sendable, Equatable {
        /// The device id.
        public var device: String
        /// What it reported, for people.
        public var reason: String

        /// A device and why it counts.
        public init(device: String, reason: String) {
            self.device = device
            self.reason = reason
        }
    }

    /// Stored devices the rollout moved.
    public var moved = 0
    /// Moved devices that reported since their move: the gate's denominator.
    public var reporting = 0
    /// Reporting devices with a configuration error.
    public var configErrors: [Finding] = []
    /// Reporting devices that became non-compliant.
    public var newlyNoncompliant: [Finding] = []

    /// No devices measured.
    public init() {}

    /// The rollout's devices in `store`, judged by `base` (what they had) and `new` (what they were moved to).
    public static func measure(
        _ rollout: CatalogRollout, store: any FleetStore, base: Catalog, new: Catalog, now: Instant
    ) async throws -> RolloutHealth {
        var health = RolloutHealth()
        let before = ComplianceEvaluator(catalog: base, now: now)
        let after = ComplianceEvaluator(catalog: new, now: now)
        let cache = ParseCache()
        // Most devices report the same few versions: their decisions are looked up, not made again.
        let (memoBefore, memoAfter) = (DecisionMemo(), DecisionMemo())
        var cursor: String?
        while true {
            let states = try await store.devices(after: cursor, limit: 2_500)
            for state in states {
                guard let movedAt = rollout.movedAt(state.device, new: new, base: base) else { continue }
                health.moved += 1
                guard state.lastCheckIn >= movedAt else { continue }
                health.reporting += 1
                let failing = state.apps.filter { $0.lastCheckIn >= movedAt && !($0.app.configError ?? "").isEmpty }
                if !failing.isEmpty {
                    health.configErrors.append(
                        Finding(
                            device: state.device,
                            reason: failing.map { "\($0.app.app): \($0.app.configError ?? "")" }.joined(separator: "; ")
                        ))
                    continue
                }
                let problems = Self.problems(after.evaluate(state, cache: cache, memo: memoAfter))
                if !problems.isEmpty, Self.problems(before.evaluate(state, cache: cache, memo: memoBefore)).isEmpty {
                    health.newlyNoncompliant.append(
                        Finding(device: state.device, reason: problems.joined(separator: "; ")))
                }
            }
            guard states.count == 2_500, let last = states.last?.device else { break }
            cursor = last
        }
        return health
    }

    /// Why a device is non-compliant, leaving out configurations it has not fetched yet.
    static func problems(_ compliance: DeviceCompliance) -> [String] {
        compliance.apps.compactMap { app in
            guard app.managed, let decision = app.decision else { return nil }
            switch decision.decision {
            case .ok, .recommended: return app.config == .error ? "\(app.app): configuration error" : nil
            default: return "\(app.app): update \(decision.decision.rawValue)"
            }
        }
    }

    /// The share of reporting devices with a configuration error.
    public var configErrorShare: Double { share(configErrors.count) }
    /// The share of reporting devices that became non-compliant.
    public var newlyNoncompliantShare: Double { share(newlyNoncompliant.count) }

    private func share(_ count: Int) -> Double { reporting == 0 ? 0 : Double(count) * 100 / Double(reporting) }

    /// Why `plan`'s gate stops the rollout, or nil while it holds (or fewer than its `minDevices` reported).
    public func verdict(_ plan: RolloutPlan) -> String? {
        guard reporting >= plan.minDevices else { return nil }
        var reasons: [String] = []
        if let limit = plan.gate.configErrors, configErrorShare * 100 > Double(limit.hundredths) {
            reasons.append(
                "config-errors \(Self.percent(configErrorShare)) > \(limit)% (\(configErrors.count) of \(reporting) devices)"
            )
        }
        if let limit = plan.gate.newlyNoncompliant, newlyNoncompliantShare * 100 > Double(limit.hundredths) {
            reasons.append(
                "newly-noncompliant \(Self.percent(newlyNoncompliantShare)) > \(limit)% (\(newlyNoncompliant.count) of \(reporting) devices)"
            )
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: " and ")
    }

    /// A share as people read it: `3.8%`.
    public static func percent(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// The measurements, with up to `limit` devices of each kind.
    public func json(limit: Int = 100) -> JSONValue {
        func findings(_ list: [Finding]) -> JSONValue {
            .array(
                list.prefix(limit).map {
                    .object([("device", .string($0.device)), ("reason", .string($0.reason))])
                })
        }
        return .object([
            ("moved", .integer(moved)), ("reporting", .integer(reporting)),
            ("configErrors", .integer(configErrors.count)), ("newlyNoncompliant", .integer(newlyNoncompliant.count)),
            ("configErrorShare", .number(Self.percent(configErrorShare).dropLast().description)),
            ("newlyNoncompliantShare", .number(Self.percent(newlyNoncompliantShare).dropLast().description)),
            ("configErrorDevices", findings(configErrors)), ("newlyNoncompliantDevices", findings(newlyNoncompliant)),
        ])
    }
}
