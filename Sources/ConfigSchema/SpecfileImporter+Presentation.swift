import MDMDiagnostics
import PropertyList

extension SpecfileLint {
    /// Checks the presentation against the keys and takes each field's label and description as the key's
    /// title and description.
    mutating func applyPresentation(_ presentation: XMLElement, to keys: inout [KeySpec]) {
        let locale = presentation.attribute("defaultLocale")
        var fields: [XMLElement] = []
        for child in presentation.children {
            if child.name == "field" { fields.append(child) }
            if child.name == "fieldGroup" {
                if let name = child.child(named: "name") {
                    checkLocale(name, locale: locale, key: nil, what: "group name")
                }
                fields += child.children(named: "field")
            }
        }
        var seen: [String: SourcePosition] = [:]
        for field in fields {
            guard let name = field.attribute("keyName") else { continue }
            if let first = seen[name] {
                report(
                    SchemaCode.duplicateField, .warning, "two presentation fields show '\(name)'", at: field.position,
                    key: name,
                    notes: [.init("first field here", at: SourceLocation(file: file, position: first))])
                continue
            }
            seen[name] = field.position
            guard let index = keys.firstIndex(where: { $0.name == name }) else {
                let close = Suggestion.closest(to: name, in: keys.map(\.name))
                report(
                    SchemaCode.fieldUnknownKey, .error,
                    "field names the key '\(name)', which the dict does not declare",
                    at: field.position, key: name, hint: close.map { "did you mean '\($0)'?" })
                continue
            }
            checkFieldType(field, spec: keys[index])
            if let label = field.child(named: "label") {
                checkLocale(label, locale: locale, key: name, what: "label")
                keys[index].title = localized(label, locale: locale)
            }
            if let description = field.child(named: "description") {
                checkLocale(description, locale: locale, key: name, what: "description")
                keys[index].description = localized(description, locale: locale)
            }
            if let options = field.child(named: "options") { checkOptions(options, spec: &keys[index], locale: locale) }
        }
    }

    private mutating func checkFieldType(_ field: XMLElement, spec: KeySpec) {
        guard let type = field.attribute("type"), let keyType = spec.types.first else { return }
        let isArray = keyType == .array
        let suits: Bool
        switch type {
        case "checkbox": suits = keyType == .boolean
        case "datetime": suits = keyType == .date
        case "multiselect", "list": suits = isArray
        case "select": suits = !isArray && keyType != .boolean
        case "input": suits = keyType != .boolean && keyType != .date
        default: suits = true
        }
        if !suits {
            let expected: String
            switch keyType {
            case .boolean: expected = "checkbox"
            case .date: expected = "datetime"
            case .array: expected = "multiselect or list"
            default: expected = "input or select"
            }
            report(
                SchemaCode.fieldTypeMismatch, .warning, "a '\(type)' field cannot edit a \(keyType.rawValue) key",
                at: field.position, key: spec.name, hint: "use a \(expected) field")
        }
        if type == "select" || type == "multiselect" {
            let hasValues = (spec.items.first ?? spec).allowedValues != nil
            if !hasValues && field.child(named: "options") == nil {
                report(
                    SchemaCode.fieldTypeMismatch, .warning, "a '\(type)' field needs <options> or the key's <values>",
                    at: field.position, key: spec.name)
            }
        }
    }

    private mutating func checkOptions(_ options: XMLElement, spec: inout KeySpec, locale: String?) {
        let valueType = spec.items.first?.types.first ?? spec.types.first ?? .string
        let allowed = (spec.items.first ?? spec).allowedValues
        var titled: [AllowedValue] = []
        for option in options.children(named: "option") {
            let raw = option.attribute("value") ?? ""
            checkLocale(option, locale: locale, key: spec.name, what: "option", requireLanguage: false)
            let parsed = parseValueQuietly(raw, as: valueType)
            guard let parsed else {
                report(
                    SchemaCode.optionNotAllowed, .warning, "option value '\(raw)' is not a \(valueType.rawValue)",
                    at: option.position, key: spec.name)
                continue
            }
            if let allowed, !allowed.contains(where: { $0.value == parsed }) {
                report(
                    SchemaCode.optionNotAllowed, .warning, "option value '\(raw)' is not among the key's <values>",
                    at: option.position, key: spec.name)
            }
            titled.append(AllowedValue(parsed, title: localized(option, locale: locale)))
        }
        // Option titles name the allowed values in messages and in `schema show`.
        if spec.items.isEmpty, let allowed = spec.allowedValues {
            spec.allowedValues = allowed.map { value in
                AllowedValue(value.value, title: titled.first { $0.value == value.value }?.title)
            }
        }
    }

    private func parseValueQuietly(_ raw: String, as type: ValueType) -> PlistValue? {
        let text = raw.trimmingXMLSpace()
        switch type {
        case .string: return .string(raw)
        case .integer: return Int64(text).map(PlistValue.integer)
        case .real: return Double(text).map(PlistValue.real)
        case .boolean: return text == "true" ? .boolean(true) : text == "false" ? .boolean(false) : nil
        case .date: return PlistDate(iso8601: text).map(PlistValue.date)
        default: return nil
        }
    }

    private mutating func checkLocale(
        _ element: XMLElement, locale: String?, key: String?, what: String, requireLanguage: Bool = true
    ) {
        guard let locale else { return }
        let languages = element.children(named: "language")
        if languages.isEmpty && !requireLanguage { return }
        if !languages.contains(where: { $0.attribute("value") == locale }) {
            report(
                SchemaCode.missingLocale, .warning, "the \(what) has no text for the default locale '\(locale)'",
                at: element.position, key: key, hint: "add <language value=\"\(locale)\">…</language>")
        }
    }

    private func localized(_ element: XMLElement, locale: String?) -> String? {
        let languages = element.children(named: "language")
        let chosen = languages.first { $0.attribute("value") == locale } ?? languages.first
        return chosen?.text.trimmingXMLSpace()
    }
}
