import ConfigSchema
import Foundation
import MDMDiagnostics
import PropertyList
import X509

/// `mdmconf validate`: configurations checked against their schemas, found automatically when not given.
public struct ConfigValidation: Sendable {
    /// The limits configurations and schemas are read with.
    public var readerOptions: PlistReaderOptions
    /// What the validator checks beyond the schema (MDM variables, platform, OS version, enrollment).
    public var options: ValidationOptions
    /// `--schema`: one schema for every configuration.
    public var schemaPath: String?
    /// `--app`: the id to look schemas up by, instead of each file's name.
    public var appID: String?
    /// `--payload-type`: every file is one bare payload of this type, checked against Apple's schema of it.
    public var payloadType: String?
    /// Where schemas are looked up when `schemaPath` is not given.
    public var discovery: SchemaDiscovery
    /// `--res`: an Android app's `res/` folder, for the references of its `app_restrictions.xml`.
    public var androidResources: String?
    /// `--ca`: the certificates a signed profile's signer must chain to; nil reports the signer unverified.
    public var trustRoots: [Certificate]?

    /// A run with these choices; the rest keep their defaults until set.
    public init(
        readerOptions: PlistReaderOptions = PlistReaderOptions(), options: ValidationOptions = ValidationOptions(),
        schemaPath: String? = nil, appID: String? = nil, discovery: SchemaDiscovery = .standard()
    ) {
        self.readerOptions = readerOptions
        self.options = options
        self.schemaPath = schemaPath
        self.appID = appID
        self.discovery = discovery
    }

    /// What a run found.
    public struct Outcome: Sendable {
        /// One result per configuration, in the order given.
        public var files: [CheckedFile]
        /// A schema that could not be used, with its findings: the run stops there (exit 78, or 66 when the
        /// schema file could not be read).
        public var schemaFailure: CheckedFile?
    }

    /// Checks each configuration in `paths` (files, already expanded) against its schema.
    public func run(_ paths: [String]) -> Outcome {
        let loader = SchemaLoader(readerOptions: readerOptions, androidResources: androidResources)
        var schemas: [String: ConfigSchema] = [:]
        var assigned: [String?] = Array(repeating: nil, count: paths.count)
        var candidates: [SchemaDiscovery.Candidate]?
        if let schemaPath {
            if let failure = load(schemaPath, with: loader, into: &schemas) {
                return Outcome(files: [], schemaFailure: failure)
            }
            assigned = Array(repeating: schemaPath, count: paths.count)
        } else {
            let all = discovery.candidates()
            candidates = all
            for (index, path) in paths.enumerated() {
                guard let found = discovery.find(appID ?? Self.domain(of: path), in: all) else { continue }
                assigned[index] = found.schema.path
                if schemas[found.schema.path] == nil,
                    let failure = load(found.schema.path, with: loader, into: &schemas)
                {
                    return Outcome(files: [], schemaFailure: failure)
                }
            }
        }
        let inputs = Array(zip(paths, assigned.map { $0.flatMap { schemas[$0] } }))
        let byID = SchemaCache(discovery: discovery, loader: loader, candidates: candidates)
        var files = ParallelMap.map(inputs) { path, schema in validate(path, against: schema, profiles: byID) }
        // Declarations checked together are a set: unique identifiers, references that resolve, no cycle.
        let declarations = files.compactMap(\.declaration)
        if declarations.count > 1 {
            let findings = DeclarationSet.check(declarations)
            for index in files.indices {
                if let more = findings[files[index].report.path] { files[index].report.diagnostics += more }
            }
        }
        return Outcome(files: files, schemaFailure: nil)
    }

    /// Loads a schema into `schemas` (its compiled form when that is current), or returns why it cannot be used.
    private func load(_ path: String, with loader: SchemaLoader, into schemas: inout [String: ConfigSchema])
        -> CheckedFile?
    {
        if let schema = CompiledSchemaCache().schema(path, loader: loader) {
            schemas[path] = schema
            return nil
        }
        do {
            let (load, bytes) = try loader.load(path)
            guard let schema = load.usableSchema else {
                let errors = load.diagnostics.filter { $0.severity == .error }
                return CheckedFile.make(FileReport(path: path, diagnostics: errors), bytes: bytes)
            }
            schemas[path] = schema
            return nil
        } catch {
            return CheckedFile(
                report: FileReport(path: path, diagnostics: [error.diagnostic]), source: nil, unreadable: true)
        }
    }

