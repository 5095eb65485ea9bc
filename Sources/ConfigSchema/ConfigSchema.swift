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
    public var id: String {
        get { storage.id }
        set { unique().id = newValue }
    }
    /// The format the file was written in.
    public var format: Format {
        get { storage.format }
        set { unique().format = newValue }
    }
    /// The file the schema was read from.
    public var path: String {
        get { storage.path }
        set { unique().path = newValue }
    }
    /// The schema's own name for what it configures.
    public var title: String? {
        get { storage.title }
        set { unique().title = newValue }
    }
    /// What the schema says the configuration is for.
    public var description: String? {
        get { storage.description }
        set { unique().description = newValue }
    }
    /// What Apple's schemas say of the payload as a whole (kind, OS support, enrollment rules); nil for the
    /// other formats.
    public var apple: AppleSchemaFacts? {
        get { storage.apple }
        set { unique().apple = newValue }
    }
    /// The ProfileManifest whose hints were added to this schema of Apple's (``adding(hintsOf:)``); nil for a
    /// schema read from one file.
    public var hints: SchemaReference? {
        get { storage.hints }
        set { unique().hints = newValue }
    }
    /// The keys of the configuration dictionary.
    public var keys: [KeySpec] {
        get { storage.root.children ?? [] }
        set { unique().root.children = newValue }
        _modify {
            // The keys are taken out while they change, so a schema held once changes them in place (adding the
            // common payload keys to a payload's schema would otherwise copy every key).
            let storage = unique()
            var keys = storage.root.children ?? []
            storage.root.children = nil
            defer { storage.root.children = keys }
            yield &keys
        }
    }
    /// The root as a dictionary key spec, built once (the validator starts every file here).
    public var root: KeySpec {
        _read { yield storage.root }
    }

    /// The fields, held once and shared by every copy until one is changed: a schema is handed out for every
    /// payload of every profile checked, and copying its fields one by one was a twentieth of checking a folder.
    private final class Storage: @unchecked Sendable {
        var id: String, format: Format, path: String
        var title: String?, description: String?, apple: AppleSchemaFacts?, hints: SchemaReference?
        var root: KeySpec

        init(id: String, format: Format, path: String, title: String?, root: KeySpec) {
            (self.id, self.format, self.path, self.title, self.root) = (id, format, path, title, root)
        }

        func copy() -> Storage {
            let copy = Storage(id: id, format: format, path: path, title: title, root: root)
            (copy.description, copy.apple, copy.hints) = (description, apple, hints)
            return copy
        }
    }

    // Changed only through `unique()`, which copies it first when another schema shares it.
    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// A schema of `keys`, declaring `id`, read from `path` in `format`.
    public init(id: String, format: Format, path: String, title: String? = nil, keys: [KeySpec]) {
        var root = KeySpec(name: "", types: [.dictionary])
        root.children = keys
        storage = Storage(id: id, format: format, path: path, title: title, root: root)
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
            SchemaCode.invalidPattern.code, SchemaCode.notASchema.code, SchemaCode.yamlSyntax.code,
            PlistCode.notWellFormed.code,
            PlistCode.entityDeclaration.code, PlistCode.emptyDocument.code, PlistCode.invalidEncoding.code,
        ]
        return diagnostics.contains { fatal.contains($0.code.code) } ? nil : schema
    }
}
