import MDMDiagnostics
import PropertyList
import Yams

/// Apple's own schemas: the YAML files of the `apple/device-management` repository (profile payloads, DDM
/// declarations, status items, MDM commands), compiled into the one schema model. The format is described in that
/// repository's `docs/schema.md`; the *Apple's schemas* article says how each field maps.
///
/// Every field of the format is read. A field the format does not have, or a value of the wrong type, is a lint
/// finding with the file's line and column; nothing is dropped without saying so.
public struct AppleSchemaImporter: Sendable {
    /// An importer; it holds no state.
    public init() {}

    /// The kinds of schema the repository holds, named by the field of `payload` that gives the type.
    public static let typeFields = [
        "payloadtype", "declarationtype", "statusitemtype", "requesttype", "credentialtype",
    ]

    /// True for YAML whose top level has a `payload` mapping: what every file of Apple's repository has. Judged
    /// from the text (no parse), so a plist or specfile never pays for YAML.
    public static func recognizes(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first != UInt8(ascii: "<"), first != UInt8(ascii: "{"), first != UInt8(ascii: "[")
        else { return false }
        // A top-level `payload:` line.
        var lineStart = true
        var index = 0
        let needle = Array("payload:".utf8)
        while index < bytes.count {
            if lineStart, bytes.count - index >= needle.count, Array(bytes[index..<index + needle.count]) == needle {
                return true
            }
            lineStart = bytes[index] == 0x0A
            index += 1
        }
        return false
    }

    /// The schema in `bytes` (the file at `path`) with every lint finding; a file that does not parse, or names no
    /// type, gives no schema.
    public func load(_ bytes: [UInt8], path: String) -> SchemaLoad {
        var reader = Reader(path: path)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            reader.error(PlistCode.invalidEncoding, "the file is not UTF-8", nil)
            return SchemaLoad(schema: nil, diagnostics: reader.diagnostics)
        }
        let root: Node?
        do {
            (root, reader.recursiveLines) = try Self.compose(text)
        } catch let error as YamlError {
            reader.error(SchemaCode.yamlSyntax, Self.message(error), Self.mark(error))
            return SchemaLoad(schema: nil, diagnostics: reader.diagnostics)
        } catch {
            reader.error(SchemaCode.yamlSyntax, "\(error)", nil)
            return SchemaLoad(schema: nil, diagnostics: reader.diagnostics)
        }
        guard case .mapping(let top)? = root, let payload = Fields(top)["payload"]?.mapping else {
            reader.error(
                SchemaCode.notASchema, "YAML without a top-level 'payload' mapping is not one of Apple's schemas",
                root?.mark)
            return SchemaLoad(schema: nil, diagnostics: reader.diagnostics)
        }
        return reader.schema(top: top, payload: payload)
    }

    /// The YAML's root node. Apple describes recursive structures (an application's helper applications, a
    /// folder's pages of icons) with an alias inside its own anchor, which a YAML composer cannot build: each
    /// such alias is replaced by an empty list, and its line returned, so the key is known to repeat an
    /// enclosing structure (checked one level deep).
    static func compose(_ text: String) throws -> (Node?, Set<Int>) {
        var text = text
        var recursive: Set<Int> = []
        for _ in 0..<64 {
            do {
                return (try Yams.compose(yaml: text, .basic), recursive)
            } catch let error as YamlError {
                guard case .composer(_, let problem, let mark, _) = error, problem == "found undefined alias",
                    let replaced = replaceAlias(in: text, at: mark)
                else { throw error }
                text = replaced
                recursive.insert(mark.line)
            }
        }
        return (try Yams.compose(yaml: text, .basic), recursive)
    }

    /// `text` with the alias (`*name`) at `mark` replaced by `[]`.
    static func replaceAlias(in text: String, at mark: Mark) -> String? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard mark.line >= 1, mark.line <= lines.count else { return nil }
        let line = Array(lines[mark.line - 1].unicodeScalars)
        let start = mark.column - 1
        guard start >= 0, start < line.count, line[start] == "*" else { return nil }
        var end = start + 1
        while end < line.count, line[end] != " ", line[end] != ",", line[end] != "]", line[end] != "}" { end += 1 }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: line[..<start])
        scalars.append(contentsOf: "[]".unicodeScalars)
        scalars.append(contentsOf: line[end...])
        lines[mark.line - 1] = String(scalars)
        return lines.joined(separator: "\n")
    }

    static func message(_ error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _):
            "the YAML does not parse: \(problem)"
        default: "the YAML does not parse: \(error)"
        }
    }

    static func mark(_ error: YamlError) -> Mark? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark
        default: nil
        }
    }
}

