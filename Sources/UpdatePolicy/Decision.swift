import CivilTime
import MDMDiagnostics

/// An update outcome, ordered by severity: ok < recommended < unsupported < error < required.
public enum Outcome: String, Sendable, Comparable, CaseIterable {
    case ok, recommended, unsupported, error, required

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
    case none, low, initial, approaching, imminent, critical

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
    public var policy: String?
    public var code: String

    public init(policy: String?, code: String) {
        self.policy = policy
        self.code = code
    }
}

/// One step of the `--explain` trace.
public struct TraceCheck: Sendable, Hashable {
    public var check: String
    /// `pass`, `fail`, `indeterminate` or `n/a`.
    public var result: String
    public var detail: String?
}

public struct PolicyTrace: Sendable, Hashable {
    public var policy: String
    /// `other_app`, `skipped`, or an outcome.
    public var outcome: String
    public var checks: [TraceCheck]
}

/// The decision document of *Update policies*
public struct Decision: Sendable {
    public var decision: Outcome
    public var policy: String?
    public var targetVersion: String?
    public var deadline: Instant?
    public var urgency: Urgency
    public var deferralsRemaining: Int64?
    public var message: (locale: String, title: String?, body: String?)?
    public var updateURL: String?
    public var reasons: [Reason]
    public var skipped: [Reason]
    public var evaluatedAt: Instant
    public var trace: [PolicyTrace]?

    public var exitCode: Int32 { decision.exitCode }

    /// The JSON document, every key always present.
    public var json: JSONValue {
        func reasons(_ list: [Reason]) -> JSONValue {
            .array(list.map { .object([("policy", .optional($0.policy)), ("code", .string($0.code))]) })
        }
        let message: JSONValue =
            self.message.map {
                .object([("locale", .string($0.locale)), ("title", .optional($0.title)), ("body", .optional($0.body))])
            } ?? .null
        let trace: JSONValue =
            self.trace.map { traces in
                .array(
                    traces.map { trace in
                        .object([
                            ("policy", .string(trace.policy)), ("outcome", .string(trace.outcome)),
                            (
                                "checks",
                                .array(
                                    trace.checks.map {
                                        .object([
                                            ("check", .string($0.check)), ("result", .string($0.result)),
                                            ("detail", .optional($0.detail)),
                                        ])
                                    })
                            ),
                        ])
                    })
            } ?? .null
        return .object([
            ("decision", .string(decision.rawValue)),
            ("exitCode", .integer(exitCode)),
            ("policy", .optional(policy)),
            ("targetVersion", .optional(targetVersion)),
            ("deadline", .optional(deadline?.description)),
            ("urgency", .string(urgency.rawValue)),
            ("deferralsRemaining", deferralsRemaining.map { .integer($0) } ?? .null),
            ("message", message),
            ("updateUrl", .optional(updateURL)),
            ("reasons", reasons(self.reasons)),
            ("skipped", reasons(skipped)),
            ("evaluatedAt", .string(evaluatedAt.description)),
            ("trace", trace),
        ])
    }

    /// The decision for a request that cannot be evaluated: `error`, one reason per malformed field.
    public static func invalidRequest(_ errors: RequestErrors, evaluatedAt: Instant) -> Decision {
        Decision(
            decision: .error, policy: nil, targetVersion: nil, deadline: nil, urgency: .none, deferralsRemaining: nil,
            message: nil, updateURL: nil, reasons: errors.reasons.map { Reason(policy: nil, code: $0) }, skipped: [],
            evaluatedAt: evaluatedAt, trace: nil)
    }
}
