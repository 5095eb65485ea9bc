import ConfigSchema
import MDMDiagnostics
import PropertyList

/// One declaration of a device's declarative-management set.
public struct DDMDeclaration: Sendable {
    /// Where the declaration goes in the declaration-items response.
    public enum Kind: String, Sendable, CaseIterable {
        /// An activation: which configurations to install.
        case activation = "Activations"
        /// A configuration, such as an app.managed.
        case configuration = "Configurations"
        /// An asset, such as a data asset.
        case asset = "Assets"
        /// A management declaration.
        case management = "Management"
    }

    /// Where it is listed in the declaration items.
    public var kind: Kind
    /// The declaration's `Type` (`com.apple.asset.data`).
    public var type: String
    /// The declaration's `Identifier`, stable across exports (`io.mdmconf.asset.com.example.app`).
    public var identifier: String
    /// A hash over `Type`, `Identifier` and `Payload`: it changes exactly when the content does.
    public var serverToken: String
    /// The declaration's `Payload`.
    public var payload: PlistDictionary
    /// The declaration as served: `Type`, `Identifier`, `ServerToken`, `Payload`, pretty JSON.
    public var json: String

    init(kind: Kind, type: String, identifier: String, payload: PlistDictionary) {
        (self.kind, self.type, self.identifier, self.payload) = (kind, type, identifier, payload)
        let content: PlistValue = .dictionary(
            PlistDictionary([
                .init(key: "Type", value: PlistNode(.string(type))),
                .init(key: "Identifier", value: PlistNode(.string(identifier))),
                .init(key: "Payload", value: PlistNode(.dictionary(payload))),
            ]))
        serverToken = ContentHash.hex(Array(PlistWriter.json(content, pretty: false).utf8), bytes: 16)
        json =
            PlistWriter.json(
                .dictionary(
                    PlistDictionary([
                        .init(key: "Type", value: PlistNode(.string(type))),
                        .init(key: "Identifier", value: PlistNode(.string(identifier))),
                        .init(key: "ServerToken", value: PlistNode(.string(serverToken))),
                        .init(key: "Payload", value: PlistNode(.dictionary(payload))),
                    ]))) + "\n"
    }

    /// The file name in an export's `declarations/` folder.
    public var fileName: String { identifier + ".json" }
}

/// A data asset's bytes, served content-addressed at `/v1/ddm/assets/<sha256>.plist`.
public struct DDMAsset: Sendable {
    /// The SHA-256 of `bytes`, 64 hexadecimal digits.
    public var sha256: String
    /// The configuration plist, as `GET /v1/apps/{app}/config` serves it.
    public var bytes: [UInt8]
}

/// Everything a device is sent over the declarative channel: its declarations, the assets they name, and the two
/// protocol responses (tokens, declaration items) in the shapes of Apple's `declarative/protocol` YAML.
public struct DDMDeviceSet: Sendable {
    /// The inventory device the set is for.
    public var device: String
    /// The activation first, then each app's asset and configuration.
    public var declarations: [DDMDeclaration]
    /// The data the assets name.
    public var assets: [DDMAsset]
    /// A hash over every declaration's identifier and server token: it changes exactly when one of them does.
    public var declarationsToken: String
    /// `TokensResponse`: `SyncTokens` with `DeclarationsToken` and `Timestamp`.
    public var tokensJSON: String
    /// `DeclarationItemsResponse`: the identifiers and server tokens of each kind, and the declarations token.
    public var declarationItemsJSON: String

    /// The declaration of `type` named `identifier`, or nil.
    public func declaration(type: String, identifier: String) -> DDMDeclaration? {
        declarations.first { $0.type == type && $0.identifier == identifier }
    }
}

/// Makes each device's declaration set from a loaded catalog: per app it serves the device, a
/// `com.apple.configuration.app.managed` whose `AppConfig.DataAssetReference` names a `com.apple.asset.data` that
/// holds the device's configuration as served by `GET /v1/apps/{app}/config`; and one `com.apple.activation.simple`
/// installing them all.
public struct DDMExporter: Sendable {
    /// The server's base URL (`https://mdm.example.com:8443`): the assets' `DataURL` starts with it.
    public var baseURL: String
    /// The `Timestamp` of the tokens response (RFC 3339).
    public var timestamp: String

