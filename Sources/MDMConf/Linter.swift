import ConfigSchema
import DevicePolicy
import Dispatch
import MDMDiagnostics
import PropertyList
import UpdatePolicy

/// What `mdmconf lint` checks, shared by the CLI and the server: schemas (AppConfig specfiles,
/// ProfileManifests, Apple's YAML, Android restrictions and managed properties) get the schema lint, update-policy documents (a root dict with a `policies` array) the
/// policy checks, configuration profiles (a root dict with `PayloadType`) the device-policy checks and lints,
/// any other plist (XML, binary or JSON) the reader's checks.
public struct Linter: Sendable {
    /// The limits every file is read with.
    public var readerOptions: PlistReaderOptions
    /// Schemas on the search path, to warn when a linted schema's id is declared twice.
    public var discovery: SchemaDiscovery?
    /// An Android app's `res/` folder (`--res`) for the references of `app_restrictions.xml` files.
    public var androidResources: String?

    /// A linter with these choices.
    public init(
        readerOptions: PlistReaderOptions = PlistReaderOptions(), discovery: SchemaDiscovery? = nil,
        androidResources: String? = nil
    ) {
        self.readerOptions = readerOptions
        self.discovery = discovery
        self.androidResources = androidResources
    }

    /// Lints one file.
    public func lint(_ path: String) -> CheckedFile { lint([path])[0] }

    /// Lints every path, in parallel, and returns the results in the order given.
    public func lint(_ paths: [String]) -> [CheckedFile] {
        var results = ParallelMap.map(paths) { lintOne($0) }
        // The search path is read only when a schema was linted: its id may be declared twice.
        if let discovery, results.contains(where: { $0.report.schema != nil }) {
            let candidates = discovery.candidates()
            for index in results.indices { warnOfDuplicateID(&results[index], candidates: candidates) }
        }
        return results
    }

    private func lintOne(_ path: String) -> CheckedFile {
        let name = path == "-" ? InputFile.standardInputName : path
        let bytes: [UInt8]
        do {
            switch try InputFile.read(path, limit: readerOptions.maxInputSize) {
            case .bytes(let contents): bytes = contents
            case .tooLarge(let size):
                let diagnostic = PlistCode.fileTooLarge(size: size, limit: readerOptions.maxInputSize, file: name)
                return CheckedFile(
                    report: FileReport(path: name, diagnostics: [diagnostic]), source: nil, unreadable: false)
            }
        } catch {
            return CheckedFile(
                report: FileReport(path: error.path, diagnostics: [error.diagnostic]), source: nil, unreadable: true)
        }
        if SpecfileImporter.recognizes(bytes) {
            let load = SpecfileImporter(readerOptions: readerOptions).load(bytes, path: name)
            return CheckedFile.make(
                FileReport(
                    path: name, schema: load.schema?.reference, shape: "document", diagnostics: load.diagnostics),
                bytes: bytes)
        }
        if AppleSchemaImporter.recognizes(bytes) {
            let load = AppleSchemaImporter().load(bytes, path: name)
            return CheckedFile.make(
                FileReport(path: name, schema: load.schema?.reference, shape: "yaml", diagnostics: load.diagnostics),
                bytes: bytes)
        }
        if AndroidRestrictionsImporter.recognizes(bytes) {
            let load = AndroidRestrictionsImporter(readerOptions: readerOptions, resourcesFolder: androidResources)
                .load(bytes, path: name)
            return CheckedFile.make(
                FileReport(
                    path: name, schema: load.schema?.reference, shape: "document", diagnostics: load.diagnostics),
                bytes: bytes)
        }
        if Self.isAndroidProjectFile(bytes) {
            // The rest of an Android app's tree (res/values*/ resources, the manifest): read as XML, not as plists.
            let document = XMLElementReader(options: readerOptions).read(bytes, file: name)
            return CheckedFile.make(
                FileReport(path: name, shape: "document", diagnostics: document.diagnostics), bytes: bytes)
        }
        let document = PropertyListReader(options: readerOptions).read(bytes, file: name)
        if PolicyLoader.recognizes(document) {
            let loaded = PolicyLoader(readerOptions: readerOptions).load(document, source: bytes)
            return CheckedFile.make(
                FileReport(path: name, shape: document.shape?.rawValue, diagnostics: loaded.diagnostics), bytes: bytes)
        }
        if ProfileLoader.recognizes(document) {
            // A configuration profile or bare payload: the device-policy checks and lints of that one document.
            let profile = ProfileLoader(readerOptions: readerOptions).load(document)
            let lints = PolicyEngine(profileSet: ProfileSet(documents: [profile], skipInvalid: true)).lints
            let findings = profile.diagnostics + (profile.isValid ? lints : profile.lints)
            return CheckedFile.make(
                FileReport(path: name, shape: document.shape?.rawValue, diagnostics: findings.map(\.diagnostic)),
                bytes: bytes)
        }
        if ManagedPropertiesImporter.recognizes(document) {
            let load = ManagedPropertiesImporter(readerOptions: readerOptions).load(document)
            return CheckedFile.make(
                FileReport(path: name, schema: load.schema?.reference, shape: "json", diagnostics: load.diagnostics),
                bytes: bytes)
        }
        if ManifestImporter.recognizes(document) {
            let load = ManifestImporter(readerOptions: readerOptions).load(document)
            return CheckedFile.make(
                FileReport(
                    path: name, schema: load.schema?.reference, shape: document.shape?.rawValue,
                    diagnostics: load.diagnostics),
                bytes: bytes)
        }
        let report = FileReport(path: document.file, shape: document.shape?.rawValue, diagnostics: document.diagnostics)
        return CheckedFile.make(report, bytes: bytes)
    }

