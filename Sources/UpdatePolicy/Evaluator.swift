import CivilTime

/// Evaluates a policy document for one request (*Update policies*): pure, deterministic, and
/// independent of the order of the policies.
///
/// The document is compiled once, when the evaluator is made (`CompiledDocument`); an evaluation keeps its
/// per-policy results on the stack as plain values and allocates only the decision it returns. A class, immutable:
/// an app's evaluator is taken for every device of a report, and a copy is one reference count instead of the
/// document's dozen.
public final class Evaluator: Sendable {
    /// The update-policy document evaluated.
    public let document: PolicyDocument
    private let compiled: CompiledDocument
    /// Whether a decision can depend on when the device was enrolled: only a policy with a new device's grace
    /// period reads it. Decisions memoised for many devices leave it out of their key otherwise, since it differs
    /// from device to device.
    public let readsEnrollment: Bool

    /// An evaluator of `document`, compiled once for many requests.
    public init(_ document: PolicyDocument) {
        self.document = document
        compiled = CompiledDocument(document)
        readsEnrollment = compiled.policies.contains { $0.newDeviceGraceSeconds != nil }
    }

    /// What evaluating a policy reads of a request again and again, as plain values (the byte buffers are the
    /// request's, valid while it is borrowed).
    struct Subject {
        var version: VersionKey
        var build: VersionCore?
        var os: OSKey?
        var app: Int32?
        var platform: Int32?
        var channel: Int32?
        var rolloutID: UnsafeBufferPointer<UInt8>
        var model: UnsafeBufferPointer<UInt8>
    }

    /// One evaluated (or skipped) policy.
    struct PolicyResult {
        var index: Int
        var outcome: Outcome?
        var skip: SkipCode?
        var reasons = ReasonSet()
        var target: VersionKey?
        /// The effective deadline while it is pending.
        var pendingDeadline: Instant?
        var urgency = Urgency.none
        var deferralsRemaining: Int64?
    }

    /// The decision for `request` at its `now`, or `fallbackNow` when it has none; `explain` records the trace.
    public func evaluate(_ request: UpdateRequest, now fallbackNow: Instant, explain: Bool = false) -> Decision {
        let now = request.now ?? fallbackNow
        let count = compiled.policies.count
        let tokens = compiled.tokens
        let (app, platform, channel) = (
            tokens.number(of: request.app), tokens.number(of: request.platform), tokens.number(of: request.channel)
        )
        let version = VersionKey(
            core: request.version.core, hasPreRelease: !request.version.preRelease.isEmpty, index: -1)
        let os = request.osVersion.map(OSKey.init)
        return document.policies.withUnsafeBufferPointer { policies in
            request.rolloutID.withUnsafeBufferPointer { rolloutID in
                request.deviceModelKey.withUnsafeBufferPointer { model in
                    withUnsafeTemporaryAllocation(of: PolicyResult.self, capacity: max(count, 1)) { results in
                        let subject = Subject(
                            version: version, build: request.build?.core, os: os, app: app, platform: platform,
                            channel: channel, rolloutID: rolloutID, model: model)
                        var trace: [PolicyTrace] = []
                        var evaluated = 0
                        for index in 0..<count {
                            guard compiled.rule(index).pointee.app.map({ $0 == subject.app }) ?? true else {
                                if explain {
                                    let detail = "\(policies[index].app) ≠ \(request.app)"
                                    trace.append(
                                        PolicyTrace(
                                            policy: policies[index].id, outcome: "other_app",
                                            checks: [TraceCheck(check: "app", result: "fail", detail: detail)]))
                                }
                                continue
                            }
                            let result: PolicyResult
                            if explain {
                                var checks = ChecksRecorded()
                                result = evaluate(index, policies, request, subject, now: now, checks: &checks)
                                trace.append(
                                    PolicyTrace(
                                        policy: policies[index].id, outcome: result.outcome?.rawValue ?? "skipped",
                                        checks: checks.checks))
                            } else {
                                var checks = ChecksIgnored()
                                result = evaluate(index, policies, request, subject, now: now, checks: &checks)
                            }
                            results.initializeElement(at: evaluated, to: result)
                            evaluated += 1
                        }
                        var decision = combine(
                            UnsafeBufferPointer(rebasing: results[0..<evaluated]), policies, request, now: now)
                        if explain { decision.trace = trace }
                        return decision
                    }
                }
            }
        }
    }