    /// Apple's limit for the data of an app configuration asset.
    public static let maxAssetSize = 1 << 20
    /// The prefix of every identifier mdmconf writes.
    public static let identifierPrefix = "io.mdmconf."

    /// An exporter whose assets are served below `baseURL`, whose tokens carry `timestamp`.
    public init(baseURL: String, timestamp: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.timestamp = timestamp
    }

    /// The path an asset is served at.
    public static func assetPath(_ sha256: String) -> String { "/v1/ddm/assets/\(sha256).plist" }

    /// The identifier of an app's app.managed declaration.
    public static func appIdentifier(_ app: String) -> String { identifierPrefix + "app." + app }
    /// The identifier of an app's data asset.
    public static func assetIdentifier(_ app: String) -> String { identifierPrefix + "asset." + app }
    /// The identifier of the set's activation.
    public static let activationIdentifier = identifierPrefix + "activation"

    /// The set of `device`: every app the catalog serves it (Apple's plist configurations; apps the device would be
    /// served by JSON are left out, DDM being Apple's channel).
    public func set(for device: String, catalog: Catalog) -> DDMDeviceSet {
        var declarations: [DDMDeclaration] = []
        var assets: [DDMAsset] = []
        for id in catalog.appIDs {
            guard let app = catalog.apps[id], app.servesApple else { continue }
            let served = app.config(forDevice: device, platform: .apple).xml
            assets.append(DDMAsset(sha256: served.sha256, bytes: served.bytes))
            declarations.append(assetDeclaration(id, bytes: served.bytes, sha256: served.sha256, settings: app.ddm))
            declarations.append(Self.appDeclaration(id, settings: app.ddm))
        }
        let configurations = declarations.filter { $0.kind == .configuration }.map(\.identifier)
        if !configurations.isEmpty {
            let activation = PlistDictionary([
                .init(
                    key: "StandardConfigurations",
                    value: PlistNode(.array(configurations.map { PlistNode(.string($0)) })))
            ])
            declarations.insert(
                DDMDeclaration(
                    kind: .activation, type: "com.apple.activation.simple", identifier: Self.activationIdentifier,
                    payload: activation), at: 0)
        }
        let token = Self.declarationsToken(declarations)
        return DDMDeviceSet(
            device: device, declarations: declarations, assets: assets, declarationsToken: token,
            tokensJSON: tokensResponse(token).serialized() + "\n",
            declarationItemsJSON: Self.declarationItems(declarations, token: token).serialized() + "\n")
    }

    /// The data asset holding an app's configuration bytes, served below the base URL by their hash.
    private func assetDeclaration(_ app: String, bytes: [UInt8], sha256: String, settings: DDMAppSettings)
        -> DDMDeclaration
    {
        let reference = PlistDictionary([
            .init(key: "DataURL", value: PlistNode(.string(baseURL + Self.assetPath(sha256)))),
            .init(key: "ContentType", value: PlistNode(.string("application/x-plist"))),
            .init(key: "Size", value: PlistNode(.integer(Int64(bytes.count)))),
            .init(key: "Hash-SHA-256", value: PlistNode(.string(sha256))),
        ])
        let authentication = PlistDictionary([
            .init(key: "Type", value: PlistNode(.string(settings.mdmAuthentication ? "MDM" : "None")))
        ])
        let payload = PlistDictionary([
            .init(key: "Reference", value: PlistNode(.dictionary(reference))),
            .init(key: "Authentication", value: PlistNode(.dictionary(authentication))),
        ])
        return DDMDeclaration(
            kind: .asset, type: "com.apple.asset.data", identifier: Self.assetIdentifier(app), payload: payload)
    }

