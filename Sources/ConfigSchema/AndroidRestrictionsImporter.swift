import MDMDiagnostics
import PropertyList

/// What an Android restriction says of a key that the other formats do not.
public struct AndroidKeyFacts: Sendable {
    /// The eight restriction types of `android:restrictionType`.
    public enum RestrictionType: String, Sendable, CaseIterable {
        /// `true` or `false`.
        case bool
        /// Any text.
        case string
        /// A signed 32-bit integer.
        case integer
        /// One of the `entryValues`.
        case choice
        /// Any of the `entryValues`, as an array.
        case multiSelect = "multi-select"
        /// A value the app fixes in its default; admins do not set it.
        case hidden
        /// A dictionary of the nested restrictions.
        case bundle
        /// An array of the one nested bundle.
        case bundleArray = "bundle_array"

        /// The name Google Play's `ManagedProperty` JSON gives the type.
        public var managedPropertyType: String {
            switch self {
            case .bool: "BOOL"
            case .string: "STRING"
            case .integer: "INTEGER"
            case .choice: "CHOICE"
            case .multiSelect: "MULTISELECT"
            case .hidden: "HIDDEN"
            case .bundle: "BUNDLE"
            case .bundleArray: "BUNDLE_ARRAY"
            }
        }

        /// The type Google Play's managed properties call `managedPropertyType` (`BOOL`, `BUNDLE_ARRAY`), or nil.
        public init?(managedPropertyType: String) {
            guard let type = Self.allCases.first(where: { $0.managedPropertyType == managedPropertyType }) else {
                return nil
            }
            self = type
        }
    }

    /// The type the restriction declares.
    public var restrictionType: RestrictionType
    /// The title in each language the app's resources translate it to (`fr`, `pt-BR`), besides the default.
    public var localizedTitles: [String: String] = [:]
    /// The description in each language besides the default.
    public var localizedDescriptions: [String: String] = [:]
    /// A `bundle_array`'s key of the one bundle it holds (the items of the array are that bundle's values).
    public var bundleKey: String?

    /// Facts of a restriction of `restrictionType`, without translations.
    public init(restrictionType: RestrictionType) { self.restrictionType = restrictionType }
}

/// Imports Android's `res/xml/app_restrictions.xml` into a `ConfigSchema`, with every lint finding: the checks of
/// Android Lint's `ValidRestrictions` and the defects it misses.
///
/// `@string/`, `@array/` (and `@bool/`, `@integer/`) references are resolved from the app's `res/values*/` files when
/// the schema lies in a `res/xml*/` folder or `resourcesFolder` names the `res/` folder.
public struct AndroidRestrictionsImporter: Sendable {
    /// The limits the XML is read with.
    public var readerOptions: PlistReaderOptions
    /// The app's `res/` folder (`--res`); nil: found from the schema's own path.
    public var resourcesFolder: String?

    /// Android's limits: `RestrictionsManager` refuses deeper or larger files.
    static let maxDepth = 20
    static let maxRestrictions = 1000

    /// An importer reading with `readerOptions`, resolving references from `resourcesFolder` (or the schema's tree).
    public init(readerOptions: PlistReaderOptions = PlistReaderOptions(), resourcesFolder: String? = nil) {
        self.readerOptions = readerOptions
        self.resourcesFolder = resourcesFolder
    }

    /// True when `bytes` look like restrictions (root element `restrictions`).
    public static func recognizes(_ bytes: [UInt8]) -> Bool { bytes.headContains("<restrictions") }

    /// The `res/` folder above a schema in `res/xml/` (or `res/xml-v25/`), or nil.
    public static func resourcesFolder(of path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let folder = parts[parts.count - 2]
        guard folder == "xml" || folder.hasPrefix("xml-") else { return nil }
        let res = parts.dropLast(2).joined(separator: "/")
        return res.isEmpty ? "/" : res
    }

