import MDMDiagnostics
import PropertyList

/// Options of one validation run.
public struct ValidationOptions: Sendable {
    /// Whose variable syntax to recognise (`--mdm`).
    public var mdm: MDM
    /// Values for MDM variables (`--resolve`): substituted before anything is checked.
    public var resolvedVariables: [String: String]?
    /// Platform and OS version the configuration is for (`--platform`, `--os-version`).
    public var platform: String?
    /// The OS version the configuration is for (`--os-version`), with `platform`.
    public var osVersion: String?
    /// How the device is enrolled (`--enrollment`): with `platform`, Apple's supervision and enrollment rules.
    public var enrollment: Enrollment?

    /// Options as each property says; the defaults check any MDM's variables for no platform in particular.
    public init(
        mdm: MDM = .any, resolvedVariables: [String: String]? = nil, platform: String? = nil, osVersion: String? = nil,
        enrollment: Enrollment? = nil
    ) {
        (self.mdm, self.resolvedVariables, self.platform) = (mdm, resolvedVariables, platform)
        (self.osVersion, self.enrollment) = (osVersion, enrollment)
    }
}

/// Checks a configuration against a schema: every rule of *Schemas and validation*, every finding
/// with its position and key path. Values of sensitive keys are never quoted.
public enum Validator {
    /// Everything `mdmconf validate` reports about one file: the reader's findings (those on sensitive values
    /// redacted), then the validation findings. `schema` nil means no schema was found: only the structure
    /// is checked.
    public static func validate(
        _ document: PlistDocument, against schema: ConfigSchema?, options: ValidationOptions = ValidationOptions()
    ) -> [Diagnostic] {
        var run = Validation(file: document.file, options: options)
        run.manifest = schema.flatMap(Validation.manifest(of:))
        run.appleSchema = schema?.format == .apple
        run.json = document.shape == .json
        var root = document.root
        if let node = root, let values = options.resolvedVariables {
            root = run.substitute(node, values: values, path: .root)
        }
        if let root {
            if case .dictionary(let dict) = root.value {
                run.root = dict
                // A launchd job or feedback response gets one warning, not one per key.
                let isConfiguration = run.checkKind(dict, at: root.position)
                if let schema, isConfiguration {
                    run.validate(root, against: schema.root, path: .root, sensitive: false)
                }
            } else {
                run.report(
                    SchemaCode.rootNotDictionary, .error,
                    "the configuration's root is a <\(root.value.typeName)>, not a <dict>",
                    at: root.position, path: .root, hint: "a managed app configuration is one <dict> of keys and values"
                )
            }
        }
        let reader = document.diagnostics.map { diagnostic in
            guard let schema, let written = diagnostic.keyPath, let path = KeyPath(parsing: written),
                schema.isSensitive(path)
            else { return diagnostic }
            return diagnostic.redacted()
        }
        return reader + run.diagnostics
    }

    /// The findings about one dictionary inside a larger document (a profile's payload) against `schema`, each
    /// finding's key path starting at `path` (`PayloadContent[2]`).
    public static func validate(
        _ node: PlistNode, file: String, against schema: ConfigSchema, at path: KeyPath,
        options: ValidationOptions = ValidationOptions(), json: Bool = false
    ) -> [Diagnostic] {
        var run = Validation(file: file, options: options)
        run.manifest = Validation.manifest(of: schema)
        run.appleSchema = schema.format == .apple
        run.json = json
        if case .dictionary(let dict) = node.value { run.root = dict }
        run.validate(node, against: schema.root, path: path, sensitive: false)
        return run.diagnostics
    }

    /// The findings about one value against one key spec (used to check schema defaults too).
    public static func check(
        _ value: PlistValue, against spec: KeySpec, file: String, at position: SourcePosition, path: KeyPath
    ) -> [Diagnostic] {
        var run = Validation(file: file, options: ValidationOptions())
        run.validate(PlistNode(value, at: position), against: spec, path: path, sensitive: spec.sensitive)
        return run.diagnostics
    }
}

struct Validation {
    let file: String
    /// The configuration's root dictionary, where key-path condition targets start.
    var root: PlistDictionary?
    /// The ProfileManifest the schema came from, or whose hints join Apple's schema, named in hints on what only the
    /// manifest says.
    var manifest: String?