extension AppleSchemaImporter {
    static let topFields: Set<String> = [
        "title", "description", "payload", "payloadkeys", "responsekeys", "reasons", "notes", "related-status-items",
    ]
    static let payloadFields: Set<String> = Set(typeFields).union(["supportedOS", "apply", "content", "beta"])
    static let keyFields: Set<String> = [
        "key", "title", "supportedOS", "type", "subtype", "valuetype", "assettypes", "presence", "rangelist", "range",
        "default", "format", "repetition", "combinetype", "content", "subkeytype", "subkeys", "asset-content-types",
    ]
    static let platforms = ["iOS", "macOS", "tvOS", "visionOS", "watchOS"]
    static let platformFields: Set<String> = [
        "introduced", "deprecated", "removed", "accessrights", "multiple", "devicechannel", "userchannel",
        "supervised", "requiresdep", "userapprovedmdm", "allowmanualinstall", "sharedipad", "userenrollment",
        "always-skippable", "allowed-enrollments", "allowed-scopes", "beta",
    ]
    /// The true-or-false facts of a platform, and where each goes (key paths are immutable, never written).
    nonisolated(unsafe) static let flags: [(String, WritableKeyPath<PlatformRules, Bool?>)] = [
        ("supervised", \.supervised), ("requiresdep", \.requiresDEP), ("userapprovedmdm", \.userApprovedMDM),
        ("multiple", \.multiple), ("allowmanualinstall", \.allowManualInstall), ("devicechannel", \.deviceChannel),
        ("userchannel", \.userChannel), ("always-skippable", \.alwaysSkippable), ("beta", \.beta),
    ]
    static let modeFields: Set<String> = ["mode", "behavior", "devicechannel", "userchannel", "allowed-scopes"]
    static let types: [String: ValueType?] = [
        "<string>": .string, "<integer>": .integer, "<real>": .real, "<boolean>": .boolean, "<date>": .date,
        "<data>": .data, "<array>": .array, "<dictionary>": .dictionary, "<any>": nil,
    ]
    static let valueTypes: Set<String> = [
        "domain", "domain-prefix", "email", "hostname", "localtime", "regex", "timestamp", "url", "uuid",
    ]

    /// Walks one file, collecting its findings.
    struct Reader {
        let path: String
        var diagnostics: [Diagnostic] = []
        /// Lines whose alias to an enclosing anchor was replaced (see ``AppleSchemaImporter/compose(_:)``).
        var recursiveLines: Set<Int> = []

        init(path: String) { self.path = path }

        func position(_ mark: Mark?) -> SourcePosition {
            mark.map { SourcePosition(line: $0.line, column: $0.column) } ?? .unknown
        }

        mutating func error(_ code: DiagnosticCode, _ message: String, _ mark: Mark?, hint: String? = nil) {
            diagnostics.append(
                Diagnostic(
                    code, severity: .error, message: message,
                    location: SourceLocation(file: path, position: position(mark)), hint: hint))
        }

        mutating func warning(_ code: DiagnosticCode, _ message: String, _ mark: Mark?, hint: String? = nil) {
            diagnostics.append(
                Diagnostic(
                    code, severity: .warning, message: message,
                    location: SourceLocation(file: path, position: position(mark)), hint: hint))
        }

