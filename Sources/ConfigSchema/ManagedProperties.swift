import MDMDiagnostics
import PropertyList

extension KeySpec {
    /// The types, bounds, items and members an Android restriction type maps to: `bool` a boolean, `string` and
    /// `hidden` a string, `integer` a signed 32-bit integer, `choice` a string among `allowed`, `multi-select` an
    /// array of such strings, `bundle` a dictionary of `members`, `bundle_array` an array of `members`' one bundle.
    mutating func shape(as type: AndroidKeyFacts.RestrictionType, allowed: [AllowedValue]?, members: [KeySpec]) {
        switch type {
        case .bool: types = [.boolean]
        case .string, .hidden: types = [.string]
        case .integer:
            types = [.integer]
            minimum = .number(Double(Int32.min))
            maximum = .number(Double(Int32.max))
        case .choice:
            types = [.string]
            allowedValues = allowed
        case .multiSelect:
            types = [.array]
            var item = KeySpec(name: "", types: [.string], position: position)
            item.allowedValues = allowed
            items = [item]
        case .bundle:
            types = [.dictionary]
            children = members
        case .bundleArray:
            types = [.array]
            if let bundle = members.first, bundle.android?.restrictionType == .bundle {
                var item = bundle
                item.name = ""
                items = [item]
                android?.bundleKey = bundle.name
            }
        }
        if android == nil { android = AndroidKeyFacts(restrictionType: type) }
    }
}

/// Reads Google Play's `ManagedProperty` JSON (what the EMM console shows an admin) as a schema: an array of
/// properties, or an object with `managedProperties` (an AMAPI `Application`, whose `name` ends in the package).
public struct ManagedPropertiesImporter: Sendable {
    /// The limits JSON is read with.
    public var readerOptions: PlistReaderOptions

    /// An importer reading with `readerOptions`.
    public init(readerOptions: PlistReaderOptions = PlistReaderOptions()) { self.readerOptions = readerOptions }

    static let fields: Set<String> = ["key", "type", "title", "description", "entries", "defaultValue", "nestedProperties"]

    /// True when a JSON document is managed properties: an object with a `managedProperties` array, or an array whose
    /// first item has `key` and `type`.
    public static func recognizes(_ document: PlistDocument) -> Bool {
        guard document.shape == .json, let root = document.root else { return false }
        switch root.value {
        case .dictionary(let dict):
            if case .array? = dict["managedProperties"]?.value { return true }
            return false
        case .array(let items):
            guard case .dictionary(let first)? = items.first?.value else { return false }
            return first["key"] != nil && first["type"] != nil
        default: return false
        }
    }

