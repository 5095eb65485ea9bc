import ConfigSchema
import MDMDiagnostics
import PropertyList

/// `mdmconf validate` of a declarative-management declaration (JSON or plist) against Apple's schemas
/// (*Apple's schemas*): `Type`, `Identifier`, `ServerToken` and `Payload` against the declaration base (whose
/// `declarationtype` Apple writes as `any`), and `Payload` against the schema of `Type`; with a platform, the OS
/// version and the enrollments the declaration may be sent to.
public struct DeclarationValidation: Sendable {
    /// The platform, OS version and enrollment the declaration is for.
    public var options: ValidationOptions
    /// The schema of an id (`any`, `com.apple.configuration.passcode.settings`), or nil when the path has none.
    public var schema: @Sendable (String) -> ConfigSchema?

    /// A validation with `options`, finding schemas by id through `schema`.
    public init(options: ValidationOptions, schema: @escaping @Sendable (String) -> ConfigSchema?) {
        self.options = options
        self.schema = schema
    }

    /// The id of the declaration base in Apple's YAML (`declarationbase.yaml`).
    public static let baseID = "any"

    /// True for a document whose root has a string `Type`, a string `Identifier` and a dictionary `Payload`.
    public static func recognizes(_ document: PlistDocument) -> Bool {
        guard case .dictionary(let root)? = document.root?.value, case .string? = root["Type"]?.value,
            case .string? = root["Identifier"]?.value, case .dictionary? = root["Payload"]?.value
        else { return false }
        return true
    }

    /// The rules Apple's documentation states in words rather than in the YAML, for the declarations mdmconf
    /// serves: a managed app names exactly one of `AppStoreID`, `BundleID` and `ManifestURL`, and a license
    /// assignment with a store app; a data asset's `DataURL` is `https://`.
    static func proseRules(type: String, payload: PlistDictionary, file: String, at position: SourcePosition)
        -> [Diagnostic]
    {
        func finding(_ message: String, _ keyPath: String, _ where: SourcePosition, hint: String) -> Diagnostic {
            Diagnostic(
                SchemaCode.declarationRule, severity: .error, message: message,
                location: SourceLocation(file: file, position: `where`), keyPath: keyPath, hint: hint)
        }
        var found: [Diagnostic] = []
        switch type {
        case "com.apple.configuration.app.managed":
            let named = ["AppStoreID", "BundleID", "ManifestURL"].filter { payload[$0] != nil }
            if named.count != 1 {
                found.append(
                    finding(
                        named.isEmpty
                            ? "the managed app is not named: give one of AppStoreID, BundleID, ManifestURL"
                            : "the managed app is named \(named.count) ways (\(named.joined(separator: ", "))): give one",
                        "Payload", position, hint: "AppStoreID and BundleID for a store app, ManifestURL for an in-house one"))
            }
            if named.contains(where: { $0 != "ManifestURL" }) {
                var assignment: PlistValue? = nil
                if case .dictionary(let behavior)? = payload["InstallBehavior"]?.value,
                    case .dictionary(let license)? = behavior["License"]?.value
                {
                    assignment = license["Assignment"]?.value
                }
                if assignment == nil {
                    found.append(
                        finding(
                            "a store app needs InstallBehavior.License.Assignment (Device or User)",
                            "Payload.InstallBehavior.License.Assignment", position,
                            hint: "Device for a device-assigned license, User for a user-assigned one"))
                }
            }
        case "com.apple.asset.data":
            if case .dictionary(let reference)? = payload["Reference"]?.value,
                let url = reference.entries.first(where: { $0.key == "DataURL" }),
                case .string(let text) = url.value.value, !text.lowercased().hasPrefix("https://")
            {
                found.append(
                    finding(
                        "the asset's DataURL '\(text)' is not https", "Payload.Reference.DataURL", url.value.position,
                        hint: "devices fetch data assets over https only"))
            }
        default: break
        }
        return found
    }

    /// The declaration's identity and the identifiers it names: strings at keys with `assettypes`, and an
    /// activation's `StandardConfigurations`.
    public func summary(_ document: PlistDocument) -> DeclarationSummary? {
        guard let root = document.root, case .dictionary(let top) = root.value,
            case .string(let type)? = top["Type"]?.value, let identifierEntry = top.entries.first(where: { $0.key == "Identifier" }),
            case .string(let identifier) = identifierEntry.value.value
        else { return nil }
        var references: [DeclarationSummary.Reference] = []
        func walk(_ node: PlistNode, _ spec: KeySpec?, _ path: KeyPath) {
            switch node.value {
            case .string(let text):
                if let types = spec?.apple?.assetTypes {
                    references.append(.init(identifier: text, types: types, position: node.position, keyPath: path.description))
                } else if type.hasPrefix("com.apple.activation."), path.components.count >= 2,
                    case .key("StandardConfigurations") = path.components[1]
                {
                    references.append(.init(identifier: text, types: nil, position: node.position, keyPath: path.description))
                }
            case .array(let items):
                for (index, item) in items.enumerated() {
                    walk(item, spec?.items.first ?? spec, path.appending(index: index))
                }
            case .dictionary(let dict):
                for entry in dict.entries {
                    walk(entry.value, spec?.child(entry.key) ?? spec?.additionalValue.first, path.appending(key: entry.key))
                }
            default: break
            }
        }
        if let payload = top["Payload"] {
            walk(payload, schema(type)?.root, KeyPath.root.appending(key: "Payload"))
        }
        return DeclarationSummary(
            file: document.file, identifier: identifier, type: type, position: identifierEntry.value.position,
            references: references)
    }

