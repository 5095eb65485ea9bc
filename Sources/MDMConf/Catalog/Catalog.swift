import ConfigSchema
import Crypto
import DevicePolicy
import MDMDiagnostics
import PropertyList
import UpdatePolicy

/// One loaded, fully validated catalog folder (*Serving a catalog*): immutable, shared by every request that started
/// while it was current. Replaced as a whole on reload, never changed in place.
public final class Catalog: Sendable {
    /// The folder it was loaded from.
    public let path: String
    public let settings: CatalogSettings
    /// Apps by bundle id.
    public let apps: [String: CatalogApp]
    public let devices: [String: CatalogDevice]
    /// nil without a tokens file: development mode (loopback only, no auth).
    public let tokens: [CatalogToken]?
    /// The profiles of `profiles/`, validated and linted once.
    public let policyEngine: PolicyEngine
    /// Warnings found while loading (errors refuse the catalog).
    public let warnings: [Diagnostic]
    /// App ids in byte order (sorted once: compliance asks for every device).
    public let appIDs: [String]

    init(
        path: String, settings: CatalogSettings, apps: [String: CatalogApp], devices: [String: CatalogDevice],
        tokens: [CatalogToken]?, policyEngine: PolicyEngine, warnings: [Diagnostic]
    ) {
        self.path = path
        self.settings = settings
        self.apps = apps
        self.devices = devices
        self.tokens = tokens
        self.policyEngine = policyEngine
        self.warnings = warnings
        appIDs = apps.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Who a bearer token is, or nil when no token matches. Every stored digest is compared in full, in
    /// constant time, whichever matches.
    public func scope(ofBearer token: String) -> CatalogToken.Scope? {
        guard let tokens else { return nil }
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var found: CatalogToken.Scope?
        for entry in tokens where CatalogToken.constantTimeEqual(entry.digest, digest) {
            found = entry.scope
        }
        return found
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

    public init() {}
}

/// One token of `tokens.plist`: the SHA-256 of the secret, never the secret.
public struct CatalogToken: Sendable {
    public enum Scope: Sendable, Equatable {
        case admin
        case device(String)
    }

    public let digest: [UInt8]
    public let scope: Scope

    public init(digest: [UInt8], scope: Scope) {
        self.digest = digest
        self.scope = scope
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

/// An app of the catalog: its schema, the configurations it serves and its update policy.
public final class CatalogApp: Sendable {
    public let id: String
    public let schema: ConfigSchema
    /// `GET /v1/apps/{id}/schema`, serialised once.
    public let schemaJSON: [UInt8]
    /// `config.plist` with its variables as written: served when no device is named.
    public let defaultConfig: ServedConfig
    /// Each inventory device's configuration: its group variant (or `config.plist`), variables substituted.
    public let deviceConfigs: [String: ServedConfig]
    /// Group names that have a variant in `configs/`.
    public let variants: [String]
    /// `update-policy.plist`; an empty document (every request `ok`) when the app has none.
    public let updatePolicy: Evaluator
    public let hasUpdatePolicy: Bool

    init(
        id: String, schema: ConfigSchema, defaultConfig: ServedConfig, deviceConfigs: [String: ServedConfig],
        variants: [String], updatePolicy: PolicyDocument?
    ) {
        self.id = id
        self.schema = schema
        self.schemaJSON = Array(schema.json.serialized().utf8)
        self.defaultConfig = defaultConfig
        self.deviceConfigs = deviceConfigs
        self.variants = variants
        self.updatePolicy = Evaluator(updatePolicy ?? PolicyDocument())
        self.hasUpdatePolicy = updatePolicy != nil
    }

    /// The configuration `device` is served: its own (variant and variables) when the inventory has it, else
    /// `config.plist` as written. The one lookup behind config GETs, check-in answers and compliance.
    public func config(forDevice device: String?) -> ServedConfig {
        device.flatMap { deviceConfigs[$0] } ?? defaultConfig
    }
}

/// A configuration in both served forms, each with its strong ETag.
public struct ServedConfig: Sendable {
    public struct Representation: Sendable {
        public let bytes: [UInt8]
        /// `"` + the first 32 hex digits of the SHA-256 of `bytes` + `"`.
        public let etag: String

        init(_ text: String) {
            bytes = Array(text.utf8)
            etag = "\"" + ContentHash.hex(bytes, bytes: 16) + "\""
        }
    }

    public let xml: Representation
    public let json: Representation
    /// The group whose variant this is, or nil for `config.plist`.
    public let variant: String?

    init(xml: String, json: String, variant: String?) {
        self.xml = Representation(xml)
        self.json = Representation(json)
        self.variant = variant
    }
}