    /// True when `bytes` may be managed properties (cheap; ``recognizes(_:)-(PlistDocument)`` decides).
    public static func mayBe(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "[") || first == UInt8(ascii: "{")
        else { return false }
        return bytes.headContains("\"managedProperties\"") || bytes.headContains("\"nestedProperties\"")
            || (bytes.headContains("\"key\"") && bytes.headContains("\"type\""))
    }

    /// The schema of a JSON document already read, with every finding.
    public func load(_ document: PlistDocument) -> SchemaLoad {
        guard let root = document.root, !document.hasErrors else {
            return SchemaLoad(schema: nil, diagnostics: document.diagnostics)
        }
        var run = Run(file: document.file)
        var id = ""
        let list: PlistNode?
        switch root.value {
        case .dictionary(let dict):
            list = dict["managedProperties"]
            if case .string(let name)? = dict["name"]?.value, let package = name.split(separator: "/").last {
                id = String(package)
            }
        case .array: list = root
        default: list = nil
        }
        guard let list, case .array(let items) = list.value else {
            run.report(
                SchemaCode.notASchema, .error, "managed properties are an array, or an object with managedProperties",
                at: root.position, path: [])
            return SchemaLoad(schema: nil, diagnostics: run.diagnostics)
        }
        if id.isEmpty {
            let name = document.file.split(separator: "/").last.map(String.init) ?? document.file
            let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
            if stem.contains("."), BundleIDText.isValid(stem) { id = stem }
        }
        let keys = run.properties(items, path: [])
        return SchemaLoad(
            schema: ConfigSchema(id: id, format: .android, path: document.file, keys: keys),
            diagnostics: document.diagnostics + run.diagnostics)
    }

    private struct Run {
        let file: String
        var diagnostics: [Diagnostic] = []

        mutating func report(
            _ code: DiagnosticCode, _ severity: Severity, _ message: String, at position: SourcePosition,
            path: [String], hint: String? = nil
        ) {
            diagnostics.append(
                Diagnostic(
                    code, severity: severity, message: message,
                    location: SourceLocation(file: file, position: position),
                    keyPath: path.isEmpty ? nil : KeyPath(path.map { .key($0) }).description, hint: hint))
        }

        mutating func properties(_ items: [PlistNode], path: [String]) -> [KeySpec] {
            items.compactMap { property($0, path: path) }
        }

        private mutating func property(_ node: PlistNode, path: [String]) -> KeySpec? {
            guard case .dictionary(let dict) = node.value else {
                report(SchemaCode.invalidManagedProperty, .error, "a managed property is an object", at: node.position, path: path)
                return nil
            }
            for entry in dict.entries where !ManagedPropertiesImporter.fields.contains(entry.key) {
                report(
                    SchemaCode.invalidManagedProperty, .warning, "'\(entry.key)' is not a field of a managed property",
                    at: entry.keyPosition, path: path,
                    hint: "fields: " + ManagedPropertiesImporter.fields.sorted().joined(separator: ", "))
            }
            guard case .string(let key)? = dict["key"]?.value, !key.isEmpty else {
                report(SchemaCode.invalidManagedProperty, .error, "the property has no key", at: node.position, path: path)
                return nil
            }
            let here = path + [key]
            guard case .string(let typeName)? = dict["type"]?.value,
                let type = AndroidKeyFacts.RestrictionType(managedPropertyType: typeName)
            else {
                report(
                    SchemaCode.invalidManagedProperty, .error, "the property has no type Google Play knows",
                    at: dict["type"]?.position ?? node.position, path: here,
                    hint: "one of " + AndroidKeyFacts.RestrictionType.allCases.map(\.managedPropertyType).joined(separator: ", "))
                return nil
            }
            var spec = KeySpec(name: key, position: node.position)
            spec.android = AndroidKeyFacts(restrictionType: type)
            if case .string(let title)? = dict["title"]?.value { spec.title = title }
            if case .string(let description)? = dict["description"]?.value { spec.description = description }
            var allowed: [AllowedValue]?
            if let entries = dict["entries"] {
                guard case .array(let list) = entries.value else {
                    report(SchemaCode.invalidManagedProperty, .error, "entries is an array", at: entries.position, path: here)
                    return nil
                }
                allowed = list.compactMap { entry -> AllowedValue? in
                    guard case .dictionary(let pair) = entry.value, case .string(let value)? = pair["value"]?.value else {
                        report(
                            SchemaCode.invalidManagedProperty, .error, "an entry is an object with a string value",
                            at: entry.position, path: here)
                        return nil
                    }
                    if case .string(let name)? = pair["name"]?.value { return AllowedValue(.string(value), title: name) }
                    return AllowedValue(.string(value))
                }
            }
            var members: [KeySpec] = []
            if let nested = dict["nestedProperties"] {
                if case .array(let list) = nested.value {
                    members = properties(list, path: here)
                } else {
                    report(
                        SchemaCode.invalidManagedProperty, .error, "nestedProperties is an array", at: nested.position,
                        path: here)
                }
            }
            spec.shape(as: type, allowed: allowed, members: members)
            if let value = dict["defaultValue"] {
                var probe = spec
                probe.allowedValues = nil
                if !probe.items.isEmpty { probe.items[0].allowedValues = nil }
                let path = KeyPath(here.map { .key($0) })
                if Validator.check(value.value, against: probe, file: file, at: value.position, path: path).hasErrors {
                    report(
                        SchemaCode.defaultViolatesConstraint, .error,
                        "the default is not a \(type.managedPropertyType) value", at: value.position, path: here)
                } else {
                    spec.defaultValue = value.value
                    let outside: [PlistValue]
                    switch value.value {
                    case .array(let items): outside = items.map(\.value).filter { item in !(allowed ?? []).contains { $0.value == item } }
                    default: outside = (allowed ?? []).contains { $0.value == value.value } ? [] : [value.value]
                    }
                    if allowed != nil, !outside.isEmpty, type == .choice || type == .multiSelect {
                        report(
                            type == .choice ? SchemaCode.defaultNotAChoice : SchemaCode.defaultNotASubset, .error,
                            "the default holds a value that is not one of the entries", at: value.position, path: here)
                    }
                }
            }
            return spec
        }
    }
}

