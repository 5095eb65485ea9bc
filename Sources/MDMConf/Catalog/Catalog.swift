import ConfigSchema
import Crypto
import DevicePolicy
import MDMDiagnostics
import PropertyList
import UpdatePolicy
import WebhookEvents

/// One loaded, fully validated catalog folder (*Serving a catalog*): immutable, shared by every request that started
/// while it was current. Replaced as a whole on reload, never changed in place.
public final class Catalog: Sendable {
    /// The folder it was loaded from.
    public let path: String
    /// `mdmconf-server.plist`, with defaults for what it leaves out.
    public let settings: CatalogSettings
    /// Apps by bundle id.
    public let apps: [String: CatalogApp]
    /// `devices.plist`: the inventory, by device id.
    public let devices: [String: CatalogDevice]
    /// nil without a tokens file: development mode (loopback only, no auth).
    public let tokens: [CatalogToken]?
    /// The profiles of `profiles/`, validated and linted once.
    public let policyEngine: PolicyEngine
    /// Warnings found while loading (errors refuse the catalog).
    public let warnings: [Diagnostic]
    /// App ids in byte order (sorted once: compliance asks for every device).
    public let appIDs: [String]
    /// The inventory's device ids in byte order, the order the stores list devices in (sorted once: every scan of
    /// the fleet merges them with the stored devices).
    public let deviceIDs: [String]
    /// Every plist configuration served to an Apple device, by the SHA-256 of its bytes: the data assets of the
    /// declarative channel (`GET /v1/ddm/assets/{sha256}.plist`).
    public let assets: [String: [UInt8]]
    /// `events.plist`: the endpoints events are sent to, by name (none without the file).
    public let events: [EventEndpoint]

    init(
        path: String, settings: CatalogSettings, apps: [String: CatalogApp], devices: [String: CatalogDevice],
        tokens: [CatalogToken]?, policyEngine: PolicyEngine, events: [EventEndpoint] = [], warnings: [Diagnostic]
    ) {
        (self.events, self.path, self.settings, self.apps, self.devices) = (events, path, settings, apps, devices)
        (self.tokens, self.policyEngine, self.warnings) = (tokens, policyEngine, warnings)
        appIDs = apps.keys.sorted { $0.utf8Precedes($1) }
        deviceIDs = devices.keys.sorted { $0.utf8Precedes($1) }
        var assets: [String: [UInt8]] = [:]
        for app in apps.values where app.servesApple {
            for served in [app.defaultConfig] + Array(app.deviceConfigs.values) {
                assets[served.xml.sha256] = served.xml.bytes
            }
        }
        self.assets = assets
    }

    /// Who a bearer token is, or nil when no token matches. Every stored digest is compared in full, in
    /// constant time, whichever matches.
    public func scope(ofBearer token: String) -> CatalogToken.Scope? {
        var token = token
        return token.withUTF8 { scope(ofBearerBytes: $0) }
    }

    /// `scope(ofBearer:)` of a token given as its UTF-8 bytes (as a request header holds it).
    public func scope(ofBearerBytes token: UnsafeBufferPointer<UInt8>) -> CatalogToken.Scope? {
        guard let tokens else { return nil }
        var hasher = SHA256()
        hasher.update(bufferPointer: UnsafeRawBufferPointer(token))
        return hasher.finalize().withUnsafeBytes { digest in
            var found: CatalogToken.Scope?
            for entry in tokens where CatalogToken.constantTimeEqual(entry.digest, digest) {
                found = entry.scope
            }
            return found
        }
    }
}

/// `mdmconf-server.plist`: settings a catalog carries, each with its default.
public struct CatalogSettings: Sendable, Equatable {
    /// The tokens file, relative to the catalog folder.
    public var tokensFile = "tokens.plist"
    /// Request bodies over this many bytes are refused with 413.
    public var maxBodySize = 1 << 20
    /// `Cache-Control: private, max-age=N` on configurations.
    public var cacheMaxAge = 60
    /// `--watch` polls the folder this often, in seconds.
    public var reloadInterval = 2.0
    /// A connection must deliver a complete request within this many seconds (slow and idle clients are
    /// closed).
    public var requestTimeout = 30.0
    /// A device whose last check-in is older than this many days is `silent` (*Fleet state*).
    public var silentAfterDays = 7.0

    /// Every setting at its default.
    public init() {}
}

/// One token of `tokens.plist`: the SHA-256 of the secret, never the secret.
public struct CatalogToken: Sendable {
    /// What a token may do.
    public enum Scope: Sendable, Equatable {
        /// Everything: every device's configuration, the fleet, the admin page.
        case admin
        /// Only what concerns this device: its configuration, its check-ins, its update decisions.
        case device(String)
        /// A declarative-management server: reads any device's declaration set, and nothing of the fleet.
        case mdm
    }

    /// The SHA-256 of the secret.
    public let digest: [UInt8]
    /// What the token may do.
    public let scope: Scope

