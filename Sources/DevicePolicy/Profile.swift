import MDMDiagnostics
import PropertyList

/// Which payload something comes from: profile and payload identifiers, type, file and position. A class, so
/// that the reasons and trace entries citing a payload share one instance instead of copying four strings.
public final class PayloadInfo: Sendable, Hashable {
    /// The profile's `PayloadIdentifier`.
    public let profile: String
    /// The payload's `PayloadIdentifier`.
    public let identifier: String
    /// The payload's `PayloadType`.
    public let type: String
    /// The file the profile came from.
    public let file: String
    /// Where the payload starts in it.
    public let position: SourcePosition

    init(profile: String, identifier: String, type: String, file: String, position: SourcePosition) {
        (self.profile, self.identifier, self.type, self.file) = (profile, identifier, type, file)
        self.position = position
    }

    /// Same profile, payload, type, file and position.
    public static func == (lhs: PayloadInfo, rhs: PayloadInfo) -> Bool {
        lhs.profile == rhs.profile && lhs.identifier == rhs.identifier && lhs.type == rhs.type
            && lhs.file == rhs.file && lhs.position == rhs.position
    }

    /// Hashes the identifiers and the file.
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
    /// The value, typed.
    public let value: Value
    /// The key as spelled in the payload (an alias included).
    public let key: String
    /// The index in its list, for a list entry.
    public let index: Int?
    /// The value as written, for answers.
    public let written: JSONValue
    /// Where it is written.
    public let position: SourcePosition
}

/// A list key: its spelling, position and entries (each a `Setting` with its index).
public struct ListSetting<Value: Sendable>: Sendable {
    /// The key as spelled.
    public let key: String
    /// Where the list is written.
    public let position: SourcePosition
    /// Its entries, each with its index.
    public var entries: [Setting<Value>]
}

/// `com.apple.applicationaccess`: the evaluated restriction keys (current names).
public struct Restrictions: Sendable {
    /// The boolean restrictions (`allowCamera` …), by current key name.
    public var booleans: [String: Setting<Bool>] = [:]
    /// `allowListedAppBundleIDs`.
    public var allowListedApps: ListSetting<String>?
    /// `blockedAppBundleIDs`.
    public var blockedApps: ListSetting<String>?
    /// `autonomousSingleAppModePermittedAppIDs`.
    public var asamApps: ListSetting<String>?
    /// Every key of the payload as written, for the keys answered by Apple's schema (``RestrictionKey``).
    public var settings = PlistDictionary()

    /// Booleans merged by AND (any `false` wins; default `true`).
    public static let andKeys = [
        "allowSafari", "allowAppInstallation", "allowUIAppInstallation", "allowAppRemoval", "allowVPNCreation",
        "allowCellularPlanModification", "allowESIMModification", "allowPersonalHotspotModification",
        "allowAppCellularDataModification", "allowBluetoothModification",
    ]
    /// Booleans merged by OR (default `false`).
    public static let orKeys = ["forceWiFiToAllowedNetworksOnly", "forceWiFiPowerOn"]
    /// The list keys evaluated.
    public static let listKeys = [
        "allowListedAppBundleIDs", "blockedAppBundleIDs", "autonomousSingleAppModePermittedAppIDs",
    ]
    /// True for a key (or its deprecated spelling) this module evaluates itself: the AND and OR booleans and the
    /// lists.
    public static func evaluates(_ key: String) -> Bool {
        let current = aliases[key] ?? key
        return andKeys.contains(current) || orKeys.contains(current) || listKeys.contains(current)
    }
    /// Deprecated spelling → current key (*Device policies*).
    public static let aliases = [
        "whitelistedAppBundleIDs": "allowListedAppBundleIDs", "blacklistedAppBundleIDs": "blockedAppBundleIDs",
        "forceWiFiWhitelisting": "forceWiFiToAllowedNetworksOnly",
    ]
}

/// `com.apple.app.lock`: the lock app and its options.
public struct AppLock: Sendable {
    /// `App.Identifier`: the app the device is locked to.
    public var app: Setting<String>
    /// `App.Options`, by key.
    public var options: [String: Setting<Bool>] = [:]
    /// `App.UserEnabledOptions`, by key.
    public var userEnabledOptions: [String: Setting<Bool>] = [:]

    /// The keys of `Options` evaluated.
    public static let optionKeys = [
        "DisableTouch", "DisableDeviceRotation", "DisableVolumeButtons", "DisableRingerSwitch",
        "DisableSleepWakeButton", "DisableAutoLock", "EnableVoiceOver", "EnableZoom", "EnableInvertColors",
        "EnableAssistiveTouch", "EnableSpeakSelection", "EnableMonoAudio", "EnableVoiceControl",
    ]
    /// The keys of `UserEnabledOptions` evaluated.
    public static let userEnabledKeys = ["VoiceOver", "Zoom", "InvertColors", "AssistiveTouch", "VoiceControl"]
}

