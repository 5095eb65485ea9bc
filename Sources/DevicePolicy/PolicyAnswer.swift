import CivilTime
import MDMDiagnostics
import PropertyList

/// What a reason does to the decision, in the order reasons are listed.
public enum Effect: String, Sendable, Comparable, CaseIterable {
    case deny, indeterminate, conditional, require, allow, info

    var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (lhs: Effect, rhs: Effect) -> Bool { lhs.rank < rhs.rank }
}

/// The answer's decision and its exit code (*Device policies*).
public enum PolicyDecision: String, Sendable {
    case allow, deny, indeterminate, conditional, ok

    public var exitCode: Int32 {
        switch self {
        case .allow, .ok: 0
        case .deny: 1
        case .indeterminate: 3
        case .conditional: 4
        }
    }
}

/// One rule that decided (or, in the trace, took part in) an answer.
public struct Reason: Sendable {
    public let code: String
    public let effect: Effect
    /// nil for default reasons (`DEFAULT_ALLOW`, `KIOSK_NONE`, …).
    public let payload: PayloadInfo?
    public let key: String?
    public let index: Int?
    public let value: JSONValue
    public let position: SourcePosition?
    public let message: String

    init(_ code: String, _ effect: Effect, message: String) {
        self.code = code
        self.effect = effect
        payload = nil
        key = nil
        index = nil
        value = .null
        position = nil
        self.message = message
    }

    init<Value>(_ code: String, _ effect: Effect, _ payload: PayloadInfo, _ setting: Setting<Value>, message: String) {
        self.code = code
        self.effect = effect
        self.payload = payload
        key = setting.key
        index = setting.index
        value = setting.written
        position = setting.position
        self.message = message
    }

    init(
        _ code: String, _ effect: Effect, _ payload: PayloadInfo, key: String?, value: JSONValue = .null,
        position: SourcePosition?, message: String
    ) {
        self.code = code
        self.effect = effect
        self.payload = payload
        self.key = key
        index = nil
        self.value = value
        self.position = position
        self.message = message
    }

    /// Effect, profile, payload, key, index (nil first); strings by UTF-8 bytes.
    static func ordered(_ lhs: Reason, _ rhs: Reason) -> Bool {
        if lhs.effect != rhs.effect { return lhs.effect < rhs.effect }
        if let order = optionalOrder(lhs.payload?.profile, rhs.payload?.profile) { return order }
        if let order = optionalOrder(lhs.payload?.identifier, rhs.payload?.identifier) { return order }
        if let order = optionalOrder(lhs.key, rhs.key) { return order }
        if lhs.index != rhs.index { return (lhs.index ?? -1) < (rhs.index ?? -1) }
        return String.utf8Less(lhs.code, rhs.code)
    }

    private static func optionalOrder(_ lhs: String?, _ rhs: String?) -> Bool? {
        guard lhs != rhs else { return nil }
        guard let lhs else { return true }
        guard let rhs else { return false }
        return String.utf8Less(lhs, rhs)
    }
}

/// Something worth knowing that never changes a decision.
public struct Advisory: Sendable {
    public let code: String
    public let message: String
    public let payload: PayloadInfo?
}

/// One entry tested during evaluation (`--trace`).
public struct TraceEntry: Sendable {
    public enum Step: String, Sendable { case schedule, merge, match, rule }
    public let step: Step
    public let payload: PayloadInfo?
    public let key: String?
    public let index: Int?
    public let value: JSONValue
    public let result: String
    public let note: String?
}

/// How a document took part: loaded, replaced by a later one with its identifier, or skipped as invalid.
public struct ProfileStatus: Sendable {
    public enum Status: String, Sendable { case loaded, replaced, skipped }
    public let identifier: String?
    public let file: String
    public let status: Status
    let inputPosition: Int
}

/// A device-policy question, as asked (*Device policies*).
public struct PolicyQuery: Sendable {
    public enum Kind: String, Sendable, CaseIterable { case app, url, wifi, kiosk, vpn, asam, restriction }
    public var kind: Kind
    /// The argument as given: bundle id, URL, SSID text (nil with `ssidHex`), restriction key.
    public var argument: String?
    public var ssidHex: String?
    public var hidden: Bool
    public var at: Instant
    public var trace: Bool

    public init(
        kind: Kind, argument: String? = nil, ssidHex: String? = nil, hidden: Bool = false, at: Instant,
        trace: Bool = false
    ) {
        self.kind = kind
        self.argument = argument
        self.ssidHex = ssidHex
        self.hidden = hidden
        self.at = at
        self.trace = trace
    }

    /// Parses `--at`: RFC 3339 with `Z` or `±HH:MM` (fractions allowed); nil otherwise (MC5105).
    public static func instant(rfc3339 text: String) -> Instant? {
        guard let value = PolicyDateTime(text, exact: true), case .absolute(let instant) = value.kind else {
            return nil
        }
        return instant
    }
}

/// The whole answer to one query (*Device policies*).
public struct PolicyAnswer: Sendable {
    public var query: PolicyQuery
    /// The normalised URL (url) or nil.
    public var normalized: String?
    /// nil on a query error (65) or an unloadable profile set (78).
    public var decision: PolicyDecision?
    /// Determining reasons, ordered.
    public var reasons: [Reason] = []
    public var advisories: [Advisory] = []
    public var inactive: [PayloadInfo] = []
    public var lints: [PolicyFinding] = []
    public var diagnostics: [PolicyFinding] = []
    public var trace: [TraceEntry]?
    public var profiles: [ProfileStatus] = []
    /// Type-specific fields (kiosk, vpn, restriction), in output order.
    public var fields: [(String, JSONValue)] = []
    /// 65 or 78 when there is no decision.
    public var errorExit: Int32?

    public var exitCode: Int32 { decision?.exitCode ?? errorExit ?? 78 }

    init(query: PolicyQuery) { self.query = query }

    /// An answer without a decision: the query (65) or an input file (66) could not be used.
    public static func refused(_ query: PolicyQuery, _ diagnostic: Diagnostic, exit: Int32) -> PolicyAnswer {
        var answer = PolicyAnswer(query: query)
        answer.diagnostics = [PolicyFinding(diagnostic)]
        answer.errorExit = exit
        return answer
    }
}