    /// An app's managed-app configuration: how it is named and installed, and the asset that configures it.
    private static func appDeclaration(_ app: String, settings: DDMAppSettings) -> DDMDeclaration {
        func dictionary(_ entries: [(String, PlistValue)]) -> PlistValue {
            .dictionary(PlistDictionary(entries.map { .init(key: $0.0, value: PlistNode($0.1)) }))
        }
        var entries: [(String, PlistValue)]
        if let storeID = settings.appStoreID {
            entries = [("AppStoreID", .string(storeID))]
        } else if let manifest = settings.manifestURL {
            entries = [("ManifestURL", .string(manifest))]
        } else {
            entries = [("BundleID", .string(app))]
        }
        var behavior: [(String, PlistValue)] = [("Install", .string(settings.install))]
        // A store app needs its license; an in-house app (ManifestURL) has none.
        if settings.manifestURL == nil {
            behavior.append(("License", dictionary([("Assignment", .string(settings.licenseAssignment))])))
        }
        entries.append(("InstallBehavior", dictionary(behavior)))
        entries.append(("AppConfig", dictionary([("DataAssetReference", .string(assetIdentifier(app)))])))
        if settings.legacyAppConfig {
            entries.append(("LegacyAppConfigAssetReference", .string(assetIdentifier(app))))
        }
        return DDMDeclaration(
            kind: .configuration, type: "com.apple.configuration.app.managed", identifier: appIdentifier(app),
            payload: PlistDictionary(entries.map { .init(key: $0.0, value: PlistNode($0.1)) }))
    }

    /// A hash over every declaration's identifier and server token, in identifier order.
    private static func declarationsToken(_ declarations: [DDMDeclaration]) -> String {
        var text = ""
        for declaration in declarations.sorted(by: { $0.identifier < $1.identifier }) {
            text += "\(declaration.identifier)\u{0}\(declaration.serverToken)\n"
        }
        return ContentHash.hex(Array(text.utf8), bytes: 16)
    }

    /// `TokensResponse`.
    private func tokensResponse(_ token: String) -> JSONValue {
        .object([("SyncTokens", .object([("DeclarationsToken", .string(token)), ("Timestamp", .string(timestamp))]))])
    }

    /// `DeclarationItemsResponse`: each kind's identifiers and server tokens.
    private static func declarationItems(_ declarations: [DDMDeclaration], token: String) -> JSONValue {
        let kinds: [(String, JSONValue)] = DDMDeclaration.Kind.allCases.map { kind in
            let items: [JSONValue] = declarations.filter { $0.kind == kind }.map {
                .object([("Identifier", .string($0.identifier)), ("ServerToken", .string($0.serverToken))])
            }
            return (kind.rawValue, .array(items))
        }
        return .object([("Declarations", .object(kinds)), ("DeclarationsToken", .string(token))])
    }
}

/// An app's `ddm.plist`: how its managed-app declaration names and installs it. Every key is optional.
public struct DDMAppSettings: Sendable, Equatable {
    /// `AppStoreID`: name the app by its App Store ID instead of its bundle id.
    public var appStoreID: String?
    /// `ManifestURL`: an in-house app's https manifest.
    public var manifestURL: String?
    /// `Install`: `Optional` (default) or `Required`.
    public var install = "Optional"
    /// `LicenseAssignment`: `Device` (default) or `User`, for a store app.
    public var licenseAssignment = "Device"
    /// `LegacyAppConfig`: also hand the configuration to the app as its `com.apple.configuration.managed` dictionary.
    public var legacyAppConfig = false
    /// `AssetAuthentication` `MDM`: the device downloads the asset as an MDM request (default `None`).
    public var mdmAuthentication = false

    /// The defaults: the app named by its bundle id, optional, licensed to the device, no legacy path, no auth.
    public init() {}