    /// Which rollouts of the app a device is in, one bit per policy with a rollout (in document order):
    /// everything a decision reads of the device id. Two requests that differ only in their device ids and have the
    /// same bits get the same decision, so a fleet's decisions can be reused across devices. nil when the document
    /// has more than 64 rollouts.
    public func rolloutMembership(app appID: String, deviceID: String?) -> UInt64? {
        let app = compiled.tokens.number(of: appID)
        var bits: UInt64 = 0
        var bit = 0
        return Rollout.withNormalizedBytes(deviceID ?? "") { id -> UInt64? in
            for index in 0..<compiled.policies.count {
                let rule = compiled.rule(index)
                guard let hundredths = rule.pointee.rolloutHundredths else { continue }
                guard bit < 64 else { return nil }
                if rule.pointee.app.map({ $0 == app }) ?? true,
                    Rollout.includes(
                        hundredths: hundredths, hasID: !id.isEmpty,
                        bucket: {
                            compiled.bucket(rule.pointee.seed, id: id)
                        })
                {
                    bits |= 1 << UInt64(bit)
                }
                bit += 1
            }
            return bits
        }
    }

    // MARK: One policy

    private func evaluate(
        _ index: Int, _ policies: UnsafeBufferPointer<Policy>, _ request: UpdateRequest, _ subject: Subject,
        now: Instant, checks: inout some CheckRecorder
    ) -> PolicyResult {
        var result = PolicyResult(index: index)
        func check(_ name: String, _ passed: Bool?, _ detail: @autoclosure () -> String?) {
            checks.record(name, passed, detail())
        }
        func skip(_ code: SkipCode) -> PolicyResult {
            result.skip = code
            return result
        }
        let rule = compiled.rule(index)
        func order(_ bound: VersionKey) -> Int { compiled.order(subject.version, request.version, bound) }

        // 5.2 Targeting, first failure skips.
        if let code = targetingSkip(rule, policies[index], request, subject, now: now, checks: &checks) {
            return skip(code)
        }

        // 5.3 Hard requirement.
        var unmet = false
        var indeterminate = false
        var thresholdTriggered = false
        if rule.pointee.minVersion != nil || rule.pointee.minBuild != nil {
            if let minVersion = rule.pointee.minVersion, order(minVersion) < 0 {
                result.reasons.insert(.belowMinVersion)
                unmet = true
                thresholdTriggered = true
            } else if let minBuild = rule.pointee.minBuild, rule.pointee.minVersion.map({ order($0) == 0 }) ?? true {
                if let build = subject.build {
                    if build < minBuild {
                        result.reasons.insert(.belowMinBuild)
                        unmet = true
                        thresholdTriggered = true
                    }
                } else {
                    indeterminate = true
                }
            }
            check(
                "threshold", indeterminate ? nil : !unmet,
                "version \(request.version), build \(request.build?.text ?? "none")")
        }
        if let blocked = rule.pointee.blocked {
            let inside = compiled.isBlocked(blocked, subject.version, request.version)
            check(
                "blockedVersions", !inside,
                "\(request.version) against \((policies[index].blockedVersions ?? []).map(\.text))")
            if inside {
                result.reasons.insert(.blockedVersion)
                unmet = true
            }
        }
        if !unmet && indeterminate {
            switch rule.pointee.onIndeterminate {
            case .error:
                result.outcome = .error
                result.reasons.insert(.missingBuild)
                return result
            case .required:
                result.reasons.insert(.indeterminateRequired)
                unmet = true
                thresholdTriggered = true
            case .ok:
                result.reasons.insert(.indeterminateOK)
            }
        }
        if unmet {
            result.target = rule.pointee.latestVersion ?? (thresholdTriggered ? rule.pointee.minVersion : nil)
            hardOutcome(rule, request, subject, now: now, into: &result, checks: &checks)
            return result
        }

        // 5.7 Soft requirement.
        softOutcome(rule, subject, order: order, into: &result, checks: &checks)
        return result
    }

