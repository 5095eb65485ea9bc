/// A schema pattern (`pattern`, `pfm_format`) compiled once; it must match the whole value, as XSD patterns
/// are implicitly anchored. Written in the ICU / NSRegularExpression dialect, which Swift's `Regex` syntax
/// follows for everything schemas use.
public struct Pattern: @unchecked Sendable {
    // Regex is an immutable value; matching does not mutate it.
    private let regex: Regex<AnyRegexOutput>
    public let source: String

    /// Compiles `source`; throws with the compiler's message when it is not a valid pattern.
    public init(_ source: String) throws {
        self.source = source
        self.regex = try Regex(source)
    }

    public func matches(_ text: String) -> Bool {
        do {
            return try regex.wholeMatch(in: text) != nil
        } catch {
            // Only custom regex components throw while matching; a parsed pattern has none.
            return false
        }
    }
}