/// `com.apple.webcontent-filter`.
public struct WebFilter: Sendable {
    /// True for a filter plug-in payload (`FilterType` `Plugin`): only its keys apply.
    public var isPlugin = false
    /// `AutoFilterEnabled`.
    public var autoFilter: Setting<Bool>?
    /// `DenyListURLs` (or its alias).
    public var denyList: ListSetting<URLPattern>?
    /// `PermittedURLs`.
    public var permitted: ListSetting<URLPattern>?
    /// `AllowListBookmarks` (or its alias).
    public var bookmarks: ListSetting<URLPattern>?

    /// Old key names and the current ones they stand for.
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
    /// `SSID_STR`.
    public var ssid: Setting<SSID>?
    /// `HIDDEN_NETWORK`.
    public var hidden: Setting<Bool>?
    /// Every key but the payload's own identity keys, to tell whether two payloads configure one network alike.
    public var settings: PlistDictionary
}

/// `io.mdmconf.wifi-restrictions`: SSID allow and deny entries (text and hex keys are one list each).
public struct WiFiRestrictions: Sendable {
    /// The SSIDs allowed; nil: any.
    public var allowed: [Setting<SSID>]?
    /// The SSIDs denied.
    public var denied: [Setting<SSID>] = []
    /// Where the allow list starts (the first allow key), for lints.
    public var allowedKey: (key: String, position: SourcePosition)?
}

/// `com.apple.vpn.managed`: the keys that decide whether a VPN is required.
public struct VPNSettings: Sendable {
    /// `VPNType`.
    public var type: Setting<String>
    /// `UIToggleEnabled`.
    public var uiToggleEnabled: Setting<Int64>?
    /// `OnDemandEnabled` of the VPN type's dictionary.
    public var onDemandEnabled: Setting<Int64>?
    /// `IncludeAllNetworks` of the VPN type's dictionary.
    public var includeAllNetworks: Setting<Int64>?
    /// `OnDemandUserOverrideDisabled` of the VPN type's dictionary.
    public var overrideDisabled: Setting<Int64>?
    /// How many `OnDemandRules` the VPN type's dictionary has.
    public var onDemandRules: Setting<Int>?

    /// The VPN types evaluated.
    public static let types: Set<String> = ["VPN", "L2TP", "IPSec", "IKEv2", "AlwaysOn", "TransparentProxy"]
}

/// One payload of a loaded profile.
public struct Payload: Sendable {
    /// What the payload configures, by type.
    public enum Content: Sendable {
        /// `com.apple.applicationaccess`.
        case restrictions(Restrictions)
        /// `com.apple.app.lock`.
        case appLock(AppLock)
        /// `com.apple.webcontent-filter`.
        case webFilter(WebFilter)
        /// `com.apple.wifi.managed`.
        case wifi(WiFiNetwork)
        /// `io.mdmconf.wifi-restrictions`.
        case wifiRestrictions(WiFiRestrictions)
        /// `com.apple.vpn.managed`.
        case vpn(VPNSettings)
        /// A payload type mdmconf does not evaluate itself, or a declarative-management declaration (its `Payload`):
        /// the keys as written, for `restriction` questions answered by Apple's schema (``RestrictionKey``).
        case other(PlistDictionary)
    }

    /// Where the payload comes from.
    public let info: PayloadInfo
    /// nil: no schedule (always active); empty: never active.
    public let schedule: [ScheduleWindow]?
    /// What it configures.
    public let content: Content

    /// The restrictions payload type.
    public static let restrictionsType = "com.apple.applicationaccess"
    /// The single-app mode payload type.
    public static let appLockType = "com.apple.app.lock"
    /// The web content filter payload type.
    public static let webFilterType = "com.apple.webcontent-filter"
    /// The Wi-Fi payload type.
    public static let wifiType = "com.apple.wifi.managed"
    /// The VPN payload type.
    public static let vpnType = "com.apple.vpn.managed"
    /// mdmconf's own Wi-Fi allow and deny list payload type.
    public static let wifiRestrictionsType = "io.mdmconf.wifi-restrictions"
}

/// A finding about a profile set: a diagnostic plus the profile and payload it concerns.
public struct PolicyFinding: Sendable, Hashable {
    /// The finding.
    public var diagnostic: Diagnostic
    /// The profile it concerns, when one.
    public var profile: String?
    /// The payload it concerns, when one.
    public var payload: String?

    /// A finding about `profile` and `payload`.
    public init(_ diagnostic: Diagnostic, profile: String? = nil, payload: String? = nil) {
        self.diagnostic = diagnostic
        self.profile = profile
        self.payload = payload
    }
}

/// One profile document as loaded: its identifier (nil when it could not be read), payloads and findings.
public struct ProfileDocument: Sendable {
    /// The file the profile came from.
    public let file: String
    /// The profile's `PayloadIdentifier`, or nil when it could not be read.
    public let identifier: String?
    /// The payloads, in file order.
    public let payloads: [Payload]
    /// MC1xxx and MC50xx errors; any error makes the document invalid.
    public let diagnostics: [PolicyFinding]
    /// Lints raised while loading (unknown keys and types, aliases, missing UUIDs, …).
    public let lints: [PolicyFinding]

    /// True when no finding is an error.
    public var isValid: Bool { !diagnostics.contains { $0.diagnostic.severity == .error } }
}