    static func manifest(of schema: ConfigSchema) -> String? {
        schema.format == .manifest ? schema.path : schema.hints?.path
    }
    /// The schema is Apple's: a key the platform or OS does not have is an error (the device refuses or drops it),
    /// not a warning as for the community formats.
    var appleSchema = false
    /// The document is JSON: hints name JSON's forms (`true`, an object) rather than plist elements.
    var json = false
    let options: ValidationOptions
    var diagnostics: [Diagnostic] = []

    init(file: String, options: ValidationOptions) {
        self.file = file
        self.options = options
    }

    /// The value being checked is sensitive.
    private var inSensitive = false

    /// The key path of the value being checked, kept as one stack and written out only for a finding.
    private var trail: [KeyPath.Component] = []

    mutating func report(
        _ code: DiagnosticCode, _ severity: Severity, _ message: String, at position: SourcePosition,
        path: KeyPath? = nil, hint: String? = nil
    ) {
        diagnostics.append(
            Diagnostic(
                code, severity: severity, message: message,
                location: position.isUnknown
                    ? SourceLocation(file: file) : SourceLocation(file: file, position: position),
                keyPath: (path ?? KeyPath(trail)).diagnosticValue, hint: hint, sensitive: inSensitive))
    }

    /// Tell-tale plists that are not app configurations at all; false when the file is one of them.
    mutating func checkKind(_ dict: PlistDictionary, at position: SourcePosition) -> Bool {
        if dict["Label"] != nil && (dict["ProgramArguments"] != nil || dict["Program"] != nil) {
            report(
                SchemaCode.notAConfiguration, .warning,
                "this looks like a launchd job (Label, ProgramArguments), not an app configuration",
                at: position, path: .root, hint: "the app's preferences live in a separate plist named after its domain"
            )
        } else if dict["com.apple.feedback.managed"] != nil {
            report(
                SchemaCode.notAConfiguration, .warning,
                "this looks like an app's feedback response, not a configuration",
                at: position, path: .root,
                hint: "apps write com.apple.feedback.managed; MDMs read it, they do not push it")
        } else {
            return true
        }
        return false
    }

    // MARK: Values

    /// Validates `node` at `path` (the root of a document, or of a value being probed).
    mutating func validate(_ node: PlistNode, against spec: KeySpec, path: KeyPath, sensitive: Bool) {
        trail = path.components
        withUnsafePointer(to: spec) { validate(node, against: $0, sensitive: sensitive) }
    }

    /// A key spec where it stands in its schema. The checks below read specs through pointers: passing a `KeySpec`
    /// read out of an array copies it (a retain and a release of every field), and those copies were a tenth of
    /// checking a profile. Every pointer is taken inside a `withUnsafe…` scope that lasts the whole descent.
    private typealias Spec = UnsafePointer<KeySpec>

    private mutating func validate(_ node: PlistNode, against spec: Spec, sensitive inherited: Bool) {
        let sensitive = inherited || spec.pointee.sensitive
        let outer = inSensitive
        inSensitive = sensitive
        defer { inSensitive = outer }
        let value = node.value
        if !spec.pointee.types.isEmpty && !spec.pointee.types.contains(where: { $0.accepts(value) }) {
            reportTypeMismatch(node, spec: spec, sensitive: sensitive)
            return
        }
        switch value {
        case .array(let items):
            checkCount(items.count, spec: spec, at: node.position)
            if spec.pointee.uniqueItems { checkUnique(items, sensitive: sensitive) }
            spec.pointee.items.withUnsafeBufferPointer { itemSpecs in
                guard !itemSpecs.isEmpty, let itemSpec = itemSpecs.baseAddress else { return }
                for (index, item) in items.enumerated() {
                    trail.append(.index(index))
                    validate(item, against: itemSpec, sensitive: sensitive)
                    trail.removeLast()
                }
            }
        case .dictionary(let dict):
            spec.pointee.children?.withUnsafeBufferPointer { children in
                validateMembers(dict, at: node.position, spec: spec, children: children, sensitive: sensitive)
            }
        default:
            checkScalar(node, spec: spec, sensitive: sensitive)
        }
    }

