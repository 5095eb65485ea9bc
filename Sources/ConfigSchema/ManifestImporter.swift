import MDMDiagnostics
import PropertyList

/// Imports a ProfileManifest (`pfm_*` plist, *Schemas and validation*) into a `ConfigSchema`. Real manifests
/// have defects; each is a lint finding, and the importer keeps what it can safely read.
public struct ManifestImporter: Sendable {
    /// The limits the manifest is read with.
    public var readerOptions: PlistReaderOptions

    /// An importer reading with `readerOptions`.
    public init(readerOptions: PlistReaderOptions = PlistReaderOptions()) { self.readerOptions = readerOptions }

    static let knownKeys: Set<String> = [
        "pfm_allowed_file_types", "pfm_app_deprecated", "pfm_app_max", "pfm_app_min", "pfm_app_url", "pfm_conditionals",
        "pfm_conflicts", "pfm_contains_any", "pfm_date_allow_past", "pfm_date_style", "pfm_default", "pfm_description",
        "pfm_description_reference", "pfm_distribution", "pfm_documentation_url", "pfm_domain", "pfm_enabled",
        "pfm_exclude", "pfm_format", "pfm_format_version", "pfm_hidden", "pfm_imazing_control_type",
        "pfm_imazing_type_adapter", "pfm_interaction", "pfm_ios_deprecated", "pfm_ios_max", "pfm_ios_min",
        "pfm_last_modified", "pfm_macos_deprecated", "pfm_macos_max", "pfm_macos_min", "pfm_n_contains_any",
        "pfm_n_range_list", "pfm_name", "pfm_note", "pfm_platforms", "pfm_present", "pfm_range_list",
        "pfm_range_list_allow_custom_value", "pfm_range_list_titles", "pfm_range_max", "pfm_range_min",
        "pfm_repetition_max", "pfm_repetition_min", "pfm_require", "pfm_required", "pfm_segments", "pfm_sensitive",
        "pfm_subdomain", "pfm_subkeys", "pfm_supervised", "pfm_target", "pfm_target_conditions", "pfm_targets",
        "pfm_title", "pfm_tvos_deprecated", "pfm_tvos_max", "pfm_tvos_min", "pfm_type", "pfm_type_input", "pfm_unique",
        "pfm_user_approved", "pfm_value_decimal_places", "pfm_value_import_processor", "pfm_value_info_processor",
        "pfm_value_inverted", "pfm_value_keypath", "pfm_value_placeholder", "pfm_value_unique", "pfm_value_unit",
        "pfm_version", "pfm_view", "pfm_visionos_deprecated", "pfm_visionos_max", "pfm_visionos_min",
        "pfm_watchos_deprecated", "pfm_watchos_max", "pfm_watchos_min",
        // The format's extended keys (ProfileCreator, iMazing Profile Editor, the pre-commit manifest checker).
        "pfm_default_copy", "pfm_description_extended", "pfm_documentation_source", "pfm_excluded", "pfm_icon",
        "pfm_imazing_indentation_level", "pfm_n_platforms", "pfm_substitution_variables", "pfm_upk_input_keys",
        "pfm_value_copy", "pfm_value_processor",
    ]
    static let types: [String: ValueType] = [
        "string": .string, "integer": .integer, "real": .real, "float": .real, "boolean": .boolean, "date": .date,
        "data": .data, "array": .array, "dictionary": .dictionary, "dict": .dictionary,
    ]
    /// The envelope of a configuration profile payload: required in a payload, absent from a bare preferences plist.
    static let payloadKeys: Set<String> = [
        "PayloadDescription", "PayloadDisplayName", "PayloadIdentifier", "PayloadType", "PayloadUUID", "PayloadVersion",
        "PayloadOrganization", "PayloadEnabled", "PayloadScope",
    ]
    static let platforms = [
        "ios": "iOS", "macos": "macOS", "tvos": "tvOS", "watchos": "watchOS", "visionos": "visionOS",
    ]

