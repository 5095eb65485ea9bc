import CivilTime

/// A version of one of the grammars that ranges are written in.
public protocol RangeBound: Comparable, Sendable {
    init?(_ text: String)
}

extension AppVersion: RangeBound {}
extension OSVersion: RangeBound {}

/// A range (3.4): whitespace-separated comparators that must all hold, `>=2.4.0 <2.4.3`; `*` is every version.
/// A comparator is `>=`, `<=`, `>`, `<` or `=` (spaces may follow) and a version; a bare version means `=`.
/// How a comparator of a range relates a version to its bound.
public enum RangeOperator: String, Sendable {
    /// `>=`
    case atLeast = ">="
    /// `<=`
    case atMost = "<="
    /// `>`
    case greater = ">"
    /// `<`
    case less = "<"
    /// `=`
    case equal = "="

    /// Whether a version that compares to the bound as `order` (negative, zero, positive) satisfies it.
    func holds(_ order: Int) -> Bool {
        switch self {
        case .atLeast: order >= 0
        case .atMost: order <= 0
        case .greater: order > 0
        case .less: order < 0
        case .equal: order == 0
        }
    }
}

/// A version range: space-separated comparisons, all of which must hold (`>=3.0 <4`).
public struct VersionRange<Version: RangeBound>: Sendable {
    /// The comparison operators of a range.
    public typealias Operator = RangeOperator

    /// The comparisons, all of which a version must pass.
    public let comparators: [(Operator, Version)]
    /// The range as written.
    public let text: String

    /// Parses a range (`>=3.0 <4`); nil when `text` does not follow the grammar.
    public init?(_ text: String) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else { return nil }
        self.text = String(trimmed)
        if trimmed == "*" {
            comparators = []
            return
        }
        var comparators: [(Operator, Version)] = []
        var tokens = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
        while let token = tokens.popFirst() {
            var op = Operator.equal
            var rest = Substring(token)
            for candidate in [Operator.atLeast, .atMost, .greater, .less, .equal]
            where rest.hasPrefix(candidate.rawValue) {
                op = candidate
                rest = rest.dropFirst(candidate.rawValue.count)
                break
            }
            // `>= 2.0`: the version is the next token.
            if rest.isEmpty {
                guard let next = tokens.popFirst() else { return nil }
                rest = Substring(next)
            }
            guard !rest.hasPrefix(">"), !rest.hasPrefix("<"), !rest.hasPrefix("="), let version = Version(String(rest))
            else {
                return nil
            }
            comparators.append((op, version))
        }
        self.comparators = comparators
    }

    /// True when `version` passes every comparison.
    public func contains(_ version: Version) -> Bool {
        comparators.allSatisfy { op, bound in op.holds(version < bound ? -1 : bound < version ? 1 : 0) }
    }
}