/// Writes a schema as Google Play's `ManagedProperty` JSON array, the form an EMM console reads.
public enum ManagedPropertiesWriter {
    /// A key the managed-properties form cannot carry, with the reason.
    public struct Skipped: Sendable {
        /// The key, dotted from the root (`Accounts.Ratio`).
        public var keyPath: String
        /// Why it has no managed property.
        public var reason: String
    }

    /// The JSON, and the keys left out (a real, date or data value has no Android restriction type).
    public static func json(_ schema: ConfigSchema) -> (json: String, skipped: [Skipped]) {
        var skipped: [Skipped] = []
        let properties = schema.keys.compactMap { property($0, path: [$0.name], skipped: &skipped) }
        return (PlistWriter.json(.array(properties.map { PlistNode($0) })) + "\n", skipped)
    }

    /// The restriction type of a key: its own when it came from Android, else the one that carries its values.
    static func restrictionType(of spec: KeySpec) -> AndroidKeyFacts.RestrictionType? {
        if let type = spec.android?.restrictionType { return type }
        switch spec.types.count == 1 ? spec.types[0] : nil {
        case .boolean?: return .bool
        case .integer?: return .integer
        case .string?: return spec.allowedValues != nil && !spec.allowsCustomValue ? .choice : .string
        case .dictionary?: return .bundle
        case .array?:
            switch spec.items.first?.types.first {
            case .dictionary?: return .bundleArray
            case .string? where spec.items.first?.allowedValues != nil: return .multiSelect
            default: return nil
            }
        default: return nil
        }
    }

    private static func property(_ spec: KeySpec, path: [String], skipped: inout [Skipped]) -> PlistValue? {
        guard let type = restrictionType(of: spec) else {
            skipped.append(
                Skipped(
                    keyPath: path.joined(separator: "."),
                    reason: "its type (\(spec.types.map(\.rawValue).joined(separator: " or ")) has no Android restriction type"))
            return nil
        }
        var entries: [PlistDictionary.Entry] = [
            .init(key: "key", value: PlistNode(.string(spec.name))),
            .init(key: "type", value: PlistNode(.string(type.managedPropertyType))),
        ]
        entries.append(.init(key: "title", value: PlistNode(.string(spec.title ?? spec.name))))
        if let description = spec.description { entries.append(.init(key: "description", value: PlistNode(.string(description)))) }
        let allowed = type == .multiSelect ? spec.items.first?.allowedValues : spec.allowedValues
        if let allowed, type == .choice || type == .multiSelect {
            let list = allowed.map { value -> PlistNode in
                let text: String = if case .string(let s) = value.value { s } else { "\(value.value)" }
                return PlistNode(
                    .dictionary(
                        PlistDictionary([
                            .init(key: "value", value: PlistNode(.string(text))),
                            .init(key: "name", value: PlistNode(.string(value.title ?? text))),
                        ])))
            }
            entries.append(.init(key: "entries", value: PlistNode(.array(list))))
        }
        if let value = spec.defaultValue, type != .bundle, type != .bundleArray {
            entries.append(.init(key: "defaultValue", value: PlistNode(value)))
        }
        var nested: [PlistValue] = []
        if type == .bundle {
            nested = (spec.children ?? []).compactMap { property($0, path: path + [$0.name], skipped: &skipped) }
        } else if type == .bundleArray, var bundle = spec.items.first {
            bundle.name = spec.android?.bundleKey ?? spec.name + "_item"
            bundle.android = bundle.android ?? AndroidKeyFacts(restrictionType: .bundle)
            nested = property(bundle, path: path + ["[]"], skipped: &skipped).map { [$0] } ?? []
        }
        if !nested.isEmpty {
            entries.append(.init(key: "nestedProperties", value: PlistNode(.array(nested.map { PlistNode($0) }))))
        }
        return .dictionary(PlistDictionary(entries))
    }
}
