#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A schema pattern (`pattern`, `pfm_format`) compiled once; it must match the whole value, as XSD patterns
/// are implicitly anchored. Written in the ICU / NSRegularExpression dialect, which Swift's `Regex` syntax
/// follows for everything schemas use. Matching runs on `LinearRegex` (time linear in the value, so a pattern
/// like `^(a+)+$` from an untrusted schema cannot hang validation) whenever the pattern stays within its
/// subset, which covers schema patterns in practice; the rest (back-references, look-around) falls back to
/// Swift's backtracking `Regex`.
///
/// A pattern read back from a compiled schema (`CompiledSchema`) compiled when its schema was imported; it is
/// compiled again only when first matched, since most patterns of a schema are never used by the configuration
/// being checked.
public struct Pattern: @unchecked Sendable, CustomReflectable {
    private let matcher: Matcher

    /// The pattern as the schema writes it.
    public var source: String { matcher.source }

    /// Compiles `source`; throws with the compiler's message when it is not a valid pattern. Swift's `Regex` is
    /// compiled only when `LinearRegex` cannot take the pattern (it was a seventh of linting a ProfileManifests
    /// library, for patterns that never used it).
    public init(_ source: String) throws {
        let linear = LinearRegex(source)
        matcher = Matcher(source: source, compiled: (linear, linear == nil ? try Regex(source) : nil))
    }

    /// `source`, known to compile (it did when its schema was imported), compiled when first matched.
    init(checked source: String) {
        matcher = Matcher(source: source, compiled: nil)
    }

    /// True when matching takes time linear in the value.
    public var isLinear: Bool { matcher.compiled().linear != nil }

    /// True when the whole of `text` matches (schema patterns are anchored at both ends).
    public func matches(_ text: String) -> Bool {
        let (linear, regex) = matcher.compiled()
        if let linear { return linear.wholeMatch(text) }
        guard let regex else { return false }
        do {
            return try regex.wholeMatch(in: text) != nil
        } catch {
            // Only custom regex components throw while matching; a parsed pattern has none.
            return false
        }
    }

    /// A pattern is its source: how it is compiled, or whether it has been yet, is not part of its value.
    public var customMirror: Mirror { Mirror(self, children: ["source": source]) }
}

/// A pattern's source and, once compiled, its program; shared by the copies of a pattern.
private final class Matcher: @unchecked Sendable {
    typealias Compiled = (linear: LinearRegex?, regex: Regex<AnyRegexOutput>?)

    let source: String
    // Written once, under `lock`; `Regex` is an immutable value and matching does not change it.
    private var program: Compiled?
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init(source: String, compiled: Compiled?) {
        self.source = source
        program = compiled
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    func compiled() -> Compiled {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        if let program { return program }
        let linear = LinearRegex(source)
        let compiled: Compiled = (linear, linear == nil ? try? Regex(source) : nil)
        program = compiled
        return compiled
    }
}