    private mutating func reportTypeMismatch(_ node: PlistNode, spec: Spec, sensitive: Bool) {
        let expected = spec.pointee.types.map(\.rawValue).joined(separator: " or ")
        let found = ValueType.of(node.value).rawValue
        let name =
            trail.last.map { component -> String in
                if case .key(let key) = component { return keyText(key) }
                return "item"
            } ?? "the value"
        if case .string(let text) = node.value,
            !MDMVariables.tokens(in: text, for: options.mdm).filter(\.isKnown).isEmpty
        {
            report(
                SchemaCode.variableInNonString, .error,
                "\(name) must be \(article(expected)) \(expected), but holds the MDM variable \(show(text, sensitive))",
                at: node.position, hint: "variables are replaced by text; use a literal \(expected) here")
            return
        }
        var hint =
            "write the value as \(spec.pointee.types.map { json ? $0.jsonForm : $0.element }.joined(separator: " or "))"
        if json, case .string(let text) = node.value {
            let trimmed = text.trimmingXMLSpace()
            if spec.pointee.types.contains(.boolean), ["true", "false"].contains(trimmed.lowercased()) {
                hint = "write \(trimmed.lowercased()) without quotes"
            } else if spec.pointee.types.contains(.integer), Int64(trimmed) != nil {
                hint = "write \(sensitive ? "the number" : trimmed) without quotes"
            }
        } else if case .string(let text) = node.value {
            let lowered = text.trimmingXMLSpace().lowercased()
            if spec.pointee.types.contains(.boolean), ["true", "false", "yes", "no", "1", "0"].contains(lowered) {
                hint = "write <\(["true", "yes", "1"].contains(lowered) ? "true" : "false")/>, not a string"
            } else if spec.pointee.types.contains(.integer), Int64(text.trimmingXMLSpace()) != nil {
                hint = "write <integer>\(sensitive ? "…" : text.trimmingXMLSpace())</integer>, not a string"
            } else if spec.pointee.types.contains(.real), Double(text.trimmingXMLSpace()) != nil {
                hint = "write <real>\(sensitive ? "…" : text.trimmingXMLSpace())</real>, not a string"
            }
        }
        report(
            SchemaCode.typeMismatch, .error, "\(name) must be \(article(expected)) \(expected), found \(found)",
            at: node.position, hint: hint)
    }

    private mutating func checkScalar(_ node: PlistNode, spec: Spec, sensitive: Bool) {
        let value = node.value
        if case .string(let text) = value {
            let tokens = MDMVariables.tokens(in: text, for: options.mdm)
            for token in tokens
            where !token.isKnown && (options.mdm != .any || token.mdm == .intune || token.mdm == .fleet) {
                report(
                    SchemaCode.unknownVariable, .warning,
                    "\(token.text) is not a variable \(options.mdm == .any ? mdmName(token.mdm) : mdmName(options.mdm)) knows",
                    at: node.position, hint: "the MDM will send it to the app as written")
            }
            let known = tokens.filter(\.isKnown)
            if !known.isEmpty {
                if spec.pointee.allowedValues != nil || spec.pointee.pattern != nil || spec.pointee.minLength != nil
                    || spec.pointee.maxLength != nil
                {
                    report(
                        SchemaCode.variableDeferred, .info,
                        "checks of the value wait until \(known.map(\.text).joined(separator: ", ")) is substituted",
                        at: node.position, hint: "pass --resolve VALUES.plist to check with real values")
                }
                return
            }
        }
        if spec.pointee.android?.restrictionType == .hidden, let fixed = spec.pointee.defaultValue, fixed != value {
            report(
                SchemaCode.hiddenValueChanged, .error,
                "the hidden restriction is fixed to \(show(fixed, sensitive)); the configuration sets \(show(value, sensitive))",
                at: node.position, hint: "leave the key out: the app ships the value a hidden restriction carries")
            return
        }
        if let allowed = spec.pointee.allowedValues, !spec.pointee.allowsCustomValue,
            !allowed.contains(where: { $0.value == value })
        {
            var hint =
                "allowed: " + allowed.prefix(12).map { describe($0) }.joined(separator: ", ")
                + (allowed.count > 12 ? ", …" : "")
            if case .string(let text) = value,
                let close = Suggestion.closest(
                    to: text, in: allowed.compactMap { if case .string(let s) = $0.value { s } else { nil } })
            {
                hint = "did you mean '\(close)'? " + hint
            }
            report(
                SchemaCode.valueNotAllowed, .error, "\(show(value, sensitive)) is not an allowed value",
                at: node.position, hint: sensitive ? nil : hint)
        }
        checkBounds(node, spec: spec, sensitive: sensitive)
        if case .string(let text) = value {
            // Counting characters walks the string's grapheme clusters: only when the schema bounds its length.
            let length = spec.pointee.minLength == nil && spec.pointee.maxLength == nil ? 0 : text.count
            if let minimum = spec.pointee.minLength, length < minimum {
                report(
                    SchemaCode.lengthOutOfRange, .error,
                    "the string has \(length) characters, fewer than the minimum \(minimum)",
                    at: node.position)
            }
            if let maximum = spec.pointee.maxLength, length > maximum {
                report(
                    SchemaCode.lengthOutOfRange, .error,
                    "the string has \(length) characters, more than the maximum \(maximum)",
                    at: node.position)
            }
            if let pattern = spec.pointee.pattern, !pattern.matches(text) {
                report(
                    SchemaCode.patternMismatch, .error,
                    "\(show(value, sensitive)) does not match the pattern \(pattern.source.count > 60 ? "'\(pattern.source.prefix(60))…'" : "'\(pattern.source)'")",
                    at: node.position, hint: "the pattern must match the whole value")
            }
        }
    }