        /// Warns of every field of `mapping` not in `known`.
        mutating func checkFields(_ mapping: Node.Mapping, _ known: Set<String>, in place: String) {
            for (key, _) in mapping {
                guard case .scalar(let scalar) = key, !known.contains(scalar.string) else { continue }
                let name = scalar.string
                warning(
                    SchemaCode.unknownAppleField, "'\(name)' is not a field of \(place) in Apple's schema format",
                    key.mark, hint: "the fields are \(known.sorted().joined(separator: ", "))")
            }
        }

        mutating func string(_ node: Node?, _ field: String) -> String? {
            guard let node else { return nil }
            guard case .scalar(let scalar) = node else {
                error(SchemaCode.invalidAppleValue, "'\(field)' must be a string", node.mark)
                return nil
            }
            return scalar.string
        }

        mutating func bool(_ node: Node?, _ field: String) -> Bool? {
            guard let node else { return nil }
            guard let value = node.bool else {
                error(SchemaCode.invalidAppleValue, "'\(field)' must be true or false", node.mark)
                return nil
            }
            return value
        }

        mutating func strings(_ node: Node?, _ field: String) -> [String]? {
            guard let node else { return nil }
            guard case .sequence(let items) = node else {
                error(SchemaCode.invalidAppleValue, "'\(field)' must be a list", node.mark)
                return nil
            }
            return items.compactMap { string($0, field) }
        }

        mutating func schema(top: Node.Mapping, payload: Node.Mapping) -> SchemaLoad {
            checkFields(top, AppleSchemaImporter.topFields, in: "the top level")
            checkFields(payload, AppleSchemaImporter.payloadFields, in: "'payload'")
            let top = Fields(top)
            let payload = Fields(payload)
            var kind: AppleSchemaKind?
            var id: String?
            for field in AppleSchemaImporter.typeFields {
                if let value = string(payload[field], field) {
                    if id == nil {
                        id = value
                        kind = AppleSchemaKind(field: field)
                    }
                }
            }
            if id == nil, let code = errorCode(top["payloadkeys"]) {
                // An MDM error response (`mdm/errors`): named by the one value of its `code` key.
                id = code
                kind = .errorResponse
            }
            guard let id, let kind else {
                error(
                    SchemaCode.notASchema,
                    "'payload' names no type (\(AppleSchemaImporter.typeFields.joined(separator: ", ")))",
                    top["payload"]?.mark)
                return SchemaLoad(schema: nil, diagnostics: diagnostics)
            }
            let availability = supportedOS(payload["supportedOS"], inheriting: Availability())
            let keys = self.keys(top["payloadkeys"], field: "payloadkeys", inheriting: availability, at: "")
            var schema = ConfigSchema(
                id: id, format: .apple, path: path, title: string(top["title"], "title"), keys: keys)
            var apple = AppleSchemaFacts(kind: kind, availability: availability)
            apple.apply = string(payload["apply"], "apply")
            apple.content = string(payload["content"], "content")
            apple.relatedStatusItems = relatedStatusItems(top["related-status-items"])
            apple.responseKeys = self.keys(
                top["responsekeys"], field: "responsekeys", inheriting: availability, at: "")
            for field in ["reasons", "notes"] {
                guard let node = top[field] else { continue }
                guard case .sequence = node else {
                    error(SchemaCode.invalidAppleValue, "'\(field)' must be a list", node.mark)
                    continue
                }
            }
            schema.apple = apple
            schema.description = string(top["description"], "description")
            return SchemaLoad(schema: schema, diagnostics: diagnostics)
        }

        /// The single `rangelist` value of a top-level `code` key: what names an MDM error response.
        func errorCode(_ node: Node?) -> String? {
            guard case .sequence(let items)? = node else { return nil }
            for item in items {
                guard case .mapping(let mapping) = item, case let fields = Fields(mapping),
                    fields["key"]?.string == "code", case .sequence(let values)? = fields["rangelist"],
                    values.count == 1
                else { continue }
                return values[0].string
            }
            return nil
        }