    /// A token whose secret hashes to `digest`.
    public init(digest: [UInt8], scope: Scope) {
        self.digest = digest
        self.scope = scope
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

/// The platforms a configuration is written for: Apple's plists, or Android's managed-configuration JSON.
public enum ConfigPlatform: String, Sendable, CaseIterable {
    /// iOS, iPadOS, macOS, tvOS, visionOS, watchOS: plist configurations.
    case apple
    /// Android: JSON managed configurations.
    case android

    /// The family of a platform name as check-ins and `?platform=` write it (`android`; `ios`, `macos` … are Apple's).
    public init(_ platform: String?) {
        // Compared byte by byte, ignoring ASCII case: every device a report judges, and every check-in, names its
        // platform, and lower-casing the name made a string each time.
        guard var name = platform, name.utf8.count == 7 else {
            self = .apple
            return
        }
        self = name.withUTF8 { bytes in zip(bytes, "android".utf8).allSatisfy { $0 | 0x20 == $1 } } ? .android : .apple
    }
}

/// What an app serves one platform family: the schema, the default configuration and each device's.
public struct PlatformConfigs: Sendable {
    /// The schema the configurations are checked against.
    public let schema: ConfigSchema
    /// `config.plist` or `config.json` with its variables as written: served when no device is named.
    public let defaultConfig: ServedConfig
    /// Each inventory device's configuration: its group variant (or the default), variables substituted.
    public let deviceConfigs: [String: ServedConfig]
    /// Group names that have a variant in `configs/`.
    public let variants: [String]
}

/// An app of the catalog: its schema, the configurations it serves and its update policy. An app serves Apple
/// devices a plist (`schema.xml` or `schema.plist`, `config.plist`), Android devices JSON (`app_restrictions.xml`,
/// `config.json`), or both from one folder.
public final class CatalogApp: Sendable {
    /// The app's bundle id (Android: its package name), the name of its folder in `apps/`.
    public let id: String
    /// The Apple configuration's schema, or the Android one for an app with no plist.
    public let schema: ConfigSchema
    /// `GET /v1/apps/{id}/schema`, serialised once.
    public let schemaJSON: [UInt8]
    /// `config.plist` with its variables as written (`config.json` for an app with no plist): served when no
    /// device is named.
    public let defaultConfig: ServedConfig
    /// Each inventory device's configuration: its group variant (or `config.plist`), variables substituted.
    public let deviceConfigs: [String: ServedConfig]
    /// Group names that have a variant in `configs/`.
    public let variants: [String]
    /// What Android devices are served, when the app has `config.json`.
    public let android: PlatformConfigs?
    /// The app has a plist configuration for Apple devices.
    public let servesApple: Bool
    /// How its declarative-management declaration names and installs it (`ddm.plist`; defaults without one).
    public let ddm: DDMAppSettings
    /// `update-policy.plist`; an empty document (every request `ok`) when the app has none.
    public let updatePolicy: Evaluator
    /// True when the app has an `update-policy.plist`.
    public let hasUpdatePolicy: Bool

    init(
        id: String, apple: PlatformConfigs?, android: PlatformConfigs?, updatePolicy: PolicyDocument?,
        ddm: DDMAppSettings = DDMAppSettings()
    ) {
        let primary = (apple ?? android)!
        self.id = id
        self.schema = primary.schema
        self.schemaJSON = Array(primary.schema.json.serialized().utf8)
        self.defaultConfig = primary.defaultConfig
        self.deviceConfigs = primary.deviceConfigs
        self.variants = primary.variants
        self.android = android
        self.servesApple = apple != nil
        self.ddm = ddm
        self.updatePolicy = Evaluator(updatePolicy ?? PolicyDocument())
        self.hasUpdatePolicy = updatePolicy != nil
    }

    /// The configuration `device` is served on `platform`: its own (variant and variables) when the inventory has it,
    /// else the default as written. Android devices get the Android configuration when the app has one; every other
    /// case the plist one. The one lookup behind config GETs, check-in answers and compliance.
    public func config(forDevice device: String?, platform: ConfigPlatform = .apple) -> ServedConfig {
        if platform == .android, let android {
            return device.flatMap { android.deviceConfigs[$0] } ?? android.defaultConfig
        }
        return device.flatMap { deviceConfigs[$0] } ?? defaultConfig
    }

    /// The schema a `platform` device's configuration is checked against.
    public func schema(for platform: ConfigPlatform) -> ConfigSchema {
        platform == .android ? android?.schema ?? schema : schema
    }
}

/// A configuration in both served forms, each with its strong ETag.
///
/// A class, immutable: a copy is one reference count, where the struct it was took seven. Every request for a
/// configuration takes one, and so does every app of every device a report judges, on threads that contend for the
/// same counts.
public final class ServedConfig: Sendable {
    /// One form of the configuration, exactly as served, with the names of its bytes.
    public struct Representation: Sendable {
        /// The bytes served.
        public let bytes: [UInt8]
        /// `"` + the first 32 hex digits of the SHA-256 of `bytes` + `"`.
        public let etag: String
        /// The whole SHA-256 of `bytes`, 64 hex digits (the name of the bytes as a data asset).
        public let sha256: String

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            sha256 = ContentHash.hex(bytes)
            // The digits are ASCII: cut by bytes, not by characters.
            etag = "\"" + String(decoding: sha256.utf8.prefix(32), as: UTF8.self) + "\""
        }
    }

    /// The XML plist form (`application/x-plist`).
    public let xml: Representation
    /// The JSON form (`application/json`).
    public let json: Representation
    /// The group whose variant this is, or nil for `config.plist`.
    public let variant: String?

    /// The ETag of the form a `platform` device is served by default: JSON for Android, the plist for Apple.
    public func etag(for platform: ConfigPlatform) -> String { platform == .android ? json.etag : xml.etag }

    init(xml: [UInt8], json: [UInt8], variant: String?) {
        self.xml = Representation(xml)
        self.json = Representation(json)
        self.variant = variant
    }
}
