import CivilTime
import MDMDiagnostics

/// An update outcome, ordered by severity: ok < recommended < unsupported < error < required.
public enum Outcome: String, Sendable, Comparable, CaseIterable {
    /// The app may continue as it is.
    case ok
    /// An update is recommended (a deadline may be pending).
    case recommended
    /// The update the policy asks for cannot be installed on this OS.
    case unsupported
    /// The request could not be evaluated (a malformed field).
    case error
    /// The app must update before it continues.
    case required

    var severity: Int {
        switch self {
        case .ok: 0
        case .recommended: 1
        case .unsupported: 2
        case .error: 3
        case .required: 4
        }
    }

    public static func < (lhs: Outcome, rhs: Outcome) -> Bool { lhs.severity < rhs.severity }

    /// The exit code of `mdmconf update-check` (*Commands and exit codes*).
    public var exitCode: Int32 {
        switch self {
        case .ok: 0
        case .recommended: 10
        case .required: 20
        case .unsupported: 30
        case .error: 65
        }
    }
}

/// How pressing an update is: none < low < initial < approaching < imminent < critical.
public enum Urgency: String, Sendable, Comparable {
    /// Nothing to do.
    case none
    /// Recommended, with no deadline.
    case low
    /// A deadline, still further away than the policy's approaching window.
    case initial
    /// A deadline within the approaching window.
    case approaching
    /// A deadline within the imminent window.
    case imminent
    /// Required now: the deadline has passed, or the deferrals are used up.
    case critical

    private var rank: Int {
        switch self {
        case .none: 0
        case .low: 1
        case .initial: 2
        case .approaching: 3
        case .imminent: 4
        case .critical: 5
        }
    }

    public static func < (lhs: Urgency, rhs: Urgency) -> Bool { lhs.rank < rhs.rank }
}

/// One reason or skip code and the policy it belongs to (nil for request errors).
public struct Reason: Sendable, Hashable {
    /// The policy's id; nil for a request error.
    public var policy: String?
    /// The snake_case code (`below_min_version`, `not_in_rollout`…).
    public var code: String

    /// A reason of `policy`.
    public init(policy: String?, code: String) {
        self.policy = policy
        self.code = code
    }
}

/// One step of the `--explain` trace.
public struct TraceCheck: Sendable, Hashable {
    /// What was checked (`platforms`, `channels`, `rollout`, `deadline`…).
    public var check: String
    /// `pass`, `fail`, `indeterminate` or `n/a`.
    public var result: String
    /// The values compared, when it helps.
    public var detail: String?
}

/// One policy's part in an `--explain` trace: its outcome and each check in order.
public struct PolicyTrace: Sendable, Hashable {
    /// The policy's id.
    public var policy: String
    /// `other_app`, `skipped`, or an outcome.
    public var outcome: String
    /// Its checks in the order they ran.
    public var checks: [TraceCheck]
}

/// The decision document of *Update policies*
public struct Decision: Sendable, JSONDocument {
    /// The outcome.
    public var decision: Outcome
    /// The policy that decided it; nil when none applied.
    public var policy: String?
    /// The version to update to, when one is asked for.
    public var targetVersion: String?
    /// When the update becomes required, while it is only recommended.
    public var deadline: Instant?
    /// How pressing the update is.
    public var urgency: Urgency
    /// How many more times the user may put it off, when the policy counts.
    public var deferralsRemaining: Int64?
    /// The policy's message in the device's locale (or its fallback), when it has one.
    public var message: (locale: String, title: String?, body: String?)?
    /// Where to get the update.
    public var updateURL: String?
    /// Why: the reasons of every policy that applied, in document order.
    public var reasons: [Reason]
    /// Policies that did not apply, each with why.
    public var skipped: [Reason]
    /// When the decision was made.
    public var evaluatedAt: Instant
    /// The `--explain` trace, when asked for.
    public var trace: [PolicyTrace]?

    /// The exit code of `mdmconf update-check` for this decision.
    public var exitCode: Int32 { decision.exitCode }

    /// The JSON document, every key always present, member by member: its one description, for the value and the
    /// text (an update check's answer is written without making the value first).
    public func write(to sink: inout some JSONSink) {
        func reasons(_ name: StaticString, _ list: [Reason]) {
            sink.key(literal: name)
            sink.beginArray()
            for reason in list {
                sink.beginObject()
                sink.member("policy", .optional(reason.policy))
                sink.member("code", .string(reason.code))
                sink.endObject()
            }
            sink.endArray()
        }
        sink.beginObject()
        sink.member("decision", .string(decision.rawValue))
        sink.member("exitCode", .integer(exitCode))
        sink.member("policy", .optional(policy))
        sink.member("targetVersion", .optional(targetVersion))
        sink.member("deadline", .optional(deadline?.description))
        sink.member("urgency", .string(urgency.rawValue))
        sink.member("deferralsRemaining", deferralsRemaining.map { .integer($0) } ?? .null)
        sink.key(literal: "message")
        if let message {
            sink.beginObject()
            sink.member("locale", .string(message.locale))
            sink.member("title", .optional(message.title))
            sink.member("body", .optional(message.body))
            sink.endObject()
        } else {
            sink.value(.null)
        }
        sink.member("updateUrl", .optional(updateURL))
        reasons("reasons", self.reasons)
        reasons("skipped", skipped)
        sink.member("evaluatedAt", .string(evaluatedAt.description))
        sink.key(literal: "trace")
        if let trace {
            sink.beginArray()
            for policy in trace {
                sink.beginObject()
                sink.member("policy", .string(policy.policy))
                sink.member("outcome", .string(policy.outcome))
                sink.key(literal: "checks")
                sink.beginArray()
                for check in policy.checks {
                    sink.beginObject()
                    sink.member("check", .string(check.check))
                    sink.member("result", .string(check.result))
                    sink.member("detail", .optional(check.detail))
                    sink.endObject()
                }
                sink.endArray()
                sink.endObject()
            }
            sink.endArray()
        } else {
            sink.value(.null)
        }
        sink.endObject()
    }

    /// The decision for a request that cannot be evaluated: `error`, one reason per malformed field.
    public static func invalidRequest(_ errors: RequestErrors, evaluatedAt: Instant) -> Decision {
        Decision(
            decision: .error, policy: nil, targetVersion: nil, deadline: nil, urgency: .none, deferralsRemaining: nil,
            message: nil, updateURL: nil, reasons: errors.reasons.map { Reason(policy: nil, code: $0) }, skipped: [],
            evaluatedAt: evaluatedAt, trace: nil)
    }
}
