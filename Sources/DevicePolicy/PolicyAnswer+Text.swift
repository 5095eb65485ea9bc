import PropertyList

/// The text form of a policy answer (*Device policies*): `DECISION TYPE ARG (at TIME)`, a line per reason,
/// advisories, inactive payloads and the trace. Shown by `mdmconf policy` and the admin page's what-if.
extension PolicyAnswer {
    /// The answer as `mdmconf policy` prints it.
    public var text: String {
        let answer = self
        let query = answer.query
        let argument =
            query.ssidHex.map { query.argument == nil ? "hex:\($0)" : query.argument ?? $0 } ?? query.argument
        var out = "\(answer.decision?.rawValue.uppercased() ?? "ERROR") \(query.kind.rawValue)"
        if let argument { out += " \(answer.normalized ?? argument)" }
        out += " (at \(query.at))\n"
        for (name, value) in answer.fields { out += "  \(name): \(value.serialized(pretty: false))\n" }
        for reason in answer.reasons {
            out += "  \(reason.effect.rawValue) \(reason.code)"
            if let payload = reason.payload { out += " \(payload.profile)/\(payload.identifier)" }
            if let key = reason.key { out += " \(key)\(reason.index.map { "[\($0)]" } ?? "")" }
            if reason.value != .null { out += " \(reason.value.serialized(pretty: false))" }
            if let payload = reason.payload {
                out += " \(payload.file)"
                if let line = reason.position?.line { out += ":\(line):\(reason.position?.column ?? 1)" }
            }
            out += "\n      \(reason.message)\n"
        }
        for advisory in answer.advisories { out += "  advisory \(advisory.code): \(advisory.message)\n" }
        for payload in answer.inactive {
            out += "  inactive \(payload.profile)/\(payload.identifier) (\(payload.type))\n"
        }
        if let trace = answer.trace {
            for entry in trace {
                out += "  trace \(entry.step.rawValue)"
                if let payload = entry.payload { out += " \(payload.profile)/\(payload.identifier)" }
                if let key = entry.key { out += " \(key)\(entry.index.map { "[\($0)]" } ?? "")" }
                out += " \(entry.value.serialized(pretty: false)) → \(entry.result)"
                if let note = entry.note { out += " (\(note))" }
                out += "\n"
            }
        }
        return out
    }
}