        /// `related-status-items`: the status items a declaration's state is reported in.
        mutating func relatedStatusItems(_ node: Node?) -> [String] {
            guard let node else { return [] }
            guard case .sequence(let items) = node else {
                error(SchemaCode.invalidAppleValue, "'related-status-items' must be a list", node.mark)
                return []
            }
            var names: [String] = []
            for item in items {
                switch item {
                case .scalar(let scalar): names.append(scalar.string)
                case .mapping(let mapping):
                    checkFields(mapping, ["status-items", "note"], in: "'related-status-items'")
                    names += strings(Fields(mapping)["status-items"], "status-items") ?? []
                default:
                    error(SchemaCode.invalidAppleValue, "'related-status-items' lists status items", item.mark)
                }
            }
            return names
        }

        /// `payloadkeys`, `responsekeys` or `subkeys`: a list of key mappings.
        mutating func keys(_ node: Node?, field: String, inheriting: Availability, at parent: String) -> [KeySpec] {
            guard let node else { return [] }
            guard case .sequence(let items) = node else {
                error(SchemaCode.invalidAppleValue, "'\(field)' must be a list of keys", node.mark)
                return []
            }
            var result: [KeySpec] = []
            var seen: Set<String> = []
            for item in items {
                guard case .mapping(let mapping) = item else {
                    error(SchemaCode.invalidAppleValue, "each item of '\(field)' must be a key mapping", item.mark)
                    continue
                }
                guard let spec = key(mapping, inheriting: inheriting, at: parent, mark: item.mark) else { continue }
                if seen.contains(spec.name) {
                    error(
                        SchemaCode.duplicateKeyName, "'\(parent)\(spec.name)' is declared twice in '\(field)'",
                        Fields(mapping)["key"]?.mark)
                }
                seen.insert(spec.name)
                result.append(spec)
            }
            return result
        }

