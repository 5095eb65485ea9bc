import CivilTime
import DevicePolicy
import MDMDiagnostics
import PropertyList

/// Why a policy question `{type, arg, ssidHex, hidden, at, trace}` cannot be read: a message naming the member, and
/// with a `diagnostic` when the question is understood but holds an invalid value (the CLI's exit 65).
public struct PolicyQueryError: Error, Sendable {
    /// What is wrong, naming the member.
    public let message: String
    /// The finding about an invalid value; nil when the question cannot be understood.
    public let diagnostic: Diagnostic?

    /// A question refused for `message`.
    public init(_ message: String, diagnostic: Diagnostic? = nil) {
        self.message = message
        self.diagnostic = diagnostic
    }
}

/// Reading a policy question from a request.
extension PolicyQuery {
    /// A query from its JSON or plist form `{type, arg, ssidHex, hidden, at, trace}` (*Device policies*);
    /// `at` defaults to `now`. Values are checked later like CLI arguments (MC51xx).
    public static func parse(_ fields: PlistDictionary, now: Instant) -> Result<PolicyQuery, PolicyQueryError> {
        func text(_ key: String) -> Result<String?, PolicyQueryError> {
            switch fields[key]?.value {
            case nil: .success(nil)
            case .string(let value)?: .success(value)
            default: .failure(PolicyQueryError("query.\(key) must be a string"))
            }
        }
        func flag(_ key: String) -> Result<Bool, PolicyQueryError> {
            switch fields[key]?.value {
            case nil: .success(false)
            case .boolean(let value)?: .success(value)
            default: .failure(PolicyQueryError("query.\(key) must be true or false"))
            }
        }
        for key in fields.keys where !["type", "arg", "ssidHex", "hidden", "at", "trace"].contains(key) {
            return .failure(PolicyQueryError("unknown member query.\(key) (type, arg, ssidHex, hidden, at, trace)"))
        }
        do {
            let kinds = PolicyQuery.Kind.allCases.map(\.rawValue).joined(separator: " ")
            guard let kind = try text("type").get().flatMap(PolicyQuery.Kind.init(rawValue:)) else {
                return .failure(PolicyQueryError("query.type must be one of \(kinds)"))
            }
            var at = now
            if let atText = try text("at").get() {
                guard let instant = PolicyQuery.instant(rfc3339: atText) else {
                    let message = "query.at '\(atText)' is not RFC 3339 with Z or an offset"
                    let diagnostic = Diagnostic(
                        DevicePolicyCode.invalidQueryTime, severity: .error, message: message, keyPath: "query.at")
                    return .failure(PolicyQueryError(message, diagnostic: diagnostic))
                }
                at = instant
            }
            return .success(
                PolicyQuery(
                    kind: kind, argument: try text("arg").get(), ssidHex: try text("ssidHex").get(),
                    hidden: try flag("hidden").get(), at: at, trace: try flag("trace").get()))
        } catch {
            return .failure(error)
        }
    }
}