    /// 5.2 Targeting: the first test `request` fails, or nil when `policy` applies to it.
    @inline(__always)
    private func targetingSkip(
        _ rule: UnsafePointer<CompiledPolicy>, _ policy: Policy, _ request: UpdateRequest, _ subject: Subject,
        now: Instant, checks: inout some CheckRecorder
    ) -> SkipCode? {
        func check(_ name: String, _ passed: Bool?, _ detail: @autoclosure () -> String?) {
            checks.record(name, passed, detail())
        }
        if let span = rule.pointee.platforms {
            let passed = compiled.list(span, contains: subject.platform)
            check("platforms", passed, "\(request.platform) in \(policy.platforms ?? [])")
            if !passed { return .platformMismatch }
        }
        if let span = rule.pointee.channels {
            let passed = compiled.list(span, contains: subject.channel)
            check("channels", passed, "\(request.channel) in \(policy.channels ?? [])")
            if !passed { return .channelMismatch }
        }
        if let span = rule.pointee.osRange {
            guard let os = subject.os else {
                check("osVersion", false, "request has no osVersion")
                return .missingOSVersion
            }
            let passed = compiled.contains(span, os)
            check(
                "osVersion", passed, "\(request.osVersion?.text ?? "") in \(policy.osVersion?.text ?? "")")
            if !passed { return .osVersionMismatch }
        }
        if let span = rule.pointee.appRange {
            let passed = compiled.contains(span, subject.version, request.version)
            check("appVersion", passed, "\(request.version) in \(policy.appVersion?.text ?? "")")
            if !passed { return .appVersionMismatch }
        }
        if let span = rule.pointee.deviceModels {
            guard request.deviceModel != nil else {
                check("deviceModels", false, "request has no deviceModel")
                return .missingDeviceModel
            }
            let passed = compiled.matches(span, model: subject.model)
            check(
                "deviceModels", passed,
                "\(request.deviceModel ?? "") against \((policy.deviceModels ?? []).map(\.text))")
            if !passed { return .deviceModelMismatch }
        }
        if let notBefore = rule.pointee.notBefore {
            let instant = notBefore.resolved(for: request)
            let passed = now >= instant
            check("notBefore", passed, "now \(now), notBefore \(instant)")
            if !passed { return .notYetActive }
        }
        if let hundredths = rule.pointee.rolloutHundredths {
            let passed = Rollout.includes(hundredths: hundredths, hasID: !subject.rolloutID.isEmpty) {
                compiled.bucket(rule.pointee.seed, id: subject.rolloutID)
            }
            check("rollout", passed, rolloutDetail(policy, request))
            if !passed { return .notInRollout }
        }
        return nil
    }

    /// 5.7: the soft requirement of a policy whose hard requirement is met: `ok` or `recommended`, into `result`.
    @inline(__always)
    private func softOutcome(
        _ rule: UnsafePointer<CompiledPolicy>, _ subject: Subject, order: (VersionKey) -> Int,
        into result: inout PolicyResult, checks: inout some CheckRecorder
    ) {
        var softUnmet = false
        if let recommended = rule.pointee.recommendedVersion, order(recommended) < 0 {
            result.reasons.insert(.belowRecommendedVersion)
            softUnmet = true
        } else if let recommendedBuild = rule.pointee.recommendedBuild,
            rule.pointee.recommendedVersion.map({ order($0) == 0 }) ?? true,
            let build = subject.build, build < recommendedBuild
        {
            result.reasons.insert(.belowRecommendedBuild)
            softUnmet = true
        }
        checks.record(
            "recommended",
            (rule.pointee.recommendedVersion == nil && rule.pointee.recommendedBuild == nil) ? nil : !softUnmet, nil)
        guard softUnmet else {
            result.outcome = .ok
            return
        }
        if let requiresOS = rule.pointee.requiresOS, let os = subject.os, os < requiresOS {
            result.reasons = [.osTooOldForRecommended]
            result.outcome = .ok
            return
        }
        if rule.pointee.requiresOS != nil && subject.os == nil { result.reasons.insert(.osUnknownAssumedSupported) }
        result.outcome = .recommended
        result.urgency = .low
        result.target = rule.pointee.latestVersion ?? rule.pointee.recommendedVersion
    }