        /// One key mapping.
        mutating func key(_ mapping: Node.Mapping, inheriting: Availability, at parent: String, mark: Mark?)
            -> KeySpec?
        {
            checkFields(mapping, AppleSchemaImporter.keyFields, in: "a key")
            let mapping = Fields(mapping)
            guard let name = string(mapping["key"], "key") else {
                error(SchemaCode.invalidAppleValue, "a key without 'key' (its name)", mark)
                return nil
            }
            let path = parent + name
            var spec = KeySpec(name: name, position: position(mapping["key"]?.mark ?? mark))
            spec.title = string(mapping["title"], "title")
            spec.description = string(mapping["content"], "content")
            if let typeNode = mapping["type"], let typeName = string(typeNode, "type") {
                if let type = AppleSchemaImporter.types[typeName] {
                    spec.types = type.map { [$0] } ?? []
                } else {
                    error(
                        SchemaCode.invalidAppleValue, "'\(path)' has type '\(typeName)', which is not a type",
                        typeNode.mark,
                        hint: "the types are \(AppleSchemaImporter.types.keys.sorted().joined(separator: " "))")
                }
            } else if mapping["type"] == nil {
                error(SchemaCode.invalidAppleValue, "'\(path)' has no 'type'", mapping["key"]?.mark)
            }
            if let presenceNode = mapping["presence"], let presence = string(presenceNode, "presence") {
                switch presence {
                case "required": spec.required = true
                case "optional": spec.required = false
                default:
                    error(
                        SchemaCode.invalidAppleValue, "'\(path)' has presence '\(presence)'", presenceNode.mark,
                        hint: "required or optional")
                }
            }
            var facts = AppleKeyFacts()
            for field in ["valuetype", "subtype"] {
                guard let node = mapping[field], var value = string(node, field) else { continue }
                // The deprecated `subtype` was written in angle brackets, as types are: `<url>`.
                if field == "subtype", value.hasPrefix("<"), value.hasSuffix(">") {
                    value = String(value.dropFirst().dropLast())
                }
                if AppleSchemaImporter.valueTypes.contains(value) {
                    facts.valueType = value
                } else {
                    error(
                        SchemaCode.invalidAppleValue, "'\(path)' has \(field) '\(value)'", node.mark,
                        hint: AppleSchemaImporter.valueTypes.sorted().joined(separator: ", "))
                }
            }
            facts.combineType = string(mapping["combinetype"], "combinetype")
            facts.assetTypes = strings(mapping["assettypes"], "assettypes")
            facts.subkeyType = string(mapping["subkeytype"], "subkeytype")
            facts.assetContentTypes = strings(mapping["asset-content-types"], "asset-content-types")
            spec.availability = supportedOS(mapping["supportedOS"], inheriting: inheriting)
            facts.inherited = inheriting
            if let node = mapping["repetition"] {
                let (low, high) = bounds(node, field: "repetition", path: path)
                spec.minCount = low.map { Int($0) }
                spec.maxCount = high.map { Int($0) }
            }
            if let node = mapping["range"] {
                let (low, high) = bounds(node, field: "range", path: path)
                spec.minimum = low.map { .number($0) }
                spec.maximum = high.map { .number($0) }
            }
            if let node = mapping["format"], let source = string(node, "format") {
                do {
                    spec.pattern = try Pattern(source)
                } catch {
                    self.error(
                        SchemaCode.invalidPattern, "'\(path)' has a format that does not compile: \(error)",
                        node.mark)
                }
            }
            let valueType = spec.types.count == 1 ? spec.types[0] : nil
            if let node = mapping["rangelist"] {
                if case .sequence(let items) = node {
                    spec.allowedValues = items.compactMap { item in
                        value(item, as: valueType, field: "rangelist", path: path).map { AllowedValue($0) }
                    }
                } else {
                    error(SchemaCode.invalidAppleValue, "'\(path)': 'rangelist' must be a list", node.mark)
                }
            }
            if let node = mapping["default"] {
                spec.defaultValue = value(node, as: valueType, field: "default", path: path)
                if let value = spec.defaultValue, let allowed = spec.allowedValues, !allowed.isEmpty,
                    !allowed.contains(where: { $0.value == value })
                {
                    error(
                        SchemaCode.defaultViolatesConstraint,
                        "the default of '\(path)' is not one of its 'rangelist' values", node.mark)
                }
            }
            if let node = mapping["subkeys"], let line = node.mark?.line, recursiveLines.contains(line) {
                // It repeats an enclosing structure: checked one level deep, deeper levels take any value.
                facts.recursive = true
            } else if let node = mapping["subkeys"] {
                let children = keys(node, field: "subkeys", inheriting: spec.availability, at: path + ".")
                switch valueType {
                case .array?:
                    if children.count == 1 {
                        spec.items = children
                    } else {
                        // Items of several shapes (the Settings command's list): each item is one of them.
                        facts.itemAlternatives = children
                    }
                case .dictionary?, nil:
                    var named: [KeySpec] = []
                    for child in children {
                        if child.name == "ANY" { spec.additionalValue.append(child) } else { named.append(child) }
                    }
                    // A dictionary whose only key is ANY takes keys of any name; otherwise the named keys.
                    spec.children = named.isEmpty && !spec.additionalValue.isEmpty ? [] : named
                default:
                    // A scalar with subkeys: Apple's way of describing the values of a list of scalars.
                    spec.items = children
                }
            }
            spec.apple = facts
            return spec
        }

        /// `range` or `repetition`: `min` and `max`, numbers, min not above max.
        mutating func bounds(_ node: Node, field: String, path: String) -> (Double?, Double?) {
            guard case .mapping(let mapping) = node else {
                error(SchemaCode.invalidAppleValue, "'\(path)': '\(field)' must have 'min' and/or 'max'", node.mark)
                return (nil, nil)
            }
            checkFields(mapping, ["min", "max"], in: "'\(field)'")
            func number(_ name: String) -> Double? {
                guard let node = mapping[name] else { return nil }
                guard let value = node.float else {
                    error(SchemaCode.invalidConstraintValue, "'\(path)': '\(field).\(name)' is not a number", node.mark)
                    return nil
                }
                return value
            }
            let low = number("min")
            let high = number("max")
            if let low, let high, low > high {
                error(
                    SchemaCode.minGreaterThanMax,
                    "'\(path)': '\(field)' has min \(Bound.number(low)) above max \(Bound.number(high))", node.mark)
            }
            return (low, high)
        }

