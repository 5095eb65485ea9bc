import ConfigSchema
import DevicePolicy
import MDMDiagnostics
import PropertyList
import UpdatePolicy

extension CatalogRun {
    static let appFiles: Set<String> = [
        "schema.xml", "schema.plist", "config.plist", "configs", "update-policy.plist", "update-policy.json",
        "app_restrictions.xml", "config.json", "res", "ddm.plist",
    ]

    /// The files of one platform's configurations in an app folder.
    struct PlatformFiles {
        var platform: ConfigPlatform
        var schemas: [String]
        var config: String
        var variantExtension: String

        static let apple = PlatformFiles(
            platform: .apple, schemas: ["schema.xml", "schema.plist"], config: "config.plist",
            variantExtension: ".plist")
        static let android = PlatformFiles(
            platform: .android, schemas: ["app_restrictions.xml"], config: "config.json", variantExtension: ".json")

        /// The folder has any file of this platform.
        func present(in folder: String) -> Bool {
            (schemas + [config]).contains {
                InputPaths.isFile(folder + "/" + $0) || InputPaths.danglingLinkTarget(folder + "/" + $0) != nil
            }
        }
    }

    /// The inventory in id order, each device with its variable values: made once for every app and platform of a
    /// load (every MDM spelling of each attribute; making them again for each app was a sixth of loading a catalog of
    /// 2,000 devices and three apps).
    typealias Inventory = [(device: CatalogDevice, values: [String: String])]