    /// 5.4 and 5.5: deadline, grace, deferrals, then OS support, for an unmet hard requirement.
    private func hardOutcome(
        _ rule: UnsafePointer<CompiledPolicy>, _ request: UpdateRequest, _ subject: Subject, now: Instant,
        into result: inout PolicyResult, checks: inout some CheckRecorder
    ) {
        let deadline = rule.pointee.deadline?.resolved(for: request)
        var grace: Instant?
        if let enrolled = request.enrolledAt, let seconds = rule.pointee.newDeviceGraceSeconds {
            grace = enrolled.adding(seconds: seconds)
        }
        var effective = deadline
        if let grace, deadline.map({ grace > $0 }) ?? true {
            effective = grace
            result.reasons.insert(.newDeviceGrace)
        }
        if let effective, now < effective {
            var exhausted = false
            if let maximum = rule.pointee.maxDeferrals {
                result.deferralsRemaining = max(0, maximum - request.deferralsUsed)
                exhausted = request.deferralsUsed >= maximum
            }
            if exhausted {
                result.outcome = .required
                result.urgency = .critical
                result.reasons.insert(.deferralsExhausted)
            } else {
                result.outcome = .recommended
                result.reasons.insert(.deadlinePending)
                result.pendingDeadline = effective
                let remaining = effective.seconds(since: now)
                result.urgency =
                    remaining <= rule.pointee.imminentSeconds
                    ? .imminent : remaining <= rule.pointee.approachingSeconds ? .approaching : .initial
            }
            checks.record("deadline", true, "now \(now) before \(effective)")
        } else {
            result.outcome = .required
            result.urgency = .critical
            if let effective {
                result.reasons.insert(.deadlinePassed)
                checks.record("deadline", false, "now \(now) at or after \(effective)")
            }
        }
        if let requiresOS = rule.pointee.requiresOS {
            if let os = subject.os {
                if os < requiresOS {
                    result.outcome = .unsupported
                    result.urgency = .critical
                    result.reasons.insert(.osTooOldForTarget)
                }
            } else {
                result.reasons.insert(.osUnknownAssumedSupported)
            }
        }
    }

    // MARK: Combining