    /// The documented keys an unknown `pfm_` key most likely meant: a near spelling (`pfm_tile` → `pfm_title`), else
    /// the keys it starts (`pfm_documentation` → `pfm_documentation_source`, `pfm_documentation_url`), else the one
    /// key of as many `_` parts, with the same last part, that differs in one other part
    /// (`pfm_documentation_reference` → `pfm_description_reference`). Empty when nothing is near.
    static func nearestKeys(to key: String) -> [String] {
        let known = knownKeys.sorted()
        if let close = Suggestion.closest(to: key, in: known) { return [close] }
        let extended = known.filter { $0.hasPrefix(key + "_") }
        if !extended.isEmpty { return extended }
        let parts = key.split(separator: "_")
        let oneOff = known.filter { candidate in
            let other = candidate.split(separator: "_")
            return other.count == parts.count && other.last == parts.last
                && zip(parts, other).filter { $0 != $1 }.count == 1
        }
        return oneOff.count == 1 ? oneOff : []
    }

    /// `{{key}}` or `{{value}}` when a subkey is that placeholder, else nil.
    static func placeholder(_ node: PlistNode) -> String? {
        guard case .dictionary(let dict) = node.value, case .string(let name)? = dict["pfm_name"]?.value,
            name == "{{key}}" || name == "{{value}}"
        else { return nil }
        return name
    }

    /// Whether a declaration's `pfm_exclude` excludes it while its own key is present (`pfm_target` = its name,
    /// `pfm_present: true`).
    static func excludesItselfWhenSet(_ dict: PlistDictionary, name: String) -> Bool {
        guard case .array(let groups)? = dict["pfm_exclude"]?.value else { return false }
        return groups.contains { group in
            guard case .dictionary(let group) = group.value,
                case .array(let targets)? = group["pfm_target_conditions"]?.value
            else { return false }
            return targets.contains { target in
                guard case .dictionary(let condition) = target.value else { return false }
                return condition["pfm_target"]?.value == .string(name)
                    && condition["pfm_present"]?.value == .boolean(true)
            }
        }
    }

    /// True when `document` is a manifest (a dict with `pfm_domain`).
    public static func recognizes(_ document: PlistDocument) -> Bool {
        guard case .dictionary(let dict)? = document.root?.value else { return false }
        return dict["pfm_domain"] != nil || dict["pfm_subkeys"] != nil
    }

    /// The manifest in `bytes` (reported as `path`) as a schema, with every lint finding.
    public func load(_ bytes: [UInt8], path: String) -> SchemaLoad {
        load(PropertyListReader(options: readerOptions).read(bytes, file: path))
    }

    /// The manifest already read into `document` as a schema, with every lint finding.
    public func load(_ document: PlistDocument) -> SchemaLoad {
        var lint = ManifestLint(file: document.file)
        lint.diagnostics = document.diagnostics
        guard case .dictionary(let root)? = document.root?.value, let rootNode = document.root else {
            if !document.hasErrors {
                lint.report(
                    SchemaCode.notASchema, .error, "a ProfileManifest is a <dict> with pfm_domain",
                    at: document.root?.position ?? .unknown, path: .root)
            }
            return SchemaLoad(schema: nil, diagnostics: lint.diagnostics)
        }
        guard case .string(let domain)? = root["pfm_domain"]?.value else {
            lint.report(
                SchemaCode.notASchema, .error, "the manifest has no pfm_domain string", at: rootNode.position,
                path: .root,
                hint: "pfm_domain names the preference domain the manifest describes")
            return SchemaLoad(schema: nil, diagnostics: lint.diagnostics)
        }
        lint.checkKeys(root, path: .root)
        var keys: [KeySpec] = []
        if case .array(let subkeys)? = root["pfm_subkeys"]?.value {
            keys = lint.importMembers(subkeys, path: .root)
        }
        for index in keys.indices where ManifestImporter.payloadKeys.contains(keys[index].name) {
            keys[index].required = false
        }
        let title: String? = if case .string(let text)? = root["pfm_title"]?.value { text } else { nil }
        return SchemaLoad(
            schema: ConfigSchema(id: domain, format: .manifest, path: document.file, title: title, keys: keys),
            diagnostics: lint.diagnostics)
    }
}

