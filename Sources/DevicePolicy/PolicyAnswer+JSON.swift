import MDMDiagnostics

/// The answer as JSON.
extension PolicyAnswer {
    /// The answer document of *Device policies*: every key always present, absent values null.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            (
                "query",
                .object([
                    ("type", .string(query.kind.rawValue)), ("arg", .optional(query.argument)),
                    ("ssidHex", .optional(query.ssidHex)), ("hidden", .bool(query.hidden)),
                    ("at", .string(query.at.description)), ("normalized", .optional(normalized)),
                ])
            ),
            ("decision", .optional(decision?.rawValue)),
        ]
        members += fields
        members += [
            ("reasons", .array(reasons.map(\.json))),
            (
                "advisories",
                .array(
                    advisories.map {
                        .object([
                            ("code", .string($0.code)), ("message", .string($0.message)),
                            ("profile", .optional($0.payload?.profile)), ("payload", .optional($0.payload?.identifier)),
                        ])
                    })
            ),
            (
                "inactive",
                .array(
                    inactive.map {
                        .object([
                            ("profile", .string($0.profile)), ("payload", .string($0.identifier)),
                            ("payloadType", .string($0.type)), ("file", .string($0.file)),
                        ])
                    })
            ),
            ("lints", .array(lints.map(\.json))),
            ("diagnostics", .array(diagnostics.map(\.json))),
            ("trace", trace.map { .array($0.map(\.json)) } ?? .null),
            ("profiles", .array(profiles.map(\.json))),
        ]
        return .object(members)
    }
}

/// A reason as JSON.
extension Reason {
    /// The reason: code, effect, where it comes from (profile, payload, key, index, file, line, column), the
    /// value and the message.
    public var json: JSONValue {
        .object([
            ("code", .string(code)), ("effect", .string(effect.rawValue)), ("profile", .optional(payload?.profile)),
            ("payload", .optional(payload?.identifier)), ("payloadType", .optional(payload?.type)),
            ("key", .optional(key)), ("index", .optional(index)), ("value", value), ("file", .optional(payload?.file)),
            ("line", .optional(position?.line)), ("column", .optional(position?.column)), ("message", .string(message)),
        ])
    }
}

/// A document's part as JSON.
extension ProfileStatus {
    /// The document's identifier, file and status.
    public var json: JSONValue {
        .object([("identifier", .optional(identifier)), ("file", .string(file)), ("status", .string(status.rawValue))])
    }
}

/// A trace entry as JSON.
extension TraceEntry {
    /// The test: step, payload, key, index, value, result and note.
    public var json: JSONValue {
        .object([
            ("step", .string(step.rawValue)), ("profile", .optional(payload?.profile)),
            ("payload", .optional(payload?.identifier)), ("key", .optional(key)), ("index", .optional(index)),
            ("value", value), ("result", .string(result)), ("note", .optional(note)),
        ])
    }
}

/// A finding as JSON.
extension PolicyFinding {
    /// A diagnostic of the policy commands: the shared fields plus `rule`, `profile` and `payload`.
    public var json: JSONValue {
        .object([
            ("code", .string(diagnostic.code.code)), ("name", .string(diagnostic.code.name)),
            ("rule", .optional(diagnostic.code.rule)), ("severity", .string(diagnostic.severity.rawValue)),
            ("message", .string(diagnostic.message)), ("file", .optional(diagnostic.file)),
            ("line", .optional(diagnostic.line)), ("column", .optional(diagnostic.column)),
            ("profile", .optional(profile)), ("payload", .optional(payload)),
            ("keyPath", .optional(diagnostic.keyPath)),
            ("hint", .optional(diagnostic.hint)),
        ])
    }
}