    private mutating func checkBounds(_ node: PlistNode, spec: Spec, sensitive: Bool) {
        let number: Double?
        switch node.value {
        case .integer(let value): number = Double(value)
        case .real(let value): number = value
        case .date(let date): number = date.secondsSince1970
        default: number = nil
        }
        guard let number else { return }
        func limit(_ bound: Bound?) -> Double? {
            switch bound {
            case .number(let value)?: value
            case .date(let date)?: date.secondsSince1970
            case nil: nil
            }
        }
        if let low = limit(spec.pointee.minimum), number < low || number.isNaN {
            report(
                SchemaCode.outOfRange, .error,
                "\(show(node.value, sensitive)) is below the minimum \(spec.pointee.minimum?.description ?? "")",
                at: node.position)
        }
        if let high = limit(spec.pointee.maximum), number > high || number.isNaN {
            report(
                SchemaCode.outOfRange, .error,
                "\(show(node.value, sensitive)) is above the maximum \(spec.pointee.maximum?.description ?? "")",
                at: node.position)
        }
    }

    private mutating func checkCount(_ count: Int, spec: Spec, at position: SourcePosition) {
        if let minimum = spec.pointee.minCount, count < minimum {
            report(
                SchemaCode.countOutOfRange, .error, "the array has \(count) items, fewer than the minimum \(minimum)",
                at: position)
        }
        if let maximum = spec.pointee.maxCount, count > maximum {
            report(
                SchemaCode.countOutOfRange, .error, "the array has \(count) items, more than the maximum \(maximum)",
                at: position)
        }
    }

    private mutating func checkUnique(_ items: [PlistNode], sensitive: Bool) {
        for (index, item) in items.enumerated() {
            if let first = items[..<index].firstIndex(where: { $0.value == item.value }) {
                report(
                    SchemaCode.duplicateItems, .error,
                    "item \(index) repeats item \(first) (\(show(item.value, sensitive)))",
                    at: item.position, path: KeyPath(trail + [.index(index)]), hint: "the schema requires unique items")
            }
        }
    }

    // MARK: Dictionaries

