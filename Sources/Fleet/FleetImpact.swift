import CivilTime
import MDMConf
import MDMDiagnostics

/// What a catalog change does to the fleet as the store knows it: every device's latest check-in judged against
/// the old catalog and the new one, at one instant, with the code that answers devices. "14 devices become
/// `required`" before the change ships.
public struct FleetImpact: Sendable, Equatable {
    /// One change of one app's decision.
    public struct Transition: Sendable, Hashable {
        /// The app.
        public var app: String
        /// The update decision (`ok`, `recommended`, `required`, `unsupported`, `error`) or `unreported`.
        public var from: String
        /// The decision after the change.
        public var to: String
    }

    /// Devices whose decision for an app changes, by app and change.
    public var decisions: [Transition: Int]
    /// Devices compliant before the change and not after it.
    public var becomeNoncompliant: Int
    /// Devices not compliant before the change and compliant after it.
    public var becomeCompliant: Int
    /// Devices judged (stored and inventory).
    public var devices: Int

    /// True when the change moves nothing.
    public var isEmpty: Bool { decisions.isEmpty && becomeCompliant == 0 && becomeNoncompliant == 0 }

    /// The impact of replacing `old` with `new`, for every device the store knows, at `now`.
    public static func compare(store: any FleetStore, old: Catalog, new: Catalog, now: Instant) async throws
        -> FleetImpact
    {
        // One read of the store: each device's stored state is judged by the new catalog in the query and by the
        // old one here (a device the old inventory lacked judges as never seen there).
        let after = try await FleetQuery(store: store, evaluator: ComplianceEvaluator(catalog: new, now: now)).all(
            FleetFilter())
        let judgeOld = ComplianceEvaluator(catalog: old, now: now)
        let cache = ParseCache()
        var impact = FleetImpact(decisions: [:], becomeNoncompliant: 0, becomeCompliant: 0, devices: after.count)
        func decisions(_ row: DeviceCompliance) -> [String: String] {
            Dictionary(
                row.apps.map { ($0.app, $0.decision?.decision.rawValue ?? "unreported") },
                uniquingKeysWith: { first, _ in first })
        }
        for row in after {
            let previous = row.state.map { judgeOld.evaluate($0, cache: cache) } ?? judgeOld.neverSeen(row.device)
            let then = decisions(previous)
            for (app, now) in decisions(row) where then[app, default: "unreported"] != now {
                impact.decisions[Transition(app: app, from: then[app, default: "unreported"], to: now), default: 0] += 1
            }
            switch (previous.compliant, row.compliant) {
            case (true, false): impact.becomeNoncompliant += 1
            case (false, true): impact.becomeCompliant += 1
            default: break
            }
        }
        return impact
    }

    /// `com.example.field: 4 devices become required (from ok 3, recommended 1)` lines, then compliance.
    public var lines: [String] {
        guard !isEmpty else { return ["no device's update decision or compliance changes (\(devices) devices judged)"] }
        var byTarget: [String: [String: Int]] = [:]
        for (transition, count) in decisions {
            byTarget["\(transition.app)\u{0}\(transition.to)", default: [:]][transition.from, default: 0] += count
        }
        var lines: [String] = []
        for (key, sources) in byTarget.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{0}").map(String.init)
            let total = sources.values.reduce(0, +)
            let from = sources.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append(
                "\(parts[0]): \(total) device\(total == 1 ? "" : "s") become\(total == 1 ? "s" : "") \(parts[1]) (from \(from))"
            )
        }
        lines.append(
            "\(becomeNoncompliant) device\(becomeNoncompliant == 1 ? "" : "s") become\(becomeNoncompliant == 1 ? "s" : "") non-compliant, \(becomeCompliant) compliant (\(devices) devices judged)"
        )
        return lines
    }

    /// The impact as the JSON of `mdmconf diff` and `publish` writes it.
    public var json: JSONValue {
        .object([
            ("devices", .integer(devices)), ("becomeNoncompliant", .integer(becomeNoncompliant)),
            ("becomeCompliant", .integer(becomeCompliant)),
            (
                "decisions",
                .array(
                    decisions.sorted { ($0.key.app, $0.key.to, $0.key.from) < ($1.key.app, $1.key.to, $1.key.from) }.map
                    {
                        transition, devices in
                        .object([
                            ("app", .string(transition.app)), ("from", .string(transition.from)),
                            ("to", .string(transition.to)),
                            ("devices", .integer(devices)),
                        ])
                    })
            ),
        ])
    }
}