    private func combine(
        _ results: UnsafeBufferPointer<PolicyResult>, _ policies: UnsafeBufferPointer<Policy>,
        _ request: UpdateRequest, now: Instant
    ) -> Decision {
        var decision = Outcome.ok
        var reasonCount = 0
        var skipCount = 0
        for result in results {
            if let outcome = result.outcome, outcome > decision { decision = outcome }
            reasonCount += result.reasons.count
            if result.skip != nil { skipCount += 1 }
        }
        // Both lists are made at their exact sizes, in document order, reserved and appended to: an array made with
        // `Array(unsafeUninitializedCapacity:)` is allocated through a standard-library call that is not
        // specialized and looks its storage's type up at run time, a few hundred instructions more.
        var reasons: [Reason] = []
        reasons.reserveCapacity(reasonCount)
        var skipped: [Reason] = []
        skipped.reserveCapacity(skipCount)
        for result in results {
            for code in result.reasons { reasons.append(Reason(policy: compiled.ids[result.index], code: code.code)) }
            if let skip = result.skip { skipped.append(Reason(policy: compiled.ids[result.index], code: skip.code)) }
        }
        var answer = Decision(
            decision: decision, policy: nil, targetVersion: nil, deadline: nil, urgency: .none, deferralsRemaining: nil,
            message: nil, updateURL: nil, reasons: reasons, skipped: skipped, evaluatedAt: now, trace: nil)
        guard decision != .ok else { return answer }

        /// Whether the result at `x` comes before the one at `y` among the winners: priority, then the earlier
        /// pending deadline, then id.
        func precedes(_ x: Int, _ y: Int) -> Bool {
            let (a, b) = (compiled.rule(results[x].index), compiled.rule(results[y].index))
            if a.pointee.priority != b.pointee.priority { return a.pointee.priority > b.pointee.priority }
            switch (results[x].pendingDeadline, results[y].pendingDeadline) {
            case (let x?, let y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.pointee.idRank < b.pointee.idRank
            }
        }
        // One pass over the winners (positions in `results`): the first of them in winner order, and what they
        // decide together.
        var primary = -1
        var target = -1
        var deadline: Instant?
        var urgency = Urgency.none
        var deferrals: Int64?
        for position in results.indices where results[position].outcome == decision {
            if primary < 0 || precedes(position, primary) { primary = position }
            if let key = results[position].target {
                // The highest target; between equal versions written differently, the earlier winner's text.
                if let current = target < 0 ? nil : results[target].target {
                    let order = compiled.order(key, current)
                    if order > 0 || (order == 0 && precedes(position, target)) { target = position }
                } else {
                    target = position
                }
            }
            if let pending = results[position].pendingDeadline, deadline.map({ pending < $0 }) ?? true {
                deadline = pending
            }
            urgency = max(urgency, results[position].urgency)
            if let remaining = results[position].deferralsRemaining, deferrals.map({ remaining < $0 }) ?? true {
                deferrals = remaining
            }
        }
        guard primary >= 0 else { return answer }
        let index = results[primary].index
        answer.policy = compiled.ids[index]
        if decision == .recommended || decision == .required || decision == .unsupported, target >= 0,
            let key = results[target].target
        {
            answer.targetVersion = compiled.versions[Int(key.index)].text
        }
        if decision == .recommended { answer.deadline = deadline }
        answer.urgency = decision == .error ? .none : urgency
        answer.deferralsRemaining = deferrals
        if decision != .error, let policy = policies.baseAddress.map({ $0 + index }) {
            answer.message = localizedMessage(policy, request)
            answer.updateURL = localizedURL(policy, request)
        }
        return answer
    }

    // MARK: Helpers

    private func rolloutDetail(_ policy: Policy, _ request: UpdateRequest) -> String? {
        guard let rollout = policy.rollout else { return nil }
        guard !request.rolloutID.isEmpty else { return "no deviceId, percent \(rollout.percent)" }
        return
            "bucket \(Rollout.bucket(seed: rollout.seed, id: request.rolloutID)), threshold \(rollout.percent.hundredths)"
    }

    /// The position of the first entry whose locale is a candidate: the request locale and its prefixes, then
    /// the policy's default locale (else the document's) and its prefixes.
    private func localized(
        _ count: Int, key: (Int) -> String, _ policy: UnsafePointer<Policy>, _ request: UpdateRequest
    ) -> Int? {
        guard count > 0 else { return nil }
        func first(_ candidates: [String]?) -> Int? {
            for candidate in candidates ?? [] {
                if let index = (0..<count).first(where: { key($0) == candidate }) { return index }
            }
            return nil
        }
        return first(request.locale?.fallbackKeys)
            ?? first((policy.pointee.defaultLocale ?? document.defaults.locale)?.fallbackKeys)
    }

    private func localizedMessage(_ policy: UnsafePointer<Policy>, _ request: UpdateRequest) -> (
        locale: String, title: String?, body: String?
    )? {
        let messages = policy.pointee.messages
        guard let index = localized(messages.count, key: { messages[$0].locale.key }, policy, request) else {
            return nil
        }
        return (messages[index].locale.text, messages[index].title, messages[index].body)
    }

    private func localizedURL(_ policy: UnsafePointer<Policy>, _ request: UpdateRequest) -> String? {
        if let url = policy.pointee.updateURL { return url }
        let urls = policy.pointee.localizedUpdateURLs
        return localized(urls.count, key: { urls[$0].locale.key }, policy, request).map { urls[$0].url }
    }
}

/// Where the checks of one policy go: nowhere, or into its `--explain` trace. Evaluation is generic over it,
/// so that without `--explain` no detail text is even built.
protocol CheckRecorder {
    mutating func record(_ name: String, _ passed: Bool?, _ detail: @autoclosure () -> String?)
}

struct ChecksIgnored: CheckRecorder {
    @inline(__always) func record(_ name: String, _ passed: Bool?, _ detail: @autoclosure () -> String?) {}
}

struct ChecksRecorded: CheckRecorder {
    var checks: [TraceCheck] = []

