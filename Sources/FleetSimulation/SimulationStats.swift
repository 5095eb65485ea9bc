import Foundation
import MDMConfClientCore
import MDMDiagnostics
import UpdatePolicy

/// What a simulation saw, gathered from every device as it runs.
public final class SimulationStats: @unchecked Sendable {
    private let lock = NSLock()
    private var launches = 0
    private var refreshes = 0
    private var decisions: [String: Int] = [:]
    private var configs: [String: Int] = [:]
    private var errors: [String: Int] = [:]
    private var latencies: [Double] = []
    private var unexpected = 0
    /// The last decision each device's app got: device → app → decision.
    private var latest: [String: [String: String]] = [:]

    /// A progress line's numbers.
    public struct Snapshot: Sendable {
        public var launches: Int
        public var perSecond: Double
        public var decisions: [String: Int]
        public var errors: Int
    }

    func launched(_ device: String, _ app: DevicePlan.App, _ result: LaunchResult, took: Duration) {
        let decision = result.update?.decision.rawValue ?? "none"
        let config: String =
            switch (result.configuration?.source, result.configuration?.isCurrent) {
            case (.network?, _): "fetched"
            case (.cache?, true?): "current"
            case (.cache?, _): "cached"
            default: "none"
            }
        let milliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
        lock.withLock {
            launches += 1
            decisions[decision, default: 0] += 1
            configs[config, default: 0] += 1
            if let problem = result.problem { errors[problem.kind, default: 0] += 1 }
            latencies.append(milliseconds)
            if result.problem == nil, let expected = app.expected, expected.rawValue != decision { unexpected += 1 }
            if result.problem == nil { latest[device, default: [:]][app.app] = decision }
        }
    }

    func refreshed(notModified: Bool, problem: LaunchProblem?) {
        lock.withLock {
            refreshes += 1
            if let problem {
                errors[problem.kind, default: 0] += 1
            } else {
                configs[notModified ? "notModified" : "fetched", default: 0] += 1
            }
        }
    }

    func snapshot(since start: ContinuousClock.Instant) -> Snapshot {
        let seconds = Self.seconds(start.duration(to: .now))
        return lock.withLock {
            Snapshot(
                launches: launches, perSecond: seconds > 0 ? Double(launches) / seconds : 0, decisions: decisions,
                errors: errors.values.reduce(0, +))
        }
    }

    func summary(elapsed: Duration, devices plans: [DevicePlan]) -> SimulationSummary {
        lock.withLock {
            let sorted = latencies.sorted()
            func percentile(_ p: Double) -> Double {
                sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
            }
            var final: [String: [String: Int]] = [:]
            for plan in plans {
                for app in plan.apps {
                    final[app.app, default: [:]][latest[plan.device]?[app.app] ?? "unanswered", default: 0] += 1
                }
            }
            let seconds = Self.seconds(elapsed)
            return SimulationSummary(
                devices: plans.count, seconds: seconds, launches: launches, refreshes: refreshes,
                launchesPerSecond: seconds > 0 ? Double(launches) / seconds : 0, decisions: decisions, configs: configs,
                errors: errors, p50: percentile(0.5), p99: percentile(0.99), unexpectedDecisions: unexpected,
                finalDecisions: final)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The end-of-run summary of `mdmconf simulate`.
public struct SimulationSummary: Sendable {
    public var devices: Int
    public var seconds: Double
    public var launches: Int
    public var refreshes: Int
    public var launchesPerSecond: Double
    /// Launches by the decision they got (`ok`, `recommended`, `required`, `unsupported`, `none`).
    public var decisions: [String: Int]
    /// Configuration outcomes: at launch `fetched` (200), `current` (no fetch needed), `cached` (server not
    /// usable), `none`; at a foreground refresh `notModified` (304) or `fetched`.
    public var configs: [String: Int]
    /// Launches and refreshes by what went wrong (`refused`, `rejected`, `unreachable`, `bad_answer`).
    public var errors: [String: Int]
    /// Launch latency percentiles, milliseconds.
    public var p50: Double
    public var p99: Double
    /// Answered launches whose decision differs from what the catalog gave when the fleet was planned.
    public var unexpectedDecisions: Int
    /// Per app, the devices by the last decision they got (`unanswered` when none came): what `mdmconf report`
    /// should show.
    public var finalDecisions: [String: [String: Int]]

    public var errorCount: Int { errors.values.reduce(0, +) }

    /// Configuration requests answered 304, of all conditional and plain configuration requests answered.
    public var notModifiedRatio: Double {
        let fetched = configs["fetched", default: 0]
        let notModified = configs["notModified", default: 0]
        return fetched + notModified == 0 ? 0 : Double(notModified) / Double(fetched + notModified)
    }

    static let decisionOrder = ["ok", "recommended", "required", "unsupported", "none"]

    public var json: JSONValue {
        func counts(_ table: [String: Int]) -> JSONValue {
            .object(table.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value)) })
        }
        func number(_ value: Double, _ digits: Int) -> JSONValue { .number(String(format: "%.\(digits)f", value)) }
        return .object([
            ("devices", .integer(devices)), ("seconds", number(seconds, 3)), ("launches", .integer(launches)),
            ("refreshes", .integer(refreshes)), ("launchesPerSecond", number(launchesPerSecond, 1)),
            ("decisions", counts(decisions)), ("configs", counts(configs)),
            ("notModifiedRatio", number(notModifiedRatio, 3)), ("errors", counts(errors)),
            ("latencyMs", .object([("p50", number(p50, 2)), ("p99", number(p99, 2))])),
            ("unexpectedDecisions", .integer(unexpectedDecisions)),
            ("finalDecisions", .object(finalDecisions.sorted { $0.key < $1.key }.map { ($0.key, counts($0.value)) })),
        ])
    }

    public var text: String {
        func list(_ table: [String: Int], order: [String] = []) -> String {
            let keys = order.filter { table[$0] != nil } + table.keys.filter { !order.contains($0) }.sorted()
            return keys.isEmpty ? "none" : keys.map { "\($0) \(table[$0, default: 0])" }.joined(separator: ", ")
        }
        let rate = String(format: "%.1f", launchesPerSecond)
        var lines = [
            "\(launches) launches and \(refreshes) refreshes by \(devices) devices in \(String(format: "%.1f", seconds)) s (\(rate) launches/s)",
            "decisions: \(list(decisions, order: Self.decisionOrder))",
            "configurations: \(list(configs, order: ["fetched", "current", "notModified", "cached", "none"])); 304 ratio \(String(format: "%.1f", notModifiedRatio * 100)) %",
            "errors: \(list(errors))",
            "latency: p50 \(String(format: "%.1f", p50)) ms, p99 \(String(format: "%.1f", p99)) ms",
        ]
        if unexpectedDecisions > 0 {
            lines.append(
                "\(unexpectedDecisions) answered launches got another decision than the catalog gave when the fleet was planned"
            )
        }
        for (app, decisions) in finalDecisions.sorted(by: { $0.key < $1.key }) {
            lines.append("now \(app): \(list(decisions, order: Self.decisionOrder + ["unanswered"]))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