    /// The settings in `dict`, or the findings that make it unusable.
    static func parse(_ dict: PlistDictionary, file: String) -> (DDMAppSettings, [Diagnostic]) {
        var settings = DDMAppSettings()
        var findings: [Diagnostic] = []
        func refuse(_ entry: PlistDictionary.Entry, _ message: String) {
            findings.append(
                Diagnostic(
                    CatalogCode.invalidDDMSettings, severity: .error, message: message,
                    location: SourceLocation(file: file, position: entry.keyPosition), keyPath: entry.key))
        }
        for entry in dict.entries {
            switch (entry.key, entry.value.value) {
            case ("AppStoreID", .string(let text)) where !text.isEmpty && text.allSatisfy(\.isNumber):
                settings.appStoreID = text
            case ("ManifestURL", .string(let text)) where text.hasPrefix("https://"):
                settings.manifestURL = text
            case ("Install", .string(let text)) where ["Optional", "Required"].contains(text): settings.install = text
            case ("LicenseAssignment", .string(let text)) where ["Device", "User"].contains(text):
                settings.licenseAssignment = text
            case ("LegacyAppConfig", .boolean(let flag)): settings.legacyAppConfig = flag
            case ("AssetAuthentication", .string(let text)) where ["MDM", "None"].contains(text):
                settings.mdmAuthentication = text == "MDM"
            case ("AppStoreID", _): refuse(entry, "AppStoreID must be a string of digits")
            case ("ManifestURL", _): refuse(entry, "ManifestURL must be an https URL")
            case ("Install", _): refuse(entry, "Install must be Optional or Required")
            case ("LicenseAssignment", _): refuse(entry, "LicenseAssignment must be Device or User")
            case ("LegacyAppConfig", _): refuse(entry, "LegacyAppConfig must be <true/> or <false/>")
            case ("AssetAuthentication", _): refuse(entry, "AssetAuthentication must be MDM or None")
            default:
                refuse(
                    entry,
                    "'\(entry.key)' is not a ddm.plist key (AppStoreID, ManifestURL, Install, LicenseAssignment, LegacyAppConfig, AssetAuthentication)"
                )
            }
        }
        if settings.appStoreID != nil && settings.manifestURL != nil {
            findings.append(
                Diagnostic(
                    CatalogCode.invalidDDMSettings, severity: .error,
                    message: "give AppStoreID or ManifestURL, not both", location: SourceLocation(file: file)))
        }
        return (settings, findings)
    }
}

extension DDMExporter {
    /// The search path a device set is checked with: the project's own schemas first (they describe keys newer than
    /// Apple's last published YAML, such as `AppConfig`), then the standard path.
    public static func discovery(_ standard: SchemaDiscovery = .standard()) -> SchemaDiscovery {
        guard let bundled = SchemaDiscovery.bundledSchemasFolder() else { return standard }
        return SchemaDiscovery(folders: [bundled] + standard.folders.filter { $0 != bundled })
    }

    /// Every finding about a device set: each declaration against Apple's schemas and the prose rules, the set's
    /// references and identifiers, and each asset against Apple's size limit. File names are those of the export
    /// (`DEVICE/declarations/IDENTIFIER.json`).
    public static func check(_ set: DDMDeviceSet, discovery: SchemaDiscovery) -> [CheckedFile] {
        let cache = SchemaCache(discovery: discovery, loader: SchemaLoader())
        let validation = DeclarationValidation(options: ValidationOptions(), schema: { cache.schema($0) })
        var files: [CheckedFile] = []
        for declaration in set.declarations {
            let path = "\(set.device)/declarations/\(declaration.fileName)"
            let bytes = Array(declaration.json.utf8)
            let document = JSONPlistReader().read(bytes, file: path)
            var checked = CheckedFile(
                report: FileReport(path: path, shape: "declaration", diagnostics: validation.validate(document)),
                source: SourceText(bytes), unreadable: false)
            checked.declaration = validation.summary(document)
            files.append(checked)
        }
        let findings = DeclarationSet.check(files.compactMap(\.declaration))
        for index in files.indices {
            if let more = findings[files[index].report.path] { files[index].report.diagnostics += more }
        }
        for asset in set.assets where asset.bytes.count > maxAssetSize {
            let path = "\(set.device)/assets/\(asset.sha256).plist"
            files.append(
                CheckedFile(
                    report: FileReport(
                        path: path,
                        diagnostics: [
                            Diagnostic(
                                SchemaCode.declarationRule, severity: .error,
                                message: "the configuration is \(asset.bytes.count) bytes, over Apple's 1 MB for app configuration data",
                                location: SourceLocation(file: path), hint: "move large values out of the configuration")
                        ]), source: nil, unreadable: false))
        }
        return files
    }
}
