import CivilTime

/// Evaluates a policy document for one request (update-policy.md section 5): pure, deterministic, and
/// independent of the order of the policies.
public struct Evaluator: Sendable {
    public let document: PolicyDocument

    public init(_ document: PolicyDocument) { self.document = document }

    /// One evaluated (or skipped) policy.
    struct PolicyResult {
        var index: Int
        var outcome: Outcome?
        var skipCode: String?
        var reasons: [String] = []
        var target: AppVersion?
        /// The effective deadline while it is pending.
        var pendingDeadline: Instant?
        var urgency = Urgency.none
        var deferralsRemaining: Int64?
        var checks: [TraceCheck] = []
    }

    public func evaluate(_ request: UpdateRequest, now fallbackNow: Instant, explain: Bool = false) -> Decision {
        let now = request.now ?? fallbackNow
        var results: [PolicyResult] = []
        results.reserveCapacity(document.policies.count)
        var trace: [PolicyTrace] = []
        // Borrowed through a buffer: a Policy is large, and copying one retains every field of it.
        document.policies.withUnsafeBufferPointer { policies in
            guard let first = policies.baseAddress else { return }
            for index in policies.indices {
                guard policies[index].app == request.app || policies[index].app == "*" else {
                    if explain {
                        let detail = "\(policies[index].app) ≠ \(request.app)"
                        trace.append(
                            PolicyTrace(
                                policy: policies[index].id, outcome: "other_app",
                                checks: [TraceCheck(check: "app", result: "fail", detail: detail)]))
                    }
                    continue
                }
                var result = PolicyResult(index: index)
                evaluate(first + index, request, now: now, explain: explain, into: &result)
                if explain {
                    trace.append(
                        PolicyTrace(
                            policy: policies[index].id, outcome: result.outcome?.rawValue ?? "skipped",
                            checks: result.checks))
                }
                results.append(result)
            }
        }
        var decision = combine(results, request: request, now: now)
        decision.trace = explain ? trace : nil
        return decision
    }

    // MARK: One policy