    private mutating func validateMembers(
        _ dict: PlistDictionary, at position: SourcePosition, spec: Spec, children: UnsafeBufferPointer<KeySpec>,
        sensitive: Bool
    ) {
        for entry in dict.entries {
            trail.append(.key(entry.key))
            defer { trail.removeLast() }
            guard let index = spec.pointee.childPositions[entry.key] else {
                if !spec.pointee.additionalValue.isEmpty {
                    spec.pointee.additionalValue.withUnsafeBufferPointer { free in
                        validate(entry.value, against: free.baseAddress!, sensitive: sensitive || free[0].sensitive)
                    }
                    continue
                }
                let close = Suggestion.closest(to: entry.key, in: children.map(\.name))
                report(
                    SchemaCode.unknownKey, .warning, "the schema does not declare the key \(keyText(entry.key))",
                    at: entry.keyPosition,
                    hint: close.map { "did you mean '\($0)'?" } ?? "apps ignore keys they do not know")
                continue
            }
            let child = children.baseAddress! + index
            if !child.pointee.excludedWhen.isEmpty,
                child.pointee.excludedWhen.contains(where: { conditions in
                    conditions.allSatisfy { $0.holds(in: dict, root: root, platform: options.platform) }
                })
            {
                report(
                    SchemaCode.excludedKey, .error, "\(keyText(entry.key)) must not be set here", at: entry.keyPosition,
                    hint:
                        "the schema excludes it given \(child.pointee.excludedWhen.flatMap { $0.map(\.label) }.joined(separator: ", "))"
                )
            }
            if let deprecation = child.pointee.deprecation {
                report(
                    SchemaCode.deprecatedKey, .warning, "\(keyText(entry.key)) is deprecated", at: entry.keyPosition,
                    hint: deprecation.isEmpty ? nil : deprecation)
            }
            if options.platform != nil {
                checkAvailability(child, at: entry.keyPosition)
            }
            if child.pointee.required, isEmpty(entry.value.value) {
                report(
                    SchemaCode.emptyRequiredValue, .error, "required key \(keyText(entry.key)) is empty",
                    at: entry.value.position, hint: "a required key needs a value")
                continue
            }
            validate(entry.value, against: child, sensitive: sensitive)
        }
        for index in children.indices {
            let child = children.baseAddress! + index
            guard child.pointee.required || !child.pointee.requiredWhen.isEmpty else { continue }
            let name = child.pointee.name
            guard dict[name] == nil else { continue }
            let conditional = child.pointee.requiredWhen.contains { conditions in
                conditions.allSatisfy { $0.holds(in: dict, root: root, platform: options.platform) }
            }
            if !child.pointee.required, !conditional, options.platform == nil,
                let platformOnly = child.pointee.requiredWhen.first(where: { conditions in
                    conditions.contains(where: \.isPlatformOnly)
                        && conditions.allSatisfy { $0.isPlatformOnly || $0.holds(in: dict, root: root) }
                })
            {
                report(
                    SchemaCode.platformConditional, .info,
                    "\(keyText(name)) is required on \(platformOnly.filter(\.isPlatformOnly).map(\.label).joined(separator: ", ")); no --platform was given to decide",
                    at: position, path: KeyPath(trail + [.key(name)]),
                    hint: "pass --platform to check the configuration for the platform it is for")
                continue
            }
            guard child.pointee.required || conditional else { continue }
            let close = Suggestion.closest(to: name, in: dict.keys)
            var hint = close.map { "'\($0)' is present: did you mean '\(name)'?" }
            let onlyConditional = conditional && !child.pointee.required
            // Community manifests mark subkeys required that Apple's schema does not always require, and Apple's
            // schema states no condition between keys (a manifest's hints add them): say whose rule this is, so a
            // stale manifest is not mistaken for a broken configuration.
            if let manifest, appleSchema ? onlyConditional : !trail.isEmpty {
                let field = onlyConditional ? "pfm_conditionals" : "pfm_require"
                let source =
                    "required by the manifest \(manifest) (\(field)), not necessarily by Apple's own schema (apple/device-management); if devices accept the payload without it, the manifest is stale"
                hint = hint.map { "\($0); \(source)" } ?? source
            }
            var reasons: [String] = []
            if onlyConditional {
                for conditions in child.pointee.requiredWhen
                where conditions.allSatisfy({ $0.holds(in: dict, root: root, platform: options.platform) }) {
                    for condition in conditions where !condition.isImplied(by: conditions) {
                        if !reasons.contains(condition.reason) { reasons.append(condition.reason) }
                    }
                }
            }
            report(
                SchemaCode.missingRequiredKey, .error,
                onlyConditional
                    ? "\(keyText(name)) is required here (\(reasons.joined(separator: ", ")))"
                    : "required key \(keyText(name)) is missing",
                at: position, path: KeyPath(trail + [.key(name)]), hint: hint)
        }
    }

    /// OS-support findings of the key `spec` at the trail's end (its path is made only when there is one).
    private mutating func checkAvailability(_ spec: Spec, at position: SourcePosition) {
        guard let platform = options.platform, !spec.pointee.availability.isUnrestricted else { return }
        // A key that says nothing of its own holds what its payload holds, which is reported once, for the payload.
        // (Most keys of Apple's schemas; the two usually share storage, so this costs a pointer comparison.)
        if let inherited = spec.pointee.apple?.inherited, inherited == spec.pointee.availability { return }
        func findings(_ availability: Availability) -> [EnrollmentConflict] {
            availability.findings(
                name: "'\(spec.pointee.name)'", platform: platform, osVersion: options.osVersion,
                enrollment: options.enrollment,
                strict: appleSchema)
        }
        var own = findings(spec.pointee.availability)
        if !own.isEmpty, let inherited = spec.pointee.apple?.inherited {
            let said = Set(findings(inherited).map(\.message))
            own.removeAll { said.contains($0.message) }
        }
        for finding in own {
            report(finding.code, finding.severity, finding.message, at: position, path: KeyPath(trail))
        }
    }

