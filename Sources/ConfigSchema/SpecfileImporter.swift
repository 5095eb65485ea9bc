import MDMDiagnostics
import PropertyList

/// Imports an AppConfig community specfile (*Schemas and validation*) into a `ConfigSchema`, with every
/// structural (XSD) and semantic defect as a lint finding.
public struct SpecfileImporter: Sendable {
    /// The limits the specfile is read with.
    public var readerOptions: PlistReaderOptions

    /// An importer reading with `readerOptions`.
    public init(readerOptions: PlistReaderOptions = PlistReaderOptions()) { self.readerOptions = readerOptions }

    static let keyElements: [String: (type: ValueType, item: ValueType?)] = [
        "string": (.string, nil), "integer": (.integer, nil), "float": (.real, nil), "boolean": (.boolean, nil),
        "date": (.date, nil), "stringArray": (.array, .string), "integerArray": (.array, .integer),
        "floatArray": (.array, .real),
    ]
    static let userVariables: Set<String> = [
        "cn", "displayName", "dn", "emailAddress", "emailAddressDomain", "emailAddressLocalPart", "firstName",
        "lastName",
        "locale", "ou", "sAMAccountName", "username", "upn",
    ]
    static let deviceVariables: Set<String> = [
        "iccid", "imei", "imsi", "meid", "model", "phoneNumber", "serialNumber", "udid", "wifiMacAddress",
    ]

    /// The AppConfig specfile XSD that structure is checked with (`Schemas/appconfig-specfile.xsd`).
    public static var xsd: String { SpecfileXSD.text }

    /// True when `bytes` look like a specfile (root element `managedAppConfiguration`).
    public static func recognizes(_ bytes: [UInt8]) -> Bool { bytes.headContains("<managedAppConfiguration") }

    /// The specfile in `bytes` (reported as `path`) as a schema, with every lint finding.
    public func load(_ bytes: [UInt8], path: String) -> SchemaLoad {
        let document = XMLElementReader(options: readerOptions).read(bytes, file: path)
        guard let root = document.root, !document.diagnostics.hasErrors else {
            return SchemaLoad(schema: nil, diagnostics: document.diagnostics)
        }
        var lint = SpecfileLint(file: path, root: root)
        guard root.name == "managedAppConfiguration" else {
            lint.report(
                SchemaCode.notASchema, .error, "root element <\(root.name)> is not <managedAppConfiguration>",
                at: root.position, hint: "an AppConfig specfile starts with <managedAppConfiguration>")
            return SchemaLoad(schema: nil, diagnostics: lint.diagnostics)
        }
        lint.checkStructure(bytes)
        let schema = lint.importSchema()
        return SchemaLoad(schema: schema, diagnostics: lint.diagnostics)
    }
}

/// The work of one specfile import: the element tree, the findings, and the keys built so far.
struct SpecfileLint {
    let file: String
    let root: XMLElement
    var diagnostics: [Diagnostic] = []

    init(file: String, root: XMLElement) {
        self.file = file
        self.root = root
    }

    mutating func report(
        _ code: DiagnosticCode, _ severity: Severity, _ message: String, at position: SourcePosition,
        key: String? = nil, hint: String? = nil, notes: [Diagnostic.Note] = []
    ) {
        diagnostics.append(
            Diagnostic(
                code, severity: severity, message: message, location: SourceLocation(file: file, position: position),
                keyPath: key.map { KeyPath([.key($0)]).description }, hint: hint, notes: notes))
    }

    // MARK: Structure