    /// The package a schema belongs to: the `package` of the `AndroidManifest.xml` beside its `res/` folder, else the
    /// file's name when it is a package name (`com.example.app.xml`), else nil.
    public static func packageName(of path: String) -> String? {
        if let res = resourcesFolder(of: path) {
            let parent = res.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            let manifestPath = (parent.isEmpty ? "." : parent) + "/AndroidManifest.xml"
            if case .bytes(let bytes)? = try? InputFile.read(manifestPath, limit: 4 << 20),
                let root = XMLElementReader().read(bytes, file: manifestPath).root,
                let package = root.attribute("package"), !package.isEmpty
            {
                return package
            }
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasSuffix(".xml") else { return nil }
        let stem = String(name.dropLast(4))
        return stem.contains(".") && BundleIDText.isValid(stem) ? stem : nil
    }

    /// The schema in `bytes` (the file at `path`), with every lint finding.
    public func load(_ bytes: [UInt8], path: String) -> SchemaLoad {
        let document = XMLElementReader(options: readerOptions).read(bytes, file: path)
        guard let root = document.root, !document.diagnostics.hasErrors else {
            return SchemaLoad(schema: nil, diagnostics: document.diagnostics)
        }
        let folder = resourcesFolder ?? Self.resourcesFolder(of: path)
        let resources = folder.map { AndroidResources.load(from: $0, readerOptions: readerOptions) }
        var lint = RestrictionsLint(file: path, resources: resources)
        lint.diagnostics += resources?.diagnostics ?? []
        guard root.name == "restrictions" else {
            lint.report(
                SchemaCode.notASchema, .error, "root element <\(root.name)> is not <restrictions>", at: root.position,
                hint: "app_restrictions.xml starts with <restrictions xmlns:android=…>")
            return SchemaLoad(schema: nil, diagnostics: lint.diagnostics)
        }
        let keys = lint.restrictions(in: root, depth: 1, path: [])
        if resources == nil && lint.unresolved > 0 {
            lint.report(
                SchemaCode.unresolvedResource, .info,
                "\(lint.unresolved) resource references are left as written: the schema is not in an app's res/xml/ folder",
                at: root.position,
                hint: "pass --res DIR (the app's res/ folder) to resolve titles and the values of choices")
        }
        var schema = ConfigSchema(id: Self.packageName(of: path) ?? "", format: .android, path: path, keys: keys)
        schema.title = nil
        return SchemaLoad(schema: schema, diagnostics: lint.diagnostics)
    }
}

/// The work of one restrictions import: findings, the keys seen, and the count against Android's limit.
struct RestrictionsLint {
    let file: String
    let resources: AndroidResources?
    var diagnostics: [Diagnostic] = []
    private var keysSeen: [String: SourcePosition] = [:]
    private var count = 0
    private var reportedDepth = false
    /// References left unresolved because no `res/` folder is known.
    private(set) var unresolved = 0

    init(file: String, resources: AndroidResources?) {
        self.file = file
        self.resources = resources
    }

    mutating func report(
        _ code: DiagnosticCode, _ severity: Severity, _ message: String, at position: SourcePosition,
        path: [String] = [], hint: String? = nil, notes: [Diagnostic.Note] = []
    ) {
        diagnostics.append(
            Diagnostic(
                code, severity: severity, message: message, location: SourceLocation(file: file, position: position),
                keyPath: path.isEmpty ? nil : KeyPath(path.map { .key($0) }).description, hint: hint, notes: notes))
    }

    /// The key specs of the `<restriction>` children of `parent`.
    mutating func restrictions(in parent: XMLElement, depth: Int, path: [String]) -> [KeySpec] {
        var keys: [KeySpec] = []
        for element in parent.children {
            guard element.name == "restriction" else {
                report(
                    SchemaCode.unexpectedElement, .warning,
                    "<\(element.name)> is not a restriction; Android ignores it", at: element.position, path: path,
                    hint: "list restrictions as <restriction android:key=… />")
                continue
            }
            if let key = restriction(element, depth: depth, path: path) { keys.append(key) }
        }
        return keys
    }

