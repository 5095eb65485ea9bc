import CivilTime
import MDMDiagnostics

/// Answers device-policy questions over one profile set (*Device policies*): a pure function of the
/// documents, the query and the instant, independent of document order except same-identifier replacement.
/// Build it once per profile set; it is immutable and `Sendable`.
public struct PolicyEngine: Sendable {
    /// The profiles answered from.
    public let profileSet: ProfileSet
    /// Every lint of the loaded set, ordered (section 13).
    public let lints: [PolicyFinding]
    let compiled: CompiledPayloads

    /// An engine over `profileSet`, compiled once.
    public init(profileSet: ProfileSet) {
        self.profileSet = profileSet
        compiled = CompiledPayloads(profileSet.payloads)
        lints = PolicyLinter(payloads: profileSet.payloads).lints(adding: profileSet.loadLints)
    }

    /// The answer to `query`; query errors (MC51xx) and an unusable profile set give no decision.
    public func evaluate(_ query: PolicyQuery) -> PolicyAnswer {
        var answer = PolicyAnswer(query: query)
        answer.profiles = profileSet.profiles
        answer.lints = lints
        answer.diagnostics = profileSet.diagnostics
        if query.trace { answer.trace = [] }
        let parsed: ParsedQuery
        switch ParsedQuery.parse(query) {
        case .success(let value): parsed = value
        case .failure(let error):
            answer.diagnostics.append(PolicyFinding(error.diagnostic))
            answer.errorExit = 65
            return answer
        }
        guard profileSet.isUsable else {
            answer.errorExit = 78
            return answer
        }
        var evaluation = Evaluation(compiled: compiled, at: query.at, tracing: query.trace)
        evaluation.run(parsed, into: &answer)
        answer.inactive = evaluation.inactive.sorted(by: PayloadInfo.ordered)
        return answer
    }
}

/// Checking a question before it is answered.
extension PolicyQuery {
    /// The MC51xx error of the query's argument, nil when it can be evaluated.
    public var argumentError: Diagnostic? {
        if case .failure(let error) = ParsedQuery.parse(self) { return error.diagnostic }
        return nil
    }
}

/// A query whose argument has been checked and parsed.
enum ParsedQuery {
    case app(String)
    case asam(String)
    case url(QueryURL)
    case wifi(SSID)
    case kiosk
    case vpn
    case restriction(String)
    case keyRestriction(RestrictionKey)

    static func parse(_ query: PolicyQuery) -> Result<ParsedQuery, QueryError> {
        let argument = query.argument ?? ""
        switch query.kind {
        case .app, .asam:
            guard BundleID.isValid(argument) else {
                return fail(
                    Diagnostic(
                        DevicePolicyCode.invalidQueryBundleID, severity: .error,
                        message: "'\(argument)' is not a bundle id ([A-Za-z0-9.-]+)"))
            }
            return .success(query.kind == .app ? .app(argument) : .asam(argument))
        case .url:
            do throws(QueryURL.ParseError) {
                return .success(.url(try QueryURL(parsing: argument)))
            } catch { return fail(error.diagnostic) }
        case .wifi:
            let ssid: SSID?
            let shown: String
            if let hex = query.ssidHex {
                ssid = SSID(hex: hex)
                shown = "--ssid-hex '\(hex)': hex of 1 to 32 bytes, even length, no separators"
            } else {
                ssid = SSID(text: argument)
                shown = "SSID '\(argument)': 1 to 32 bytes of UTF-8 (\(argument.utf8.count) given)"
            }
            guard let ssid else {
                return fail(
                    Diagnostic(DevicePolicyCode.invalidQuerySSID, severity: .error, message: "invalid \(shown)"))
            }
            return .success(.wifi(ssid))
        case .kiosk: return .success(.kiosk)
        case .vpn: return .success(.vpn)
        case .restriction:
            let current = Restrictions.aliases[argument] ?? argument
            let keys = Restrictions.andKeys + Restrictions.orKeys + Restrictions.listKeys
            if keys.contains(current) { return .success(.restriction(current)) }
            if let key = query.restrictionKey, key.name == argument { return .success(.keyRestriction(key)) }
            return fail(
                Diagnostic(
                    DevicePolicyCode.unknownRestrictionKey, severity: .error,
                    message: "'\(argument)' is not an evaluated restriction key",
                    hint: Suggestion.closest(to: argument, in: keys).map { "did you mean '\($0)'?" }
                        ?? "one of: \(keys.joined(separator: " ")); any key of Apple's restrictions payload or of a declaration type (TYPE.KEY) with a checkout of apple/device-management on MDMCONF_SCHEMA_PATH"
                ))
        }
    }
}

/// A query argument that cannot be evaluated (MC51xx, exit 65).
struct QueryError: Error {
    let diagnostic: Diagnostic
}

private func fail(_ diagnostic: Diagnostic) -> Result<ParsedQuery, QueryError> {
    .failure(QueryError(diagnostic: diagnostic))
}

