import CivilTime
import DevicePolicy
import MDMConf
import PropertyList
import UpdatePolicy

/// One device's report at app launch (*Fleet state*): what it runs, validated with the grammars of
/// *Update policies*. Fields keep the text the device sent (trimmed), so what is stored is what was checked.
public struct CheckIn: Sendable, Equatable {
    /// One app the device reports.
    public struct App: Sendable, Equatable {
        /// The app's bundle id.
        public var app: String
        /// The installed version, as sent.
        public var version: String
        /// The installed build, when sent.
        public var build: String?
        /// The release channel, when sent.
        public var channel: String?
        /// The ETag of the configuration the device says it applied, quotes included.
        public var configETag: String?
        /// The error the app met applying its managed configuration, as it reported it.
        public var configError: String?
        /// How many times the user has put an update off, when sent.
        public var deferralsUsed: Int64?
        /// The app's states as a declarative-management status report gave them; nil when the app was reported by
        /// a check-in.
        public var ddm: DDMAppState?

        /// An app as the device reports it.
        public init(
            app: String, version: String, build: String? = nil, channel: String? = nil, configETag: String? = nil,
            configError: String? = nil, deferralsUsed: Int64? = nil, ddm: DDMAppState? = nil
        ) {
            (self.app, self.version, self.build, self.channel) = (app, version, build, channel)
            (self.configETag, self.configError, self.deferralsUsed) = (configETag, configError, deferralsUsed)
            self.ddm = ddm
        }

        /// How the app's state reached the server: `ddm` for a status report, `http` for a check-in.
        public var delivery: Delivery { ddm == nil ? .http : .ddm }
    }

    /// The channel an app's configuration and state travel by.
    public enum Delivery: String, Sendable, CaseIterable {
        /// mdmconf's own protocol: `GET /v1/apps/{app}/config` and check-ins.
        case http
        /// Declarative device management: a data asset, and status reports.
        case ddm
    }

    /// An app's states in a declarative-management status report (`app.managed.list`).
    public struct DDMAppState: Sendable, Equatable {
        /// The app's management state as the device words it (`managed`, `failed`, `installing`…).
        public var state: String?
        /// Whether the device took the configuration: `valid`, `invalid` or `unknown`.
        public var configState: String?

        /// At most this many bytes in each state: the device's words are stored as they are.
        public static let maxLength = 64

        /// States as the device reported them.
        public init(state: String?, configState: String?) {
            self.state = state
            self.configState = configState
        }
    }

    /// The device id (an admin token names it; a device token's own id otherwise).
    public var device: String
    /// The device's own clock when it checked in (informational; decisions use the server's time).
    public var at: Instant?
    /// The platform, as sent (`ios`, `android`…).
    public var platform: String
    /// The OS version, when sent.
    public var osVersion: String?
    /// The device model (`iPhone15,2`), when sent.
    public var deviceModel: String?
    /// The device's locale, when sent.
    public var locale: String?
    /// The device's time zone, when sent.
    public var timeZone: String?
    /// When the device was enrolled, when sent.
    public var enrolledAt: Instant?
    /// The apps it reports.
    public var apps: [App]

    /// A check-in with these fields.
    public init(
        device: String, at: Instant? = nil, platform: String, osVersion: String? = nil, deviceModel: String? = nil,
        locale: String? = nil, timeZone: String? = nil, enrolledAt: Instant? = nil, apps: [App]
    ) {
        (self.device, self.at, self.platform, self.osVersion) = (device, at, platform, osVersion)
        (self.deviceModel, self.locale, self.timeZone, self.enrolledAt) = (deviceModel, locale, timeZone, enrolledAt)
        self.apps = apps
    }

    /// At most this many apps in one check-in.
    public static let maxApps = 100
    /// The members a check-in may have.
    public static let topLevelKeys = [
        "device", "at", "platform", "osVersion", "deviceModel", "locale", "timeZone", "enrolledAt", "apps",
    ]
    /// The members an app of a check-in may have.
    public static let appKeys = ["app", "version", "build", "channel", "configETag", "configError", "deferralsUsed"]

