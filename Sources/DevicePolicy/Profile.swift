import MDMDiagnostics
import PropertyList

/// Which payload something comes from: profile and payload identifiers, type, file and position. A class, so
/// that the reasons and trace entries citing a payload share one instance instead of copying four strings.
public final class PayloadInfo: Sendable, Hashable {
    public let profile: String
    public let identifier: String
    public let type: String
    public let file: String
    public let position: SourcePosition

    init(profile: String, identifier: String, type: String, file: String, position: SourcePosition) {
        self.profile = profile
        self.identifier = identifier
        self.type = type
        self.file = file
        self.position = position
    }

    public static func == (lhs: PayloadInfo, rhs: PayloadInfo) -> Bool {
        lhs.profile == rhs.profile && lhs.identifier == rhs.identifier && lhs.type == rhs.type
            && lhs.file == rhs.file && lhs.position == rhs.position
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(profile)
        hasher.combine(identifier)
        hasher.combine(file)
    }

    /// Orders by (profile, payload) identifier, UTF-8 bytes.
    static func ordered(_ lhs: PayloadInfo, _ rhs: PayloadInfo) -> Bool {
        lhs.profile != rhs.profile
            ? String.utf8Less(lhs.profile, rhs.profile) : String.utf8Less(lhs.identifier, rhs.identifier)
    }
}

/// One evaluated value with where it was written: the key as spelled, the list index, the value as written.
public struct Setting<Value: Sendable>: Sendable {
    public let value: Value
    public let key: String
    public let index: Int?
    public let written: JSONValue
    public let position: SourcePosition
}

/// A list key: its spelling, position and entries (each a `Setting` with its index).
public struct ListSetting<Value: Sendable>: Sendable {
    public let key: String
    public let position: SourcePosition
    public var entries: [Setting<Value>]
}

/// `com.apple.applicationaccess`: the evaluated restriction keys (current names).
public struct Restrictions: Sendable {
    public var booleans: [String: Setting<Bool>] = [:]
    public var allowListedApps: ListSetting<String>?
    public var blockedApps: ListSetting<String>?
    public var asamApps: ListSetting<String>?

    /// Booleans merged by AND (any `false` wins; default `true`).
    public static let andKeys = [
        "allowSafari", "allowAppInstallation", "allowUIAppInstallation", "allowAppRemoval", "allowVPNCreation",
        "allowCellularPlanModification", "allowESIMModification", "allowPersonalHotspotModification",
        "allowAppCellularDataModification", "allowBluetoothModification",
    ]
    /// Booleans merged by OR (default `false`).
    public static let orKeys = ["forceWiFiToAllowedNetworksOnly", "forceWiFiPowerOn"]
    public static let listKeys = [
        "allowListedAppBundleIDs", "blockedAppBundleIDs", "autonomousSingleAppModePermittedAppIDs",
    ]
    /// Deprecated spelling → current key (*Device policies*).
    public static let aliases = [
        "whitelistedAppBundleIDs": "allowListedAppBundleIDs", "blacklistedAppBundleIDs": "blockedAppBundleIDs",
        "forceWiFiWhitelisting": "forceWiFiToAllowedNetworksOnly",
    ]
}

/// `com.apple.app.lock`: the lock app and its options.
public struct AppLock: Sendable {
    public var app: Setting<String>
    public var options: [String: Setting<Bool>] = [:]
    public var userEnabledOptions: [String: Setting<Bool>] = [:]

    public static let optionKeys = [
        "DisableTouch", "DisableDeviceRotation", "DisableVolumeButtons", "DisableRingerSwitch",
        "DisableSleepWakeButton", "DisableAutoLock", "EnableVoiceOver", "EnableZoom", "EnableInvertColors",
        "EnableAssistiveTouch", "EnableSpeakSelection", "EnableMonoAudio", "EnableVoiceControl",
    ]
    public static let userEnabledKeys = ["VoiceOver", "Zoom", "InvertColors", "AssistiveTouch", "VoiceControl"]
}

/// `com.apple.webcontent-filter`.
public struct WebFilter: Sendable {
    public var isPlugin = false
    public var autoFilter: Setting<Bool>?
    public var denyList: ListSetting<URLPattern>?
    public var permitted: ListSetting<URLPattern>?
    public var bookmarks: ListSetting<URLPattern>?