    /// Runs the bundled XSD and reports every violation at the offending element, with the key it belongs to.
    mutating func checkStructure(_ bytes: [UInt8]) {
        let findings: [XMLSchemaValidator.Finding]
        do {
            findings = try XMLSchemaValidator(xsd: SpecfileXSD.text).validate(bytes)
        } catch {
            report(
                SchemaCode.structure, .error,
                "the bundled specfile XSD does not compile: \(error.messages.joined(separator: "; "))",
                at: root.position)
            return
        }
        var owners: [(element: XMLElement, key: String?)] = []
        func collect(_ element: XMLElement, key: String?) {
            owners.append((element, key))
            let isKey = SpecfileImporter.keyElements[element.name] != nil || element.name == "field"
            let owner = isKey ? element.attribute("keyName") ?? key : key
            for child in element.children { collect(child, key: owner) }
        }
        collect(root, key: nil)
        for finding in findings {
            let match = owners.first { $0.element.position.line == finding.line && $0.element.name == finding.element }
            let position = match?.element.position ?? SourcePosition(line: finding.line, column: 1)
            var message = finding.message
            if message.hasPrefix("Element ") { message = "element " + message.dropFirst("Element ".count) }
            var hint: String?
            if finding.element == "constraints" { hint = "the element is <constraint> (singular)" }
            if message.contains("'keyName' is required") {
                hint = "every key element needs keyName=\"…\"; values belong in <defaultValue>, not in attributes"
            }
            report(SchemaCode.structure, .error, message, at: position, key: match?.key, hint: hint)
        }
    }

    // MARK: Keys

    mutating func importSchema() -> ConfigSchema? {
        let bundleID = root.child(named: "bundleId")
        checkHeader(bundleID: bundleID)
        guard let dict = root.child(named: "dict") else { return nil }
        var keys: [KeySpec] = []
        var firstPosition: [String: SourcePosition] = [:]
        for element in dict.children {
            guard let kind = SpecfileImporter.keyElements[element.name], let name = element.attribute("keyName") else {
                continue
            }
            if let first = firstPosition[name] {
                report(
                    SchemaCode.duplicateKeyName, .error, "keyName \(quote(name)) is declared twice",
                    at: element.position,
                    key: name, hint: "keyName must be unique across the whole dict",
                    notes: [.init("first declared here", at: SourceLocation(file: file, position: first))])
                continue
            }
            firstPosition[name] = element.position
            keys.append(importKey(element, name: name, type: kind.type, item: kind.item))
        }
        if let presentation = root.child(named: "presentation") { applyPresentation(presentation, to: &keys) }
        let id = bundleID?.text.trimmingXMLSpace() ?? ""
        return ConfigSchema(id: id, format: .appconfig, path: file, keys: keys)
    }

