/// The JSON report of `mdmconf validate` and `mdmconf lint` (the *Diagnostic codes* article describes its shape).
public struct JSONRenderer: Sendable {
    /// The renderer (it has no options).
    public init() {}

    /// The whole report: `files` and `summary`.
    public func render(_ report: DiagnosticReport) -> JSONValue {
        let summary = report.summary
        return .object([
            ("files", .array(report.files.map(render))),
            (
                "summary",
                .object([
                    ("files", .integer(summary.files)),
                    ("valid", .integer(summary.valid)),
                    ("errors", .integer(summary.errors)),
                    ("warnings", .integer(summary.warnings)),
                    ("infos", .integer(summary.infos)),
                ])
            ),
        ])
    }

    /// One file: its path, schema, shape, validity and findings.
    public func render(_ file: FileReport) -> JSONValue {
        let schema: JSONValue =
            file.schema.map {
                .object([("path", .string($0.path)), ("format", .string($0.format)), ("id", .optional($0.id))])
            } ?? .null
        return .object([
            ("path", .string(file.path)),
            ("schema", schema),
            ("shape", .optional(file.shape)),
            ("valid", .bool(file.isValid)),
            ("diagnostics", .array(file.diagnostics.map(render))),
        ])
    }

    /// One finding, as it appears in a file's `diagnostics` and in the server's error bodies.
    public func render(_ diagnostic: Diagnostic) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("severity", .string(diagnostic.severity.rawValue)),
            ("code", .string(diagnostic.code.code)),
            ("name", .string(diagnostic.code.name)),
            ("message", .string(diagnostic.message)),
        ]
        if let rule = diagnostic.code.rule { members.append(("rule", .string(rule))) }
        members += Self.location(diagnostic.location)
        members += [
            ("keyPath", .optional(diagnostic.keyPath)),
            ("hint", .optional(diagnostic.hint)),
            (
                "notes",
                .array(
                    diagnostic.notes.map { .object([("message", .string($0.message))] + Self.location($0.location)) })
            ),
        ]
        return .object(members)
    }

    private static func location(_ location: SourceLocation?) -> [(String, JSONValue)] {
        [
            ("file", .optional(location?.file)),
            ("line", .optional(location?.position.line)),
            ("column", .optional(location?.position.column)),
            ("offset", .optional(location?.position.offset)),
        ]
    }
}
