import CivilTime
import MDMDiagnostics
import PropertyList

/// What a reason does to the decision, in the order reasons are listed.
public enum Effect: String, Sendable, Comparable, CaseIterable {
    /// The rule denies.
    case deny
    /// The rule leaves the answer undecided: the profiles cannot tell.
    case indeterminate
    /// The rule makes the answer depend on something outside the profiles.
    case conditional
    /// The rule requires something (a VPN, a kiosk app).
    case require
    /// The rule allows.
    case allow
    /// The reason only informs.
    case info

    var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    /// Earlier in the listing order.
    public static func < (lhs: Effect, rhs: Effect) -> Bool { lhs.rank < rhs.rank }
}

/// The answer's decision and its exit code (*Device policies*).
public enum PolicyDecision: String, Sendable {
    /// Allowed (exit 0).
    case allow
    /// Denied (exit 1).
    case deny
    /// The profiles cannot tell (exit 3).
    case indeterminate
    /// It depends on something outside the profiles (exit 4).
    case conditional
    /// An answer that is not a permission, such as a kiosk or restriction question (exit 0).
    case ok

    /// The exit code of `mdmconf policy` for this decision.
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
    /// The stable reason code (`URL_DENY_LIST`, `DEFAULT_ALLOW`…).
    public let code: String
    /// What it does to the decision.
    public let effect: Effect
    /// nil for default reasons (`DEFAULT_ALLOW`, `KIOSK_NONE`, …).
    public let payload: PayloadInfo?
    /// The key that decided, as spelled.
    public let key: String?
    /// The list index, for a list entry.
    public let index: Int?
    /// The value as written.
    public let value: JSONValue
    /// Where it is written.
    public let position: SourcePosition?
    /// One sentence saying what happened.
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
        (self.code, self.effect, self.payload, self.key) = (code, effect, payload, key)
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
    /// The advisory's code.
    public let code: String
    /// What to know.
    public let message: String
    /// The payload it is about, when one.
    public let payload: PayloadInfo?
}

/// One entry tested during evaluation (`--trace`).
public struct TraceEntry: Sendable {
    /// What kind of test it was.
    public enum Step: String, Sendable {
        /// A payload's schedule.
        case schedule
        /// Values of several payloads merged.
        case merge
        /// A pattern or list entry compared with the argument.
        case match
        /// A rule applied.
        case rule
    }
    /// What kind of test it was.
    public let step: Step
    /// The payload tested, when one.
    public let payload: PayloadInfo?
    /// The key tested.
    public let key: String?
    /// The list index, for a list entry.
    public let index: Int?
    /// The value as written.
    public let value: JSONValue
    /// What the test gave.
    public let result: String
    /// Why, when it helps.
    public let note: String?
}

/// How a document took part: loaded, replaced by a later one with its identifier, or skipped as invalid.
public struct ProfileStatus: Sendable {
    /// How the document took part.
    public enum Status: String, Sendable {
        /// Loaded and used.
        case loaded
        /// Replaced by a later document with the same identifier.
        case replaced
        /// Not used: it is invalid.
        case skipped
    }
    /// The profile's identifier, when it could be read.
    public let identifier: String?
    /// The file.
    public let file: String
    /// How it took part.
    public let status: Status
    let inputPosition: Int
}

/// A device-policy question, as asked (*Device policies*).
public struct PolicyQuery: Sendable {
    /// The question asked.
    public enum Kind: String, Sendable, CaseIterable {
        /// May this app be installed and run?
        case app
        /// May this URL be opened?
        case url
        /// May the device join this network?
        case wifi
        /// Is the device locked to one app, and how?
        case kiosk
        /// Is a VPN required?
        case vpn
        /// May this app lock the device itself (autonomous single app mode)?
        case asam
        /// What is this restriction key's value?
        case restriction
    }
    /// The question asked.
    public var kind: Kind
    /// The argument as given: bundle id, URL, SSID text (nil with `ssidHex`), restriction key.
    public var argument: String?
    /// The SSID as hex bytes, for names that are not text.
    public var ssidHex: String?
    /// The network is hidden (it does not broadcast its SSID).
    public var hidden: Bool
    /// The instant the question is asked for (schedules).
    public var at: Instant
    /// Record every test in the answer's trace.
    public var trace: Bool
    /// For a `restriction` question about a key the engine does not evaluate itself: the key and its combining rule,
    /// as Apple's schema describes it (the MDMConf module finds it on the schema search path).
    public var restrictionKey: RestrictionKey?

    /// A question of `kind` at `at`.
    public init(
        kind: Kind, argument: String? = nil, ssidHex: String? = nil, hidden: Bool = false, at: Instant,
        trace: Bool = false
    ) {
        (self.kind, self.argument, self.ssidHex, self.hidden, self.at) = (kind, argument, ssidHex, hidden, at)
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
    /// The question answered.
    public var query: PolicyQuery
    /// The normalised URL (url) or nil.
    public var normalized: String?
    /// nil on a query error (65) or an unloadable profile set (78).
    public var decision: PolicyDecision?
    /// Determining reasons, ordered.
    public var reasons: [Reason] = []
    /// What is worth knowing besides.
    public var advisories: [Advisory] = []
    /// Payloads outside their schedule at the instant asked.
    public var inactive: [PayloadInfo] = []
    /// Lints of the profiles.
    public var lints: [PolicyFinding] = []
    /// Errors of the profiles or the query.
    public var diagnostics: [PolicyFinding] = []
    /// Every test, when asked for.
    public var trace: [TraceEntry]?
    /// How each profile document took part.
    public var profiles: [ProfileStatus] = []
    /// Type-specific fields (kiosk, vpn, restriction), in output order.
    public var fields: [(String, JSONValue)] = []
    /// 65 or 78 when there is no decision.
    public var errorExit: Int32?

    /// The exit code of `mdmconf policy` for this answer.
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
