/// A schema pattern (`pattern`, `pfm_format`) compiled once; it must match the whole value, as XSD patterns
/// are implicitly anchored. Written in the ICU / NSRegularExpression dialect, which Swift's `Regex` syntax
/// follows for everything schemas use. Matching runs on `LinearRegex` (time linear in the value, so a pattern
/// like `^(a+)+$` from an untrusted schema cannot hang validation) whenever the pattern stays within its
/// subset, which covers schema patterns in practice; the rest (back-references, look-around) falls back to
/// Swift's backtracking `Regex`.
public struct Pattern: @unchecked Sendable {
    // Regex is an immutable value; matching does not mutate it.
    private let regex: Regex<AnyRegexOutput>?
    private let linear: LinearRegex?
    /// The pattern as the schema writes it.
    public let source: String

    /// Compiles `source`; throws with the compiler's message when it is not a valid pattern. Swift's `Regex` is
    /// compiled only when `LinearRegex` cannot take the pattern (it was a seventh of linting a ProfileManifests
    /// library, for patterns that never used it).
    public init(_ source: String) throws {
        self.source = source
        self.linear = LinearRegex(source)
        self.regex = linear == nil ? try Regex(source) : nil
    }

    /// True when matching takes time linear in the value.
    public var isLinear: Bool { linear != nil }

    /// True when the whole of `text` matches (schema patterns are anchored at both ends).
    public func matches(_ text: String) -> Bool {
        if let linear { return linear.wholeMatch(text) }
        guard let regex else { return false }
        do {
            return try regex.wholeMatch(in: text) != nil
        } catch {
            // Only custom regex components throw while matching; a parsed pattern has none.
            return false
        }
    }
}