    private mutating func checkHeader(bundleID: XMLElement?) {
        if let version = root.child(named: "version") {
            let text = version.text.trimmingXMLSpace()
            if Int(text).map({ $0 < 1 }) ?? true {
                report(
                    SchemaCode.invalidVersion, .error, "<version> \(quote(text)) is not an integer of at least 1",
                    at: version.position, hint: "version is the specfile's own revision: 1, 2, 3 …")
            }
        } else {
            report(
                SchemaCode.invalidVersion, .error, "<version> is missing", at: root.position,
                hint: "add <version>1</version> before <bundleId>")
        }
        if let bundleID {
            let text = bundleID.text.trimmingXMLSpace()
            let valid =
                !text.isEmpty
                && text.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".")
                }
            if !valid {
                report(
                    SchemaCode.invalidBundleID, .error, "bundleId \(quote(text)) is not a bundle identifier",
                    at: bundleID.position, hint: "bundle ids use letters, digits, '-' and '.'")
            }
        }
    }

    private mutating func importKey(_ element: XMLElement, name: String, type: ValueType, item: ValueType?) -> KeySpec {
        var spec = KeySpec(name: name, types: [type], position: element.position)
        let valueType = item ?? type
        if let item { spec.items = [KeySpec(name: name, types: [item], position: element.position)] }
        if let constraint = element.child(named: "constraint") {
            applyConstraint(constraint, to: &spec, valueType: valueType, isArray: item != nil)
        }
        if let defaults = element.child(named: "defaultValue") {
            applyDefault(defaults, to: &spec, valueType: valueType, isArray: item != nil)
        }
        return spec
    }

    private mutating func applyConstraint(
        _ constraint: XMLElement, to spec: inout KeySpec, valueType: ValueType, isArray: Bool
    ) {
        let name = spec.name
        if constraint.attribute("nullable")?.trimmingXMLSpace() == "false" { spec.required = true }
        var itemSpec = isArray ? spec.items.first ?? KeySpec(name: name, types: [valueType]) : spec
        let minText = constraint.attribute("min")
        let maxText = constraint.attribute("max")
        if let pattern = constraint.attribute("pattern") {
            do {
                itemSpec.pattern = try Pattern(pattern)
            } catch {
                report(
                    SchemaCode.invalidPattern, .error, "pattern \(quote(pattern)) does not compile: \(error)",
                    at: constraint.position, key: name, hint: "patterns use the ICU (NSRegularExpression) syntax")
            }
        }
        if isArray {
            let bounds = (parseCount(minText, constraint, name), parseCount(maxText, constraint, name))
            spec.minCount = bounds.0
            spec.maxCount = bounds.1
            checkOrder(bounds.0.map(Double.init), bounds.1.map(Double.init), constraint, name)
        } else {
            switch valueType {
            case .string where itemSpec.pattern == nil:
                // With a pattern, length bounds are ignored (the format's rule).
                itemSpec.minLength = parseCount(minText, constraint, name)
                itemSpec.maxLength = parseCount(maxText, constraint, name)
                checkOrder(itemSpec.minLength.map(Double.init), itemSpec.maxLength.map(Double.init), constraint, name)
            case .integer, .real, .date:
                itemSpec.minimum = parseBound(minText, valueType, constraint, name)
                itemSpec.maximum = parseBound(maxText, valueType, constraint, name)
                if case .number(let low)? = itemSpec.minimum, case .number(let high)? = itemSpec.maximum {
                    checkOrder(low, high, constraint, name)
                } else if case .date(let low)? = itemSpec.minimum, case .date(let high)? = itemSpec.maximum {
                    checkOrder(low.secondsSince1970, high.secondsSince1970, constraint, name)
                }
            default:
                break
            }
        }
        if let values = constraint.child(named: "values") {
            var allowed: [AllowedValue] = []
            for value in values.children(named: "value") {
                if let parsed = parseValue(
                    value.text, as: valueType, at: value.position, key: name, what: "allowed value")
                {
                    allowed.append(AllowedValue(parsed))
                }
            }
            itemSpec.allowedValues = allowed
        }
        if isArray { spec.items = [itemSpec] } else { spec = itemSpec }
    }

    private mutating func applyDefault(
        _ defaults: XMLElement, to spec: inout KeySpec, valueType: ValueType, isArray: Bool
    ) {
        let name = spec.name
        var values: [PlistValue] = []
        var usesVariable = false
        for child in defaults.children {
            switch child.name {
            case "value":
                // An empty <value/> of a string key means "no default" in every console.
                if valueType == .string && child.text.isEmpty && !isArray { continue }
                if let parsed = parseValue(child.text, as: valueType, at: child.position, key: name, what: "default") {
                    values.append(parsed)
                }
            case "userVariable", "deviceVariable":
                usesVariable = true
                checkVariable(child, key: name, valueType: valueType)
            default:
                break
            }
        }
        guard !usesVariable else { return }
        if isArray {
            if !values.isEmpty || !defaults.children.isEmpty {
                spec.defaultValue = .array(values.map { PlistNode($0) })
            }
        } else if let first = values.first {
            spec.defaultValue = first
            if values.count > 1 {
                report(
                    SchemaCode.invalidConstraintValue, .error,
                    "a \(valueType.rawValue) key has \(values.count) default values",
                    at: defaults.position, key: name, hint: "only array keys take several <value>s")
            }
        }
        guard let value = spec.defaultValue else { return }
        var probe = spec
        probe.required = false
        for finding in Validator.check(
            value, against: probe, file: file, at: defaults.position, path: KeyPath([.key(name)]))
        where finding.severity == .error {
            report(
                SchemaCode.defaultViolatesConstraint, .error,
                "the default violates the key's own constraint: \(finding.message)",
                at: defaults.position, key: name,
                hint: "fix the default or the constraint; consoles pre-fill this value")
        }
    }

    private mutating func checkVariable(_ element: XMLElement, key: String, valueType: ValueType) {
        let value = element.attribute("value") ?? ""
        let isUser = element.name == "userVariable"
        let own = isUser ? SpecfileImporter.userVariables : SpecfileImporter.deviceVariables
        let other = isUser ? SpecfileImporter.deviceVariables : SpecfileImporter.userVariables
        if valueType != .string {
            report(
                SchemaCode.invalidVariable, .error, "<\(element.name)> in the default of a \(valueType.rawValue) key",
                at: element.position, key: key, hint: "variables stand only for strings")
        } else if !own.contains(value) {
            let hint: String
            if other.contains(value) {
                hint =
                    "'\(value)' is a \(isUser ? "device" : "user") variable: use <\(isUser ? "deviceVariable" : "userVariable") value=\"\(value)\"/>"
            } else if let close = Suggestion.closest(to: value, in: Array(own)) {
                hint = "did you mean '\(close)'?"
            } else {
                hint = "\(element.name) values: \(own.sorted().joined(separator: ", "))"
            }
            report(
                SchemaCode.invalidVariable, .error, "\(quote(value)) is not a \(isUser ? "user" : "device") variable",
                at: element.position, key: key, hint: hint)
        }
    }

    // MARK: Values

    private mutating func parseCount(_ text: String?, _ at: XMLElement, _ key: String) -> Int? {
        guard let text = text?.trimmingXMLSpace(), !text.isEmpty else { return nil }
        guard let value = Int(text), value >= 0 else {
            report(
                SchemaCode.invalidConstraintValue, .error, "bound \(quote(text)) is not a non-negative integer",
                at: at.position, key: key)
            return nil
        }
        return value
    }

    private mutating func parseBound(_ text: String?, _ type: ValueType, _ at: XMLElement, _ key: String) -> Bound? {
        guard let text = text?.trimmingXMLSpace(), !text.isEmpty else { return nil }
        switch parseValue(text, as: type, at: at.position, key: key, what: "bound") {
        case .integer(let value)?: return .number(Double(value))
        case .real(let value)?: return .number(value)
        case .date(let date)?: return .date(date)
        default: return nil
        }
    }

    private mutating func checkOrder(_ low: Double?, _ high: Double?, _ at: XMLElement, _ key: String) {
        guard let low, let high, low > high else { return }
        report(SchemaCode.minGreaterThanMax, .error, "min is greater than max", at: at.position, key: key)
    }

    /// Parses specfile text as a value of `type`, reporting MC3008 when it does not parse.
    mutating func parseValue(
        _ raw: String, as type: ValueType, at position: SourcePosition, key: String, what: String
    ) -> PlistValue? {
        let text = type == .string ? raw : raw.trimmingXMLSpace()
        let parsed: PlistValue?
        switch type {
        case .string: parsed = .string(text)
        case .integer: parsed = Int64(text).map(PlistValue.integer)
        case .real: parsed = Double(text).flatMap { $0.isFinite ? PlistValue.real($0) : nil }
        case .boolean: parsed = text == "true" ? .boolean(true) : text == "false" ? .boolean(false) : nil
        case .date: parsed = PlistDate(iso8601: text).map(PlistValue.date)
        default: parsed = nil
        }
        if parsed == nil {
            report(
                SchemaCode.invalidConstraintValue, .error, "\(what) \(quote(text)) is not a valid \(type.rawValue)",
                at: position, key: key,
                hint: type == .date
                    ? "dates are written YYYY-MM-DDTHH:MM:SSZ" : type == .boolean ? "write true or false" : nil)
        }
        return parsed
    }

    func quote(_ text: String) -> String {
        text.count > 40 ? "'\(text.prefix(40))…'" : "'\(text)'"
    }
}
