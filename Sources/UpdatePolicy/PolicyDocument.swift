import CivilTime
import MDMDiagnostics

/// A loaded, fully checked update-policy document (*Update policies*).
public struct PolicyDocument: Sendable {
    /// What the document's policies fall back on.
    public struct Defaults: Sendable {
        /// The zone of deadlines written without one, when a policy names none.
        public var timeZone: ZoneInfo?
        /// The message locale used when the device's has no message.
        public var locale: LocaleTag?

        /// Defaults as given.
        public init(timeZone: ZoneInfo? = nil, locale: LocaleTag? = nil) {
            self.timeZone = timeZone
            self.locale = locale
        }
    }

    /// The document's defaults.
    public var defaults: Defaults
    /// The policies, in document order.
    public var policies: [Policy]

    /// A document; with no policies every request is `ok` (a catalog app without `update-policy.plist`).
    public init(defaults: Defaults = Defaults(), policies: [Policy] = []) {
        self.defaults = defaults
        self.policies = policies
    }
}

/// What a policy does when a build threshold meets a request without a build.
public enum IndeterminateAction: String, Sendable {
    /// The request is an error (the default).
    case error
    /// The update is required.
    case required
    /// The threshold is ignored.
    case ok
}

/// One localized message.
public struct Message: Sendable {
    /// The message's locale.
    public var locale: LocaleTag
    /// Its title, if any.
    public var title: String?
    /// Its text, if any.
    public var body: String?
}

/// One policy of a document (*Update policies*), typed and checked.
public struct Policy: Sendable {
    /// The policy's id, unique in the document, named in decisions.
    public var id: String
    /// The exact app id, or `*` for every app.
    public var app: String
    /// Among policies with the same outcome, the higher priority decides (default 0).
    public var priority: Int64 = 0
    /// The platforms it applies to; nil: all.
    public var platforms: [String]?
    /// The release channels it applies to; nil: all.
    public var channels: [String]?
    /// The OS versions it applies to; nil: all.
    public var osVersion: VersionRange<OSVersion>?
    /// The installed app versions it applies to; nil: all.
    public var appVersion: VersionRange<AppVersion>?
    /// The device models it applies to; nil: all.
    public var deviceModels: [ModelGlob]?
    /// It applies only from this time on.
    public var notBefore: PolicyDateTime?
    /// It applies only to this share of devices, placed by a hash of the seed and the device id.
    public var rollout: (percent: RolloutPercent, seed: String)?
    /// Versions below this must update.
    public var minVersion: AppVersion?
    /// Builds below this must update.
    public var minBuild: BuildNumber?
    /// Versions in these ranges must update.
    public var blockedVersions: [VersionRange<AppVersion>]?
    /// Versions below this should update.
    public var recommendedVersion: AppVersion?
    /// Builds below this should update.
    public var recommendedBuild: BuildNumber?
    /// The version to update to, when it is not the minimum or recommended one.
    public var latestVersion: AppVersion?
    /// Until this time a required update is only recommended.
    public var deadline: PolicyDateTime?
    /// The zone of `deadline` and `notBefore` when they are written without one.
    public var timeZone: ZoneInfo?
    /// Within this time of the deadline the urgency is `approaching` (default 72 hours).
    public var approachingWindow = PolicyDuration.hours72
    /// Within this time of the deadline the urgency is `imminent` (default 24 hours).
    public var imminentWindow = PolicyDuration.hours24
    /// How many times the user may put the update off before it is required.
    public var maxDeferrals: Int64?
    /// A device gets at least this long after its enrollment before the update is required.
    public var newDeviceGrace: PolicyDuration?
    /// The OS the update needs: below it a required update is `unsupported`, and a recommended one is not asked.
    public var requiresOS: OSVersion?
    /// What happens when a build threshold meets a request without a build.
    public var onIndeterminate = IndeterminateAction.error
    /// The messages to show, by locale.
    public var messages: [Message] = []
    /// One URL for every locale, or URLs by locale.
    public var updateURL: String?
    /// URLs by locale, when they differ.
    public var localizedUpdateURLs: [(locale: LocaleTag, url: String)] = []
    /// The locale used when the device's has no message.
    public var defaultLocale: LocaleTag?

    /// A policy `id` for `app` that asks nothing yet.
    public init(id: String, app: String) {
        self.id = id
        self.app = app
    }

}

extension PolicyDuration {
    static let hours72 = PolicyDuration(seconds: 72 * 3_600, text: "72h")
    static let hours24 = PolicyDuration(seconds: 24 * 3_600, text: "24h")
}