    private func warnOfDuplicateID(_ file: inout CheckedFile, candidates: [SchemaDiscovery.Candidate]) {
        guard let id = file.report.schema?.id else { return }
        let path = file.report.path
        let others = candidates.filter { $0.id == id && !Self.samePath($0.path, path) }
        guard let first = candidates.first(where: { $0.id == id }), !others.isEmpty else { return }
        file.report.diagnostics.append(
            Diagnostic(
                SchemaCode.duplicateSchemaID, severity: .warning,
                message: "'\(id)' is also declared by \(others.map(\.path).joined(separator: ", "))",
                location: SourceLocation(file: path), hint: "validate uses the first on the search path: \(first.path)")
        )
    }

    /// An Android resource file (`<resources>`) or `AndroidManifest.xml`, which sit beside `app_restrictions.xml`.
    private static func isAndroidProjectFile(_ bytes: [UInt8]) -> Bool {
        guard !bytes.headContains("<plist", within: 1024) else { return false }
        return bytes.headContains("<resources", within: 1024)
            || (bytes.headContains("<manifest", within: 2048)
                && bytes.headContains("schemas.android.com", within: 2048))
    }

    private static func samePath(_ a: String, _ b: String) -> Bool {
        SchemaDiscovery.realPath(a) == SchemaDiscovery.realPath(b)
    }
}

/// Maps over an array on all cores, keeping the order of the input.
public enum ParallelMap {
    /// `transform` of each input, computed on all cores, in the inputs' order.
    public static func map<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], _ transform: @Sendable (Input) -> Output
    ) -> [Output] {
        guard inputs.count > 1 else { return inputs.map(transform) }
        let results = ParallelSlots<Output>(count: inputs.count)
        // Chunks keep the scheduling cost low when there are thousands of small inputs.
        let chunk = max(1, inputs.count / 64)
        let chunks = (inputs.count + chunk - 1) / chunk
        DispatchQueue.concurrentPerform(iterations: chunks) { part in
            for index in part * chunk..<min(inputs.count, (part + 1) * chunk) {
                results.initialize(index, to: transform(inputs[index]))
            }
        }
        return results.moveToArray()
    }

    /// Calls `make` for the blocks of `size` indices that `0..<count` splits into, on every core, a batch of eight
    /// blocks at a time, and `take` with each block's result in order: a large output is made in parallel, and only
    /// a batch of it is held at once.
    public static func inBlocks<Made: Sendable>(
        of count: Int, size: Int, _ make: @Sendable (Range<Int>) -> Made, _ take: (Made) -> Void
    ) {
        let blocks = stride(from: 0, to: count, by: size).map { $0..<min(count, $0 + size) }
        for start in stride(from: 0, to: blocks.count, by: 8) {
            for made in map(Array(blocks[start..<min(blocks.count, start + 8)]), make) { take(made) }
        }
    }
}

/// Slots for the results of work split between tasks or threads: each slot is written exactly once, by one of them,
/// and the results are moved out in order once all have finished. Moved, not copied: a copy retains every reference a
/// result holds (a fleet's device rows hold dozens), on counts the threads contend for. Results
/// not moved out are not deinitialized (the memory is freed, what they hold is leaked), so every slot must be
/// written before `moveToArray()`.
public final class ParallelSlots<Value>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Value>
    private let count: Int

    /// `count` slots, none written yet.
    public init(count: Int) {
        base = .allocate(capacity: max(count, 1))
        self.count = count
    }

    deinit { base.deallocate() }

    /// Writes slot `index`: once per slot, before `moveToArray()`.
    public func initialize(_ index: Int, to value: consuming Value) {
        precondition(index >= 0 && index < count, "slot \(index) of \(count)")
        (base + index).initialize(to: value)
    }

    /// The results in slot order, moved out of the slots (call once, after every slot was written).
    public func moveToArray() -> [Value] {
        [Value](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { buffer.baseAddress!.moveInitialize(from: base, count: count) }
            initialized = count
        }
    }
}