    /// The update request this check-in makes for `app`: the fields go through `UpdateRequest.parse`, the same
    /// grammar as `/v1/update-check`, with the device id as the rollout id. With a `cache`, time zones are read
    /// once per name and a parse is reused for every device that reports the same texts (a fleet reports a few
    /// versions, OS versions and models thousands of times).
    public func updateRequest(for app: App, cache: ParseCache? = nil) -> Result<UpdateRequest, RequestErrors> {
        func values() -> [String: String] {
            var values: [String: String] = ["app": app.app, "version": app.version, "platform": platform]
            values["build"] = app.build
            values["channel"] = app.channel
            values["osVersion"] = osVersion
            values["deviceModel"] = deviceModel
            values["locale"] = locale
            return values
        }
        guard let cache else {
            var values = values()
            values["deviceId"] = device
            values["timeZone"] = timeZone
            values["deferralsUsed"] = app.deferralsUsed.map { String($0) }
            values["enrolledAt"] = enrolledAt?.description
            return UpdateRequest.parse(values)
        }
        var parsed = cache.request(ParseCache.RequestKey(app, of: self), values)
        if case .success(var request) = parsed {
            // The fields that differ from device to device, already checked when the check-in was taken.
            if !device.isEmpty { request.deviceID = device }
            request.timeZone = timeZone.flatMap { cache.zone(named: $0) }
            request.deferralsUsed = app.deferralsUsed ?? 0
            request.enrolledAt = enrolledAt
            parsed = .success(request)
        }
        return parsed
    }
}

/// Why a check-in is refused: one reason per bad field, each naming the field by its path (`apps[1].version`).
public struct CheckInErrors: Error, Sendable, Equatable {
    /// One bad field.
    public struct Reason: Sendable, Equatable {
        /// The field's path (`apps[1].version`).
        public var field: String
        /// Why (`invalid_version`, `unknown_field`…).
        public var code: String

        /// A reason for `field`.
        public init(field: String, code: String) {
            self.field = field
            self.code = code
        }
    }

    /// One reason per bad field.
    public var reasons: [Reason]
    /// True when the body is not a check-in at all (not a JSON object): 400 rather than 422.
    public var malformed: Bool

    /// Errors with these reasons.
    public init(reasons: [Reason], malformed: Bool = false) {
        self.reasons = reasons
        self.malformed = malformed
    }

    /// The reasons on one line (`apps[1].version: invalid_version`).
    public var message: String {
        reasons.map { "\($0.field): \($0.code)" }.joined(separator: ", ")
    }
}

/// What compliance over a whole fleet, and a server taking check-ins, read again and again, read once: time zones by
/// name, and parsed update requests by their texts. Safe to share between threads (one lock around each look-up);
/// at most 100,000 parses are kept, so texts a hostile client makes up cannot grow it without bound.
public final class ParseCache: Sendable {
    private let zones = Locked<[String: ZoneInfo?]>([:])
    /// The texts a parse depends on.
    struct RequestKey: Hashable {
        var app: String
        var version: String
        var platform: String
        var build: String?
        var channel: String?
        var osVersion: String?
        var deviceModel: String?
        var locale: String?

        init(_ app: CheckIn.App, of checkIn: CheckIn) {
            self.app = app.app
            version = app.version
            platform = checkIn.platform
            build = app.build
            channel = app.channel
            osVersion = checkIn.osVersion
            deviceModel = checkIn.deviceModel
            locale = checkIn.locale
        }
    }

    private let requests = Locked<[RequestKey: Result<UpdateRequest, RequestErrors>]>([:])

    /// An empty cache.
    public init() {}

    /// The zone of that name, or nil when there is none.
    public func zone(named name: String) -> ZoneInfo? {
        if let cached = zones.withLock({ $0[name] }) { return cached }
        let zone = ZoneInfo(named: name)
        zones.withLock { if $0.count < 4_096 { $0[name] = zone } }
        return zone
    }

    /// `UpdateRequest.parse(values())`, parsed once per `key` (the texts the values are made of).
    func request(_ key: RequestKey, _ values: () -> [String: String]) -> Result<UpdateRequest, RequestErrors> {
        if let cached = requests.withLock({ $0[key] }) { return cached }
        let parsed = UpdateRequest.parse(values())
        requests.withLock { if $0.count < 100_000 { $0[key] = parsed } }
        return parsed
    }
}

extension CheckIn {
    /// Reads a check-in body. `device` is the caller's device when a device token asked (the body may omit it or
    /// must repeat it; that rule is the server's); otherwise the body must name one.
    public static func parse(_ root: PlistNode) -> Result<CheckIn, CheckInErrors> {
        parseWithRequests(root).map(\.checkIn)
    }

    /// Reads a check-in as the history stored it: `parse`, and an app may also hold the `ddm` states a status
    /// report gave it (a device's own check-in may not claim them).
    public static func parseStored(_ root: PlistNode) -> Result<CheckIn, CheckInErrors> {
        parseWithRequests(root, stored: true).map(\.checkIn)
    }