    private mutating func restriction(_ element: XMLElement, depth: Int, path: [String]) -> KeySpec? {
        count += 1
        if count == AndroidRestrictionsImporter.maxRestrictions + 1 {
            report(
                SchemaCode.tooManyRestrictions, .error,
                "more than \(AndroidRestrictionsImporter.maxRestrictions) restrictions; Android refuses the file",
                at: element.position, hint: "split the configuration or remove unused restrictions")
        }
        if depth > AndroidRestrictionsImporter.maxDepth && !reportedDepth {
            reportedDepth = true
            report(
                SchemaCode.restrictionsTooDeep, .error,
                "restrictions are nested \(depth) levels deep, more than Android's \(AndroidRestrictionsImporter.maxDepth)",
                at: element.position, path: path, hint: "flatten the bundles")
        }
        let key = element.attribute("key").flatMap { $0.isEmpty ? nil : $0 }
        let here = path + [key ?? "?"]
        checkAttributes(element, key: key, path: here)
        let typeText = element.attribute("restrictionType").flatMap { $0.isEmpty ? nil : $0 }
        let type = typeText.flatMap(AndroidKeyFacts.RestrictionType.init(rawValue:))
        if let typeText, type == nil {
            let names = AndroidKeyFacts.RestrictionType.allCases.map(\.rawValue)
            let close = Suggestion.closest(to: typeText, in: names)
            report(
                SchemaCode.unknownRestrictionType, .error, "'\(typeText)' is not a restriction type",
                at: element.position, path: here,
                hint: (close.map { "did you mean '\($0)'? " } ?? "") + "one of " + names.joined(separator: ", "))
        }
        let nested = element.children.contains { $0.name == "restriction" }
        if nested, let type, type != .bundle, type != .bundleArray {
            report(
                SchemaCode.unexpectedNesting, .error,
                "a \(type.rawValue) restriction cannot hold nested restrictions; Android ignores them",
                at: element.position, path: here, hint: "make it a bundle, or move the restrictions out")
        }
        let children = restrictions(in: element, depth: depth + 1, path: here)
        guard let key, let type else { return nil }
        var spec = KeySpec(name: key, position: element.position)
        var facts = AndroidKeyFacts(restrictionType: type)
        if let title = element.attribute("title") {
            spec.title = text(title, element: element, path: here)
            facts.localizedTitles = localized(title)
        }
        if let description = element.attribute("description") {
            spec.description = text(description, element: element, path: here)
            facts.localizedDescriptions = localized(description)
        }
        spec.android = facts
        let allowed = type == .choice || type == .multiSelect ? choices(element, path: here) : nil
        spec.shape(as: type, allowed: allowed, members: children)
        let defaultText = element.attribute("defaultValue").flatMap { resolvedDefault($0, element: element, path: here) }
        switch type {
        case .bool:
            if let defaultText {
                switch defaultText {
                case "true": spec.defaultValue = .boolean(true)
                case "false": spec.defaultValue = .boolean(false)
                default:
                    report(
                        SchemaCode.invalidBoolDefault, .error, "the default '\(defaultText)' is neither true nor false",
                        at: element.position, path: here, hint: "Android reads any other text as false")
                }
            }
        case .string:
            spec.defaultValue = defaultText.map { .string($0) }
        case .integer:
            if let defaultText {
                if let number = Int32(defaultText) {
                    spec.defaultValue = .integer(Int64(number))
                } else {
                    report(
                        SchemaCode.invalidIntegerDefault, .error,
                        "the default '\(defaultText)' is not a whole number in the signed 32-bit range",
                        at: element.position, path: here, hint: "write a decimal integer, such as 0 or -1")
                }
            }
        case .choice, .multiSelect:
            if type == .choice {
                if let defaultText {
                    spec.defaultValue = .string(defaultText)
                    if let allowed, !allowed.contains(where: { $0.value == .string(defaultText) }) {
                        report(
                            SchemaCode.defaultNotAChoice, .error,
                            "the default '\(defaultText)' is not one of the entryValues",
                            at: element.position, path: here, hint: hint(allowed))
                    }
                }
            } else {
                if let defaultAttribute = element.attribute("defaultValue") {
                    let values = multiSelectDefault(defaultAttribute, element: element, path: here)
                    spec.defaultValue = values.map { .array($0.map { PlistNode(.string($0)) }) }
                    let outside = (values ?? []).filter { value in
                        allowed.map { !$0.contains { $0.value == .string(value) } } ?? false
                    }
                    if let allowed, !outside.isEmpty {
                        report(
                            SchemaCode.defaultNotASubset, .error,
                            "the default holds \(outside.map { "'\($0)'" }.joined(separator: ", ")), not among the entryValues",
                            at: element.position, path: here, hint: hint(allowed))
                    }
                }
            }
        case .hidden:
            if let defaultText {
                spec.defaultValue = .string(defaultText)
            } else if element.attribute("defaultValue") == nil {
                report(
                    SchemaCode.hiddenWithoutDefault, .error, "a hidden restriction needs an android:defaultValue",
                    at: element.position, path: here, hint: "the default is the value a hidden restriction carries")
            }
        case .bundle, .bundleArray:
            if element.attribute("defaultValue") != nil {
                report(
                    SchemaCode.containerDefault, .error, "a \(type.rawValue) restriction cannot have a default value",
                    at: element.position, path: here, hint: "give defaults to the restrictions inside it")
            }
            if type == .bundle {
                if !nested {
                    report(
                        SchemaCode.emptyBundle, .error, "a bundle restriction holds no nested restriction",
                        at: element.position, path: here, hint: "add restrictions inside it, or remove it")
                }
            } else {
                let inner = element.children(named: "restriction")
                if inner.count != 1 || inner.first?.attribute("restrictionType") != "bundle" {
                    report(
                        SchemaCode.bundleArrayShape, .error,
                        "a bundle_array must hold exactly one restriction, of type bundle; it holds \(inner.count == 1 ? "one of type \(inner[0].attribute("restrictionType") ?? "none")" : "\(inner.count)")",
                        at: element.position, path: here, hint: "wrap the item's restrictions in one bundle")
                }
            }
        }
        return spec
    }