    public static let aliases = ["BlacklistedURLs": "DenyListURLs", "WhitelistedBookmarks": "AllowListBookmarks"]
    static let builtInKeys: Set<String> = [
        "AutoFilterEnabled", "PermittedURLs", "DenyListURLs", "AllowListBookmarks", "BlacklistedURLs",
        "WhitelistedBookmarks", "HideDenyListURLs",
    ]
    static let pluginKeys: Set<String> = [
        "PluginBundleID", "UserDefinedName", "ServerAddress", "UserName", "Password", "Organization",
        "PayloadCertificateUUID", "FilterBrowsers", "FilterSockets", "FilterPackets", "FilterGrade",
        "FilterDataProviderBundleIdentifier", "FilterDataProviderDesignatedRequirement",
        "FilterPacketProviderBundleIdentifier", "FilterPacketProviderDesignatedRequirement", "VendorConfig",
        "ContentFilterUUID",
    ]
}

/// `com.apple.wifi.managed`: a profile network.
public struct WiFiNetwork: Sendable {
    public var ssid: Setting<SSID>?
    public var hidden: Setting<Bool>?
    /// Every key but the payload's own identity keys, to tell whether two payloads configure one network alike.
    public var settings: PlistDictionary
}

/// `io.mdmconf.wifi-restrictions`: SSID allow and deny entries (text and hex keys are one list each).
public struct WiFiRestrictions: Sendable {
    public var allowed: [Setting<SSID>]?
    public var denied: [Setting<SSID>] = []
    /// Where the allow list starts (the first allow key), for lints.
    public var allowedKey: (key: String, position: SourcePosition)?
}

/// `com.apple.vpn.managed`: the keys that decide whether a VPN is required.
public struct VPNSettings: Sendable {
    public var type: Setting<String>
    public var uiToggleEnabled: Setting<Int64>?
    public var onDemandEnabled: Setting<Int64>?
    public var includeAllNetworks: Setting<Int64>?
    public var overrideDisabled: Setting<Int64>?
    public var onDemandRules: Setting<Int>?

    public static let types: Set<String> = ["VPN", "L2TP", "IPSec", "IKEv2", "AlwaysOn", "TransparentProxy"]
}

/// One payload of a loaded profile.
public struct Payload: Sendable {
    public enum Content: Sendable {
        case restrictions(Restrictions)
        case appLock(AppLock)
        case webFilter(WebFilter)
        case wifi(WiFiNetwork)
        case wifiRestrictions(WiFiRestrictions)
        case vpn(VPNSettings)
        /// A payload type mdmconf does not evaluate.
        case other
    }

    public let info: PayloadInfo
    /// nil: no schedule (always active); empty: never active.
    public let schedule: [ScheduleWindow]?
    public let content: Content

    public static let restrictionsType = "com.apple.applicationaccess"
    public static let appLockType = "com.apple.app.lock"
    public static let webFilterType = "com.apple.webcontent-filter"
    public static let wifiType = "com.apple.wifi.managed"
    public static let vpnType = "com.apple.vpn.managed"
    public static let wifiRestrictionsType = "io.mdmconf.wifi-restrictions"
}

/// A finding about a profile set: a diagnostic plus the profile and payload it concerns.
public struct PolicyFinding: Sendable, Hashable {
    public var diagnostic: Diagnostic
    public var profile: String?
    public var payload: String?

    public init(_ diagnostic: Diagnostic, profile: String? = nil, payload: String? = nil) {
        self.diagnostic = diagnostic
        self.profile = profile
        self.payload = payload
    }
}

/// One profile document as loaded: its identifier (nil when it could not be read), payloads and findings.
public struct ProfileDocument: Sendable {
    public let file: String
    public let identifier: String?
    public let payloads: [Payload]
    /// MC1xxx and MC50xx errors; any error makes the document invalid.
    public let diagnostics: [PolicyFinding]
    /// Lints raised while loading (unknown keys and types, aliases, missing UUIDs, …).
    public let lints: [PolicyFinding]

    public var isValid: Bool { !diagnostics.contains { $0.diagnostic.severity == .error } }
}