struct ManifestLint {
    let file: String
    var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    mutating func report(
        _ code: DiagnosticCode, _ severity: Severity, _ message: String, at position: SourcePosition, path: KeyPath,
        hint: String? = nil
    ) {
        diagnostics.append(
            Diagnostic(
                code, severity: severity, message: message, location: SourceLocation(file: file, position: position),
                keyPath: path.diagnosticValue, hint: hint))
    }

    /// Unknown `pfm_` keys, with a suggestion (`pfm_tile` → `pfm_title`).
    mutating func checkKeys(_ dict: PlistDictionary, path: KeyPath) {
        for entry in dict.entries where entry.key.hasPrefix("pfm_") && !ManifestImporter.knownKeys.contains(entry.key) {
            let near = ManifestImporter.nearestKeys(to: entry.key)
            report(
                SchemaCode.unknownManifestKey, .warning, "'\(entry.key)' is not a ProfileManifests key",
                at: entry.keyPosition, path: path,
                hint: near.isEmpty ? nil : "did you mean " + near.map { "'\($0)'" }.joined(separator: " or ") + "?")
        }
        if let interaction = dict.entry("pfm_interaction"), case .string(let text) = interaction.value.value,
            !["exclusive", "combined", "undefined"].contains(text)
        {
            let close = Suggestion.closest(to: text, in: ["exclusive", "combined", "undefined"])
            report(
                SchemaCode.invalidManifestValue, .warning,
                "pfm_interaction '\(text)' is not exclusive, combined or undefined",
                at: interaction.value.position, path: path, hint: close.map { "did you mean '\($0)'?" })
        }
    }

    mutating func importMembers(_ subkeys: [PlistNode], path: KeyPath) -> [KeySpec] {
        var specs: [KeySpec] = []
        var seen: [String: SourcePosition] = [:]
        for node in subkeys {
            guard case .dictionary(let dict) = node.value else {
                report(
                    SchemaCode.invalidManifestValue, .error, "a pfm_subkeys item is not a dict", at: node.position,
                    path: path)
                continue
            }
            guard case .string(let name)? = dict["pfm_name"]?.value else {
                // Presentation-only entries have no name; a typed entry without one cannot be checked.
                if dict["pfm_type"] != nil && dict["pfm_segments"] == nil {
                    report(
                        SchemaCode.invalidManifestValue, .error, "a dictionary member has pfm_type but no pfm_name",
                        at: node.position, path: path)
                }
                continue
            }
            // Segmented controls are the editor's layout, not configuration keys.
            if name.hasPrefix("PFC_") || dict["pfm_segments"] != nil { continue }
            let keyPath = path.appending(key: name)
            if let first = seen[name] {
                // iMazing's idiom: a pick list, then a free-text "custom" entry of the same key excluded while the key
                // is set, so an editor shows one or the other. Mutually exclusive by construction: a warning.
                let alternative = ManifestImporter.excludesItselfWhenSet(dict, name: name)
                diagnostics.append(
                    Diagnostic(
                        SchemaCode.duplicateKeyName, severity: alternative ? .warning : .error,
                        message: alternative
                            ? "pfm_name '\(name)' is declared twice, the second as an alternative excluded while the key is set; values are checked against the first"
                            : "pfm_name '\(name)' is declared twice",
                        location: SourceLocation(file: file, position: node.position), keyPath: keyPath.description,
                        notes: [.init("first declared here", at: SourceLocation(file: file, position: first))]))
                continue
            }
            seen[name] = node.position
            specs.append(importKey(dict, name: name, at: node.position, path: keyPath))
        }
        return specs
    }

