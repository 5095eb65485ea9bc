import CivilTime
import MDMDiagnostics
import PropertyList

/// Reads the plist value tree of a policy document into `PolicyDocument`, collecting every finding.
struct PolicyReader {
    let file: String
    let source: [UInt8]
    let catalogApp: String?
    var diagnostics: [Diagnostic] = []

    init(file: String, source: [UInt8], catalogApp: String?) {
        self.file = file
        self.source = source
        self.catalogApp = catalogApp
    }

    static let rootKeys = ["schemaVersion", "defaults", "policies"]
    static let defaultsKeys = ["timeZone", "locale"]
    static let policyKeys = [
        "id", "app", "priority", "platforms", "channels", "osVersion", "appVersion", "deviceModels", "notBefore",
        "rollout",
        "minVersion", "minBuild", "blockedVersions", "recommendedVersion", "recommendedBuild", "latestVersion",
        "deadline",
        "timeZone", "approachingWindow", "imminentWindow", "maxDeferrals", "newDeviceGrace", "requiresOS",
        "onIndeterminate", "messages", "updateUrl", "defaultLocale",
    ]

    // MARK: Findings

    mutating func error(
        _ code: DiagnosticCode, _ message: String, at position: SourcePosition, path: KeyPath, hint: String? = nil
    ) {
        add(code, .error, message, at: position, path: path, hint: hint)
    }

    mutating func warning(
        _ code: DiagnosticCode, _ message: String, at position: SourcePosition, path: KeyPath, hint: String? = nil
    ) {
        add(code, .warning, message, at: position, path: path, hint: hint)
    }

    private mutating func add(
        _ code: DiagnosticCode, _ severity: Severity, _ message: String, at position: SourcePosition, path: KeyPath,
        hint: String?
    ) {
        diagnostics.append(
            Diagnostic(
                code, severity: severity, message: message,
                location: position.isUnknown
                    ? SourceLocation(file: file) : SourceLocation(file: file, position: position),
                keyPath: path.diagnosticValue, hint: hint))
    }

    /// Reports keys not in `known` (except `x-` ones), with the nearest known key as hint.
    mutating func checkKeys(_ dict: PlistDictionary, known: [String], path: KeyPath) {
        for entry in dict.entries where !known.contains(entry.key) && !entry.key.hasPrefix("x-") {
            let close = Suggestion.closest(to: entry.key, in: known)
            error(
                UpdatePolicyCode.unknownKey, "unknown key '\(entry.key)'", at: entry.keyPosition,
                path: path.appending(key: entry.key),
                hint: close.map { "did you mean '\($0)'?" } ?? "keys starting with x- are ignored")
        }
    }

    // MARK: Document

    mutating func document(_ root: PlistNode) -> PolicyDocument? {
        guard case .dictionary(let dict) = root.value else {
            error(UpdatePolicyCode.invalidType, "the document's root must be a dict", at: root.position, path: .root)
            return nil
        }
        checkKeys(dict, known: Self.rootKeys, path: .root)
        if let version = dict.entry("schemaVersion") {
            if case .integer(let number) = version.value.value {
                if number != 1 {
                    error(
                        UpdatePolicyCode.unsupportedSchemaVersion, "schemaVersion \(number) is not supported",
                        at: version.value.position, path: KeyPath([.key("schemaVersion")]),
                        hint: "this mdmconf reads schemaVersion 1")
                }
            } else {
                typeError(version.value, expected: "an integer", path: KeyPath([.key("schemaVersion")]))
            }
        } else {
            error(
                UpdatePolicyCode.missingKey, "schemaVersion is missing", at: root.position, path: .root,
                hint: "add schemaVersion 1")
        }
        var defaults = PolicyDocument.Defaults()
        var defaultZoneName: String?
        if let node = dict["defaults"] {
            let path = KeyPath([.key("defaults")])
            if case .dictionary(let values) = node.value {
                checkKeys(values, known: Self.defaultsKeys, path: path)
                if let entry = values.entry("timeZone") {
                    defaultZoneName = string(entry.value, path: path.appending(key: "timeZone"))
                    if let name = defaultZoneName {
                        defaults.timeZone = zone(
                            named: name, at: entry.value.position, path: path.appending(key: "timeZone"))
                    }
                }
                if let locale = values["locale"] {
                    defaults.locale = self.locale(locale, path: path.appending(key: "locale"))
                }
            } else {
                typeError(node, expected: "a dict", path: path)
            }
        }
        var policies: [Policy] = []
        if let node = dict["policies"] {
            if case .array(let items) = node.value {
                var seen: [String: SourcePosition] = [:]
                for (index, item) in items.enumerated() {
                    let path = KeyPath([.key("policies"), .index(index)])
                    guard
                        let policy = self.policy(
                            item, path: path, defaults: defaults, hasDefaultZone: defaultZoneName != nil)
                    else {
                        continue
                    }
                    if let first = seen[policy.id] {
                        error(
                            UpdatePolicyCode.duplicateID, "policy id '\(policy.id)' is used twice", at: item.position,
                            path: path.appending(key: "id"), hint: "the first is at line \(first.line ?? 0)")
                    } else {
                        seen[policy.id] = item.position
                    }
                    policies.append(policy)
                }
            } else {
                typeError(node, expected: "an array", path: KeyPath([.key("policies")]))
            }
        } else {
            error(
                UpdatePolicyCode.missingKey, "policies is missing", at: root.position, path: .root,
                hint: "add a policies array")
        }
        return PolicyDocument(defaults: defaults, policies: policies)
    }

