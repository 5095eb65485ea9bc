import CivilTime

/// The short human summary of a decision (`mdmconf update-check`, the admin page's what-if): readable at a glance;
/// only JSON and exit codes are stable.
public struct DecisionText: Sendable {
    /// The decision summarised.
    public let decision: Decision
    /// The zone deadlines are also shown in (the request's), besides UTC.
    public let zone: ZoneInfo?

    /// The summary of `decision`, deadlines also in `zone`.
    public init(_ decision: Decision, zone: ZoneInfo?) {
        self.decision = decision
        self.zone = zone
    }

    /// The summary's lines.
    public func render() -> String {
        var lines: [String] = []
        let headline: String
        switch decision.decision {
        case .ok: headline = "ok: no update needed"
        case .recommended: headline = "recommended: update soon"
        case .required: headline = "required: update now"
        case .unsupported: headline = "unsupported: an update is required, but this OS is too old for it"
        case .error: headline = "error: the decision could not be made"
        }
        lines.append(headline + " (exit \(decision.exitCode))")
        if let policy = decision.policy { lines.append("  policy:   \(policy)") }
        if let target = decision.targetVersion { lines.append("  target:   \(target)") }
        if let deadline = decision.deadline { lines.append("  deadline: \(deadline)\(local(deadline))") }
        if decision.urgency != .none { lines.append("  urgency:  \(decision.urgency.rawValue)") }
        if let remaining = decision.deferralsRemaining { lines.append("  deferrals remaining: \(remaining)") }
        if let message = decision.message {
            let text = [message.title, message.body].compactMap { $0 }.joined(separator: " — ")
            lines.append("  message [\(message.locale)]: \(text)")
        }
        if let url = decision.updateURL { lines.append("  update:   \(url)") }
        if !decision.reasons.isEmpty {
            lines.append(
                "  why:      "
                    + decision.reasons.map { "\($0.policy.map { "\($0): " } ?? "")\($0.code)" }.joined(separator: ", "))
        }
        if !decision.skipped.isEmpty {
            lines.append(
                "  skipped:  " + decision.skipped.map { "\($0.policy ?? ""): \($0.code)" }.joined(separator: ", "))
        }
        for trace in decision.trace ?? [] {
            lines.append("  \(trace.policy): \(trace.outcome)")
            for check in trace.checks {
                lines.append("    \(check.check) \(check.result)\(check.detail.map { " (\($0))" } ?? "")")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The deadline in the device's zone, when the request named one.
    public func local(_ instant: Instant) -> String {
        guard let zone else { return "" }
        let offset = Int64(zone.offset(at: instant.seconds))
        let wall = Instant(seconds: instant.seconds + offset).description.dropLast()
        let hours = abs(offset) / 3_600
        let minutes = abs(offset) / 60 % 60
        let sign = offset < 0 ? "-" : "+"
        return
            " (\(wall.replacingT()) \(zone.name), UTC\(sign)\(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes))"
    }
}

extension Substring {
    fileprivate func replacingT() -> String { String(map { $0 == "T" ? " " : $0 }) }
}