    mutating func importKey(_ dict: PlistDictionary, name: String, at position: SourcePosition, path: KeyPath)
        -> KeySpec
    {
        checkKeys(dict, path: path)
        let fields = ManifestFields(dict)
        var spec = KeySpec(name: name, position: position)
        if let typeEntry = fields[.type] {
            if case .string(let text) = typeEntry.value.value, let type = ManifestImporter.types[text] {
                spec.types = [type]
            } else {
                report(
                    SchemaCode.invalidManifestValue, .error,
                    "pfm_type \(describe(typeEntry.value.value)) is not a plist type",
                    at: typeEntry.value.position, path: path,
                    hint: "types: string, integer, real, boolean, date, data, array, dictionary")
            }
        }
        spec.title = fields.string(.title)
        spec.description = fields.string(.description)
        if case .string(let require)? = fields[.require]?.value.value {
            switch require {
            case "always", "always-nested": spec.required = true
            // Required when an MDM pushes the configuration in a profile, not in a local preferences file.
            case "push": spec.requiredWhen.append([.pushed(true)])
            default:
                report(
                    SchemaCode.invalidManifestValue, .error,
                    "pfm_require '\(require)' is not always, always-nested or push",
                    at: fields[.require]?.value.position ?? position, path: path)
            }
        }
        if case .boolean(true)? = fields[.required]?.value.value { spec.required = true }
        if case .boolean(true)? = fields[.sensitive]?.value.value { spec.sensitive = true }
        if case .boolean(true)? = fields[.valueUnique]?.value.value { spec.uniqueItems = true }
        spec.defaultValue = fields[.defaultValue]?.value.value
        spec.minimum = bound(fields[.rangeMin], "pfm_range_min", path: path)
        spec.maximum = bound(fields[.rangeMax], "pfm_range_max", path: path)
        if case .number(let low)? = spec.minimum, case .number(let high)? = spec.maximum, low > high {
            report(
                SchemaCode.minGreaterThanMax, .error, "pfm_range_min is greater than pfm_range_max", at: position,
                path: path)
        }
        spec.minCount = count(fields[.repetitionMin], "pfm_repetition_min", path: path)
        spec.maxCount = count(fields[.repetitionMax], "pfm_repetition_max", path: path)
        if let format = fields[.format], case .string(let source) = format.value.value {
            do {
                spec.pattern = try Pattern(source)
            } catch {
                report(
                    SchemaCode.invalidPattern, .error, "pfm_format '\(source)' does not compile: \(error)",
                    at: format.value.position, path: path)
            }
        }
        importRangeList(fields, into: &spec, path: path)
        spec.requiredWhen += conditions(fields[.conditionals], "pfm_conditionals", path: path)
        spec.excludedWhen = conditions(fields[.exclude], "pfm_exclude", path: path)
        spec.availability = availability(fields)
        if let version = fields.string(.appDeprecated) {
            spec.deprecation = "deprecated since app version \(version)"
        }
        if case .array(let subkeys)? = fields[.subkeys]?.value.value {
            if spec.types.first == .array {
                // The first subkey describes every item.
                if let first = subkeys.first, case .dictionary(let itemDict) = first.value {
                    let itemName = string(itemDict, "pfm_name") ?? name
                    spec.items = [
                        importKey(itemDict, name: itemName, at: first.position, path: path.appending(index: 0))
                    ]
                }
            } else if let free = subkeys.first(where: { ManifestImporter.placeholder($0) == "{{value}}" }),
                case .dictionary(let valueDict) = free.value
            {
                // A dictionary of free-form keys: `{{key}}` names them, `{{value}}` is the spec of each value.
                spec.children = importMembers(subkeys.filter { ManifestImporter.placeholder($0) == nil }, path: path)
                spec.additionalValue = [
                    importKey(valueDict, name: "{key}", at: free.position, path: path.appending(key: "{key}"))
                ]
                if spec.types.isEmpty { spec.types = [.dictionary] }
            } else {
                spec.children = importMembers(subkeys, path: path)
            }
        }
        checkDefault(spec, default: fields[.defaultValue], path: path)
        return spec
    }

