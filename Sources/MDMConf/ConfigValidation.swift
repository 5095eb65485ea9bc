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
        (self.readerOptions, self.options, self.schemaPath, self.appID) = (readerOptions, options, schemaPath, appID)
        self.discovery = discovery
    }

    /// What a run found.
    public struct Outcome: Sendable {
        /// One result per configuration, in the order given.
        public var files: [CheckedFile]
        /// A schema that could not be used, with its findings: the run stops there (exit 78, or 66 when the
        /// schema file could not be read).
        public var schemaFailure: CheckedFile?
        /// The schemas the run read, held as long as the outcome is: a command that exits after printing it keeps
        /// the outcome to the end rather than free every schema first.
        var schemas: SchemaCache?
    }

    /// Checks each configuration in `paths` (files, already expanded) against its schema.
    public func run(_ paths: [String]) -> Outcome {
        let loader = SchemaLoader(readerOptions: readerOptions, androidResources: androidResources)
        let fixed: ConfigSchema?
        switch schemaPath.map({ SchemaCache.load($0, with: loader, CompiledSchemaCache()) }) {
        case .schema(let schema)?: fixed = schema
        case .failure(let failure)?: return Outcome(files: [], schemaFailure: failure)
        case nil: fixed = nil
        }
        // Without --schema the library on the search path is walked on another thread while the files are read.
        let schemas = SchemaCache(discovery: discovery, loader: loader, discoverNow: schemaPath == nil)
        let checked = ParallelMap.map(paths) { path in validate(path, against: fixed, schemas: schemas) }
        // A schema that a file's name leads to and that cannot be used stops the run: the first, in the files' order.
        for case .schemaFailure(let failure) in checked {
            return Outcome(files: [], schemaFailure: failure, schemas: schemas)
        }
        var files = checked.compactMap { if case .file(let file) = $0 { file } else { nil } }
        // Declarations checked together are a set: unique identifiers, references that resolve, no cycle.
        let declarations = files.compactMap(\.declaration)
        if declarations.count > 1 {
            let findings = DeclarationSet.check(declarations)
            for index in files.indices {
                if let more = findings[files[index].report.path] { files[index].report.diagnostics += more }
            }
        }
        return Outcome(files: files, schemaFailure: nil, schemas: schemas)
    }

    /// What checking one file came to: its result, or the schema its name leads to that cannot be used.
    private enum Checked: Sendable {
        case file(CheckedFile)
        case schemaFailure(CheckedFile)
    }

    private func validate(_ path: String, against fixed: ConfigSchema?, schemas: SchemaCache) -> Checked {
        var document: PlistDocument
        var bytes: [UInt8]
        do {
            (document, bytes) = try PropertyListReader(options: readerOptions).readFile(path)
        } catch {
            return .file(
                CheckedFile(
                    report: FileReport(path: error.path, diagnostics: [error.diagnostic]), source: nil,
                    unreadable: true))
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
                return .file(
                    CheckedFile(report: FileReport(path: file, diagnostics: [finding]), source: nil, unreadable: false))
            }
        }
        let result = validate(document, bytes: bytes, path: path, against: fixed, schemas: schemas)
        guard case .file(var checked) = result else { return result }
        checked.report.diagnostics.insert(contentsOf: signature, at: 0)
        return .file(checked)
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
        _ document: PlistDocument, bytes: [UInt8], path: String, against fixed: ConfigSchema?, schemas: SchemaCache
    ) -> Checked {
        if let payloadType {
            let findings = ProfileValidation(
                options: options, schema: { schemas.schema($0) }, payloadSchema: { schemas.payloadSchema($0) }
            ).validatePayload(document, type: payloadType)
            return .file(
                CheckedFile.make(FileReport(path: document.file, shape: "payload", diagnostics: findings), bytes: bytes)
            )
        }
        if schemaPath == nil, ProfileValidation.recognizes(document) {
            schemas.prefetch(ProfileValidation.schemaIDs(of: document))
            let findings = ProfileValidation(
                options: options, schema: { schemas.schema($0) }, payloadSchema: { schemas.payloadSchema($0) }
            ).validate(document)
            let report = FileReport(path: document.file, shape: "profile", diagnostics: findings)
            return .file(CheckedFile.make(report, bytes: bytes))
        }
        // The rest is checked against --schema, or the schema declaring the id the file's name (or --app) gives.
        var schema = fixed
        if schemaPath == nil {
            switch schemas.named(appID ?? Self.domain(of: path)) {
            case .schema(let named)?: schema = named
            case .failure(let failure)?: return .schemaFailure(failure)
            case nil: break
            }
        }
        if AndroidPolicyValidation.recognizes(document, schema: schema) {
            let policy = AndroidPolicyValidation(
                options: options, explicitSchema: schemaPath == nil ? nil : schema, schema: { schemas.schema($0) })
            let report = FileReport(
                path: document.file, shape: "android-policy", diagnostics: policy.validate(document))
            return .file(CheckedFile.make(report, bytes: bytes))
        }
        if schemaPath == nil, schema == nil, DeclarationValidation.recognizes(document) {
            let declarations = DeclarationValidation(options: options, schema: { schemas.schema($0) })
            let report = FileReport(
                path: document.file, shape: "declaration",
                diagnostics: declarations.validate(document) + DeclarationValidation.exportedAssetFindings(document))
            // The source is kept: the set's findings, added once every file is read, quote it too.
            var checked = CheckedFile(report: report, source: SourceText(bytes), unreadable: false)
            checked.declaration = declarations.summary(document)
            return .file(checked)
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
        return .file(CheckedFile.make(report, bytes: bytes))
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
    private let loader: SchemaLoader
    private let compiled = CompiledSchemaCache()
    private let candidates: CandidateList
    private var loaded: [String: ConfigSchema?] = [:]
    private var payloads: [String: ConfigSchema?] = [:]
    private var byPath: [String: Loaded] = [:]

    /// A schema file loaded: the schema, or what makes it unusable (its errors, or why it cannot be read).
    enum Loaded: Sendable {
        case schema(ConfigSchema)
        case failure(CheckedFile)
    }

    /// Schemas found by `discovery`, loaded with `loader`; with `discoverNow` the library is walked on another
    /// thread from now on (else when a schema is first asked for).
    init(discovery: SchemaDiscovery, loader: SchemaLoader, discoverNow: Bool = false) {
        self.loader = loader
        candidates = CandidateList(discovery)
        if discoverNow { candidates.start() }
    }

    /// The usable schema declaring `id`, or nil.
    func schema(_ id: String) -> ConfigSchema? {
        lock.lock()
        defer { lock.unlock() }
        return schemaLocked(id)
    }

    /// The schema declaring `id` that a configuration's name leads to, loaded once; nil when none declares it.
    func named(_ id: String) -> Loaded? {
        guard let found = candidates.find(id) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        let key = found.schema.path + (found.hints.map { "\n" + $0.path } ?? "")
        if let known = byPath[key] { return known }
        var loaded = Self.load(found.schema.path, with: loader, compiled)
        if case .schema(let schema) = loaded { loaded = .schema(Self.withHints(schema, found, loader, compiled)) }
        byPath[key] = loaded
        return loaded
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
        var merged = schemaLocked(type)
        if type != "CommonPayloadKeys" { loaded[type] = nil }
        if let schema = merged.take() { merged = ProfileValidation.merged(common, consume schema) }
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
        // Largest file first: a profile's one or two big schemas (restrictions, VPN) then start at once on the two
        // cores, and the small ones fill in beside them instead of holding one of them back.
        let found = missing.map { candidates.find($0) }
        let sizes = found.map {
            $0.flatMap { $0.schema.unverified?.size ?? InputPaths.stamp(of: $0.schema.path)?.size } ?? 0
        }
        let order = missing.indices.sorted { sizes[$0] > sizes[$1] }
        let (loader, compiled) = (loader, compiled)
        let schemas = ParallelMap.map(order.map { found[$0] }) { found in
            found.flatMap { Self.schema($0, loader: loader, compiled) }
        }
        for (index, schema) in zip(order, schemas) { loaded[missing[index]] = schema }
    }

    private func schemaLocked(_ id: String) -> ConfigSchema? {
        if let known = loaded[id] { return known }
        let schema = candidates.find(id).flatMap { Self.schema($0, loader: loader, compiled) }
        loaded[id] = schema
        return schema
    }

    /// The usable schema `found` names, with the hints of its manifest when it has one.
    private static func schema(
        _ found: SchemaDiscovery.Found, loader: SchemaLoader, _ compiled: CompiledSchemaCache
    ) -> ConfigSchema? {
        compiled.schema(found.schema.path, loader: loader).map { withHints($0, found, loader, compiled) }
    }

    /// `schema` with the hints of the manifest `found` names beside it, when it names one (a manifest that is not
    /// usable adds none).
    private static func withHints(
        _ schema: ConfigSchema, _ found: SchemaDiscovery.Found, _ loader: SchemaLoader, _ compiled: CompiledSchemaCache
    ) -> ConfigSchema {
        guard let hints = found.hints, let manifest = compiled.schema(hints.path, loader: loader) else { return schema }
        return schema.adding(hintsOf: manifest)
    }

    /// The schema in `path` (its compiled form when that is current), or why it cannot be used.
    static func load(_ path: String, with loader: SchemaLoader, _ compiled: CompiledSchemaCache) -> Loaded {
        if let schema = compiled.schema(path, loader: loader) { return .schema(schema) }
        do {
            let (load, bytes) = try loader.load(path)
            guard let schema = load.usableSchema else {
                let errors = load.diagnostics.filter { $0.severity == .error }
                return .failure(CheckedFile.make(FileReport(path: path, diagnostics: errors), bytes: bytes))
            }
            return .schema(schema)
        } catch {
            return .failure(
                CheckedFile(
                    report: FileReport(path: path, diagnostics: [error.diagnostic]), source: nil, unreadable: true))
        }
    }
}

/// The schema files on the search path, listed once: on another thread from the start, or by the first to ask.
///
/// The list is first what the indexes hold when no folder changed (``SchemaDiscovery/unverifiedCandidates()``); a
/// lookup that finds a file changed since, or finds nothing, walks the folders once (``SchemaDiscovery/candidates()``)
/// and looks again.
private final class CandidateList: @unchecked Sendable {
    private let condition = NSCondition()
    private let discovery: SchemaDiscovery
    private var candidates: [SchemaDiscovery.Candidate]?
    private var verified = false
    private var started = false
    private var verifying = false

    init(_ discovery: SchemaDiscovery) { self.discovery = discovery }

    /// Starts listing them on another thread: a POSIX thread, which in the trace marks started about 0.1 ms after the
    /// check began where Foundation's `Thread` took 0.15–0.8 ms. When no thread can be made, the first to ask lists
    /// them.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !started else { return }
        let retained = Unmanaged.passRetained(self)
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        let made = pthread_create(
            &thread, nil,
            { raw in
                #if canImport(Darwin)
                    let list = Unmanaged<CandidateList>.fromOpaque(raw).takeRetainedValue()
                #else
                    let list = Unmanaged<CandidateList>.fromOpaque(raw!).takeRetainedValue()
                #endif
                list.list()
                return nil
            }, retained.toOpaque())
        guard made == 0 else {
            retained.release()
            return
        }
        #if canImport(Darwin)
            if let thread { pthread_detach(thread) }
        #else
            pthread_detach(thread)
        #endif
        started = true
    }

    /// The schema declaring `id` (see ``SchemaDiscovery/find(_:in:)``), from a list whose files are checked as
    /// they are found; nil when no schema on the path declares it.
    func find(_ id: String) -> SchemaDiscovery.Found? {
        let (all, checked) = value()
        let found = discovery.find(id, in: all)
        if checked || found.map({ $0.schema.isCurrent && $0.hints?.isCurrent != false }) == true { return found }
        return discovery.find(id, in: verifiedValue())
    }

    private func list() {
        let unverified = discovery.unverifiedCandidates()
        let all = unverified ?? discovery.candidates()
        condition.lock()
        if candidates == nil { (candidates, verified) = (all, unverified == nil) }
        condition.broadcast()
        condition.unlock()
    }

    /// The list, and whether every file of it was checked; waiting for the listing under way, or making it.
    private func value() -> ([SchemaDiscovery.Candidate], Bool) {
        condition.lock()
        if !started {
            started = true
            condition.unlock()
            list()
            condition.lock()
        }
        while candidates == nil { condition.wait() }
        defer { condition.unlock() }
        return (candidates ?? [], verified)
    }

    /// The list with every file checked: walking the folders when the list was taken from the indexes unchecked.
    private func verifiedValue() -> [SchemaDiscovery.Candidate] {
        condition.lock()
        while verifying { condition.wait() }
        if verified, let candidates {
            condition.unlock()
            return candidates
        }
        verifying = true
        condition.unlock()
        let all = discovery.candidates()
        condition.lock()
        (candidates, verified, verifying) = (all, true, false)
        condition.broadcast()
        condition.unlock()
        return all
    }
}
