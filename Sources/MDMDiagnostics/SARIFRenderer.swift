/// SARIF 2.1.0, for code-scanning tools such as GitHub code scanning.
public struct SARIFRenderer: Sendable {
    /// The version written as the tool's `version`.
    public var toolVersion: String

    /// A renderer naming the tool's version.
    public init(toolVersion: String) { self.toolVersion = toolVersion }

    /// One SARIF log with one run: every rule that fired and every finding as a result.
    public func render(_ report: DiagnosticReport) -> JSONValue {
        let diagnostics = report.files.flatMap(\.diagnostics)
        var rules: [DiagnosticCode] = []
        var ruleIndex: [String: Int] = [:]
        for diagnostic in diagnostics where ruleIndex[diagnostic.code.code] == nil {
            ruleIndex[diagnostic.code.code] = rules.count
            rules.append(diagnostic.code)
        }
        rules.sort { $0.code < $1.code }
        for (index, rule) in rules.enumerated() { ruleIndex[rule.code] = index }

        let driver: JSONValue = .object([
            ("name", .string("mdmconf")),
            ("version", .string(toolVersion)),
            ("informationUri", .string("https://github.com/mdmconf/mdmconf")),
            (
                "rules",
                .array(
                    rules.map { rule in
                        .object([
                            ("id", .string(rule.code)),
                            ("name", .string(rule.name)),
                            ("shortDescription", .object([("text", .string(rule.summary))])),
                        ])
                    }
                )
            ),
        ])
        let results: [JSONValue] = diagnostics.map { diagnostic in
            var members: [(String, JSONValue)] = [
                ("ruleId", .string(diagnostic.code.code)),
                ("ruleIndex", .integer(ruleIndex[diagnostic.code.code] ?? 0)),
                ("level", .string(Self.level(diagnostic.severity))),
                ("message", .object([("text", .string(Self.messageText(diagnostic)))])),
            ]
            if let location = diagnostic.location {
                members.append(("locations", .array([Self.physicalLocation(location, logical: diagnostic.keyPath)])))
            }
            let related = diagnostic.notes.compactMap { note -> JSONValue? in
                guard let location = note.location else { return nil }
                guard case .object(var members) = Self.physicalLocation(location, logical: nil) else { return nil }
                members.append(("message", .object([("text", .string(note.message))])))
                return .object(members)
            }
            if !related.isEmpty { members.append(("relatedLocations", .array(related))) }
            return .object(members)
        }
        return .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([("tool", .object([("driver", driver)])), ("results", .array(results))])])),
        ])
    }

    static func level(_ severity: Severity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        case .info: "note"
        }
    }

    private static func messageText(_ diagnostic: Diagnostic) -> String {
        guard let hint = diagnostic.hint else { return diagnostic.message }
        return "\(diagnostic.message) (hint: \(hint))"
    }

    private static func physicalLocation(_ location: SourceLocation, logical keyPath: String?) -> JSONValue {
        var region: [(String, JSONValue)] = []
        if let line = location.position.line {
            region.append(("startLine", .integer(line)))
            if let column = location.position.column { region.append(("startColumn", .integer(column))) }
        } else if let offset = location.position.offset {
            region.append(("byteOffset", .integer(offset)))
        }
        var physical: [(String, JSONValue)] = [("artifactLocation", .object([("uri", .string(location.file))]))]
        if !region.isEmpty { physical.append(("region", .object(region))) }
        var members: [(String, JSONValue)] = [("physicalLocation", .object(physical))]
        if let keyPath {
            members.append(("logicalLocations", .array([.object([("fullyQualifiedName", .string(keyPath))])])))
        }
        return .object(members)
    }
}
