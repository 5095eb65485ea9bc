import ConfigSchema
import DevicePolicy
import MDMDiagnostics
import PropertyList
import UpdatePolicy

extension CatalogRun {
    static let appFiles: Set<String> = [
        "schema.xml", "schema.plist", "config.plist", "configs", "update-policy.plist", "update-policy.json",
    ]

    mutating func loadApps(devices: [String: CatalogDevice]) -> [String: CatalogApp] {
        let folder = join(root, "apps")
        var apps: [String: CatalogApp] = [:]
        guard InputPaths.isDirectory(folder) else { return apps }
        for name in InputPaths.entries(of: folder).sorted() where !name.hasPrefix(".") {
            let path = join(folder, name)
            guard InputPaths.isDirectory(path) else {
                report(
                    CatalogCode.unexpectedFile, "apps/\(name) is not a folder and is ignored", severity: .warning,
                    file: path, hint: "each app is a folder apps/<bundleId>/ holding schema.xml and config.plist")
                continue
            }
            guard BundleID.isValid(name) else {
                report(
                    CatalogCode.invalidAppFolder, "apps/\(name) is not named by a bundle id ([A-Za-z0-9.-]+)",
                    file: path)
                continue
            }
            if let app = loadApp(name, folder: path, devices: devices) { apps[name] = app }
        }
        return apps
    }

    private mutating func loadApp(_ id: String, folder: String, devices: [String: CatalogDevice]) -> CatalogApp? {
        for name in InputPaths.entries(of: folder).sorted() where !name.hasPrefix(".") && !Self.appFiles.contains(name)
        {
            report(
                CatalogCode.unexpectedFile, "apps/\(id)/\(name) is not part of an app and is ignored",
                severity: .warning, file: join(folder, name),
                hint: "an app folder holds schema.xml or schema.plist, config.plist, configs/ and update-policy.plist")
        }
        let schema = loadSchema(id, folder: folder)
        let policy = loadUpdatePolicy(folder: folder)
        let configFile = join(folder, "config.plist")
        guard InputPaths.isFile(configFile) else {
            if let target = InputPaths.danglingLinkTarget(configFile) {
                reportDanglingLink(
                    "apps/\(id)/config.plist", target: target, code: CatalogCode.missingConfig, file: configFile)
            } else {
                report(
                    CatalogCode.missingConfig, "apps/\(id) has no config.plist", file: folder,
                    hint: "add the managed configuration the app gets by default")
            }
            return nil
        }
        let config = loadConfig(configFile, schema: schema)
        var variants: [String: PlistDocument] = [:]
        let variantFolder = join(folder, "configs")
        if InputPaths.isDirectory(variantFolder) {
            for name in InputPaths.entries(of: variantFolder).sorted() where !name.hasPrefix(".") {
                let file = join(variantFolder, name)
                guard name.hasSuffix(".plist"), InputPaths.isFile(file),
                    CatalogDevice.isValidID(String(name.dropLast(6)))
                else {
                    report(
                        CatalogCode.invalidGroupVariant,
                        "configs/\(name) is not <group>.plist (group names: A-Z a-z 0-9 . _ : -)", file: file)
                    continue
                }
                let group = String(name.dropLast(6))
                if let document = loadConfig(file, schema: schema) { variants[group] = document }
                if !devices.values.contains(where: { $0.groups.contains(group) }) {
                    report(
                        CatalogCode.unusedGroupVariant, "no device in devices.plist is in group '\(group)'",
                        severity: .warning, file: file, hint: "add the group to a device's groups, or remove the file")
                }
            }
        }
        guard let schema, let config, policy != .invalid else { return nil }
        guard let defaultConfig = serve(config, values: nil, variant: nil) else { return nil }
        // Every inventory device's configuration, checked and rendered on every core (a large inventory made this
        // loop most of a catalog load); findings keep device order.
        let variantDocuments = variants
        let perDevice = ParallelMap.map(devices.values.sorted(by: { $0.id < $1.id })) { device in
            let group = device.groups.first { variantDocuments[$0] != nil }
            let document = group.flatMap { variantDocuments[$0] } ?? config
            let values = device.variableValues
            var deviceFindings: [Diagnostic] = []
            for diagnostic in Validator.validate(
                document, against: schema, options: ValidationOptions(resolvedVariables: values))
            where diagnostic.severity == .error {
                var finding = diagnostic
                finding.code = CatalogCode.deviceConfigInvalid
                finding.message = "for device '\(device.id)': \(diagnostic.message) [\(diagnostic.code.code)]"
                deviceFindings.append(finding)
            }
            return (device.id, deviceFindings, Self.render(document, values: values, variant: group))
        }
        var deviceConfigs: [String: ServedConfig] = [:]
        for (id, deviceFindings, rendered) in perDevice {
            findings += deviceFindings
            switch rendered {
            case .served(let served)?: deviceConfigs[id] = served
            case .refused(let diagnostic)?: findings.append(diagnostic)
            case nil: break
            }
        }
        return CatalogApp(
            id: id, schema: schema, defaultConfig: defaultConfig, deviceConfigs: deviceConfigs,
            variants: variants.keys.sorted(), updatePolicy: policy.document)
    }