    private func evaluate(
        _ pointer: UnsafePointer<Policy>, _ request: UpdateRequest, now: Instant, explain: Bool,
        into result: inout PolicyResult
    ) {
        func check(_ name: String, _ passed: Bool?, _ detail: @autoclosure () -> String?) {
            guard explain else { return }
            result.checks.append(
                TraceCheck(check: name, result: passed.map { $0 ? "pass" : "fail" } ?? "n/a", detail: detail()))
        }
        func skip(_ code: String) { result.skipCode = code }

        // 5.2 Targeting, first failure skips.
        if let platforms = pointer.pointee.platforms {
            let passed = platforms.contains(request.platform)
            check("platforms", passed, "\(request.platform) in \(platforms)")
            if !passed { return skip("platform_mismatch") }
        }
        if let channels = pointer.pointee.channels {
            let passed = channels.contains(request.channel)
            check("channels", passed, "\(request.channel) in \(channels)")
            if !passed { return skip("channel_mismatch") }
        }
        if let range = pointer.pointee.osVersion {
            guard let os = request.osVersion else {
                check("osVersion", false, "request has no osVersion")
                return skip("missing_attribute(osVersion)")
            }
            let passed = range.contains(os)
            check("osVersion", passed, "\(os) in \(range.text)")
            if !passed { return skip("os_version_mismatch") }
        }
        if let range = pointer.pointee.appVersion {
            let passed = range.contains(request.version)
            check("appVersion", passed, "\(request.version) in \(range.text)")
            if !passed { return skip("app_version_mismatch") }
        }
        if let globs = pointer.pointee.deviceModels {
            guard let model = request.deviceModel else {
                check("deviceModels", false, "request has no deviceModel")
                return skip("missing_attribute(deviceModel)")
            }
            let passed = globs.contains { $0.matches(lowercased: request.deviceModelKey) }
            check("deviceModels", passed, "\(model) against \(globs.map(\.text))")
            if !passed { return skip("device_model_mismatch") }
        }
        if let notBefore = pointer.pointee.notBefore {
            let instant = resolve(notBefore, pointer.pointee.timeZone, request)
            let passed = now >= instant
            check("notBefore", passed, "now \(now), notBefore \(instant)")
            if !passed { return skip("not_yet_active") }
        }
        if let rollout = pointer.pointee.rollout {
            let passed = Rollout.includes(percent: rollout.percent, seed: rollout.seed, normalizedID: request.rolloutID)
            check("rollout", passed, explain ? rolloutDetail(rollout, request) : nil)
            if !passed { return skip("not_in_rollout") }
        }

        // 5.3 Hard requirement.
        var unmet = false
        var indeterminate = false
        var thresholdTriggered = false
        if pointer.pointee.minVersion != nil || pointer.pointee.minBuild != nil {
            let version = request.version
            if let minVersion = pointer.pointee.minVersion, version < minVersion {
                result.reasons.append("below_min_version")
                unmet = true
                thresholdTriggered = true
            } else if let minBuild = pointer.pointee.minBuild, pointer.pointee.minVersion.map({ version == $0 }) ?? true
            {
                if let build = request.build {
                    if build < minBuild {
                        result.reasons.append("below_min_build")
                        unmet = true
                        thresholdTriggered = true
                    }
                } else {
                    indeterminate = true
                }
            }
            check(
                "threshold", indeterminate ? nil : !unmet, "version \(version), build \(request.build?.text ?? "none")")
        }
        if let blocked = pointer.pointee.blockedVersions {
            let inside = blocked.contains { $0.contains(request.version) }
            check("blockedVersions", !inside, "\(request.version) against \(blocked.map(\.text))")
            if inside {
                result.reasons.append("blocked_version")
                unmet = true
            }
        }
        if !unmet && indeterminate {
            switch pointer.pointee.onIndeterminate {
            case .error:
                result.outcome = .error
                result.reasons.append("missing_attribute(build)")
                return
            case .required:
                result.reasons.append("indeterminate_treated_as_required")
                unmet = true
                thresholdTriggered = true
            case .ok:
                result.reasons.append("indeterminate_treated_as_ok")
            }
        }
        if unmet {
            result.target = pointer.pointee.latestVersion ?? (thresholdTriggered ? pointer.pointee.minVersion : nil)
            hardOutcome(pointer, request, now: now, explain: explain, into: &result)
            return
        }

        // 5.7 Soft requirement.
        var softUnmet = false
        if let recommended = pointer.pointee.recommendedVersion, request.version < recommended {
            result.reasons.append("below_recommended_version")
            softUnmet = true
        } else if let recommendedBuild = pointer.pointee.recommendedBuild,
            pointer.pointee.recommendedVersion.map({ $0 == request.version }) ?? true,
            let build = request.build, build < recommendedBuild
        {
            result.reasons.append("below_recommended_build")
            softUnmet = true
        }
        check(
            "recommended",
            (pointer.pointee.recommendedVersion == nil && pointer.pointee.recommendedBuild == nil) ? nil : !softUnmet,
            nil)
        guard softUnmet else {
            result.outcome = .ok
            return
        }
        if let requiresOS = pointer.pointee.requiresOS, let os = request.osVersion, os < requiresOS {
            result.reasons = ["os_too_old_for_recommended"]
            result.outcome = .ok
            return
        }
        if pointer.pointee.requiresOS != nil && request.osVersion == nil {
            result.reasons.append("os_unknown_assumed_supported")
        }
        result.outcome = .recommended
        result.urgency = .low
        result.target = pointer.pointee.latestVersion ?? pointer.pointee.recommendedVersion
    }

    /// 5.4 and 5.5: deadline, grace, deferrals, then OS support, for an unmet hard requirement.
    private func hardOutcome(
        _ pointer: UnsafePointer<Policy>, _ request: UpdateRequest, now: Instant, explain: Bool,
        into result: inout PolicyResult
    ) {
        let deadline = pointer.pointee.deadline.map { resolve($0, pointer.pointee.timeZone, request) }
        var grace: Instant?
        if let enrolled = request.enrolledAt, let duration = pointer.pointee.newDeviceGrace {
            grace = enrolled.adding(seconds: duration.seconds)
        }
        var effective = deadline
        if let grace, deadline.map({ grace > $0 }) ?? true {
            effective = grace
            result.reasons.append("new_device_grace")
        }
        if let effective, now < effective {
            var exhausted = false
            if let maximum = pointer.pointee.maxDeferrals {
                result.deferralsRemaining = max(0, maximum - request.deferralsUsed)
                exhausted = request.deferralsUsed >= maximum
            }
            if exhausted {
                result.outcome = .required
                result.urgency = .critical
                result.reasons.append("deferrals_exhausted")
            } else {
                result.outcome = .recommended
                result.reasons.append("deadline_pending")
                result.pendingDeadline = effective
                let remaining = effective.seconds(since: now)
                result.urgency =
                    remaining <= pointer.pointee.imminentWindow.seconds
                    ? .imminent : remaining <= pointer.pointee.approachingWindow.seconds ? .approaching : .initial
            }
            if explain {
                result.checks.append(
                    TraceCheck(check: "deadline", result: "pass", detail: "now \(now) before \(effective)"))
            }
        } else {
            result.outcome = .required
            result.urgency = .critical
            if let effective {
                result.reasons.append("deadline_passed")
                if explain {
                    result.checks.append(
                        TraceCheck(check: "deadline", result: "fail", detail: "now \(now) at or after \(effective)"))
                }
            }
        }
        if let requiresOS = pointer.pointee.requiresOS {
            if let os = request.osVersion {
                if os < requiresOS {
                    result.outcome = .unsupported
                    result.urgency = .critical
                    result.reasons.append("os_too_old_for_target")
                }
            } else {
                result.reasons.append("os_unknown_assumed_supported")
            }
        }
    }