    // MARK: Values

    mutating func typeError(_ node: PlistNode, expected: String, path: KeyPath, hint: String? = nil) {
        error(
            UpdatePolicyCode.invalidType,
            "\(path.description.isEmpty ? "the value" : "'\(path.description)'") must be \(expected), found \(node.value.typeName)",
            at: node.position, path: path, hint: hint)
    }

    mutating func string(_ node: PlistNode, path: KeyPath, hint: String? = nil) -> String? {
        guard case .string(let text) = node.value else {
            typeError(node, expected: "a string", path: path, hint: hint)
            return nil
        }
        return text
    }

    mutating func zone(named name: String, at position: SourcePosition, path: KeyPath) -> ZoneInfo? {
        guard let zone = ZoneInfo(named: name) else {
            error(
                UpdatePolicyCode.invalidTimeZone, "'\(name)' is not an IANA time zone", at: position, path: path,
                hint: "write a tz database name such as Europe/Berlin or America/New_York")
            return nil
        }
        return zone
    }

    mutating func locale(_ node: PlistNode, path: KeyPath) -> LocaleTag? {
        parsed(
            node, path: path, code: UpdatePolicyCode.invalidLocale, what: "a locale tag", typeHint: nil,
            hint: "for example en, fr_CA, zh-Hant-TW", LocaleTag.init)
    }

    /// A value written as a string (a number is `invalid_type`, with `typeHint`) and parsed by `parse`; text it does
    /// not parse is an error of `code` saying it is not `what`, with `hint`.
    mutating func parsed<T>(
        _ node: PlistNode, path: KeyPath, code: DiagnosticCode, what: String,
        typeHint: String? = "write the version as a string", hint: String? = nil, _ parse: (String) -> T?
    ) -> T? {
        guard let text = string(node, path: path, hint: typeHint) else { return nil }
        guard let value = parse(text) else {
            error(code, "'\(text)' is not \(what)", at: node.position, path: path, hint: hint)
            return nil
        }
        return value
    }

    mutating func dateTime(_ node: PlistNode, path: KeyPath) -> PolicyDateTime? {
        if case .date(let date) = node.value {
            let seconds = date.secondsSince1970
            let whole = seconds.rounded(.down)
            return PolicyDateTime(instant: Instant(seconds: Int64(whole), nanoseconds: Int32((seconds - whole) * 1e9)))
        }
        return parsed(
            node, path: path, code: UpdatePolicyCode.invalidDateTime, what: "a date-time", typeHint: nil,
            hint: "write YYYY-MM-DDTHH:MM:SS, with Z or ±HH:MM for an absolute instant"
        ) { PolicyDateTime($0) }
    }

    mutating func duration(_ node: PlistNode, path: KeyPath) -> PolicyDuration? {
        parsed(
            node, path: path, code: UpdatePolicyCode.invalidDuration, what: "a duration", typeHint: nil,
            hint: "for example 7d, 36h, 1h30m (at most 3650d)", PolicyDuration.init)
    }

    mutating func integer(_ node: PlistNode, path: KeyPath) -> Int64? {
        guard case .integer(let value) = node.value else {
            typeError(node, expected: "an integer", path: path)
            return nil
        }
        return value
    }

    /// A non-empty array of strings, each turned into a value by `parse` (nil reports its own finding).
    mutating func list<T>(_ node: PlistNode, path: KeyPath, _ parse: (inout PolicyReader, PlistNode, KeyPath) -> T?)
        -> [T]?
    {
        guard case .array(let items) = node.value else {
            typeError(node, expected: "an array", path: path)
            return nil
        }
        if items.isEmpty {
            error(
                UpdatePolicyCode.emptyList, "'\(path.description)' is empty", at: node.position, path: path,
                hint: "leave the key out to mean all")
            return nil
        }
        var values: [T] = []
        var failed = false
        for (index, item) in items.enumerated() {
            if let value = parse(&self, item, path.appending(index: index)) {
                values.append(value)
            } else {
                failed = true
            }
        }
        return failed ? nil : values
    }

    /// The literal text of a number at `node`, read back from the source (both readers keep positions), so a
    /// percent is exact; binary plists have no text: the shortest decimal of the stored double is used.
    func literal(_ node: PlistNode) -> String? {
        switch node.value {
        case .string(let text): return text
        case .integer(let value): return String(value)
        case .real(let value):
            guard let offset = node.position.offset, node.position.line != nil, offset < source.count else {
                return PlistWriter.realText(value)
            }
            var index = offset
            if source[index] == 0x3C {  // XML: skip the start tag
                while index < source.count, source[index] != 0x3E { index += 1 }
                index += 1
            }
            let start = index
            while index < source.count, source[index] != 0x3C, source[index] != 0x2C, source[index] != 0x7D,
                source[index] != 0x5D, source[index] > 0x20
            {
                index += 1
            }
            return String(decoding: source[start..<index], as: UTF8.self)
        default: return nil
        }
    }
}
