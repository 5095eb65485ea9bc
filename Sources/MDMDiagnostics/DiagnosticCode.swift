/// A stable identifier of one kind of finding: `MC` and four digits, with a kebab-case name.
///
/// Codes are grouped by layer: 1xxx plist syntax, 2xxx schema validation, 3xxx schema lint,
/// 4xxx update policy, 5xxx device policy, 6xxx catalog and server. A code is never reused.
public struct DiagnosticCode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The code, e.g. `MC1013`.
    public let code: String
    /// The kebab-case name, e.g. `duplicate-key`.
    public let name: String
    /// One sentence saying what the finding means, used in SARIF rule descriptions and the docs.
    public let summary: String
    /// The stable lint rule identifier of a device-policy lint (`L_EMPTY_LIST`); nil for other codes.
    public let rule: String?

    /// A code; each layer declares its codes once, as constants.
    public init(_ code: String, _ name: String, rule: String? = nil, summary: String) {
        (self.code, self.name, self.rule, self.summary) = (code, name, rule, summary)
    }

    /// `MC5207 empty-allow-list L_EMPTY_LIST`, or `MC1013 duplicate-key` without a rule.
    public var description: String { rule.map { "\(code) \(name) \($0)" } ?? "\(code) \(name)" }
}