    private func validate(_ path: String, against schema: ConfigSchema?, profiles: SchemaCache) -> CheckedFile {
        var document: PlistDocument
        var bytes: [UInt8]
        do {
            (document, bytes) = try PropertyListReader(options: readerOptions).readFile(path)
        } catch {
            return CheckedFile(
                report: FileReport(path: error.path, diagnostics: [error.diagnostic]), source: nil, unreadable: true)
        }
        // A signed profile: the plist inside the CMS message is what is checked, after the signature's findings.
        var signature: [Diagnostic] = []
        if document.hasErrors, SignedProfile.looksSigned(bytes) {
            let file = document.file
            do {
                let signed = try SignedProfile.unwrap(bytes)
                bytes = signed.content
                document = PropertyListReader(options: readerOptions).read(bytes, file: file)
                signature = Self.signatureFindings(signed, file: file, trustRoots: trustRoots)
            } catch {
                let finding = Diagnostic(
                    SchemaCode.signatureInvalid, severity: .error, message: error.reason,
                    location: SourceLocation(file: file), hint: "a signed profile is CMS SignedData holding the plist")
                return CheckedFile(
                    report: FileReport(path: file, diagnostics: [finding]), source: nil, unreadable: false)
            }
        }
        var checked = validate(document, bytes: bytes, path: path, against: schema, profiles: profiles)
        checked.report.diagnostics.insert(contentsOf: signature, at: 0)
        return checked
    }

    /// Who signed `signed`, and with `trustRoots` whether the signature and its chain verify.
    static func signatureFindings(_ signed: SignedProfile, file: String, trustRoots: [Certificate]?) -> [Diagnostic] {
        let signer = signed.signer ?? "a signer without a certificate in the message"
        guard let trustRoots else {
            return [
                Diagnostic(
                    SchemaCode.signedProfile, severity: .info,
                    message: "signed by \(signer); the signature was not verified",
                    location: SourceLocation(file: file), hint: "pass --ca CERTS.pem to verify it and its chain")
            ]
        }
        switch signed.verify(trustRoots: trustRoots) {
        case .success(let certificate):
            return [
                Diagnostic(
                    SchemaCode.signedProfile, severity: .info,
                    message: "signed by \(certificate.subject); the signature and its chain verify",
                    location: SourceLocation(file: file))
            ]
        case .failure(let failure):
            return [
                Diagnostic(
                    SchemaCode.signatureInvalid, severity: .error, message: "signed by \(signer): \(failure.reason)",
                    location: SourceLocation(file: file), hint: "a device refuses a profile whose signature fails")
            ]
        }
    }

    private func validate(
        _ document: PlistDocument, bytes: [UInt8], path: String, against schema: ConfigSchema?, profiles: SchemaCache
    ) -> CheckedFile {
        if let payloadType {
            let findings = ProfileValidation(
                options: options, schema: { profiles.schema($0) }, payloadSchema: { profiles.payloadSchema($0) }
            ).validatePayload(document, type: payloadType)
            return CheckedFile.make(
                FileReport(path: document.file, shape: "payload", diagnostics: findings), bytes: bytes)
        }
        if schemaPath == nil, ProfileValidation.recognizes(document) {
            profiles.prefetch(ProfileValidation.schemaIDs(of: document))
            let findings = ProfileValidation(
                options: options, schema: { profiles.schema($0) }, payloadSchema: { profiles.payloadSchema($0) }
            ).validate(document)
            let report = FileReport(path: document.file, shape: "profile", diagnostics: findings)
            return CheckedFile.make(report, bytes: bytes)
        }
        if AndroidPolicyValidation.recognizes(document, schema: schema) {
            let policy = AndroidPolicyValidation(
                options: options, explicitSchema: schemaPath == nil ? nil : schema, schema: { profiles.schema($0) })
            let report = FileReport(
                path: document.file, shape: "android-policy", diagnostics: policy.validate(document))
            return CheckedFile.make(report, bytes: bytes)
        }
        if schemaPath == nil, schema == nil, DeclarationValidation.recognizes(document) {
            let declarations = DeclarationValidation(options: options, schema: { profiles.schema($0) })
            let report = FileReport(
                path: document.file, shape: "declaration",
                diagnostics: declarations.validate(document) + DeclarationValidation.exportedAssetFindings(document))
            // The source is kept: the set's findings, added once every file is read, quote it too.
            var checked = CheckedFile(report: report, source: SourceText(bytes), unreadable: false)
            checked.declaration = declarations.summary(document)
            return checked
        }
        var diagnostics = Validator.validate(document, against: schema, options: options)
        if schema == nil {
            diagnostics.insert(
                Diagnostic(
                    SchemaCode.noSchema, severity: .warning,
                    message:
                        "no schema found for '\(appID ?? Self.domain(of: path))'; checked syntax and structure only",
                    location: SourceLocation(file: document.file),
                    hint: "pass --schema FILE or --app ID, or add the schema to MDMCONF_SCHEMA_PATH or ./Schemas"),
                at: 0)
        }
        let report = FileReport(
            path: document.file, schema: schema?.reference, shape: document.shape?.rawValue, diagnostics: diagnostics)
        return CheckedFile.make(report, bytes: bytes)
    }

