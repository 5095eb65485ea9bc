import MDMDiagnostics
import PropertyList

/// Loads a schema file of any format, judged from its content.
public struct SchemaLoader: Sendable {
    /// The limits every schema file is read with.
    public var readerOptions: PlistReaderOptions
    /// An Android app's `res/` folder (`--res`), for the references of `app_restrictions.xml`; nil: found from
    /// the schema's path.
    public var androidResources: String?

    /// A loader reading with `readerOptions`, with Android resources from `androidResources` when given.
    public init(readerOptions: PlistReaderOptions = PlistReaderOptions(), androidResources: String? = nil) {
        self.readerOptions = readerOptions
        self.androidResources = androidResources
    }

    /// The schema in `path`, with every lint finding. Only an unreadable file throws.
    public func load(_ path: String) throws(InputError) -> (load: SchemaLoad, source: [UInt8]) {
        switch try InputFile.read(path, limit: readerOptions.maxInputSize) {
        case .tooLarge(let size):
            let diagnostic = PlistCode.fileTooLarge(size: size, limit: readerOptions.maxInputSize, file: path)
            return (SchemaLoad(schema: nil, diagnostics: [diagnostic]), [])
        case .bytes(let bytes):
            return (load(bytes, path: path), bytes)
        }
    }

    /// The schema in `bytes` (reported as `path`), its format judged from the content, with every lint finding.
    public func load(_ bytes: [UInt8], path: String) -> SchemaLoad {
        if SpecfileImporter.recognizes(bytes) {
            return SpecfileImporter(readerOptions: readerOptions).load(bytes, path: path)
        }
        if AppleSchemaImporter.recognizes(bytes) { return AppleSchemaImporter().load(bytes, path: path) }
        if AndroidRestrictionsImporter.recognizes(bytes) {
            return AndroidRestrictionsImporter(readerOptions: readerOptions, resourcesFolder: androidResources)
                .load(bytes, path: path)
        }
        let document = PropertyListReader(options: readerOptions).read(bytes, file: path)
        if ManagedPropertiesImporter.recognizes(document) {
            return ManagedPropertiesImporter(readerOptions: readerOptions).load(document)
        }
        if ManifestImporter.recognizes(document) || document.hasErrors {
            return ManifestImporter(readerOptions: readerOptions).load(document)
        }
        let diagnostic = Diagnostic(
            SchemaCode.notASchema, severity: .error,
            message:
                "not an AppConfig specfile (<managedAppConfiguration>), a ProfileManifest (pfm_domain), Apple's YAML (payload:), nor Android restrictions (<restrictions>, managed properties JSON)",
            location: SourceLocation(file: path, position: document.root?.position ?? .unknown))
        return SchemaLoad(schema: nil, diagnostics: [diagnostic])
    }
}