    /// `parse`, and the update request of each app (in the check-in's order) as that parse read it, for the answer.
    /// The requests' rollout id is the body's `device`; whoever names the device afterwards sets it on both. A server
    /// passes one `cache` for all its check-ins: a fleet reports the same few versions and models again and again.
    public static func parseWithRequests(_ root: PlistNode, cache: ParseCache? = nil, stored: Bool = false) -> Result<
        (checkIn: CheckIn, requests: [UpdateRequest]), CheckInErrors
    > {
        guard case .dictionary(let dict) = root.value else {
            return .failure(
                CheckInErrors(reasons: [.init(field: "(body)", code: "malformed_request")], malformed: true))
        }
        var fields = FieldReader()
        for key in dict.keys where !topLevelKeys.contains(key) { fields.fail(key, "unknown_field") }
        let device = fields.string(dict["device"], "device", code: "invalid_device")
        if let device, !CatalogDevice.isValidID(device) { fields.fail("device", "invalid_device") }
        let at = fields.instant(dict["at"], "at", code: "invalid_at")
        let enrolledAt = fields.instant(dict["enrolledAt"], "enrolledAt", code: "invalid_enrolled_at")
        let platform = fields.string(dict["platform"], "platform", code: "invalid_platform")
        if platform == nil, dict["platform"] == nil { fields.fail("platform", "invalid_platform") }
        var checkIn = CheckIn(
            device: device ?? "", at: at, platform: platform ?? "ios",
            osVersion: fields.string(dict["osVersion"], "osVersion", code: "invalid_os_version"),
            deviceModel: fields.string(dict["deviceModel"], "deviceModel", code: "invalid_device_model"),
            locale: fields.string(dict["locale"], "locale", code: "invalid_locale"),
            timeZone: fields.string(dict["timeZone"], "timeZone", code: "invalid_time_zone"), enrolledAt: enrolledAt,
            apps: fields.apps(dict["apps"], stored: stored))

        // Every field through the update-request grammar. The usual case, a valid check-in with apps, takes one
        // parse per app, and the answer reuses those requests; when one fails, or there is no app, probes find
        // which field is wrong.
        if fields.reasons.isEmpty, platform != nil, !checkIn.apps.isEmpty {
            var requests: [UpdateRequest] = []
            for app in checkIn.apps {
                // Through a cache the device's own fields (zone, deferrals, enrolment) are not parsed again: a zone
                // that does not resolve goes the slow way below, which names the field.
                guard case .success(let request) = checkIn.updateRequest(for: app, cache: cache),
                    checkIn.timeZone == nil || request.timeZone != nil
                else { break }
                requests.append(request)
            }
            if requests.count == checkIn.apps.count { return .success((checkIn, requests)) }
        }
        if platform == nil { checkIn.platform = "" }
        fields.probe(checkIn, platformSent: platform != nil)
        guard fields.reasons.isEmpty else { return .failure(CheckInErrors(reasons: fields.reasons, malformed: false)) }
        var requests: [UpdateRequest] = []
        for (index, app) in checkIn.apps.enumerated() {
            switch checkIn.updateRequest(for: app) {
            case .success(let request): requests.append(request)
            case .failure(let errors):
                // Fields valid one by one but not together; said against the app.
                let codes = errors.reasons.map { CheckInErrors.Reason(field: "apps[\(index)]", code: $0) }
                return .failure(CheckInErrors(reasons: codes, malformed: false))
            }
        }
        return .success((checkIn, requests))
    }

    /// Reads a check-in's fields, collecting one reason per bad field.
    private struct FieldReader {
        var reasons: [CheckInErrors.Reason] = []

        mutating func fail(_ field: String, _ code: String) { reasons.append(.init(field: field, code: code)) }

        /// A string field, trimmed; a value of another type is a reason. The field's path is made only for a
        /// reason: made for every field of every check-in, the paths of the apps' fields were 5 % of taking one.
        mutating func string(_ node: PlistNode?, _ field: @autoclosure () -> String, code: String) -> String? {
            guard let node else { return nil }
            guard case .string(let text) = node.value else {
                fail(field(), code)
                return nil
            }
            return String(text.trimmingASCIIWhitespace())
        }

        /// An RFC 3339 time field.
        mutating func instant(_ node: PlistNode?, _ field: String, code: String) -> Instant? {
            guard let text = string(node, field, code: code) else { return nil }
            let instant = CheckIn.instant(text)
            if instant == nil { fail(field, code) }
            return instant
        }

