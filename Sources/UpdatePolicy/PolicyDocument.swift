import CivilTime
import MDMDiagnostics

/// A loaded, fully checked update-policy document (*Update policies*).
public struct PolicyDocument: Sendable {
    public struct Defaults: Sendable {
        public var timeZone: ZoneInfo?
        public var locale: LocaleTag?

        public init(timeZone: ZoneInfo? = nil, locale: LocaleTag? = nil) {
            self.timeZone = timeZone
            self.locale = locale
        }
    }

    public var defaults: Defaults
    public var policies: [Policy]

    /// A document; with no policies every request is `ok` (a catalog app without `update-policy.plist`).
    public init(defaults: Defaults = Defaults(), policies: [Policy] = []) {
        self.defaults = defaults
        self.policies = policies
    }
}

/// What a policy does when a build threshold meets a request without a build.
public enum IndeterminateAction: String, Sendable {
    case error, required, ok
}

/// One localized message.
public struct Message: Sendable {
    public var locale: LocaleTag
    public var title: String?
    public var body: String?
}

/// One policy of a document (*Update policies*), typed and checked.
public struct Policy: Sendable {
    public var id: String
    /// The exact app id, or `*` for every app.
    public var app: String
    public var priority: Int64 = 0
    public var platforms: [String]?
    public var channels: [String]?
    public var osVersion: VersionRange<OSVersion>?
    public var appVersion: VersionRange<AppVersion>?
    public var deviceModels: [ModelGlob]?
    public var notBefore: PolicyDateTime?
    public var rollout: (percent: RolloutPercent, seed: String)?
    public var minVersion: AppVersion?
    public var minBuild: BuildNumber?
    public var blockedVersions: [VersionRange<AppVersion>]?
    public var recommendedVersion: AppVersion?
    public var recommendedBuild: BuildNumber?
    public var latestVersion: AppVersion?
    public var deadline: PolicyDateTime?
    public var timeZone: ZoneInfo?
    public var approachingWindow = PolicyDuration.hours72
    public var imminentWindow = PolicyDuration.hours24
    public var maxDeferrals: Int64?
    public var newDeviceGrace: PolicyDuration?
    public var requiresOS: OSVersion?
    public var onIndeterminate = IndeterminateAction.error
    public var messages: [Message] = []
    /// One URL for every locale, or URLs by locale.
    public var updateURL: String?
    public var localizedUpdateURLs: [(locale: LocaleTag, url: String)] = []
    public var defaultLocale: LocaleTag?

    public init(id: String, app: String) {
        self.id = id
        self.app = app
    }

}

extension PolicyDuration {
    static let hours72 = PolicyDuration(seconds: 72 * 3_600, text: "72h")
    static let hours24 = PolicyDuration(seconds: 24 * 3_600, text: "24h")
}