        /// A `rangelist` item or a `default` as a value of the key's type.
        mutating func value(_ node: Node, as type: ValueType?, field: String, path: String) -> PlistValue? {
            func bad() -> PlistValue? {
                error(
                    SchemaCode.invalidConstraintValue,
                    "'\(path)': the \(field) value '\(node.string ?? "…")' is not a \(type?.rawValue ?? "scalar")",
                    node.mark)
                return nil
            }
            switch type {
            case .string?: return node.string.map { .string($0) } ?? bad()
            case .integer?: return node.int.map { .integer(Int64($0)) } ?? bad()
            case .real?: return node.float.map { .real($0) } ?? bad()
            case .boolean?: return node.bool.map { .boolean($0) } ?? bad()
            default:
                // An array's rangelist lists its items' values; any other type keeps the scalar as written.
                guard case .scalar(let scalar) = node else { return bad() }
                if let integer = node.int { return .integer(Int64(integer)) }
                if let bool = node.bool { return .boolean(bool) }
                if let real = node.float, scalar.style == .plain { return .real(real) }
                return .string(scalar.string)
            }
        }

        /// A `supportedOS` mapping over what the key inherits: a platform it names replaces the inherited facts it
        /// names; the platforms it does not name stay as inherited.
        mutating func supportedOS(_ node: Node?, inheriting: Availability) -> Availability {
            var result = inheriting
            guard let node else { return result }
            guard case .mapping(let mapping) = node else {
                error(SchemaCode.invalidAppleValue, "'supportedOS' must map platforms to their support", node.mark)
                return result
            }
            checkFields(mapping, Set(AppleSchemaImporter.platforms), in: "'supportedOS'")
            let named = Fields(mapping)
            for platform in AppleSchemaImporter.platforms {
                guard let platformNode = named[platform] else { continue }
                let key = platform.lowercased()
                guard case .mapping(let factsMapping) = platformNode else {
                    // `iOS: {}` or an empty value: supported, nothing more said.
                    if platformNode.null == nil {
                        error(
                            SchemaCode.invalidAppleValue, "'supportedOS.\(platform)' must be a mapping",
                            platformNode.mark)
                    }
                    continue
                }
                checkFields(factsMapping, AppleSchemaImporter.platformFields, in: "'supportedOS.\(platform)'")
                let facts = Fields(factsMapping)
                if let introduced = string(facts["introduced"], "introduced") {
                    if introduced == "n/a" {
                        result.unsupported.insert(key)
                        result.introduced[key] = nil
                    } else {
                        result.unsupported.remove(key)
                        result.introduced[key] = introduced
                    }
                }
                if let deprecated = string(facts["deprecated"], "deprecated") { result.deprecated[key] = deprecated }
                if let removed = string(facts["removed"], "removed") { result.removedIn[key] = removed }
                var rules = result.rules[key] ?? PlatformRules()
                for (field, flag) in AppleSchemaImporter.flags {
                    if let value = bool(facts[field], field) { rules[keyPath: flag] = value }
                }
                if let value = string(facts["accessrights"], "accessrights") { rules.accessRights = value }
                if let value = strings(facts["allowed-enrollments"], "allowed-enrollments") {
                    rules.allowedEnrollments = value
                }
                if let value = strings(facts["allowed-scopes"], "allowed-scopes") { rules.allowedScopes = value }
                if let value = mode(facts["userenrollment"], "\(platform).userenrollment") {
                    rules.userEnrollment = value
                }
                if let value = mode(facts["sharedipad"], "\(platform).sharedipad") { rules.sharedIPad = value }
                result.rules[key] = rules
            }
            result.platforms = AppleSchemaImporter.platforms.filter {
                result.introduced[$0.lowercased()] != nil && !result.unsupported.contains($0.lowercased())
            }
            return result
        }