    private mutating func loadSchema(_ id: String, folder: String) -> ConfigSchema? {
        let candidates = ["schema.xml", "schema.plist"].map { join(folder, $0) }.filter(InputPaths.isFile)
        if candidates.isEmpty {
            for name in ["schema.xml", "schema.plist"] {
                guard let target = InputPaths.danglingLinkTarget(join(folder, name)) else { continue }
                reportDanglingLink(
                    "apps/\(id)/\(name)", target: target, code: CatalogCode.missingSchema, file: join(folder, name))
                return nil
            }
        }
        guard candidates.count == 1, let file = candidates.first else {
            report(
                CatalogCode.missingSchema,
                candidates.isEmpty
                    ? "apps/\(id) has no schema.xml or schema.plist"
                    : "apps/\(id) has both schema.xml and schema.plist; which one applies is unclear",
                file: folder, hint: "keep one: an AppConfig specfile (schema.xml) or a ProfileManifest (schema.plist)")
            return nil
        }
        guard let bytes = read(file) else { return nil }
        let loaded = SchemaLoader(readerOptions: readerOptions).load(bytes, path: file)
        findings += loaded.diagnostics.filter { $0.severity == .error }
        guard let schema = loaded.usableSchema else { return nil }
        if schema.id != id {
            report(
                CatalogCode.schemaForAnotherApp, "the schema in apps/\(id) declares '\(schema.id)'", file: file,
                hint: "rename the folder to apps/\(schema.id), or fix the schema's bundleId / pfm_domain")
            return nil
        }
        return schema
    }

    enum PolicyFile: Equatable {
        case absent, valid(PolicyDocument), invalid

        var document: PolicyDocument? { if case .valid(let document) = self { document } else { nil } }

        static func == (lhs: PolicyFile, rhs: PolicyFile) -> Bool {
            switch (lhs, rhs) {
            case (.absent, .absent), (.invalid, .invalid), (.valid, .valid): true
            default: false
            }
        }
    }

    private mutating func loadUpdatePolicy(folder: String) -> PolicyFile {
        let files = ["update-policy.plist", "update-policy.json"].map { join(folder, $0) }.filter(InputPaths.isFile)
        guard let file = files.first else { return .absent }
        if files.count > 1 {
            report(
                CatalogCode.unexpectedFile, "update-policy.json is ignored: update-policy.plist is used",
                severity: .warning, file: files[1])
        }
        guard let bytes = read(file) else { return .invalid }
        let loaded = PolicyLoader(readerOptions: readerOptions).load(bytes, file: file)
        findings += loaded.diagnostics
        guard let document = loaded.document, !loaded.diagnostics.hasErrors else { return .invalid }
        return .valid(document)
    }

    /// A configuration checked against its schema (syntax findings and validation findings recorded).
    private mutating func loadConfig(_ file: String, schema: ConfigSchema?) -> PlistDocument? {
        guard let bytes = read(file) else { return nil }
        let document = PropertyListReader(options: readerOptions).read(bytes, file: file)
        let diagnostics = Validator.validate(document, against: schema)
        findings += diagnostics
        guard !diagnostics.hasErrors, !document.hasErrors, document.root != nil else { return nil }
        return document
    }

    /// Both served forms of a configuration, variables substituted when `values` is given.
    private mutating func serve(_ document: PlistDocument, values: [String: String]?, variant: String?)
        -> ServedConfig?
    {
        switch Self.render(document, values: values, variant: variant) {
        case .served(let served)?: return served
        case .refused(let diagnostic)?:
            findings.append(diagnostic)
            return nil
        case nil: return nil
        }
    }

    /// `document` with `values` substituted, in both served forms; the finding of a value a form cannot carry; nil
    /// for a document without a root.
    private static func render(_ document: PlistDocument, values: [String: String]?, variant: String?) -> Rendered? {
        guard let root = document.root else { return nil }
        let value = values.map { MDMVariables.substitute(in: root.value, values: $0) } ?? root.value
        do {
            let served = ServedConfig(xml: try PlistWriter.xml(value), json: PlistWriter.json(value), variant: variant)
            return .served(served)
        } catch {
            var diagnostic = error.diagnostic
            diagnostic.location = SourceLocation(file: document.file)
            return .refused(diagnostic)
        }
    }

    private enum Rendered: Sendable {
        case served(ServedConfig)
        case refused(Diagnostic)
    }
}