    // MARK: Variables

    /// The node with every string's MDM variables replaced from `values`; unknown names are reported.
    mutating func substitute(_ node: PlistNode, values: [String: String], path: KeyPath) -> PlistNode {
        switch node.value {
        case .string(let text):
            let tokens = MDMVariables.tokens(in: text, for: options.mdm).filter(\.isKnown)
            for token in tokens where values[token.name] == nil {
                report(
                    SchemaCode.unresolvedVariable, .warning, "--resolve has no value for \(token.text)",
                    at: node.position,
                    path: path, hint: "add the key '\(token.name)' to the values file")
            }
            return PlistNode(
                .string(MDMVariables.substitute(text, values: values, for: options.mdm)), at: node.position)
        case .array(let items):
            return PlistNode(
                .array(items.enumerated().map { substitute($1, values: values, path: path.appending(index: $0)) }),
                at: node.position)
        case .dictionary(let dict):
            var copy = dict
            for index in copy.entries.indices {
                copy.entries[index].value = substitute(
                    dict.entries[index].value, values: values, path: path.appending(key: dict.entries[index].key))
            }
            return PlistNode(.dictionary(copy), at: node.position)
        default:
            return node
        }
    }

    // MARK: Text

    private func isEmpty(_ value: PlistValue) -> Bool {
        switch value {
        case .string(let text): text.isEmpty
        case .array(let items): items.isEmpty
        default: false
        }
    }

    func show(_ value: PlistValue, _ sensitive: Bool) -> String { sensitive ? "<redacted>" : value.shortText }

    private func show(_ text: String, _ sensitive: Bool) -> String { show(.string(text), sensitive) }

    private func describe(_ allowed: AllowedValue) -> String {
        let value = show(allowed.value, false)
        guard let title = allowed.title, title != value, "'\(title)'" != value else { return value }
        return "\(value) (\(title))"
    }

    /// A key name quoted for a message, with line breaks and tabs escaped.
    func keyText(_ key: String) -> String {
        var out = ""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return "'\(out)'"
    }

    private func article(_ word: String) -> String {
        guard let first = word.first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }

    private func mdmName(_ mdm: MDM) -> String {
        switch mdm {
        case .jamf: "Jamf"
        case .intune: "Intune"
        case .workspaceone: "Workspace ONE"
        case .fleet: "Fleet"
        case .any: "any MDM"
        }
    }
}

/// Compares dotted numeric versions (`17.4` < `17.10`); missing components count as 0, as does one that is not a
/// number, and empty components are skipped (`17..4` is `17.4`). Read in place, without splitting: every key of a
/// profile checked for OS support compares up to four versions, and splitting them was a quarter of validating
/// profiles against Apple's schemas.
func compareVersions(_ a: String, _ b: String) -> Int {
    var (a, b) = (a, b)
    return a.withUTF8 { left in b.withUTF8 { right in compareVersions(left, right) } }
}

private func compareVersions(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
    var (i, j) = (0, 0)
    while true {
        let l = nextVersionComponent(left, at: &i)
        let r = nextVersionComponent(right, at: &j)
        if l == nil && r == nil { return 0 }
        let x = l ?? 0
        let y = r ?? 0
        if x != y { return x < y ? -1 : 1 }
    }
}

/// The next non-empty dot-separated component of `bytes` from `index` on as a number (0 when it is not one), or nil
/// at the end.
private func nextVersionComponent(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Int? {
    let dot = UInt8(ascii: ".")
    while index < bytes.count && bytes[index] == dot { index += 1 }
    guard index < bytes.count else { return nil }
    let start = index
    while index < bytes.count && bytes[index] != dot { index += 1 }
    let part = UnsafeBufferPointer(rebasing: bytes[start..<index])
    var value = 0
    if part.count <= 18, part.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
        for byte in part { value = value * 10 + Int(byte - UInt8(ascii: "0")) }
        return value
    }
    return Int(String(decoding: part, as: UTF8.self)) ?? 0
}