    /// Every finding about the declaration in `document`, after the reader's own.
    public func validate(_ document: PlistDocument) -> [Diagnostic] {
        guard let root = document.root, case .dictionary(let top) = root.value,
            case .string(let type)? = top["Type"]?.value
        else { return Validator.validate(document, against: nil, options: options) }
        var findings = document.diagnostics
        let file = document.file
        if let base = schema(Self.baseID) {
            findings += Validator.validate(root, file: file, against: base, at: .root, options: options)
        }
        guard let entry = top.entries.first(where: { $0.key == "Payload" }) else { return findings }
        let path = KeyPath.root.appending(key: "Payload")
        guard let declaration = schema(type), declaration.apple?.kind == .declaration else {
            findings.append(
                Diagnostic(
                    SchemaCode.unknownPayloadType, severity: .warning,
                    message: "no declaration schema for Type '\(type)': its Payload is not checked",
                    location: SourceLocation(file: file, position: root.position), keyPath: "Type",
                    hint: "put a checkout of apple/device-management on MDMCONF_SCHEMA_PATH"))
            return findings
        }
        findings += Validator.validate(entry.value, file: file, against: declaration, at: path, options: options)
        if case .dictionary(let payload) = entry.value.value {
            findings += Self.proseRules(type: type, payload: payload, file: file, at: entry.value.position)
        }
        if let platform = options.platform, let availability = declaration.apple?.availability {
            findings += availability.findings(
                name: "the \(type) declaration", platform: platform, osVersion: options.osVersion,
                enrollment: options.enrollment, strict: true, unavailable: SchemaCode.unavailablePayload
            ).map {
                Diagnostic(
                    $0.code, severity: $0.severity, message: $0.message,
                    location: SourceLocation(file: file, position: root.position), keyPath: "Type")
            }
        }
        return findings
    }
}

extension DeclarationValidation {
    /// A data asset beside its data, as `mdmconf ddm export` lays a set out (`declarations/` and `assets/` in one
    /// folder): the file `assets/<name>` that the `DataURL` ends in must have the declared `Size` and
    /// `Hash-SHA-256`, and be a plist when `ContentType` says so. Nothing is checked when there is no such file (the
    /// data is on a server).
    static func exportedAssetFindings(_ document: PlistDocument) -> [Diagnostic] {
        guard case .dictionary(let top)? = document.root?.value, case .string("com.apple.asset.data")? = top["Type"]?.value,
            case .dictionary(let payload)? = top["Payload"]?.value,
            case .dictionary(let reference)? = payload["Reference"]?.value,
            case .string(let url)? = reference["DataURL"]?.value,
            let name = url.split(separator: "/").last.map(String.init), !name.contains(".."),
            let folder = Optional(document.file.split(separator: "/", omittingEmptySubsequences: false).dropLast()),
            folder.last == "declarations"
        else { return [] }
        let path = (folder.dropLast() + ["assets", Substring(name)]).joined(separator: "/")
        guard case .bytes(let data)? = try? InputFile.read(path, limit: 2 << 20) else { return [] }
        var findings: [Diagnostic] = []
        func finding(_ key: String, _ message: String) {
            let node = reference[key] ?? top["Payload"]
            findings.append(
                Diagnostic(
                    SchemaCode.declarationRule, severity: .error, message: message,
                    location: SourceLocation(file: document.file, position: node?.position ?? .unknown),
                    keyPath: "Payload.Reference.\(key)", hint: "export the set again: its data changed after it was written"))
        }
        if case .integer(let size)? = reference["Size"]?.value, size != Int64(data.count) {
            finding("Size", "Size is \(size) but \(path) holds \(data.count) bytes")
        }
        if case .string(let hash)? = reference["Hash-SHA-256"]?.value, hash.lowercased() != ContentHash.hex(data) {
            finding("Hash-SHA-256", "Hash-SHA-256 does not match the SHA-256 of \(path)")
        }
        if case .string("application/x-plist")? = reference["ContentType"]?.value,
            PropertyListReader().read(data, file: path).hasErrors
        {
            finding("ContentType", "ContentType says a plist, but \(path) does not read as one")
        }
        return findings
    }
}