    private mutating func importRangeList(_ fields: ManifestFields, into spec: inout KeySpec, path: KeyPath) {
        guard let list = fields[.rangeList] else { return }
        guard case .array(let items) = list.value.value else {
            report(
                SchemaCode.invalidManifestValue, .error, "pfm_range_list is not an array", at: list.value.position,
                path: path)
            return
        }
        var titles: [String?] = []
        if case .array(let titleNodes)? = fields[.rangeListTitles]?.value.value {
            titles = titleNodes.map { if case .string(let text) = $0.value { text } else { nil } }
        }
        spec.allowedValues = items.enumerated().map { index, node in
            AllowedValue(node.value, title: index < titles.count ? titles[index] : nil)
        }
        if case .boolean(true)? = fields[.rangeListAllowCustomValue]?.value.value { spec.allowsCustomValue = true }
        // For an array key the list constrains its items.
        if spec.types.first == .array {
            var item = spec.items.first ?? KeySpec(name: spec.name)
            item.allowedValues = spec.allowedValues
            item.allowsCustomValue = spec.allowsCustomValue
            spec.items = [item]
            spec.allowedValues = nil
        }
    }

    private mutating func checkDefault(_ spec: KeySpec, default entry: PlistDictionary.Entry?, path: KeyPath) {
        // An empty string is "no default" in every editor (ProfileCreator fills PayloadUUID at creation).
        guard let entry, entry.value.value != .string("") else { return }
        var probe = spec
        probe.required = false
        probe.children = nil
        for finding in Validator.check(
            entry.value.value, against: probe, file: file, at: entry.value.position, path: path)
        where finding.severity == .error {
            report(
                SchemaCode.defaultViolatesConstraint, .error,
                "pfm_default violates the key's own constraint: \(finding.message)",
                at: entry.value.position, path: path,
                hint: "fix pfm_default or the constraint; editors pre-fill this value")
        }
    }

    private mutating func bound(_ entry: PlistDictionary.Entry?, _ key: String, path: KeyPath) -> Bound? {
        guard let entry else { return nil }
        switch entry.value.value {
        case .integer(let value): return .number(Double(value))
        case .real(let value): return .number(value)
        case .date(let date): return .date(date)
        case .string(let text):
            report(
                SchemaCode.invalidManifestValue, .error, "\(key) is the string '\(text)', not a number",
                at: entry.value.position, path: path, hint: "write <integer>\(text)</integer> or <real>\(text)</real>")
            return Double(text.trimmingXMLSpace()).map(Bound.number)
        default:
            report(
                SchemaCode.invalidManifestValue, .error, "\(key) is not a number", at: entry.value.position, path: path)
            return nil
        }
    }

    private mutating func count(_ entry: PlistDictionary.Entry?, _ key: String, path: KeyPath) -> Int? {
        guard let entry else { return nil }
        if case .integer(let value) = entry.value.value, value >= 0 { return Int(value) }
        report(
            SchemaCode.invalidManifestValue, .error, "\(key) is not a non-negative integer", at: entry.value.position,
            path: path)
        return nil
    }