        /// `userenrollment` or `sharedipad`: its `mode`.
        mutating func mode(_ node: Node?, _ field: String) -> EnrollmentMode? {
            guard let node else { return nil }
            guard case .mapping(let mapping) = node else {
                error(SchemaCode.invalidAppleValue, "'\(field)' must be a mapping with 'mode'", node.mark)
                return nil
            }
            checkFields(mapping, AppleSchemaImporter.modeFields, in: "'\(field)'")
            guard let modeNode = mapping["mode"], let text = string(modeNode, "mode") else { return nil }
            guard let mode = EnrollmentMode(rawValue: text) else {
                error(
                    SchemaCode.invalidAppleValue, "'\(field).mode' is '\(text)'", modeNode.mark,
                    hint: "allowed, required, forbidden or ignored")
                return nil
            }
            return mode
        }
    }
}

/// A mapping's values by their string keys, read once (the first of a key said twice): every field the importer
/// reads goes through it. Looking a field up in a `Node.Mapping` itself walks the mapping and copies each pair on the
/// way, and the importer looks up some twenty fields of every key: that was half of importing a large schema.
private struct Fields {
    private var values: [String: Node] = [:]

    init(_ mapping: Node.Mapping) {
        values.reserveCapacity(mapping.count)
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key, values[scalar.string] == nil else { continue }
            values[scalar.string] = value
        }
    }

    subscript(name: String) -> Node? { values[name] }
}

/// Which of Apple's kinds of schema a file is, from the field of `payload` that names its type.
public enum AppleSchemaKind: String, Sendable {
    /// A configuration-profile payload (`payloadtype`).
    case profile
    /// A declarative-management declaration (`declarationtype`).
    case declaration
    /// A declarative-management status item (`statusitemtype`).
    case statusItem = "status-item"
    /// An MDM command, check-in message or DDM protocol message (`requesttype`).
    case command
    /// The data of a credential asset (`credentialtype`).
    case credential
    /// An MDM server's error response (`mdm/errors`).
    case errorResponse = "error-response"

    init?(field: String) {
        switch field {
        case "payloadtype": self = .profile
        case "declarationtype": self = .declaration
        case "statusitemtype": self = .statusItem
        case "requesttype": self = .command
        case "credentialtype": self = .credential
        default: return nil
        }
    }
}

/// What one of Apple's schemas says of itself as a whole.
public struct AppleSchemaFacts: Sendable {
    /// Which kind of schema the file is.
    public var kind: AppleSchemaKind
    /// The payload's `supportedOS`: platforms, versions and enrollment rules.
    public var availability: Availability
    /// How several configurations of this type combine (`apply`).
    public var apply: String?
    /// What the payload is, in Apple's words.
    public var content: String?
    /// An MDM command's response keys.
    public var responseKeys: [KeySpec] = []
    /// The status items that report on a declaration of this type.
    public var relatedStatusItems: [String] = []

    /// Facts of a schema of `kind` supported as `availability` says.
    public init(kind: AppleSchemaKind, availability: Availability) {
        self.kind = kind
        self.availability = availability
    }
}

/// What Apple's schemas say of a key that the other formats do not.
public struct AppleKeyFacts: Sendable {
    /// The string's format (`url`, `uuid`, `hostname`, …; `valuetype`, formerly `subtype`).
    public var valueType: String?
    /// How the key combines across declarations (`boolean-and`, `number-max`, …).
    public var combineType: String?
    /// The declaration types an asset reference may name.
    public var assetTypes: [String]?
    /// The name of the structure of this key's subkeys.
    public var subkeyType: String?
    /// The content types an asset's data may have (`asset-content-types`).
    public var assetContentTypes: [String]?
    /// The key's subkeys repeat an enclosing structure (its items are checked one level deep).
    public var recursive = false
    /// An array whose items each take one of several shapes.
    public var itemAlternatives: [KeySpec] = []
    /// What the key or payload it sits in supports: the validator reports only what the key restricts beyond it,
    /// so a supervised-only payload is said once, not once per key.
    public var inherited: Availability?

    /// Facts that say nothing.
    public init() {}
}