        /// The `apps` array: each entry's own fields checked (the update grammar checks them together later).
        mutating func apps(_ node: PlistNode?, stored: Bool) -> [App] {
            guard case .array(let items)? = node?.value else {
                fail("apps", "invalid_apps")
                return []
            }
            if items.count > maxApps { fail("apps", "too_many_apps") }
            var apps: [App] = []
            var names: [String] = []
            apps.reserveCapacity(min(items.count, maxApps))
            names.reserveCapacity(min(items.count, maxApps))
            for (index, item) in items.prefix(maxApps).enumerated() {
                // A field's path (`apps[1].version`), made only for a reason.
                func path(_ field: String? = nil) -> String { "apps[\(index)]" + (field.map { "." + $0 } ?? "") }
                guard case .dictionary(let entry) = item.value else {
                    fail(path(), "invalid_app_entry")
                    continue
                }
                for key in entry.keys where !appKeys.contains(key) && !(stored && key == "ddm") {
                    fail(path(key), "unknown_field")
                }
                let app = string(entry["app"], path("app"), code: "invalid_app")
                let version = string(entry["version"], path("version"), code: "invalid_version")
                if entry["app"] == nil { fail(path("app"), "invalid_app") }
                if entry["version"] == nil { fail(path("version"), "invalid_version") }
                var deferrals: Int64?
                switch entry["deferralsUsed"]?.value {
                case nil: break
                case .integer(let number)? where number >= 0: deferrals = number
                default: fail(path("deferralsUsed"), "invalid_deferrals")
                }
                if let app, !BundleID.isWellFormed(app) { fail(path("app"), "invalid_app") }
                // Against the names before it, one by one: a check-in has a few apps (at most `maxApps`), and
                // hashing each name into a set cost more than comparing it.
                if let app {
                    if names.contains(app) { fail(path("app"), "duplicate_app") }
                    names.append(app)
                }
                let configETag = string(entry["configETag"], path("configETag"), code: "invalid_config_etag")
                if (configETag?.utf8.count ?? 0) > 256 { fail(path("configETag"), "invalid_config_etag") }
                let configError = string(entry["configError"], path("configError"), code: "invalid_config_error")
                if (configError?.utf8.count ?? 0) > 4096 { fail(path("configError"), "invalid_config_error") }
                apps.append(
                    App(
                        app: app ?? "", version: version ?? "",
                        build: string(entry["build"], path("build"), code: "invalid_build"),
                        channel: string(entry["channel"], path("channel"), code: "invalid_channel"),
                        configETag: configETag, configError: configError, deferralsUsed: deferrals,
                        ddm: stored ? ddm(entry["ddm"], path("ddm")) : nil))
            }
            return apps
        }

        /// A stored app's `ddm` states.
        mutating func ddm(_ node: PlistNode?, _ path: String) -> DDMAppState? {
            guard let node else { return nil }
            guard case .dictionary(let states) = node.value else {
                fail(path, "invalid_ddm")
                return nil
            }
            return DDMAppState(
                state: string(states["state"], "\(path).state", code: "invalid_ddm"),
                configState: string(states["configState"], "\(path).configState", code: "invalid_ddm"))
        }

        /// Which fields the update-request grammar refuses: the top-level fields once (with a probe app), then each
        /// app's own fields (with the top-level ones left out), each reason said once.
        mutating func probe(_ checkIn: CheckIn, platformSent: Bool) {
            let failed = Set(reasons.map(\.field))
            if case .failure(let errors) = checkIn.updateRequest(for: App(app: "probe", version: "1")) {
                for code in errors.reasons {
                    guard let field = CheckIn.field(ofReason: code), !failed.contains(field) else { continue }
                    if field == "platform", !platformSent { continue }
                    fail(field, code)
                }
            }
            let topFields: Set<String> = ["platform", "osVersion", "deviceModel", "locale", "timeZone", "enrolledAt"]
            var probeCheckIn = checkIn
            probeCheckIn.platform = "ios"
            probeCheckIn.osVersion = nil
            probeCheckIn.deviceModel = nil
            probeCheckIn.locale = nil
            probeCheckIn.timeZone = nil
            probeCheckIn.enrolledAt = nil
            for (index, app) in checkIn.apps.enumerated() where !app.app.isEmpty && !app.version.isEmpty {
                guard case .failure(let errors) = probeCheckIn.updateRequest(for: app) else { continue }
                for code in errors.reasons {
                    guard let field = CheckIn.field(ofReason: code), !topFields.contains(field) else { continue }
                    let path = "apps[\(index)].\(field)"
                    if !failed.contains(path) { fail(path, code) }
                }
            }
        }
    }

    /// The request field a reason code of `UpdateRequest.parse` names (`invalid_os_version` → `osVersion`).
    static func field(ofReason code: String) -> String? {
        switch code {
        case "invalid_deferrals": return "deferralsUsed"
        case "unknown_field": return nil
        default:
            guard code.hasPrefix("invalid_") else { return nil }
            let snake = code.dropFirst("invalid_".count)
            var field = ""
            var upper = false
            for character in snake {
                if character == "_" {
                    upper = true
                } else {
                    field += upper ? character.uppercased() : String(character)
                    upper = false
                }
            }
            return field == "deviceId" ? "device" : field
        }
    }

    /// RFC 3339 with `Z` or an offset.
    static func instant(_ text: String) -> Instant? {
        guard let value = PolicyDateTime(text), case .absolute(let instant) = value.kind else { return nil }
        return instant
    }
}