    mutating func loadApps(devices: [String: CatalogDevice]) -> [String: CatalogApp] {
        let folder = join(root, "apps")
        var apps: [String: CatalogApp] = [:]
        guard InputPaths.isDirectory(folder) else { return apps }
        let inventory: Inventory = ParallelMap.map(devices.values.sorted(by: { $0.id < $1.id })) {
            ($0, $0.variableValues)
        }
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
            if let app = loadApp(name, folder: path, devices: devices, inventory: inventory) { apps[name] = app }
        }
        return apps
    }

    private mutating func loadApp(
        _ id: String, folder: String, devices: [String: CatalogDevice], inventory: Inventory
    ) -> CatalogApp? {
        for name in InputPaths.entries(of: folder).sorted() where !name.hasPrefix(".") && !Self.appFiles.contains(name)
        {
            report(
                CatalogCode.unexpectedFile, "apps/\(id)/\(name) is not part of an app and is ignored",
                severity: .warning, file: join(folder, name),
                hint:
                    "an app folder holds schema.xml or schema.plist, config.plist, configs/, update-policy.plist, and for Android app_restrictions.xml, res/ and config.json"
            )
        }
        let policy = loadUpdatePolicy(folder: folder)
        let hasAndroid = PlatformFiles.android.present(in: folder)
        let hasApple = PlatformFiles.apple.present(in: folder) || !hasAndroid
        checkVariantNames(id, folder: folder, android: hasAndroid, apple: hasApple)
        let apple =
            hasApple ? loadPlatform(id, folder: folder, files: .apple, devices: devices, inventory: inventory) : nil
        let android =
            hasAndroid ? loadPlatform(id, folder: folder, files: .android, devices: devices, inventory: inventory) : nil
        let ddm = loadDDMSettings(folder: folder)
        guard hasApple == (apple != nil), hasAndroid == (android != nil), policy != .invalid, let ddm else {
            return nil
        }
        return CatalogApp(id: id, apple: apple, android: android, updatePolicy: policy.document, ddm: ddm)
    }

    /// `ddm.plist`: the defaults without one, nil (its findings recorded) when it cannot be used.
    private mutating func loadDDMSettings(folder: String) -> DDMAppSettings? {
        let file = join(folder, "ddm.plist")
        guard InputPaths.isFile(file) else { return DDMAppSettings() }
        guard let dict = readDictionary(file, code: CatalogCode.invalidDDMSettings) else { return nil }
        let (settings, problems) = DDMAppSettings.parse(dict, file: file)
        findings += problems
        return problems.isEmpty ? settings : nil
    }

    /// Every file of `configs/` is `<group>.plist`, or `<group>.json` for an app that serves Android.
    private mutating func checkVariantNames(_ id: String, folder: String, android: Bool, apple: Bool) {
        let variantFolder = join(folder, "configs")
        guard InputPaths.isDirectory(variantFolder) else { return }
        for name in InputPaths.entries(of: variantFolder).sorted() where !name.hasPrefix(".") {
            let file = join(variantFolder, name)
            let fits = [(apple, ".plist"), (android, ".json")].contains { serves, suffix in
                serves && name.hasSuffix(suffix) && CatalogDevice.isValidID(String(name.dropLast(suffix.count)))
            }
            if !fits || !InputPaths.isFile(file) {
                report(
                    CatalogCode.invalidGroupVariant,
                    "configs/\(name) is not <group>.plist\(android ? " or <group>.json" : "") (group names: A-Z a-z 0-9 . _ : -)",
                    file: file,
                    hint: android || !name.hasSuffix(".json")
                        ? nil : "a .json variant is for Android: add config.json and app_restrictions.xml")
            }
        }
    }

    /// One platform's schema, default configuration and group variants, each checked, and every inventory device's
    /// configuration rendered; nil (with the findings recorded) when any of them is unusable.
    private mutating func loadPlatform(
        _ id: String, folder: String, files: PlatformFiles, devices: [String: CatalogDevice], inventory: Inventory
    ) -> PlatformConfigs? {
        let schema = loadSchema(id, folder: folder, files: files)
        let configFile = join(folder, files.config)
        guard InputPaths.isFile(configFile) else {
            if let target = InputPaths.danglingLinkTarget(configFile) {
                reportDanglingLink(
                    "apps/\(id)/\(files.config)", target: target, code: CatalogCode.missingConfig, file: configFile)
            } else {
                report(
                    CatalogCode.missingConfig, "apps/\(id) has no \(files.config)", file: folder,
                    hint: "add the managed configuration the app gets by default")
            }
            return nil
        }
        let config = loadConfig(configFile, schema: schema)
        var variants: [String: PlistDocument] = [:]
        let variantFolder = join(folder, "configs")
        if InputPaths.isDirectory(variantFolder) {
            for name in InputPaths.entries(of: variantFolder).sorted()
            where !name.hasPrefix(".") && name.hasSuffix(files.variantExtension) {
                let file = join(variantFolder, name)
                let group = String(name.dropLast(files.variantExtension.count))
                guard InputPaths.isFile(file), CatalogDevice.isValidID(group) else { continue }
                if let document = loadConfig(file, schema: schema) { variants[group] = document }
                if !devices.values.contains(where: { $0.groups.contains(group) }) {
                    report(
                        CatalogCode.unusedGroupVariant, "no device in devices.plist is in group '\(group)'",
                        severity: .warning, file: file, hint: "add the group to a device's groups, or remove the file")
                }
            }
        }
        guard let schema, let config else { return nil }
        guard let defaultConfig = serve(config, values: nil, variant: nil) else { return nil }
        // Every inventory device's configuration, checked and rendered on every core (a large inventory made this
        // loop most of a catalog load); findings keep device order.
        let variantDocuments = variants
        let perDevice = ParallelMap.map(inventory) { device, values in
            let group = device.groups.first { variantDocuments[$0] != nil }
            // One substitution serves both the check and the rendering: checking with `resolvedVariables` would
            // substitute again (the same values into the same strings).
            var document = group.flatMap { variantDocuments[$0] } ?? config
            if let root = document.root {
                document.root = PlistNode(MDMVariables.substitute(in: root.value, values: values), at: root.position)
            }
            var deviceFindings: [Diagnostic] = []
            for diagnostic in Validator.validate(document, against: schema) where diagnostic.severity == .error {
                var finding = diagnostic
                finding.code = CatalogCode.deviceConfigInvalid
                finding.message = "for device '\(device.id)': \(diagnostic.message) [\(diagnostic.code.code)]"
                deviceFindings.append(finding)
            }
            return (device.id, deviceFindings, Self.render(document, values: nil, variant: group))
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
        return PlatformConfigs(
            schema: schema, defaultConfig: defaultConfig, deviceConfigs: deviceConfigs, variants: variants.keys.sorted()
        )
    }

    private mutating func loadSchema(_ id: String, folder: String, files: PlatformFiles) -> ConfigSchema? {
        let candidates = files.schemas.map { join(folder, $0) }.filter(InputPaths.isFile)
        if candidates.isEmpty {
            for name in files.schemas {
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
                    ? "apps/\(id) has no \(files.schemas.joined(separator: " or "))"
                    : "apps/\(id) has both schema.xml and schema.plist; which one applies is unclear",
                file: folder,
                hint: files.platform == .android
                    ? "add the app's res/xml/app_restrictions.xml, with its res/values folders in res/"
                    : "keep one: an AppConfig specfile (schema.xml) or a ProfileManifest (schema.plist)")
            return nil
        }
        guard let bytes = read(file) else { return nil }
        let resources = InputPaths.isDirectory(join(folder, "res")) ? join(folder, "res") : nil
        let loaded = SchemaLoader(readerOptions: readerOptions, androidResources: resources).load(bytes, path: file)
        findings += loaded.diagnostics.filter { $0.severity == .error }
        guard let schema = loaded.usableSchema else { return nil }
        // An app_restrictions.xml outside its app's tree names no package: the folder names it.
        if schema.id != id && !(files.platform == .android && schema.id.isEmpty) {
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
            let served = ServedConfig(
                xml: try PlistWriter.xmlBytes(value), json: PlistWriter.jsonValue(value).serializedBytes(),
                variant: variant)
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