    /// The checks of attributes every restriction has: key, title and type present, a key that is unique and not a
    /// reference, a description.
    private mutating func checkAttributes(_ element: XMLElement, key: String?, path: [String]) {
        for attribute in ["key", "title", "restrictionType"] where (element.attribute(attribute) ?? "").isEmpty {
            report(
                SchemaCode.missingRestrictionAttribute, .error, "the restriction has no android:\(attribute)",
                at: element.position, path: key == nil ? Array(path.dropLast()) : path,
                hint: attribute == "title" ? "EMM consoles show admins the title" : "Android needs it to read the restriction")
        }
        if let key {
            if key.hasPrefix("@") {
                report(
                    SchemaCode.keyIsReference, .error, "the key '\(key)' is a resource reference", at: element.position,
                    path: path, hint: "keys cannot be localized; write the key itself")
            }
            if let first = keysSeen[key] {
                report(
                    SchemaCode.duplicateRestrictionKey, .error, "the key '\(key)' is declared twice",
                    at: element.position, path: path, hint: "Android needs every key of the file to be unique",
                    notes: [Diagnostic.Note("first declared here", at: SourceLocation(file: file, position: first))])
            } else {
                keysSeen[key] = element.position
            }
        }
        if element.attribute("description") == nil {
            report(
                SchemaCode.missingRestrictionDescription, .info, "the restriction has no android:description",
                at: element.position, path: path, hint: "a description tells admins what the value does")
        }
    }