    // MARK: Combining

    private func combine(_ results: [PolicyResult], request: UpdateRequest, now: Instant) -> Decision {
        var decision = Outcome.ok
        var reasons: [Reason] = []
        var skipped: [Reason] = []
        for index in results.indices {
            if let outcome = results[index].outcome, outcome > decision { decision = outcome }
            let id = document.policies[results[index].index].id
            if let code = results[index].skipCode { skipped.append(Reason(policy: id, code: code)) }
            for code in results[index].reasons { reasons.append(Reason(policy: id, code: code)) }
        }
        // Winners as positions in `results`, in primary order.
        var winners = results.indices.filter { results[$0].outcome == decision }
        if winners.count > 1 {
            let policies = document.policies
            winners.sort { x, y in
                // Fields are read in place: a copied PolicyResult retains its arrays.
                let (a, b) = (results[x].index, results[y].index)
                let (pa, pb) = (policies[a].priority, policies[b].priority)
                if pa != pb { return pa > pb }
                switch (results[x].pendingDeadline, results[y].pendingDeadline) {
                case (let x?, let y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return policies[a].id.utf8.lexicographicallyPrecedes(policies[b].id.utf8)
                }
            }
        }
        var result = Decision(
            decision: decision, policy: nil, targetVersion: nil, deadline: nil, urgency: .none, deferralsRemaining: nil,
            message: nil, updateURL: nil, reasons: reasons, skipped: skipped, evaluatedAt: now, trace: nil)
        guard decision != .ok, let first = winners.first else { return result }
        let primary = results[first].index
        result.policy = document.policies[primary].id
        if decision == .recommended || decision == .required || decision == .unsupported {
            var best: AppVersion?
            for winner in winners {
                if let target = results[winner].target, best.map({ target > $0 }) ?? true { best = target }
            }
            result.targetVersion = best?.text
        }
        if decision == .recommended { result.deadline = winners.compactMap { results[$0].pendingDeadline }.min() }
        result.urgency = decision == .error ? .none : winners.map { results[$0].urgency }.max() ?? .none
        result.deferralsRemaining = winners.compactMap { results[$0].deferralsRemaining }.min()
        if decision != .error {
            result.message = localizedMessage(document.policies[primary], request)
            result.updateURL = localizedURL(document.policies[primary], request)
        }
        return result
    }

    // MARK: Helpers

    /// A date-time in the first zone of: request, policy, defaults, else UTC.
    private func resolve(_ dateTime: PolicyDateTime, _ policyZone: ZoneInfo?, _ request: UpdateRequest) -> Instant {
        dateTime.resolved(in: request.timeZone ?? policyZone ?? document.defaults.timeZone)
    }

    private func rolloutDetail(_ rollout: (percent: RolloutPercent, seed: String), _ request: UpdateRequest) -> String {
        guard let id = request.rolloutID else { return "no deviceId, percent \(rollout.percent)" }
        return "bucket \(Rollout.bucket(seed: rollout.seed, normalizedID: id)), threshold \(rollout.percent.hundredths)"
    }

    /// Locale candidates: the request locale and its prefixes, then the policy's default locale and its prefixes.
    private func candidates(_ policy: Policy, _ request: UpdateRequest) -> [String] {
        (request.locale?.fallbackKeys ?? []) + ((policy.defaultLocale ?? document.defaults.locale)?.fallbackKeys ?? [])
    }

    private func localizedMessage(_ policy: Policy, _ request: UpdateRequest) -> (
        locale: String, title: String?, body: String?
    )? {
        guard !policy.messages.isEmpty else { return nil }
        for candidate in candidates(policy, request) {
            if let message = policy.messages.first(where: { $0.locale.key == candidate }) {
                return (message.locale.text, message.title, message.body)
            }
        }
        return nil
    }

    private func localizedURL(_ policy: Policy, _ request: UpdateRequest) -> String? {
        if let url = policy.updateURL { return url }
        guard !policy.localizedUpdateURLs.isEmpty else { return nil }
        for candidate in candidates(policy, request) {
            if let entry = policy.localizedUpdateURLs.first(where: { $0.locale.key == candidate }) { return entry.url }
        }
        return nil
    }
}