    /// One configuration's bytes checked against `schema`, as `validate` checks a file: the upload of
    /// `POST /v1/validate` and the admin page's validate form.
    public static func check(
        _ bytes: [UInt8], file: String, against schema: ConfigSchema, readerOptions: PlistReaderOptions,
        options: ValidationOptions = ValidationOptions()
    ) -> CheckedFile {
        let document = PropertyListReader(options: readerOptions).read(bytes, file: file)
        let diagnostics = Validator.validate(document, against: schema, options: options)
        let report = FileReport(
            path: file, schema: schema.reference, shape: document.shape?.rawValue, diagnostics: diagnostics)
        return CheckedFile.make(report, bytes: bytes)
    }

    /// The preference domain a file name declares: `com.example.app.plist` → `com.example.app`.
    public static func domain(of path: String) -> String {
        var name = path.split(separator: "/").last.map(String.init) ?? path
        for suffix in [".plist", ".json", ".xml", ".mobileconfig"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
            break
        }
        return name
    }
}

/// Schemas looked up by id on the search path and loaded once, for the payloads of profiles checked side by side.
final class SchemaCache: @unchecked Sendable {
    private let lock = NSLock()
    private let discovery: SchemaDiscovery
    private let loader: SchemaLoader
    private let compiled = CompiledSchemaCache()
    private var candidates: [SchemaDiscovery.Candidate]?
    private var loaded: [String: ConfigSchema?] = [:]
    private var payloads: [String: ConfigSchema?] = [:]

    /// Schemas found by `discovery` among `candidates` (found when first needed when nil), loaded with `loader`.
    init(discovery: SchemaDiscovery, loader: SchemaLoader, candidates: [SchemaDiscovery.Candidate]? = nil) {
        self.discovery = discovery
        self.loader = loader
        self.candidates = candidates
    }

    /// The usable schema declaring `id`, or nil.
    func schema(_ id: String) -> ConfigSchema? {
        lock.lock()
        defer { lock.unlock() }
        return schemaLocked(id)
    }

    /// A payload type's schema merged with `CommonPayloadKeys`, made once (see ``ProfileValidation/merged(_:_:)``).
    ///
    /// The type's own schema is moved out of the loaded ones to be merged, so the merge adds the common keys to it in
    /// place instead of copying each of its keys (a restrictions payload has hundreds); asked for again by its id, it
    /// is read again.
    func payloadSchema(_ type: String) -> ConfigSchema? {
        lock.lock()
        defer { lock.unlock() }
        if let known = payloads[type] { return known }
        let common = schemaLocked("CommonPayloadKeys")
        var schema = schemaLocked(type)
        if type != "CommonPayloadKeys" { loaded[type] = nil }
        let merged = schema.take().map { ProfileValidation.merged(common, $0) }
        payloads[type] = merged
        return merged
    }

    /// Loads the schemas of `ids` that are not loaded yet side by side, on every core: a profile names several
    /// payload types, each a YAML file to read, and reading them was most of checking one profile. Other callers
    /// wait for it, as they wait for a schema loaded one at a time.
    func prefetch(_ ids: [String]) {
        lock.lock()
        defer { lock.unlock() }
        var missing: [String] = []
        for id in ids where loaded[id] == nil && payloads[id] == nil && !missing.contains(id) { missing.append(id) }
        guard missing.count > 1 else { return }
        let all = candidates ?? discovery.candidates()
        candidates = all
        let (discovery, loader, compiled) = (discovery, loader, compiled)
        let schemas = ParallelMap.map(missing) { id in Self.load(id, in: all, discovery, loader, compiled) }
        for (id, schema) in zip(missing, schemas) { loaded[id] = schema }
    }

    private func schemaLocked(_ id: String) -> ConfigSchema? {
        if let known = loaded[id] { return known }
        let all = candidates ?? discovery.candidates()
        candidates = all
        let schema = Self.load(id, in: all, discovery, loader, compiled)
        loaded[id] = schema
        return schema
    }

    /// The usable schema declaring `id` among `candidates`, read from its compiled form or its file.
    private static func load(
        _ id: String, in candidates: [SchemaDiscovery.Candidate], _ discovery: SchemaDiscovery, _ loader: SchemaLoader,
        _ compiled: CompiledSchemaCache
    ) -> ConfigSchema? {
        discovery.find(id, in: candidates).flatMap { found in compiled.schema(found.schema.path, loader: loader) }
    }
}