    /// The allowed values of a choice or multi-select with their titles, or nil when they cannot be known.
    private mutating func choices(_ element: XMLElement, path: [String]) -> [AllowedValue]? {
        let type = element.attribute("restrictionType") ?? ""
        for attribute in ["entries", "entryValues"] where element.attribute(attribute) == nil {
            report(
                SchemaCode.missingEntries, .error, "a \(type) restriction needs android:\(attribute)",
                at: element.position, path: path,
                hint: attribute == "entries" ? "entries are the titles admins see" : "entryValues are the values the app gets")
        }
        let titles = element.attribute("entries").flatMap { array($0, element: element, path: path) }
        guard let values = element.attribute("entryValues").flatMap({ array($0, element: element, path: path) }) else {
            return nil
        }
        if let titles, titles.count != values.count {
            report(
                SchemaCode.entriesLengthMismatch, .error,
                "entries has \(titles.count) items and entryValues \(values.count)", at: element.position, path: path,
                hint: "each value needs the title admins pick it by; consoles pair them by position")
        }
        var seen: Set<String> = []
        for value in values where !seen.insert(value).inserted {
            report(
                SchemaCode.duplicateEntryValue, .error, "entryValues holds '\(value)' twice", at: element.position,
                path: path, hint: "an admin could not tell the two choices apart")
        }
        return values.enumerated().map { index, value in
            AllowedValue(.string(value), title: titles.flatMap { index < $0.count ? $0[index] : nil })
        }
    }

    private func hint(_ allowed: [AllowedValue]) -> String {
        "entryValues: " + allowed.prefix(12).compactMap { if case .string(let s) = $0.value { "'\(s)'" } else { nil } }
            .joined(separator: ", ")
    }

    /// A title or description: a literal, or a string resource resolved.
    private mutating func text(_ written: String, element: XMLElement, path: [String]) -> String? {
        switch AndroidReference(written) {
        case nil: return written
        case .null?: return nil
        case .foreign?: return written
        case .value(let type, let name)?:
            guard let resources else {
                unresolved += 1
                return written
            }
            if let value = resources.value(type, name) { return value }
            reportUnresolved(written, element: element, path: path)
            return written
        }
    }

    private func localized(_ written: String) -> [String: String] {
        guard case .value(let type, let name)? = AndroidReference(written), let resources else { return [:] }
        return resources.localized(type, name)
    }

    /// A scalar default: a literal, or a `@bool/`, `@integer/`, `@string/` resource resolved; nil for `@null` or one
    /// that cannot be resolved.
    private mutating func resolvedDefault(_ written: String, element: XMLElement, path: [String]) -> String? {
        guard let reference = AndroidReference(written) else { return written.hasPrefix("\\@") ? String(written.dropFirst()) : written }
        switch reference {
        case .null, .foreign: return nil
        case .value(let type, let name):
            if type == "array" { return nil }
            guard let resources else {
                unresolved += 1
                return nil
            }
            if let value = resources.value(type, name) { return value }
            reportUnresolved(written, element: element, path: path)
            return nil
        }
    }

    /// A multi-select default: an array resource, or nil.
    private mutating func multiSelectDefault(_ written: String, element: XMLElement, path: [String]) -> [String]? {
        guard case .value(let type, _)? = AndroidReference(written), type == "array" else {
            if AndroidReference(written) == .null { return nil }
            report(
                SchemaCode.unresolvedResource, .error, "a multi-select default must name an array resource, not '\(written)'",
                at: element.position, path: path, hint: "write android:defaultValue=\"@array/NAME\"")
            return nil
        }
        return array(written, element: element, path: path)
    }

    /// The items of an `@array/` reference, or nil when it is not one or cannot be resolved.
    private mutating func array(_ written: String, element: XMLElement, path: [String]) -> [String]? {
        guard case .value(let type, let name)? = AndroidReference(written), type == "array" else {
            report(
                SchemaCode.unresolvedResource, .error, "'\(written)' is not an array resource reference",
                at: element.position, path: path, hint: "entries and entryValues name a string array: @array/NAME")
            return nil
        }
        guard let resources else {
            unresolved += 1
            return nil
        }
        if let items = resources.arrays[name] { return items }
        reportUnresolved(written, element: element, path: path)
        return nil
    }

    private mutating func reportUnresolved(_ written: String, element: XMLElement, path: [String]) {
        report(
            SchemaCode.unresolvedResource, .error,
            "\(written) is not defined in \(resources?.folder ?? "res")/values/", at: element.position, path: path,
            hint: "define it in a res/values/*.xml file, or fix the name")
    }
}

/// The characters of a bundle id or package name.
enum BundleIDText {
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 == 0x2E || $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0)
            || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
        }
    }
}