    /// `pfm_conditionals` / `pfm_exclude`: any entry whose target conditions all hold.
    private mutating func conditions(_ entry: PlistDictionary.Entry?, _ key: String, path: KeyPath) -> [[Condition]] {
        guard let entry else { return [] }
        guard case .array(let entries) = entry.value.value else {
            report(
                SchemaCode.invalidManifestValue, .error, "\(key) is not an array", at: entry.value.position, path: path)
            return []
        }
        var result: [[Condition]] = []
        for item in entries {
            guard case .dictionary(let group) = item.value,
                case .array(let targets)? = group["pfm_target_conditions"]?.value
            else { continue }
            var set: [Condition] = []
            // `pfm_require: push` on a conditional: required when the conditions hold and an MDM pushes it.
            if key == "pfm_conditionals", case .string("push")? = group["pfm_require"]?.value {
                set.append(.pushed(true))
            }
            for target in targets {
                if case .dictionary(let condition) = target.value, string(condition, "pfm_target") == nil,
                    case .array(let ways)? = condition["pfm_distribution"]?.value
                {
                    let names = Set(ways.compactMap { if case .string(let text) = $0.value { text } else { nil } })
                    if names == ["push"] || names == ["manual"] {
                        set.append(.pushed(names == ["push"]))
                        continue
                    }
                }
                if case .dictionary(let condition) = target.value, string(condition, "pfm_target") == nil {
                    func names(_ key: String) -> [String]? {
                        guard case .array(let items)? = condition[key]?.value else { return nil }
                        return items.compactMap { if case .string(let text) = $0.value { text } else { nil } }
                    }
                    if let only = names("pfm_platforms") {
                        set.append(Condition(target: "", tests: [.platform(only)]))
                        continue
                    }
                    if let except = names("pfm_n_platforms") {
                        set.append(Condition(target: "", tests: [.notPlatform(except)]))
                        continue
                    }
                }
                guard case .dictionary(let condition) = target.value, let name = string(condition, "pfm_target") else {
                    report(
                        SchemaCode.invalidManifestValue, .error, "a target condition has no pfm_target",
                        at: target.position, path: path)
                    continue
                }
                var tests: [Condition.Test] = []
                if case .boolean(let present)? = condition["pfm_present"]?.value { tests.append(.present(present)) }
                if case .array(let values)? = condition["pfm_range_list"]?.value {
                    tests.append(.oneOf(values.map(\.value)))
                }
                if case .array(let values)? = condition["pfm_n_range_list"]?.value {
                    tests.append(.noneOf(values.map(\.value)))
                }
                if case .array(let values)? = condition["pfm_contains_any"]?.value {
                    tests.append(.containsAny(values.map(\.value)))
                }
                if case .array(let values)? = condition["pfm_n_contains_any"]?.value {
                    tests.append(.containsNone(values.map(\.value)))
                }
                if case .boolean(let empty)? = condition["pfm_value_empty"]?.value { tests.append(.empty(empty)) }
                if tests.isEmpty { tests.append(.present(true)) }
                set.append(Condition(target: name, tests: tests))
            }
            if !set.isEmpty { result.append(set) }
        }
        return result
    }

    private func availability(_ fields: ManifestFields) -> Availability {
        var availability = Availability()
        if case .array(let platforms)? = fields[.platforms]?.value.value {
            availability.platforms = platforms.compactMap { if case .string(let text) = $0.value { text } else { nil } }
        }
        // One pass over the entries (not 15 lookups of built key names per key: that was a tenth of a lint).
        for entry in fields.dict.entries
        where entry.key.hasSuffix("_min") || entry.key.hasSuffix("_max") || entry.key.hasSuffix("_deprecated") {
            guard case .string(let value) = entry.value.value else { continue }
            let parts = entry.key.split(separator: "_")
            guard parts.count == 3, parts[0] == "pfm", ManifestImporter.platforms[String(parts[1])] != nil else {
                continue
            }
            let platform = String(parts[1])
            switch parts[2] {
            case "min": availability.introduced[platform] = value
            case "max": availability.removed[platform] = value
            default: availability.deprecated[platform] = value
            }
        }
        return availability
    }

    private func string(_ dict: PlistDictionary, _ key: String) -> String? {
        if case .string(let text)? = dict[key]?.value { return text }
        return nil
    }

    private func describe(_ value: PlistValue) -> String {
        if case .string(let text) = value { return "'\(text)'" }
        return "<\(value.typeName)>"
    }
}