/// The payloads of a profile set, compiled once: shared by every evaluation without copying.
final class CompiledPayloads: Sendable {
    /// A web-filter payload with its URL index (nil for a Plugin filter).
    final class Filter: Sendable {
        let position: Int
        let info: PayloadInfo
        let filter: WebFilter
        let index: FilterIndex?

        init(position: Int, info: PayloadInfo, filter: WebFilter) {
            self.position = position
            self.info = info
            self.filter = filter
            index = filter.isPlugin ? nil : FilterIndex(filter)
        }
    }

    let payloads: [Payload]
    let filters: [Filter]
    let hasSchedules: Bool
    /// Every payload position: the active set when there are no schedules, shared rather than rebuilt.
    let allPositions: [Int]

    init(_ payloads: [Payload]) {
        self.payloads = payloads
        filters = payloads.enumerated().compactMap { position, payload in
            guard case .webFilter(let filter) = payload.content else { return nil }
            return Filter(position: position, info: payload.info, filter: filter)
        }
        hasSchedules = payloads.contains { $0.schedule != nil }
        allPositions = Array(payloads.indices)
    }
}

/// One evaluation: the payloads active at the instant, reasons collected, the trace.
struct Evaluation {
    let engine: CompiledPayloads
    let tracing: Bool
    /// Positions (in `engine.payloads`) of active payloads.
    var active: [Int] = []
    /// Whether each payload is active; empty when every payload is (no schedules).
    var isActive: [Bool] = []
    var inactive: [PayloadInfo] = []
    var reasons: [Reason] = []
    var advisories: [Advisory] = []
    var trace: [TraceEntry] = []

    init(compiled engine: CompiledPayloads, at instant: Instant, tracing: Bool) {
        self.engine = engine
        self.tracing = tracing
        guard engine.hasSchedules else {
            active = engine.allPositions
            return
        }
        active.reserveCapacity(engine.payloads.count)
        isActive = Array(repeating: true, count: engine.payloads.count)
        for (position, payload) in engine.payloads.enumerated() {
            guard let schedule = payload.schedule else {
                active.append(position)
                continue
            }
            let covered = schedule.contains { $0.covers(instant) }
            if covered {
                active.append(position)
            } else {
                inactive.append(payload.info)
                isActive[position] = false
            }
            if tracing {
                trace.append(
                    TraceEntry(
                        step: .schedule, payload: payload.info, key: "MDMConfSchedule", index: nil,
                        value: .integer(schedule.count), result: covered ? "active" : "inactive",
                        note: schedule.isEmpty ? "empty schedule: never active" : nil))
            }
        }
    }

    mutating func run(_ query: ParsedQuery, into answer: inout PolicyAnswer) {
        var informational = false
        let decision: PolicyDecision
        switch query {
        case .app(let app): decision = decideApp(app)
        case .asam(let app): decision = decideASAM(app)
        case .url(let url):
            answer.normalized = url.normalized
            decision = decideURL(url)
        case .wifi(let ssid):
            answer.query.ssidHex = ssid.hex
            decision = decideWiFi(ssid, hidden: answer.query.hidden)
        case .kiosk:
            informational = true
            decision = decideKiosk(into: &answer.fields)
        case .vpn:
            informational = true
            decision = decideVPN(into: &answer.fields)
        case .restriction(let key):
            informational = true
            decision = decideRestriction(key, into: &answer.fields)
        case .keyRestriction(let key):
            informational = true
            decision = decideRestriction(key, into: &answer.fields)
        }
        answer.decision = decision
        reasons.sort(by: Reason.ordered)
        if informational {
            answer.reasons = reasons
        } else {
            func determining(_ effect: Effect) -> Bool {
                switch decision {
                case .deny: effect == .deny || effect == .info
                case .indeterminate: effect == .indeterminate || effect == .info
                case .conditional: effect == .conditional || effect == .allow || effect == .info
                case .allow, .ok: effect == .allow || effect == .info
                }
            }
            answer.reasons = reasons.filter { determining($0.effect) }
            if tracing {
                for reason in reasons where !determining(reason.effect) {
                    trace.append(
                        TraceEntry(
                            step: .rule, payload: reason.payload, key: reason.key, index: reason.index,
                            value: reason.value,
                            result: reason.effect.rawValue, note: "\(reason.code) (not determining): \(reason.message)")
                    )
                }
            }
        }
        answer.advisories = advisories
        if tracing { answer.trace = trace }
    }

    /// Active payloads' positions with their content, in input order.
    func activePayloads() -> LazyMapSequence<[Int], (Int, Payload)> {
        active.lazy.map { ($0, engine.payloads[$0]) }
    }

    mutating func traceMatch(
        _ info: PayloadInfo, key: String?, index: Int?, value: JSONValue, matched: Bool, note: String? = nil
    ) {
        guard tracing else { return }
        trace.append(
            TraceEntry(
                step: .match, payload: info, key: key, index: index, value: value,
                result: matched ? "match" : "no match", note: note))
    }

    mutating func traceMerge(_ info: PayloadInfo, key: String, value: JSONValue, note: String) {
        guard tracing else { return }
        trace.append(
            TraceEntry(
                step: .merge, payload: info, key: key, index: nil, value: value, result: "contributes", note: note))
    }
}
