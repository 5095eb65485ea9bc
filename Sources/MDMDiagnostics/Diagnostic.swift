/// One finding about an input: what is wrong, where, how serious, and how to fix it.
///
/// Every layer of mdmconf reports through this one type, and every output format renders it.
public struct Diagnostic: Sendable, Hashable, Codable {
    /// A secondary location that explains the finding, such as "first defined here".
    public struct Note: Sendable, Hashable, Codable {
        /// What the location shows.
        public var message: String
        /// Where, when the note points somewhere.
        public var location: SourceLocation?

        /// A note saying `message` about `location`.
        public init(_ message: String, at location: SourceLocation? = nil) {
            self.message = message
            self.location = location
        }
    }

    /// The stable code (`MC2003`) and rule name (`type-mismatch`).
    public var code: DiagnosticCode
    /// How serious the finding is.
    public var severity: Severity
    /// One sentence saying what is wrong.
    public var message: String
    /// Where: file, line and column; nil for findings about no place in particular (a missing file).
    public var location: SourceLocation?
    /// Dot-separated keys with `[n]` for array items, e.g. `Accounts[2].Server`; nil at the root.
    public var keyPath: String?
    /// How to fix it, when there is a concrete suggestion ("did you mean 'AllowOfflineMode'?").
    public var hint: String?
    /// Other places that explain the finding.
    public var notes: [Note]
    /// The finding is about a sensitive value: renderers never quote its source line.
    public var sensitive: Bool

    /// A finding; `code` is one of the constants of the layer that reports it.
    public init(
        _ code: DiagnosticCode,
        severity: Severity,
        message: String,
        location: SourceLocation? = nil,
        keyPath: String? = nil,
        hint: String? = nil,
        notes: [Note] = [],
        sensitive: Bool = false
    ) {
        (self.code, self.severity, self.message, self.location) = (code, severity, message, location)
        (self.keyPath, self.hint, self.notes, self.sensitive) = (keyPath, hint, notes, sensitive)
    }

    /// The file of the finding, when it has one.
    public var file: String? { location?.file }
    /// The line of the finding (1-based), when it has a location.
    public var line: Int? { location?.position.line }
    /// The column of the finding (1-based, in UTF-8 bytes), when it has a location.
    public var column: Int? { location?.position.column }

    /// The same finding about a sensitive value: every quoted part of the message and hint is replaced by
    /// `<redacted>`, and the source line is never quoted.
    public func redacted() -> Diagnostic {
        var copy = self
        copy.sensitive = true
        copy.message = Self.redactQuotes(message)
        copy.hint = hint.map(Self.redactQuotes)
        return copy
    }

    static func redactQuotes(_ text: String) -> String {
        var out = ""
        var inQuote = false
        for character in text {
            if character == "'" {
                out.append(inQuote ? "<redacted>'" : "'")
                inQuote.toggle()
            } else if !inQuote {
                out.append(character)
            }
        }
        return out
    }

    /// The same finding with warnings raised to errors (`--strict`).
    public func strict() -> Diagnostic {
        var copy = self
        if copy.severity == .warning { copy.severity = .error }
        return copy
    }
}

/// Questions asked of a list of findings.
extension Array where Element == Diagnostic {
    /// True when any finding is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }

    /// How many findings have the given severity.
    public func count(of severity: Severity) -> Int { lazy.filter { $0.severity == severity }.count }
}