    mutating func record(_ name: String, _ passed: Bool?, _ detail: @autoclosure () -> String?) {
        checks.append(TraceCheck(check: name, result: passed.map { $0 ? "pass" : "fail" } ?? "n/a", detail: detail()))
    }
}

/// Why a policy was skipped (*Update policies*).
enum SkipCode: UInt8 {
    case platformMismatch, channelMismatch, missingOSVersion, osVersionMismatch, appVersionMismatch,
        missingDeviceModel, deviceModelMismatch, notYetActive, notInRollout

    var code: String {
        switch self {
        case .platformMismatch: "platform_mismatch"
        case .channelMismatch: "channel_mismatch"
        case .missingOSVersion: "missing_attribute(osVersion)"
        case .osVersionMismatch: "os_version_mismatch"
        case .appVersionMismatch: "app_version_mismatch"
        case .missingDeviceModel: "missing_attribute(deviceModel)"
        case .deviceModelMismatch: "device_model_mismatch"
        case .notYetActive: "not_yet_active"
        case .notInRollout: "not_in_rollout"
        }
    }
}

/// A reason a policy gives (*Update policies*). The cases are in the order a policy reports them: the
/// order in which evaluation finds them.
enum ReasonCode: UInt8 {
    case belowMinVersion, belowMinBuild, blockedVersion, missingBuild, indeterminateRequired, indeterminateOK,
        belowRecommendedVersion, belowRecommendedBuild, newDeviceGrace, deferralsExhausted, deadlinePending,
        deadlinePassed, osTooOldForTarget, osTooOldForRecommended, osUnknownAssumedSupported

    var code: String {
        switch self {
        case .belowMinVersion: "below_min_version"
        case .belowMinBuild: "below_min_build"
        case .blockedVersion: "blocked_version"
        case .missingBuild: "missing_attribute(build)"
        case .indeterminateRequired: "indeterminate_treated_as_required"
        case .indeterminateOK: "indeterminate_treated_as_ok"
        case .belowRecommendedVersion: "below_recommended_version"
        case .belowRecommendedBuild: "below_recommended_build"
        case .newDeviceGrace: "new_device_grace"
        case .deferralsExhausted: "deferrals_exhausted"
        case .deadlinePending: "deadline_pending"
        case .deadlinePassed: "deadline_passed"
        case .osTooOldForTarget: "os_too_old_for_target"
        case .osTooOldForRecommended: "os_too_old_for_recommended"
        case .osUnknownAssumedSupported: "os_unknown_assumed_supported"
        }
    }
}

/// A policy's reasons as bits, iterated in `ReasonCode` order.
struct ReasonSet: Sequence, ExpressibleByArrayLiteral {
    private var bits: UInt32 = 0

    init(arrayLiteral codes: ReasonCode...) {
        for code in codes { insert(code) }
    }

    var count: Int { bits.nonzeroBitCount }

    mutating func insert(_ code: ReasonCode) { bits |= 1 << code.rawValue }

    func makeIterator() -> Iterator { Iterator(bits: bits) }

    struct Iterator: IteratorProtocol {
        var bits: UInt32

        mutating func next() -> ReasonCode? {
            guard bits != 0 else { return nil }
            let code = ReasonCode(rawValue: UInt8(bits.trailingZeroBitCount))
            bits &= bits - 1
            return code
        }
    }
}
