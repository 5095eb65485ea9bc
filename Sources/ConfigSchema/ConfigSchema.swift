import MDMDiagnostics
import PropertyList

/// A declared schema of one app's managed configuration, whatever format it was written in.
public struct ConfigSchema: Sendable {
    /// The format a schema was written in; one importer each.
    public enum Format: String, Sendable {
        /// AppConfig community specfile (XML).
        case appconfig
        /// ProfileManifests (`pfm_*` plist).
        case manifest
        /// Apple's device-management YAML (`apple/device-management`).
        case apple
        /// Android's `app_restrictions.xml`, or the `ManagedProperty` JSON Google Play serves from it.
        case android
    }

    /// The app's bundle id (specfile `bundleId`), preference domain (manifest `pfm_domain`), payload or declaration
    /// type (Apple), or package name (Android; empty when nothing near the file names it).
    public var id: String
    /// The format the file was written in.
    public var format: Format
    /// The file the schema was read from.
    public var path: String
    /// The schema's own name for what it configures.
    public var title: String?
    /// What the schema says the configuration is for.
    public var description: String?
    /// What Apple's schemas say of the payload as a whole (kind, OS support, enrollment rules); nil for the
    /// other formats.
    public var apple: AppleSchemaFacts?
    /// The keys of the configuration dictionary.
    public var keys: [KeySpec] {
        didSet { root.children = keys }
    }
    /// The root as a dictionary key spec, built once (the validator starts every file here).
    public private(set) var root: KeySpec

    /// A schema of `keys`, declaring `id`, read from `path` in `format`.
    public init(id: String, format: Format, path: String, title: String? = nil, keys: [KeySpec]) {
        self.id = id
        self.format = format
        self.path = path
        self.title = title
        self.keys = keys
        var root = KeySpec(name: "", types: [.dictionary])
        root.children = keys
        self.root = root
    }

    /// True when the value at `path`, or a container it sits in, is declared sensitive.
    public func isSensitive(_ path: KeyPath) -> Bool {
        var spec: KeySpec? = root
        for component in path.components {
            guard let current = spec else { return false }
            if current.sensitive { return true }
            switch component {
            case .key(let name): spec = current.child(name)
            case .index: spec = current.items.first
            }
        }
        return spec?.sensitive ?? false
    }

    /// The schema as a report names it: its file, format and id.
    public var reference: SchemaReference { SchemaReference(path: path, format: format.rawValue, id: id) }

}

/// What loading a schema file produced: the schema when it is usable, and every lint finding.
public struct SchemaLoad: Sendable {
    /// The schema, or nil when the file is not a usable schema.
    public var schema: ConfigSchema?
    /// Every lint finding, errors and warnings.
    public var diagnostics: [Diagnostic]

    /// A load's result.
    public init(schema: ConfigSchema?, diagnostics: [Diagnostic]) {
        self.schema = schema
        self.diagnostics = diagnostics
    }

    /// The schema, unless a finding makes it unusable (unreadable, not a schema, a pattern that does not
    /// compile): `validate` exits 78 then.
    public var usableSchema: ConfigSchema? {
        let fatal: Set<String> = [
            SchemaCode.invalidPattern.code, SchemaCode.notASchema.code, SchemaCode.yamlSyntax.code, PlistCode.notWellFormed.code,
            PlistCode.entityDeclaration.code, PlistCode.emptyDocument.code, PlistCode.invalidEncoding.code,
        ]
        return diagnostics.contains { fatal.contains($0.code.code) } ? nil : schema
    }
}
